//! Routing API (paper Table 1 and Table 5): paths from every source ToR to
//! every destination ToR for every arrival slice, over the time-expanded
//! graph of a [`Schedule`].
//!
//! A packet at ToR `x` in slot `t` may take any circuit up in slice `t % S`
//! or wait at `x` for slot `t + 1`. RotorNet-style routing takes one hop per
//! slot (the next hop leaves in a later slot); Opera-style routing
//! (`same_slice_hops`) may take several hops inside one slot.

pub mod direct;
pub mod earliest;
pub mod hoho;
pub mod opera;
pub mod static_routes;
pub mod ucmp;
pub mod vlb;

use crate::schedule::Schedule;
use crate::{PortId, SliceId, Slot, TorId};
use serde::{Deserialize, Serialize};

/// One hop: leave `tor` on uplink `port` in absolute slot `depart`
/// (`None`: wildcard, leave at once; TA and static fabrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hop {
    pub tor: TorId,
    pub port: PortId,
    pub depart: Option<Slot>,
}

/// A path from `src` to `dst` for packets arriving at `src` in slice
/// `arrival` (`None`: any slice). Slots count from the arrival's cycle, so
/// `hops[i].depart >= arrival` and departures never decrease.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Path {
    pub src: TorId,
    pub dst: TorId,
    pub arrival: Option<SliceId>,
    pub hops: Vec<Hop>,
    /// Flow-size class this path serves (UCMP, Opera); `None`: every class.
    pub class: Option<u8>,
}

impl Path {
    /// Slot in which the last hop leaves (the packet reaches `dst` in it).
    pub fn delivered(&self) -> Option<Slot> {
        self.hops.last().and_then(|h| h.depart)
    }
    /// Latency in slots from arrival to the last departure (0 when the
    /// packet leaves in its arrival slice).
    pub fn latency_slots(&self) -> Option<Slot> {
        Some(self.delivered()? - self.arrival? as Slot)
    }
}

/// The ToRs visited by a path, source first.
pub fn tors_of(p: &Path, s: &Schedule) -> Vec<TorId> {
    let mut v = vec![p.src];
    let mut cur = p.src;
    for h in &p.hops {
        let ts = h
            .depart
            .map(|d| (d as usize % s.slices()) as SliceId)
            .unwrap_or(0);
        let next = match s.kind() {
            crate::schedule::LinkKind::Optical => s
                .peer(ts, crate::schedule::Endpoint::new(cur, h.port))
                .map(|e| e.tor),
            crate::schedule::LinkKind::Electrical => None,
        };
        cur = next.unwrap_or(p.dst);
        v.push(cur);
    }
    v
}

/// UCMP's per-class flow-size thresholds in bytes: class `i` serves flows
/// whose size is at least `thresholds[i]` (thresholds ascending, first 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassThresholds {
    pub thresholds: Vec<u64>,
}

/// The output of `routing()`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteSet {
    pub paths: Vec<Path>,
    /// Present when paths carry classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassThresholds>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RoutingError {
    #[error("no path from ToR {src} to ToR {dst} for arrival slice {ts} within {max_hop} hops")]
    NoPath {
        src: TorId,
        dst: TorId,
        ts: SliceId,
        max_hop: u8,
    },
    #[error("{0}")]
    Unsupported(String),
}

/// Knobs shared by the routing algorithms (from config `routing`).
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingOptions {
    pub max_hop: Option<u8>,
    pub same_slice_hops: bool,
    /// Paths per pair for multipath / k-shortest.
    pub k: u8,
    pub seed: u64,
    /// Link rate in bytes per slice of usable time (UCMP thresholds).
    pub bytes_per_slice: u64,
}

impl Default for RoutingOptions {
    fn default() -> Self {
        RoutingOptions {
            max_hop: None,
            same_slice_hops: false,
            k: 4,
            seed: 1,
            bytes_per_slice: 1,
        }
    }
}

/// The paper's abstract `routing()`.
pub trait Router {
    fn routes(&self, s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError>;
}

pub use earliest::earliest_path;
