//! The dense layout of a ToR's flat table: the sizes of one (ToR, dst)
//! block's match space ([`Dims`]), a step packed into a cell, and a slot's
//! slice. Building the tables ([`super::build`]), their alternates
//! ([`super::alternates`]) and walking them ([`super::walk`]) all read it.

use super::model::*;
use crate::config::Lookup;
use crate::config::Multipath;
use crate::routing::Hop;
use crate::schedule::Schedule;
use crate::{PortId, SliceId, Slot, TorId};

/// Sizes of the dense match space of one (ToR, dst) block.
pub(super) struct Dims {
    pub(super) tors: usize,
    pub(super) slices: usize,
    /// Arrival index: 0 wildcard, `1 + slice` otherwise.
    pub(super) arrivals: usize,
    /// Classes present, in `Match` order (`None` first).
    pub(super) classes: Vec<Option<u8>>,
    /// `class_idx[0]` for `None`, `[1 + c]` for `Some(c)`.
    pub(super) class_idx: [u16; 257],
    /// Hash buckets (1 without multipath, whose bucket is `None`).
    pub(super) buckets: usize,
    pub(super) bucketed: bool,
    /// Ingress cells per key: Host and Fabric (per hop), Host (source).
    pub(super) ingress: usize,
    /// (class, bucket) of each class-bucket index.
    pub(super) keys: Vec<(Option<u8>, Option<u8>)>,
}

impl Dims {
    pub(super) fn new(
        s: &Schedule,
        lookup: Lookup,
        multipath: Multipath,
        buckets: u8,
        class_seen: &[bool; 257],
    ) -> Dims {
        let mut classes = Vec::new();
        let mut class_idx = [0u16; 257];
        for (k, _) in class_seen.iter().enumerate().filter(|(_, s)| **s) {
            class_idx[k] = classes.len() as u16;
            classes.push(k.checked_sub(1).map(|c| c as u8));
        }
        if classes.is_empty() {
            classes.push(None);
        }
        let bucketed = multipath != Multipath::None;
        let nb = if bucketed { buckets as usize } else { 1 };
        let keys = classes
            .iter()
            .flat_map(|&c| (0..nb).map(move |b| (c, bucketed.then_some(b as u8))))
            .collect();
        Dims {
            tors: s.tors(),
            slices: s.slices(),
            arrivals: s.slices() + 1,
            classes,
            class_idx,
            buckets: if bucketed { buckets as usize } else { 1 },
            bucketed,
            ingress: if lookup == Lookup::Hop { 2 } else { 1 },
            keys,
        }
    }

    pub(super) fn class(&self, c: Option<u8>) -> usize {
        self.class_idx[c.map_or(0, |c| c as usize + 1)] as usize
    }

    pub(super) fn arrival(a: Option<SliceId>) -> usize {
        a.map_or(0, |a| a as usize + 1)
    }

    /// Keys (class, bucket) per arrival.
    pub(super) fn cb(&self) -> usize {
        self.classes.len() * self.buckets
    }

    pub(super) fn block_cells(&self) -> usize {
        self.arrivals * self.cb() * self.ingress
    }

    /// Cell of a match inside its (ToR, dst) block; `ing` 0 Host, 1 Fabric.
    pub(super) fn cell(
        &self,
        arrival: Option<SliceId>,
        class: usize,
        bucket: Option<u8>,
        ing: usize,
    ) -> u32 {
        let cb = class * self.buckets + bucket.map_or(0, |b| b as usize);
        ((Self::arrival(arrival) * self.cb() + cb) * self.ingress + ing) as u32
    }

    /// The match of a cell (inverse of [`Dims::cell`]).
    pub(super) fn match_of(&self, dst: TorId, cell: u32) -> Match {
        let cell = cell as usize;
        let ing = cell % self.ingress;
        let rest = cell / self.ingress;
        let (ai, cb) = (rest / self.cb(), rest % self.cb());
        Match {
            dst,
            arrival: ai.checked_sub(1).map(|a| a as SliceId),
            ingress: if ing == 0 {
                Ingress::Host
            } else {
                Ingress::Fabric
            },
            class: self.classes[cb / self.buckets],
            bucket: self.bucketed.then_some((cb % self.buckets) as u8),
        }
    }

    pub(super) fn step(&self, h: &Hop) -> Step {
        Step {
            port: h.port,
            depart: h.depart.map(|d| slot_slice(d, self.slices)),
        }
    }
}

/// A step packed into a non-zero `u32` (0: empty cell).
pub(super) fn enc(st: Step) -> u32 {
    1 << 31 | (st.port as u32) << 17 | st.depart.map_or(0, |d| d as u32 + 1)
}

pub(super) fn dec(v: u32) -> Step {
    let d = v & 0x1_ffff;
    Step {
        port: (v >> 17) as PortId,
        depart: d.checked_sub(1).map(|d| d as SliceId),
    }
}

/// `t mod s`, cheap when `t` is within the first two cycles (the usual case).
#[inline]
pub(super) fn slot_slice(t: Slot, s: usize) -> SliceId {
    let (t, s) = (t as usize, s);
    (if t < s {
        t
    } else if t < 2 * s {
        t - s
    } else {
        t % s
    }) as SliceId
}
