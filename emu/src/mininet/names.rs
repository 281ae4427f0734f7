//! A Mininet topology's own names, kept in the run and given to its plan.

use crate::plan::Plan;
use std::net::Ipv4Addr;

/// A Mininet topology's names, kept in the run: hosts (in plan order, with
/// Mininet's address index and the port number on their switch), switches
/// (ToR order) and the switch-switch interfaces `sN-ethK`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnNames {
    /// Per plan host: (name, 1-based index in Mininet's natural order, port K on its switch).
    pub hosts: Vec<(String, usize, usize)>,
    /// Per plan host: its first interface (`h1-eth0`, or the link's `intfName`).
    pub host_ifs: Vec<String>,
    /// A host's further links, in link order.
    pub extras: Vec<MnExtra>,
    /// Addresses the topology gives: (interface, address, prefix length
    /// if given).
    pub ips: Vec<(String, Ipv4Addr, Option<u8>)>,
    /// `defaultRoute=` per host.
    pub routes: Vec<(String, String)>,
    pub tors: Vec<String>,
    /// Per ToR, per uplink: `sN-ethK`.
    pub uplinks: Vec<Vec<String>>,
    /// ToRs shown (a hostless one added for `single` is not).
    pub visible: usize,
    /// Every link's two interfaces, in Mininet's order (for `links`).
    pub links: Vec<(String, String)>,
}

/// A host's link after its first: another port, on `tor`, in the host's
/// namespace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnExtra {
    pub host: String,
    pub tor: usize,
    /// Port K on the switch (`sN-ethK`).
    pub port: usize,
    /// The host's end (`h1-eth1`, or the link's `intfName`).
    pub intf: String,
}

impl MnNames {
    /// Give `plan` (built from this topology's host counts) these names.
    pub fn apply(&self, plan: &mut Plan) {
        let ifs = self
            .host_ifs
            .iter()
            .map(Some)
            .chain(std::iter::repeat(None));
        for ((h, (name, idx, port)), ifn) in plan.hosts.iter_mut().zip(&self.hosts).zip(ifs) {
            h.name = name.clone();
            h.host_if = ifn.cloned().unwrap_or_else(|| format!("{name}-eth0"));
            h.ip = crate::plan::host_ip(*idx);
            let sw = self.tors.get(h.tor as usize).cloned().unwrap_or_default();
            h.tor_if = format!("{sw}-eth{port}");
        }
        let mut next: Vec<usize> = (0..plan.tors).map(|t| plan.hosts_of(t).len()).collect();
        let base = plan.hosts.len();
        plan.extra_intfs = self
            .extras
            .iter()
            .enumerate()
            .map(|(j, e)| {
                next[e.tor] += 1;
                let sw = self.tors.get(e.tor).cloned().unwrap_or_default();
                crate::plan::HostPlan {
                    k: base + j + 1,
                    name: e.host.clone(),
                    ip: Ipv4Addr::UNSPECIFIED,
                    prefix_len: 0,
                    tor: e.tor as lh_ctrl::TorId,
                    tor_port: next[e.tor],
                    host_if: e.intf.clone(),
                    tor_if: format!("{sw}-eth{}", e.port),
                }
            })
            .collect();
        plan.fixed_ips = self.ips.clone();
        plan.default_routes = self.routes.clone();
        plan.apply_fixed_ips();
        plan.tor_labels = self.tors.clone();
        plan.uplink_labels = self.uplinks.clone();
        plan.visible_tors = self.visible.min(plan.tors);
        plan.mn_links = self.links.clone();
    }
}
