//! config.json: the physical DCN and the choices of topology, routing and
//! monitoring (paper §3). Reference: docs/config.md, schema: docs/config.schema.json.
//!
//! Parsing rejects unknown fields, and every error names the JSON path of the
//! offending field (`$.tors.uplinks`) and what was expected.
//!
//! This file holds the document (`Config`, its mode and fabric), reading
//! and validating it, and what is derived from several sections at once;
//! each section's types are in the module named after it (`tors`, `ocs`,
//! `slice`, `topology`, `routing`, `monitoring`, `tor_system`, `hosts`,
//! `ta`), errors in `error`, hand-written deserializers in `de`, the
//! semantic checks in `validate`. Every type is re-exported here, so
//! `crate::config::Tors` and the like are the paths to use.

mod de;
mod error;
mod hosts;
mod monitoring;
mod ocs;
mod routing;
mod slice;
mod ta;
mod topology;
mod tor_system;
mod tors;
pub mod validate;

pub use error::{ConfigError, field_hint};
pub use hosts::{
    HostLinkCfg, HostTcp, HostsCfg, KERNEL_RTO_MAX_MS, MAX_OTCP_FAN_IN, MAX_OTCP_HOST_OVERHEAD,
    MAX_RTO_MIN_MS, MAX_TCP_RECEIVE_BUFFER, MAX_TCP_REORDERING, MAX_TCP_WINDOW,
    MIN_TCP_RECEIVE_BUFFER, OtcpCfg,
};
pub use monitoring::{Metric, Monitor};
pub use ocs::{AutoCabling, Cable, Cabling, Ocs};
pub use routing::{
    Algorithm, BulkTransport, DEFAULT_FAILURE_DETECTION, DEFAULT_HEDERA_INTERVAL, Lookup,
    Multipath, Routing,
};
pub use slice::SliceTiming;
pub use ta::{Scheduler, TaSettings, TrafficMatrixSrc, read_traffic_matrix};
pub use topology::{StaticGraph, Topology, TopologyKind};
pub use tor_system::{
    FlowPausingCfg, OccupancyMode, OffloadCfg, PushbackWhen, SliceMissAction, TorSystem,
};
pub use tors::{DEFAULT_MAX_FRAME, LossPercent, Tors};

use crate::units::BitsPerSec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    /// A k-ary Fat-Tree of electrical packet switches (SOPA, Al-Fares et
    /// al.): the ToRs are its edge switches, with aggregation and core
    /// switches above them (`topology.kind` `fat_tree`, `ctrl/src/fattree/`).
    #[serde(rename = "fattree")]
    FatTree,
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
    /// The ToR and host systems of paper §6–§7 (occupancy estimation,
    /// slice-miss detection, traffic push-back); absent: defaults.
    #[serde(default)]
    pub tor: Option<TorSystem>,
    /// The emulated hosts' kernel settings (TCP knobs per host namespace);
    /// absent: the kernel's defaults.
    #[serde(default)]
    pub hosts: Option<HostsCfg>,
    /// Directory the config was read from; relative file names resolve here.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

impl Config {
    /// Parse and validate a config from JSON text. `file` names the source in
    /// errors. Relative file names in the config resolve against the current
    /// directory; use [`Config::from_json_in`] to give another one.
    pub fn from_json(text: &str, file: &str) -> Result<Config, ConfigError> {
        Config::from_json_in(text, file, Path::new(""))
    }

    /// Like [`Config::from_json`], with relative file names (topology and
    /// traffic-matrix files) resolved against `base_dir`.
    pub fn from_json_in(text: &str, file: &str, base_dir: &Path) -> Result<Config, ConfigError> {
        let mut cfg = Config::parse_json(text, file)?;
        cfg.base_dir = base_dir.to_path_buf();
        cfg.validate(file)?;
        Ok(cfg)
    }

    /// Parse without semantic validation (types, units and unknown fields are
    /// still checked). `base_dir` is left empty.
    pub fn parse_json(text: &str, file: &str) -> Result<Config, ConfigError> {
        // A UTF-8 byte-order mark is not JSON, but editors write it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        let cfg: Config = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            error::parse_error(file, &e.path().to_string(), &e.into_inner().to_string())
        })?;
        // Trailing characters after the document.
        de.end()
            .map_err(|e| error::parse_error(file, "", &e.to_string()))?;
        Ok(cfg)
    }

    /// Read, parse and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = crate::textfile::read_text(path).map_err(|err| ConfigError::Io {
            file: file.clone(),
            err,
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Config::from_json_in(&text, &file, &base)
    }

    /// Semantic checks that types cannot express. Each names the JSON path.
    /// Relative file names resolve against `self.base_dir`.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        crate::config::validate::validate(self, file)
    }

    /// Every semantic error, in the order the checks run (empty when valid).
    pub fn validate_all(&self, file: &str) -> Vec<ConfigError> {
        crate::config::validate::validate_all(self, file)
    }

    /// Number of hosts in the whole network.
    pub fn host_count(&self) -> usize {
        self.tors.count as usize * self.tors.hosts_per_tor as usize
    }

    /// A file name from the config, resolved against the config's directory.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    /// The rate of the electrical uplink of a hybrid fabric:
    /// `tors.electrical_rate` (TO) or `ta.electrical_rate` (TA, c-Through).
    pub fn electrical_rate(&self) -> Option<BitsPerSec> {
        self.tors
            .electrical_rate
            .or_else(|| self.ta.as_ref().and_then(|t| t.electrical_rate))
    }

    /// `tors.max_frame` or its default, in bytes.
    pub fn max_frame(&self) -> u64 {
        self.tors.max_frame.unwrap_or(DEFAULT_MAX_FRAME) as u64
    }

    /// The fat tree of a config whose topology is one (`None` otherwise, or
    /// for a `k` that [`crate::fattree::FatTree::new`] refuses, which
    /// validation reports). (Here, not in `fattree`: the fat tree's shape
    /// does not depend on the config; the config knows its topology.)
    pub fn fat_tree(&self) -> Option<crate::fattree::FatTree> {
        match self.topology {
            Topology::FatTree { k } => crate::fattree::FatTree::new(k).ok(),
            _ => None,
        }
    }

    /// True when the schedule is a multi-slice TO cycle (routing must be
    /// time-aware), false for static, electrical and TA topologies.
    pub fn is_cyclic(&self) -> bool {
        self.mode == Mode::TO
            && self.fabric == FabricKind::Optical
            && matches!(
                self.topology.kind(),
                TopologyKind::RoundRobin
                    | TopologyKind::Opera
                    | TopologyKind::Shale
                    | TopologyKind::File
            )
    }
}
