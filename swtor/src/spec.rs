//! What the data plane runs: the fabric spec (schedule, time-flow tables,
//! timing, host attachments, external ToRs), its interface indexes and the
//! checks [`crate::start`] makes before opening anything.

use crate::FabricError;
use lh_ctrl::TorId;
use lh_ctrl::schedule::Schedule;
use lh_ctrl::schedule::timing::TimeModel;
use lh_ctrl::tables::FlatTables;
use lh_ctrl::units::Nanos;
use std::net::Ipv4Addr;
use std::sync::Arc;

/// Time and capacity parameters of the data plane: the controller's time
/// model (`Compiled::timing()`, the one place it is derived) and a test
/// hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub model: TimeModel,
    /// Test hook: the ToRs' clock runs this many ns ahead (positive) or
    /// behind (negative) the OCS's, as a synchronisation error would.
    pub tor_clock_offset: i64,
}

impl Timing {
    /// The data plane's timing from the controller's time model.
    pub fn from_model(m: &TimeModel) -> Timing {
        Timing {
            model: *m,
            tor_clock_offset: 0,
        }
    }

    /// [`Timing::from_model`] of the config's time model.
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> Timing {
        Timing::from_model(&TimeModel::from_config(cfg))
    }

    /// Dark time at the start of a slice whose circuit changed
    /// ([`TimeModel::dark`]).
    pub fn dark(&self) -> Nanos {
        self.model.dark()
    }
}

/// A host of the fabric. Hosts of native ToRs are attached to the engine
/// through their ToR-side veth end; hosts of external ToRs (listed in
/// [`FabricSpec::external`]) are not attached (their `ifname` is ignored)
/// but still give the destination ToR of their IP and the MAC for proxy ARP.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostAttach {
    /// 0.0.0.0: an interface without an address (a host's further link),
    /// reached by its MAC only.
    pub ip: Ipv4Addr,
    pub mac: [u8; 6],
    pub tor: TorId,
    /// The ToR-side veth end inside the fabric namespace, e.g. "s1-eth1"
    /// (ignored for hosts of external ToRs).
    pub ifname: String,
}

/// A ToR that runs outside swtor (a P4 program on BMv2, docs/p4.md) and
/// joins the calendar queues and the OCS through veths in the fabric
/// namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExternalTor {
    pub tor: TorId,
    /// swtor's end of each uplink veth (one per uplink, in uplink order),
    /// e.g. "lh-t1-u0"; the peer end is the ToR's port `32 + p`.
    pub uplinks: Vec<String>,
    /// swtor's end of the CPU-port veth that carries rotation frames.
    pub cpu: String,
    /// What the ToR says it took in (a BMv2 ToR's `fabric_rx`, read by
    /// its control plane): with it, the OCS paces what it sends the ToR
    /// ([`crate::pacer`]); without it, frames go at once.
    #[serde(skip)]
    pub taken_in: Option<crate::pacer::TakenIn>,
}

impl ExternalTor {
    /// Every ToR of `schedule` except those in `native`, with interface
    /// names `{prefix}-t{N}-u{p}` and `{prefix}-t{N}-c` (docs/p4.md).
    pub fn all_except(schedule: &Schedule, native: &[TorId], prefix: &str) -> Vec<ExternalTor> {
        (0..schedule.tors() as TorId)
            .filter(|t| !native.contains(t))
            .map(|t| ExternalTor {
                tor: t,
                uplinks: (0..schedule.uplinks())
                    .map(|p| format!("{prefix}-t{t}-u{p}"))
                    .collect(),
                cpu: format!("{prefix}-t{t}-c"),
                taken_in: None,
            })
            .collect()
    }
}

/// Everything the data plane runs.
#[derive(Clone, Debug)]
pub struct FabricSpec {
    pub schedule: Schedule,
    /// Shared with the controller's `Compiled` (no copy per run).
    pub tables: Arc<FlatTables>,
    pub timing: Timing,
    pub hosts: Vec<HostAttach>,
    /// ToRs run outside swtor (BMv2); every other ToR is native. Their
    /// hosts stay in `hosts` but are not attached.
    pub external: Vec<ExternalTor>,
}

impl FabricSpec {
    /// Whether `tor` is an external ToR.
    pub fn is_external(&self, tor: TorId) -> bool {
        self.external.iter().any(|x| x.tor == tor)
    }
}

/// Interface indexes of everything the engine sends to or receives from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ifindexes {
    /// One per `FabricSpec::hosts` entry (ignored, conventionally 0, for
    /// hosts of external ToRs).
    pub hosts: Vec<i32>,
    /// One per `FabricSpec::external` entry.
    pub external: Vec<ExternalIfindexes>,
}

/// Interface indexes of one external ToR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalIfindexes {
    /// One per uplink.
    pub uplinks: Vec<i32>,
    pub cpu: i32,
}

impl Ifindexes {
    /// Made-up indexes for in-memory ports ([`MemPort`]): hosts `1..=H` in
    /// spec order (attached or not), then each external ToR's uplinks in
    /// order followed by its CPU port.
    pub fn sequential(spec: &FabricSpec) -> Ifindexes {
        let mut next = spec.hosts.len() as i32;
        let hosts = (1..=next).collect();
        let external = spec
            .external
            .iter()
            .map(|x| {
                let uplinks = x
                    .uplinks
                    .iter()
                    .map(|_| {
                        next += 1;
                        next
                    })
                    .collect();
                next += 1;
                ExternalIfindexes { uplinks, cpu: next }
            })
            .collect();
        Ifindexes { hosts, external }
    }
}

pub(crate) fn check_spec(spec: &FabricSpec) -> Result<(), FabricError> {
    if spec.timing.model.slice.0 == 0 {
        return Err(FabricError::Spec("slice duration must be positive".into()));
    }
    if spec.timing.model.link_rate.0 == 0
        || spec.timing.model.host_rate.0 == 0
        || spec.timing.model.electrical_rate.is_some_and(|r| r.0 == 0)
    {
        return Err(FabricError::Spec("link rates must be positive".into()));
    }
    if spec.tables.slices > 1 && spec.tables.slices != spec.schedule.slices() {
        return Err(FabricError::Spec(format!(
            "tables have {} slices but the schedule has {}",
            spec.tables.slices,
            spec.schedule.slices()
        )));
    }
    let mut ext = std::collections::HashSet::new();
    for x in &spec.external {
        if x.tor as usize >= spec.schedule.tors() || !ext.insert(x.tor) {
            return Err(FabricError::Spec(format!(
                "external ToR {} does not exist or appears twice",
                x.tor
            )));
        }
        if x.uplinks.len() != spec.schedule.uplinks() {
            return Err(FabricError::Spec(format!(
                "external ToR {} has {} uplink interfaces, the schedule {} uplinks",
                x.tor,
                x.uplinks.len(),
                spec.schedule.uplinks()
            )));
        }
    }
    let mut seen = std::collections::HashSet::new();
    // A host interface without an address (0.0.0.0: Mininet's second
    // link of a host) is reached by its MAC.
    for h in spec.hosts.iter().filter(|h| !h.ip.is_unspecified()) {
        if !seen.insert(h.ip) {
            return Err(FabricError::Spec(format!("host IP {} appears twice", h.ip)));
        }
    }
    Ok(())
}
