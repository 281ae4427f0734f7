//! config.json: the physical DCN and the choices of topology, routing and
//! monitoring (paper §3). Reference: docs/config.md, schema: docs/config.schema.json.
//!
//! Parsing rejects unknown fields, and every error names the JSON path of the
//! offending field (`$.tors.uplinks`) and what was expected.

use crate::units::{BitsPerSec, Nanos};
use crate::{PortId, TorId};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    /// A syntax or type error, or an unknown field.
    #[error("{file}: at {path}: {msg}")]
    Parse {
        file: String,
        path: String,
        msg: String,
    },
    /// A semantic error found after parsing.
    #[error("{file}: at {path}: {msg}")]
    Invalid {
        file: String,
        path: String,
        msg: String,
    },
}

impl ConfigError {
    /// The JSON path the error is about (`$` for the whole document).
    pub fn json_path(&self) -> &str {
        match self {
            ConfigError::Io { .. } => "$",
            ConfigError::Parse { path, .. } | ConfigError::Invalid { path, .. } => path,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Traffic-oblivious: a fixed cyclic schedule of time slices.
    TO,
    /// Traffic-aware: topologies computed from a traffic matrix, changed every
    /// `ta.update_interval`; tables use wildcard slices.
    TA,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FabricKind {
    /// ToRs meet through OCSes.
    #[default]
    Optical,
    /// ToRs meet through electrical packet switches (Clos baseline): uplink
    /// `p` of every ToR goes to spine `p`, which reaches every ToR.
    Electrical,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free text used in summaries and as the default run label.
    #[serde(default)]
    pub name: Option<String>,
    pub mode: Mode,
    #[serde(default)]
    pub fabric: FabricKind,
    pub tors: Tors,
    /// Absent for an electrical fabric.
    #[serde(default)]
    pub ocs: Option<Ocs>,
    pub slice: SliceTiming,
    pub topology: Topology,
    pub routing: Routing,
    #[serde(default)]
    pub monitoring: Vec<Monitor>,
    /// Required when `mode` is TA.
    #[serde(default)]
    pub ta: Option<TaSettings>,
    /// Directory the config was read from; relative file names resolve here.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tors {
    pub count: u16,
    /// Optical (or spine) uplinks per ToR.
    pub uplinks: u8,
    pub link_rate: BitsPerSec,
    pub hosts_per_tor: u16,
    pub host_link_rate: BitsPerSec,
    /// Bytes of buffer per calendar queue before a packet counts as a slice
    /// miss (queue full). Default: one slice's worth of bytes.
    #[serde(default)]
    pub queue_capacity: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ocs {
    pub count: u16,
    /// Ports per OCS.
    pub ports: u16,
    pub reconfiguration_delay: Nanos,
    /// `"auto"`: uplink `p` of ToR `t` goes to OCS `p % count`, port
    /// `t + (p / count) * tors`; or an explicit list.
    pub cabling: Cabling,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cabling {
    Auto(AutoCabling),
    Explicit(Vec<Cable>),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoCabling {
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cable {
    pub tor: TorId,
    pub port: PortId,
    pub ocs: u16,
    pub ocs_port: u16,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SliceTiming {
    /// Slice duration (TO). In TA mode the topology holds for
    /// `ta.update_interval` instead, and this is the data-plane tick.
    pub duration: Nanos,
    /// Dead time at the start of a slice on a circuit that changed.
    pub guardband: Nanos,
    /// One-way propagation delay per fabric link (emulated in software).
    #[serde(default)]
    pub propagation: Nanos,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaticGraph {
    /// Uplink p of ToR t connects to ToR t ± (p/2+1) (a ring / circulant).
    Ring,
    /// Every ToR reaches every ToR (electrical fabric only).
    Full,
}

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
    /// Seed for randomised choices (VLB intermediates).
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    BufferUsage,
    BwUsage,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Monitor {
    pub metric: Metric,
    /// A ToR index; absent means every ToR.
    #[serde(default)]
    pub tor: Option<TorId>,
    /// An uplink index; absent means every port.
    #[serde(default)]
    pub port: Option<PortId>,
    pub interval: Nanos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    Bvn,
    Hotspot,
    Mip,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaSettings {
    pub update_interval: Nanos,
    pub scheduler: Scheduler,
    /// ToR-level traffic matrix in bytes: inline rows, or a file name.
    pub traffic_matrix: TrafficMatrixSrc,
    /// Hybrid (c-Through): an electrical fabric with this rate carries
    /// what has no circuit.
    #[serde(default)]
    pub electrical_rate: Option<BitsPerSec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TrafficMatrixSrc {
    Inline(Vec<Vec<u64>>),
    File(PathBuf),
}

impl Config {
    /// Parse and validate a config from JSON text. `file` names the source in
    /// errors.
    pub fn from_json(text: &str, file: &str) -> Result<Config, ConfigError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let cfg: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = json_path(&e.path().to_string());
            let inner = e.into_inner();
            ConfigError::Parse {
                file: file.to_string(),
                path,
                msg: format!("{inner}"),
            }
        })?;
        cfg.validate(file)?;
        Ok(cfg)
    }

    /// Read, parse and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: file.clone(),
            source,
        })?;
        let mut cfg = Config::from_json(&text, &file)?;
        cfg.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(cfg)
    }

    /// Semantic checks that types cannot express. Each names the JSON path.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        crate::config::validate::validate(self, file)
    }

    /// Number of hosts in the whole network.
    pub fn host_count(&self) -> usize {
        self.tors.count as usize * self.tors.hosts_per_tor as usize
    }

    /// The OCS port each ToR uplink is cabled to, indexed
    /// `[tor * uplinks + port]` as `(ocs, ocs_port)`.
    pub fn cabling(&self) -> Vec<(u16, u16)> {
        let n = self.tors.count as usize;
        let u = self.tors.uplinks as usize;
        let Some(ocs) = &self.ocs else {
            return Vec::new();
        };
        match &ocs.cabling {
            Cabling::Auto(_) => {
                let count = ocs.count.max(1) as usize;
                (0..n * u)
                    .map(|i| {
                        let (t, p) = (i / u, i % u);
                        ((p % count) as u16, (t + (p / count) * n) as u16)
                    })
                    .collect()
            }
            Cabling::Explicit(list) => {
                let mut v = vec![(u16::MAX, u16::MAX); n * u];
                for c in list {
                    let i = c.tor as usize * u + c.port as usize;
                    if i < v.len() {
                        v[i] = (c.ocs, c.ocs_port);
                    }
                }
                v
            }
        }
    }
}

/// serde_path_to_error prints `tors.uplinks` or `.`; we print `$.tors.uplinks`.
fn json_path(p: &str) -> String {
    if p.is_empty() || p == "." {
        "$".to_string()
    } else if p.starts_with('[') {
        format!("${p}")
    } else {
        format!("$.{p}")
    }
}

pub mod validate;
