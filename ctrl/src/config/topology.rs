//! `topology`: which schedule of circuits (or fixed graph) the fabric
//! runs, and its `kind` tag. The hand-written deserializer, which keeps
//! the path of an error inside a topology object, is in `de.rs`.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Deserialized by hand (`config/de.rs`): serde's internally tagged enums
/// accept unknown fields in unit variants and lose the path of inner errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// RotorNet / Sirius: circle-method perfect matchings, N-1 per cycle.
    RoundRobin,
    /// Opera: N/u matchings per rotor, rotors offset so that exactly one
    /// reconfigures in each slice, every slice graph connected.
    Opera {
        #[serde(default)]
        seed: Option<u64>,
    },
    /// Shale: N = n^h, h(n-1) directed cyclic-shift slots per epoch.
    Shale { h: u32 },
    /// A fixed topology (Clos and TA base topologies).
    Static { graph: StaticGraph },
    /// TA: computed from a traffic matrix by `ta.scheduler`.
    TrafficAware,
    /// An explicit schedule file (see docs/config.md#schedule-files).
    File { path: PathBuf },
    /// A k-ary Fat-Tree (fabric `fattree`): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)² cores, k³/4 hosts.
    FatTree { k: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaticGraph {
    /// Uplink p of ToR t connects to ToR t ± (p/2+1) (a ring / circulant).
    Ring,
    /// Every ToR reaches every ToR (electrical fabric only).
    Full,
}

impl Topology {
    /// The `kind` tag as written in config.json.
    pub fn kind(&self) -> TopologyKind {
        match self {
            Topology::RoundRobin => TopologyKind::RoundRobin,
            Topology::Opera { .. } => TopologyKind::Opera,
            Topology::Shale { .. } => TopologyKind::Shale,
            Topology::Static { .. } => TopologyKind::Static,
            Topology::TrafficAware => TopologyKind::TrafficAware,
            Topology::File { .. } => TopologyKind::File,
            Topology::FatTree { .. } => TopologyKind::FatTree,
        }
    }
}

/// The `kind` tag of a topology object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    RoundRobin,
    Opera,
    Shale,
    Static,
    TrafficAware,
    File,
    FatTree,
}

impl TopologyKind {
    pub fn name(self) -> &'static str {
        match self {
            TopologyKind::RoundRobin => "round_robin",
            TopologyKind::Opera => "opera",
            TopologyKind::Shale => "shale",
            TopologyKind::Static => "static",
            TopologyKind::TrafficAware => "traffic_aware",
            TopologyKind::File => "file",
            TopologyKind::FatTree => "fat_tree",
        }
    }
    /// Fields (besides `kind`) that this kind takes, and whether each is required.
    pub fn fields(self) -> &'static [(&'static str, bool)] {
        match self {
            TopologyKind::RoundRobin | TopologyKind::TrafficAware => &[],
            TopologyKind::Opera => &[("seed", false)],
            TopologyKind::Shale => &[("h", true)],
            TopologyKind::Static => &[("graph", true)],
            TopologyKind::File => &[("path", true)],
            TopologyKind::FatTree => &[("k", true)],
        }
    }
}
