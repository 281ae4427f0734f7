//! Checks of the fabric: an optical one's OCSes and how the uplinks are
//! cabled to them, an electrical one's spines, a fat tree's shape.

use super::Checker;
use crate::config::{Cabling, Config, FabricKind, StaticGraph, Topology};
use std::collections::HashMap;

pub(super) fn check_fabric(c: &mut Checker, cfg: &Config) {
    match cfg.fabric {
        FabricKind::Optical => match &cfg.ocs {
            None => c.err(
                "$.ocs",
                "expected an `ocs` object {count, ports, reconfiguration_delay, cabling}: fabric is optical",
            ),
            Some(o) => {
                if o.count == 0 {
                    c.err("$.ocs.count", "expected at least 1 OCS, got 0");
                }
                if o.ports < 2 {
                    c.err(
                        "$.ocs.ports",
                        format!("expected at least 2 ports per OCS, got {}", o.ports),
                    );
                }
            }
        },
        FabricKind::Electrical => {
            if cfg.ocs.is_some() {
                c.err(
                    "$.ocs",
                    "expected no `ocs` object: fabric is electrical (uplink p of every ToR goes to spine p)",
                );
            }
            match cfg.topology {
                Topology::Static {
                    graph: StaticGraph::Full,
                } => {}
                Topology::Static { .. } => c.err(
                    "$.topology.graph",
                    "expected \"full\": an electrical fabric reaches every ToR through each spine",
                ),
                // Reported at $.fabric (check_topology).
                Topology::FatTree { .. } => {}
                _ => c.err(
                    "$.topology.kind",
                    format!(
                        "expected \"static\" (with graph \"full\") for an electrical fabric, got {:?}",
                        cfg.topology.kind().name()
                    ),
                ),
            }
        }
        FabricKind::FatTree => check_fattree(c, cfg),
    }
}

/// `fabric: "fattree"`: a k-ary fat tree whose edge switches are the ToRs.
fn check_fattree(c: &mut Checker, cfg: &Config) {
    if cfg.ocs.is_some() {
        c.err(
            "$.ocs",
            "expected no `ocs` object: fabric is a fat tree of electrical switches",
        );
    }
    let Topology::FatTree { k } = cfg.topology else {
        c.err(
            "$.topology.kind",
            format!(
                "expected \"fat_tree\" (with an even k) for fabric \"fattree\", got {:?}",
                cfg.topology.kind().name()
            ),
        );
        return;
    };
    if cfg.tor.is_some() {
        c.err(
            "$.tor",
            "expected no `tor` section: a fat tree's switches have no calendar queues, push-back or offloading",
        );
    }
    if cfg.tors.buffer_capacity.is_some() {
        c.err(
            "$.tors.buffer_capacity",
            "expected none: a fat tree's switches have no calendar queues to share a buffer (each port has `queue_capacity`)",
        );
    }
    if let Err(e) = crate::fattree::FatTree::new(k) {
        return c.err("$.topology.k", format!("expected an even k: {e}"));
    }
    let t = &cfg.tors;
    let h = k / 2;
    for (path, got, want, what) in [
        ("$.tors.count", t.count as u32, k * h, "k²/2 edge switches"),
        (
            "$.tors.uplinks",
            t.uplinks as u32,
            h,
            "k/2 aggregation switches per pod",
        ),
        (
            "$.tors.hosts_per_tor",
            t.hosts_per_tor as u32,
            h,
            "k/2 hosts per edge switch",
        ),
    ] {
        if got != want {
            c.err(
                path,
                format!("expected {want} ({what} of a fat tree with topology.k = {k}), got {got}"),
            );
        }
    }
}

pub(super) fn check_cabling(c: &mut Checker, cfg: &Config) {
    let Some(ocs) = &cfg.ocs else { return };
    if cfg.fabric != FabricKind::Optical || ocs.count == 0 {
        return;
    }
    let n = cfg.tors.count as usize;
    let u = cfg.tors.uplinks as usize;
    match &ocs.cabling {
        Cabling::Auto(_) => {
            // Uplink p of ToR t -> OCS p % count, port t + (p / count) * n.
            let per_ocs = u.div_ceil(ocs.count as usize);
            let needed = n * per_ocs;
            if needed > ocs.ports as usize {
                c.err(
                    "$.ocs.ports",
                    format!(
                        "expected at least {needed} ports per OCS for auto cabling ({n} ToRs x {per_ocs} uplink(s) per OCS), got {}",
                        ocs.ports
                    ),
                );
            }
            if ocs.count as usize > u {
                tracing::warn!(
                    "$.ocs.count: {} OCSes but only {u} uplink(s) per ToR: auto cabling leaves OCS {u}.. unused",
                    ocs.count
                );
            }
        }
        Cabling::Explicit(list) => {
            let mut by_uplink: HashMap<(u16, u8), usize> = HashMap::new();
            let mut by_ocs_port: HashMap<(u16, u16), usize> = HashMap::new();
            for (i, cable) in list.iter().enumerate() {
                let at = format!("$.ocs.cabling[{i}]");
                let mut ok = true;
                if cable.tor as usize >= n {
                    c.err(
                        format!("{at}.tor"),
                        format!(
                            "expected a ToR index below tors.count ({n}), got {}",
                            cable.tor
                        ),
                    );
                    ok = false;
                }
                if cable.port as usize >= u {
                    c.err(
                        format!("{at}.port"),
                        format!(
                            "expected an uplink index below tors.uplinks ({u}), got {}",
                            cable.port
                        ),
                    );
                    ok = false;
                }
                if cable.ocs >= ocs.count {
                    c.err(
                        format!("{at}.ocs"),
                        format!(
                            "expected an OCS index below ocs.count ({}), got {}",
                            ocs.count, cable.ocs
                        ),
                    );
                    ok = false;
                }
                if cable.ocs_port >= ocs.ports {
                    c.err(
                        format!("{at}.ocs_port"),
                        format!(
                            "expected an OCS port below ocs.ports ({}), got {}",
                            ocs.ports, cable.ocs_port
                        ),
                    );
                    ok = false;
                }
                if !ok {
                    continue;
                }
                if let Some(j) = by_uplink.insert((cable.tor, cable.port), i) {
                    c.err(
                        format!("{at}.port"),
                        format!(
                            "expected each (tor, port) cabled once, but ToR {} uplink {} is already cabled at $.ocs.cabling[{j}]",
                            cable.tor, cable.port
                        ),
                    );
                }
                if let Some(j) = by_ocs_port.insert((cable.ocs, cable.ocs_port), i) {
                    c.err(
                        format!("{at}.ocs_port"),
                        format!(
                            "expected each OCS port used once, but OCS {} port {} is already used at $.ocs.cabling[{j}]",
                            cable.ocs, cable.ocs_port
                        ),
                    );
                }
            }
            let missing: Vec<String> = (0..n)
                .flat_map(|t| (0..u).map(move |p| (t as u16, p as u8)))
                .filter(|k| !by_uplink.contains_key(k))
                .map(|(t, p)| format!("(tor {t}, port {p})"))
                .collect();
            if !missing.is_empty() {
                let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
                let more = if missing.len() > 8 {
                    format!(" and {} more", missing.len() - 8)
                } else {
                    String::new()
                };
                c.err(
                    "$.ocs.cabling",
                    format!(
                        "expected a cable for every ToR uplink ({n} ToRs x {u} uplinks), but {}{more} has none",
                        shown.join(", ")
                    ),
                );
            }
        }
    }
}
