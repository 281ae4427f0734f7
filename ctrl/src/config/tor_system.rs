//! `tor`: the optional mechanisms of the ToR and host systems (paper
//! §6–§7): occupancy estimation, slice-miss detection and what a miss
//! meets, traffic push-back, flow pausing and buffer offloading.

use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// `tor.on_slice_miss`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SliceMissAction {
    #[default]
    Defer,
    Drop,
}

impl SliceMissAction {
    fn is_default(&self) -> bool {
        *self == SliceMissAction::Defer
    }
}

/// `tor`: optional mechanisms of the ToR and host systems (paper §6–§7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorSystem {
    /// How admission learns a calendar queue's occupancy.
    #[serde(default)]
    pub occupancy: OccupancyMode,
    /// Slice-miss detection (§6.2); false: frames go to their primary
    /// calendar queue while its buffer lasts. Default true.
    #[serde(default = "yes")]
    pub slice_miss_detection: bool,
    /// What a frame that fits no action's slice meets: `defer` (the
    /// primary calendar queue keeps it, a cycle later: UCMP, HOHO) or
    /// `drop` (Opera caps its queues and drops, §6.2 [29]). Default defer.
    #[serde(default, skip_serializing_if = "SliceMissAction::is_default")]
    pub on_slice_miss: SliceMissAction,
    /// Traffic push-back (§7); absent: off.
    #[serde(default)]
    pub pushback: Option<PushbackWhen>,
    /// Flow pausing at the hosts (§7); absent: off.
    #[serde(default)]
    pub flow_pausing: Option<FlowPausingCfg>,
    /// Buffer offloading to the hosts (§7); absent: off.
    #[serde(default)]
    pub offload: Option<OffloadCfg>,
}

/// `tor.offload`: each ToR keeps `queues` calendar queues per uplink (the
/// nearest slices); frames for later slices wait at its hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffloadCfg {
    pub queues: u16,
}

/// `tor.flow_pausing`: elephants (by flow aging) wait at their host for
/// their direct circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowPausingCfg {
    /// A flow that sent at least this many aged bytes is an elephant.
    pub elephant_bytes: u64,
    /// Flow byte counts halve every `aging`.
    pub aging: Nanos,
}

fn yes() -> bool {
    true
}

/// `"exact"` or `{"estimated": {"update_interval": "1us"}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OccupancyMode {
    #[default]
    Exact,
    Estimated {
        update_interval: Nanos,
    },
}

/// `"first_rejection"` or `{"after_reroutes": N}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushbackWhen {
    /// The first time a frame's primary calendar queue refuses it.
    FirstRejection,
    /// After N frames towards the same destination ToR were rerouted to an
    /// alternate in one slice.
    AfterReroutes(u32),
}
