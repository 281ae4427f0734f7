//! `ocs`: the optical circuit switches and how the ToRs' uplinks are cabled
//! to their ports (`"auto"` or explicit cables), with the cabling each
//! uplink ends up with. The cabling's deserializer is in `de.rs`.

use super::Config;
use crate::units::Nanos;
use crate::{PortId, TorId};
use serde::{Deserialize, Serialize};

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

/// Deserialized by hand (not `untagged`) so that an error inside one cable
/// keeps its path, e.g. `$.ocs.cabling[3].ocs_port`.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

impl Config {
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
                    if c.port as usize >= u {
                        continue;
                    }
                    if i < v.len() {
                        v[i] = (c.ocs, c.ocs_port);
                    }
                }
                v
            }
        }
    }
}
