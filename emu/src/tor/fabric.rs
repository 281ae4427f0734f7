//! Starts the swtor data plane on top of the kernel side's namespaces (run::bringup).

use crate::run::bringup::Net;
use lh_ctrl::TorId;
use lh_ctrl::compile::Compiled;
use swtor::{ExternalTor, FabricError, FabricHandle, FabricSpec, HostAttach, Timing};

/// What swtor needs to know about each host (MACs as the kernel set them).
pub fn host_attach(net: &Net) -> Vec<HostAttach> {
    net.plan
        .all_intfs()
        .zip(&net.macs)
        .map(|(h, mac)| HostAttach {
            ip: h.ip,
            mac: *mac,
            tor: h.tor,
            ifname: h.tor_if.clone(),
        })
        .collect()
}

pub fn start(net: &Net, c: &Compiled) -> Result<FabricHandle, FabricError> {
    start_paced(net, c, &[])
}

/// As [`start`], pacing what the OCS sends each BMv2 ToR of `pace` to
/// what it takes in (docs/p4.md, "Pacing").
pub fn start_paced(
    net: &Net,
    c: &Compiled,
    pace: &[crate::tor::bmv2::PaceFrom],
) -> Result<FabricHandle, FabricError> {
    let mut external = external_tors(net);
    pace_external(&mut external, pace);
    let spec = FabricSpec {
        schedule: c.schedule.clone(),
        tables: c.tables.clone(),
        timing: Timing::from_model(&c.timing()),
        hosts: host_attach(net),
        external,
    };
    // config.json's `tor` section (estimator, detection, push-back).
    let opts = swtor::EngineOptions {
        cpu: net.dataplane_cpu,
        ..swtor::EngineOptions::from_config(&c.config)
    };
    swtor::start_with(spec, Some(&net.fabric_ns()), opts)
}

/// Gives each external ToR of `pace` a count of what it took in, read
/// from its switch by a thread of its own.
pub fn pace_external(external: &mut [ExternalTor], pace: &[crate::tor::bmv2::PaceFrom]) {
    for p in pace {
        if let Some(x) = external.iter_mut().find(|x| x.tor as usize == p.tor) {
            x.taken_in = Some(p.start_reader());
        }
    }
}

/// The BMv2 ToRs as swtor sees them: the OCS ends of their uplink and CPU
/// veths in the fabric namespace (docs/p4.md).
pub fn external_tors(net: &Net) -> Vec<ExternalTor> {
    net.plan
        .bmv2_tors()
        .into_iter()
        .map(|t| ExternalTor {
            tor: t as TorId,
            uplinks: (0..net.plan.uplinks)
                .map(|p| crate::plan::uplink_if(t, p))
                .collect(),
            cpu: crate::plan::cpu_if(t),
            taken_in: None,
        })
        .collect()
}

/// The fabric's frame accounting with P4 ToRs: swtor's counters and the
/// P4 program's, and what is still inside BMv2 or on the veths between
/// BMv2 and swtor (both 0 once traffic has drained).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub queued: u64,
    /// Frames a P4 ToR took in (from hosts or swtor) and has not yet sent
    /// on, delivered or dropped.
    pub in_bmv2: i64,
    /// Frames a P4 ToR sent on an uplink that swtor has not received.
    pub on_veths: i64,
}

impl Totals {
    pub fn of(sw: &swtor::Counters, p4: Option<&crate::tor::bmv2::P4Counters>) -> Totals {
        let d = crate::tor::bmv2::P4Counters::default();
        let p = p4.unwrap_or(&d);
        Totals {
            sent: sw.sent + p.host_rx,
            delivered: sw.delivered + p.host_tx,
            dropped: sw.dropped_total() + p.dropped_total(),
            queued: sw.queued,
            in_bmv2: (p.host_rx + sw.to_external) as i64
                - (p.host_tx + p.uplink_tx + p.dropped_total()) as i64,
            on_veths: p.uplink_tx as i64 - sw.from_external as i64,
        }
    }

    /// sent = delivered + dropped + queued, with nothing inside BMv2 or
    /// on its veths (call once traffic has drained).
    pub fn conserved(&self) -> bool {
        self.in_bmv2 == 0
            && self.on_veths == 0
            && self.sent == self.delivered + self.dropped + self.queued
    }
}
