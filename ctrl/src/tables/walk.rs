//! Following tables as the data plane would ([`walk`]), and the check that
//! a path is something tables can express ([`check_path`]).

use super::dims::slot_slice;
use super::model::*;
use crate::routing::{Hop, Path, PathRef};
use crate::schedule::{Endpoint, Schedule};
use crate::{SliceId, Slot, TorId};
use std::collections::HashSet;

/// Checks that a path is something tables can express: hops chain from
/// `src` over real circuits to `dst`, departures never go back in time and
/// no single wait reaches a full cycle (the calendar queue rank is taken
/// mod S, so such a wait would leave a cycle early). `entries` refuses
/// paths that fail it; tests use it as the oracle's rule.
pub fn check_path<'a>(s: &Schedule, p: impl Into<PathRef<'a>>) -> Result<(), TableError> {
    let p = p.into();
    let bad = |msg: String| {
        TableError::Invalid(format!(
            "path {}->{} (arrival {:?}): {msg}",
            p.src, p.dst, p.arrival
        ))
    };
    let n = s.tors();
    let slices = s.slices();
    if p.src as usize >= n || p.dst as usize >= n {
        return Err(bad(format!("ToR out of range ({n} ToRs)")));
    }
    if p.src == p.dst {
        return Err(bad("source equals destination".into()));
    }
    if p.hops.is_empty() {
        return Err(bad("no hops".into()));
    }
    if p.hops[0].tor != p.src {
        return Err(bad(format!("first hop leaves ToR {}", p.hops[0].tor)));
    }
    if let Some(a) = p.arrival
        && a as usize >= slices
    {
        return Err(bad(format!("arrival slice out of range ({slices} slices)")));
    }
    let mut slot: Option<Slot> = p.arrival.map(Slot::from);
    for (i, h) in p.hops.iter().enumerate() {
        if h.port as usize >= s.uplinks() {
            return Err(bad(format!("hop {i}: no uplink {}", h.port)));
        }
        match (slot, h.depart) {
            (None, Some(_)) => {
                return Err(bad(format!(
                    "hop {i}: timed departure on a wildcard-arrival path"
                )));
            }
            (Some(t), Some(d)) => {
                if d < t {
                    return Err(bad(format!("hop {i} departs in slot {d} before slot {t}")));
                }
                if (d - t) as usize >= slices && slices > 1 {
                    return Err(bad(format!(
                        "hop {i} waits {} slots at ToR {}: a calendar queue holds at most {} \
                         (one cycle)",
                        d - t,
                        h.tor,
                        slices - 1
                    )));
                }
                slot = Some(d);
            }
            _ => {}
        }
        let next = p.hops.get(i + 1).map(|h| h.tor).unwrap_or(p.dst);
        if s.is_electrical(h.port) {
            if next == h.tor {
                return Err(bad(format!("hop {i}: next ToR equals current")));
            }
        } else {
            // A wildcard hop on a multi-slice schedule has no fixed
            // circuit to check.
            let ts = match slot {
                Some(t) => slot_slice(t, slices),
                None if slices == 1 => 0,
                None => continue,
            };
            let peer = s.peer(ts, Endpoint::new(h.tor, h.port)).map(|e| e.tor);
            if peer != Some(next) {
                return Err(bad(format!(
                    "hop {i}: ToR {} port {} reaches {peer:?} in slice {ts}, not ToR {next}",
                    h.tor, h.port
                )));
            }
        }
    }
    Ok(())
}

/// An entry [`TableView::find`] found: its match, its action and its
/// alternates, best first.
pub type Found<'a> = Option<(Match, ActionRef<'a>, Vec<ActionRef<'a>>)>;

/// What [`walk`] needs from tables: the slice count and the entry a packet
/// hits. Both forms implement it.
pub trait TableView {
    /// Slices per cycle of the tables (1: wildcard arrivals only).
    fn slices(&self) -> usize;
    /// The entry at `tor` for a packet with these fields.
    fn find(&self, tor: TorId, key: &Match) -> Result<Found<'_>, TableError>;
}

impl TableView for Tables {
    fn slices(&self) -> usize {
        self.slices
    }
    fn find(&self, tor: TorId, key: &Match) -> Result<Found<'_>, TableError> {
        Ok(self.lookup(tor, key)?.map(|e| {
            let alts = e.alternates.iter().map(ActionRef::from).collect();
            (e.m, ActionRef::from(&e.action), alts)
        }))
    }
}

impl TableView for FlatTables {
    fn slices(&self) -> usize {
        self.slices
    }
    fn find(&self, tor: TorId, key: &Match) -> Result<Found<'_>, TableError> {
        Ok(self
            .lookup(tor, key)?
            .map(|e| (e.m, e.action, e.alternates().collect())))
    }
}

