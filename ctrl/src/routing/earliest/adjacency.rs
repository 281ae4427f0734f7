//! The circuits the engine searches: every `(uplink, next ToR)` of every
//! `(slice, ToR)`, and reverse lists of who reaches a ToR in a slice, in
//! flat (CSR) arrays; all circuits, or only those that stay up into the
//! next slice (Opera's stable ones).

use crate::schedule::Schedule;
use crate::{PortId, SliceId, TorId};

/// Every `(uplink, next ToR)` of every `(slice, ToR)` in CSR form, ports
/// ascending then ToRs ascending (the tie-break order).
#[derive(Clone, Debug)]
pub struct Adjacency {
    pub(super) tors: usize,
    pub(super) start: Vec<u32>,
    pub(super) port: Vec<PortId>,
    pub(super) next: Vec<TorId>,
    /// Reverse lists: ToRs with a circuit into `y` in a slice.
    pub(super) rstart: Vec<u32>,
    pub(super) rfrom: Vec<TorId>,
}

impl Adjacency {
    /// Every circuit of every slice.
    pub fn new(s: &Schedule) -> Self {
        Self::build(s, false)
    }

    /// Only the circuits of a slice that stay up, to the same ToR, in the
    /// next slice: Opera's low-latency paths in a slice avoid the rotor
    /// that reconfigures at its end (Opera, NSDI'20, §4: each slice's
    /// expander is the u-1 rotors that stay up), so a packet late by less
    /// than a slice still finds each of its circuits.
    pub fn stable(s: &Schedule) -> Self {
        Self::build(s, true)
    }

    pub(super) fn build(s: &Schedule, stable: bool) -> Self {
        let (n, slices) = (s.tors(), s.slices());
        let mut a = Adjacency {
            tors: n,
            start: Vec::with_capacity(n * slices + 1),
            port: Vec::new(),
            next: Vec::new(),
            rstart: Vec::with_capacity(n * slices + 1),
            rfrom: Vec::new(),
        };
        a.start.push(0);
        a.rstart.push(0);
        let mut into: Vec<Vec<TorId>> = vec![Vec::new(); n];
        let mut then: Vec<(PortId, TorId)> = Vec::new();
        for ts in 0..slices {
            for x in 0..n {
                if stable {
                    then.clear();
                    s.for_each_link(x as TorId, ((ts + 1) % slices) as SliceId, |p, y| {
                        then.push((p, y))
                    });
                }
                s.for_each_link(x as TorId, ts as SliceId, |p, y| {
                    if stable && !then.contains(&(p, y)) {
                        return;
                    }
                    a.port.push(p);
                    a.next.push(y);
                    if into[y as usize].last() != Some(&(x as TorId)) {
                        into[y as usize].push(x as TorId);
                    }
                });
                a.start.push(a.port.len() as u32);
            }
            for v in &mut into {
                a.rfrom.append(v);
                a.rstart.push(a.rfrom.len() as u32);
            }
        }
        a
    }

    #[inline]
    pub(super) fn rrange(&self, slice: usize, y: usize) -> std::ops::Range<usize> {
        let i = slice * self.tors + y;
        self.rstart[i] as usize..self.rstart[i + 1] as usize
    }

    #[inline]
    pub(super) fn range(&self, slice: usize, x: usize) -> std::ops::Range<usize> {
        let i = slice * self.tors + x;
        self.start[i] as usize..self.start[i + 1] as usize
    }
}
