//! Starts the swtor data plane on top of the orchestrator's namespaces.

use crate::orchestrator::Net;
use lh_ctrl::compile::Compiled;
use swtor::{FabricError, FabricHandle, FabricSpec, HostAttach, Timing};

/// What swtor needs to know about each host (MACs as the kernel set them).
pub fn host_attach(net: &Net) -> Vec<HostAttach> {
    net.plan
        .hosts
        .iter()
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
    let spec = FabricSpec {
        schedule: c.schedule.clone(),
        tables: c.tables.clone(),
        timing: Timing::from_config(&c.config),
        hosts: host_attach(net),
        external: Vec::new(),
    };
    swtor::start(spec, Some(&net.fabric_ns()))
}
