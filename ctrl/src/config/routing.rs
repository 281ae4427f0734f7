//! `routing`: the algorithm and how it looks up and spreads paths, with
//! its knobs (hop budget, seed, bulk class, fat-tree failure detection
//! and Hedera's interval) and their defaults.

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Direct,
    Vlb,
    Opera,
    Ucmp,
    Hoho,
    ShortestPath,
    Ecmp,
    Ksp,
    /// Fat-Tree: random next hop per packet (random packet spraying).
    Rps,
    /// Fat-Tree: the source edge switch writes a source route, paths
    /// round-robin per packet (SOPA).
    Sopa,
    /// Fat-Tree: ECMP, plus a central scheduler that places elephant flows
    /// on measured demand with global first fit every
    /// `routing.hedera_interval` (Hedera).
    Hedera,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// Per-hop lookup: each ToR matches (dst, arrival slice).
    #[default]
    Hop,
    /// Source routing: the first ToR writes the whole hop list.
    Source,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Multipath {
    #[default]
    None,
    Packet,
    Flow,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    pub algorithm: Algorithm,
    #[serde(default)]
    pub lookup: Lookup,
    #[serde(default)]
    pub multipath: Multipath,
    /// Hop budget for earliest-path searches (default: algorithm's own).
    #[serde(default)]
    pub max_hop: Option<u8>,
    /// Allow several hops inside one slice (Opera style). Default: false for
    /// RotorNet-style algorithms, true for `opera`.
    #[serde(default)]
    pub same_slice_hops: Option<bool>,
    /// k for `ksp`; number of hash buckets for multipath (default 4).
    #[serde(default)]
    pub k: Option<u8>,
    /// Seed for randomised choices (VLB intermediates, RPS next hops).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Fat-Tree: how long after a link fails the paths over it are
    /// withdrawn (until then its frames are dropped as `link_down`).
    /// Default [`DEFAULT_FAILURE_DETECTION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_detection: Option<Nanos>,
    /// Hedera: how often the scheduler measures flows and places the
    /// elephants. Default [`DEFAULT_HEDERA_INTERVAL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hedera_interval: Option<Nanos>,
    /// Opera: flows of at least this many bytes are bulk (the direct
    /// path). Default: one cycle of one uplink (`routing::opera::bulk_threshold`);
    /// the Opera authors ran 15 MB and 30 MB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_threshold: Option<u64>,
    /// Opera: how bulk flows cross the fabric (`direct`: wait for the
    /// direct circuit; `rotorlb`: RotorLB, direct circuits plus two-hop
    /// indirection through spare capacity). Default direct.
    #[serde(default, skip_serializing_if = "BulkTransport::is_default")]
    pub bulk: BulkTransport,
}

/// `routing.bulk`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BulkTransport {
    /// Each bulk frame waits at its ToR for the direct circuit to its
    /// destination ToR (a calendar queue).
    #[default]
    Direct,
    /// RotorLB (RotorNet §4.2, Opera §3.4): per-destination queues at the
    /// ToR; in each slice a circuit carries relayed traffic for its peer,
    /// then direct traffic, then, with the capacity left, traffic for other
    /// ToRs that the peer has room to deliver (two hops at most).
    Rotorlb,
}

impl BulkTransport {
    fn is_default(&self) -> bool {
        *self == BulkTransport::Direct
    }
}

/// Default `routing.hedera_interval`.
pub const DEFAULT_HEDERA_INTERVAL: Nanos = Nanos(100_000_000);

/// Default `routing.failure_detection`.
pub const DEFAULT_FAILURE_DETECTION: Nanos = Nanos(1_000_000);
