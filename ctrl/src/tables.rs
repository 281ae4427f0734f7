//! `entries(paths, lookup, multipath)`: paths → per-ToR time-flow tables
//! (paper §4, Fig. 4 and 5c). Wire and file format: docs/tables.md.
//!
//! Match: destination ToR, arrival slice (or wildcard), where the packet came
//! from (a host port or the fabric), flow-size class and hash bucket (both
//! optional). Action: (uplink, departure slice) for per-hop lookup, or the
//! whole hop list for source routing; plus ordered alternates for later
//! slice-miss rerouting (§6.3, recirculation-free: all in one entry).
//! Packets for the ToR's own hosts are delivered without a table lookup.

use crate::config::{Lookup, Multipath};
use crate::routing::{ClassThresholds, Path, RouteSet};
use crate::schedule::Schedule;
use crate::{PortId, SliceId, TorId};
use serde::{Deserialize, Serialize};

/// Where a packet entered the ToR. Per-hop routes that treat a ToR's own
/// traffic differently from transit traffic (VLB) need this in the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ingress {
    Any,
    Host,
    Fabric,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Match {
    pub dst: TorId,
    /// `None`: any arrival slice (TA, static).
    pub arrival: Option<SliceId>,
    pub ingress: Ingress,
    /// `None`: every flow-size class.
    pub class: Option<u8>,
    /// `None`: every hash bucket (no multipath).
    pub bucket: Option<u8>,
}

/// One hop's instruction: leave on `port` in slice `depart` (`None`: now).
/// The calendar-queue rank is `(depart - arrival) mod S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub port: PortId,
    pub depart: Option<SliceId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Per-hop: send on this step; the next ToR looks up again.
    Hop(Step),
    /// Source routing: this ToR takes `steps[0]` and writes the rest into
    /// the packet's source-route header (docs/wire-formats.md).
    Source(Vec<Step>),
}

impl Action {
    /// The step this ToR executes.
    pub fn first(&self) -> Step {
        match self {
            Action::Hop(s) => *s,
            Action::Source(v) => v[0],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(rename = "match")]
    pub m: Match,
    pub action: Action,
    /// Next-best actions for later slices, best first, used when the
    /// primary calendar queue is full (slice-miss rerouting).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<Action>,
}

/// One ToR's time-flow table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeFlowTable {
    pub tor: TorId,
    pub entries: Vec<Entry>,
}

/// Every ToR's table plus what the data plane needs to interpret them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    /// Slices per cycle (1 when every arrival is a wildcard).
    pub slices: usize,
    pub lookup: Lookup,
    pub multipath: Multipath,
    /// Hash buckets when `multipath` is not `none` (else 1).
    pub buckets: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassThresholds>,
    pub tors: Vec<TimeFlowTable>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    /// Two paths ask one ToR for different actions on the same match; per-hop
    /// lookup cannot express them (use `lookup: source`).
    #[error("per-hop conflict at ToR {tor} for {m:?}: {a:?} vs {b:?}; use \"lookup\": \"source\"")]
    Conflict {
        tor: TorId,
        m: Match,
        a: Action,
        b: Action,
    },
    #[error("{0}")]
    Invalid(String),
}

/// The paper's `entries([path], LOOKUP, MULTIPATH)`.
pub fn entries(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
) -> Result<Tables, TableError> {
    let _ = (s, routes, lookup, multipath, buckets);
    todo!("entries")
}

/// Follows the tables as the data plane would, from `src` for a packet
/// arriving in slice `arrival`: returns the hops taken. Used by tests to
/// prove tables reproduce compiled paths, and by `lighthouse show`.
pub fn walk(
    t: &Tables,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
) -> Result<Path, TableError> {
    let _ = (t, s, src, dst, arrival, class, bucket);
    todo!("walk")
}