/// Follows the tables as the data plane would, from `src` for a packet
/// arriving in slice `arrival`: returns the hops taken. Used by tests to
/// prove tables reproduce compiled paths, and by `lighthouse show`.
///
/// Slots are reconstructed from ranks: a step leaving in slice `d` for a
/// packet that arrived in slice `a` at slot `t` leaves in slot
/// `t + (d - a) mod S`; the next ToR sees the packet in slice `d`.
pub fn walk(
    t: &impl TableView,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
) -> Result<Path, TableError> {
    walk_impl(t, s, src, dst, arrival, class, bucket, None)
}

/// Like [`walk`], but the source ToR takes its entry's alternate number
/// `alt` (0: the best) instead of the primary, as slice-miss rerouting
/// does when the primary calendar queue is full.
#[allow(clippy::too_many_arguments)]
pub fn walk_alternate(
    t: &impl TableView,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
    alt: usize,
) -> Result<Path, TableError> {
    walk_impl(t, s, src, dst, arrival, class, bucket, Some(alt))
}

#[allow(clippy::too_many_arguments)]
fn walk_impl(
    t: &impl TableView,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
    alt: Option<usize>,
) -> Result<Path, TableError> {
    let slices = t.slices().max(1);
    for tor in [src, dst] {
        if tor as usize >= s.tors() {
            return Err(TableError::Invalid(format!(
                "ToR {tor} out of range ({} ToRs)",
                s.tors()
            )));
        }
    }
    let mut cur = src;
    let mut slice = arrival.map(|a| (a as usize % slices) as SliceId);
    let mut slot: Option<Slot> = arrival.map(Slot::from);
    let mut ingress = Ingress::Host;
    // Source-route header still to execute (None: no header).
    let mut header: Option<std::collections::VecDeque<Step>> = None;
    let mut seen: HashSet<(TorId, Option<SliceId>, Ingress)> = HashSet::new();
    let mut hops = Vec::new();
    while cur != dst {
        let step = match header.as_mut() {
            Some(h) => h.pop_front().ok_or_else(|| {
                TableError::Invalid(format!(
                    "source route to ToR {dst} ends at ToR {cur} before the destination"
                ))
            })?,
            None => {
                if !seen.insert((cur, slice, ingress)) {
                    return Err(TableError::Loop {
                        src,
                        dst,
                        tor: cur,
                        slice,
                    });
                }
                let key = Match {
                    dst,
                    arrival: slice,
                    ingress,
                    class,
                    bucket,
                };
                let (em, primary, alternates) = t
                    .find(cur, &key)?
                    .ok_or(TableError::NoEntry { tor: cur, m: key })?;
                let action = match alt {
                    Some(i) if hops.is_empty() => *alternates.get(i).ok_or_else(|| {
                        TableError::Invalid(format!(
                            "ToR {cur}: entry {em:?} has {} alternates, not {}",
                            alternates.len(),
                            i + 1
                        ))
                    })?,
                    _ => primary,
                };
                if action.steps.is_empty() {
                    return Err(TableError::Invalid(format!(
                        "ToR {cur}: empty {} in {em:?}",
                        if action.source {
                            "source route"
                        } else {
                            "action"
                        }
                    )));
                }
                if action.source {
                    header = Some(action.steps[1..].iter().copied().collect());
                }
                action.first()
            }
        };
        let depart = match step.depart {
            Some(d) => {
                let a = slice.ok_or_else(|| {
                    TableError::Invalid(format!(
                        "ToR {cur}: timed step {step:?} for a packet without arrival slice"
                    ))
                })?;
                let at = slot.unwrap_or(0) + rank(a, Some(d), slices) as Slot;
                slot = Some(at);
                slice = Some((d as usize % slices) as SliceId);
                Some(at)
            }
            None => None,
        };
        hops.push(Hop {
            tor: cur,
            port: step.port,
            depart,
        });
        let ts = slice.unwrap_or(0);
        let next =
            s.next_tor(ts, Endpoint::new(cur, step.port), dst)
                .ok_or(TableError::NoCircuit {
                    tor: cur,
                    port: step.port,
                    slice: ts,
                })?;
        if hops.len() > s.tors() * slices + 1 {
            return Err(TableError::Loop {
                src,
                dst,
                tor: cur,
                slice,
            });
        }
        cur = next;
        ingress = Ingress::Fabric;
    }
    if let Some(h) = header
        && !h.is_empty()
    {
        return Err(TableError::Invalid(format!(
            "source route to ToR {dst} has {} steps left at the destination",
            h.len()
        )));
    }
    Ok(Path {
        src,
        dst,
        arrival,
        hops,
        class,
    })
}

impl<T: TableView + ?Sized> TableView for std::sync::Arc<T> {
    fn slices(&self) -> usize {
        (**self).slices()
    }
    fn find(&self, tor: TorId, key: &Match) -> Result<Found<'_>, TableError> {
        (**self).find(tor, key)
    }
}
