//! `monitoring`: what to sample (buffer or bandwidth usage), where and
//! how often (paper Table 1, `buffer_usage()`, `bw_usage()`).

use crate::units::Nanos;
use crate::{PortId, TorId};
use serde::{Deserialize, Serialize};

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
