//! `/api/snapshot`: what does not change during a run (the ToRs and their
//! kinds, the cycle, the fabric's shape), and the links at start. Every
//! field is a value of the typed Network API or read from the run's plan
//! and compiled config.

use lh_emu::net::Network;
use lh_emu::net::values::{Links, Nodes};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Tor {
    pub index: usize,
    pub name: String,
    /// `native` or `bmv2`.
    pub kind: &'static str,
    pub hosts: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FatTree {
    pub k: usize,
    pub edges: usize,
    pub aggs: usize,
    pub cores: usize,
}

/// A monitoring request of the config (a script's `buffer_usage` /
/// `bw_usage`, paper Table 1): the page shows its latest value.
#[derive(Clone, Debug, Serialize)]
pub struct Monitor {
    /// `buffer_usage` or `bw_usage`.
    pub metric: &'static str,
    /// `None`: every ToR / uplink.
    pub tor: Option<lh_ctrl::TorId>,
    pub port: Option<lh_ctrl::PortId>,
    pub interval: String,
}

/// The FCT size buckets the `flows` tables use.
#[derive(Clone, Debug, Serialize)]
pub struct Buckets {
    pub mice_below: u64,
    pub elephants_from: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub prefix: String,
    pub name: Option<String>,
    /// `optical` or `fat_tree`.
    pub fabric: &'static str,
    pub tors: Vec<Tor>,
    pub slices: usize,
    pub slice_duration: String,
    pub slice_ns: u64,
    pub guardband: String,
    pub optical_uplinks: usize,
    pub uplinks: usize,
    pub fat_tree: Option<FatTree>,
    pub nodes: Nodes,
    pub links: Links,
    pub buckets: Buckets,
    /// The config's `monitoring` requests (a Python script's, before start).
    pub monitors: Vec<Monitor>,
    pub sample_period_ms: u64,
}

impl Snapshot {
    pub fn of(net: &Network, sample_period_ms: u64) -> Snapshot {
        let c = net.compiled.as_ref();
        let plan = &net.plan;
        let ft = lh_emu::link::fattree::fat_tree(c);
        let b = lh_emu::traffic::workload::fct::Buckets::default();
        Snapshot {
            prefix: net.prefix.clone(),
            name: c.and_then(|c| c.config.name.clone()),
            fabric: if ft.is_some() { "fat_tree" } else { "optical" },
            tors: (0..plan.visible_tors)
                .map(|t| Tor {
                    index: t,
                    name: plan.tor_label(t),
                    kind: if plan.is_bmv2(t) { "bmv2" } else { "native" },
                    hosts: plan.hosts_of(t).iter().map(|h| h.name.clone()).collect(),
                })
                .collect(),
            slices: c.map_or(0, |c| c.schedule.slices()),
            slice_duration: c.map_or(String::new(), |c| c.config.slice.duration.to_string()),
            slice_ns: c.map_or(0, |c| c.config.slice.duration.0),
            guardband: c.map_or(String::new(), |c| c.config.slice.guardband.to_string()),
            optical_uplinks: c.map_or(0, |c| c.schedule.optical_uplinks()),
            uplinks: c.map_or(plan.uplinks, |c| c.schedule.uplinks()),
            fat_tree: ft.map(|t| FatTree {
                k: t.k(),
                edges: t.edges(),
                aggs: t.aggs(),
                cores: t.cores(),
            }),
            nodes: net.nodes(),
            links: net.links(),
            buckets: Buckets {
                mice_below: b.mice_below,
                elephants_from: b.elephants_from,
            },
            monitors: c
                .map(|c| c.config.monitoring.iter().map(Monitor::of).collect())
                .unwrap_or_default(),
            sample_period_ms,
        }
    }
}

impl Monitor {
    pub fn of(m: &lh_ctrl::config::Monitor) -> Monitor {
        Monitor {
            metric: match m.metric {
                lh_ctrl::config::Metric::BufferUsage => "buffer_usage",
                lh_ctrl::config::Metric::BwUsage => "bw_usage",
            },
            tor: m.tor,
            port: m.port,
            interval: m.interval.to_string(),
        }
    }
}
