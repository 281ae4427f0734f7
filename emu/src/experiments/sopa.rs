//! SOPA (seed 001, §4.3 and §4.5): a permutation workload on a Fat-Tree,
//! routed by ECMP (per-flow hash), RPS (random per-packet spraying), SOPA
//! (round-robin source routes, fast-retransmit threshold 10) and Hedera
//! (global first fit of elephants), with and without one failed link.
//! The paper: SOPA reorders far less than RPS and, with the FR threshold
//! at 10, gets near the best throughput; ECMP loses throughput to hash
//! collisions; a failed link hurts RPS more than SOPA.
//!
//! Here: `topologies/fattree-4.json` (k = 4, 16 hosts), every host sending
//! one long TCP flow to another host in another pod, all flows at once,
//! through the kernel's TCP. Throughput is size / FCT; reordering is the
//! receivers' out-of-order segments and the senders' reordering events,
//! retransmissions and timeouts are the senders' `TCP_INFO`.

use super::csv::Csv;
use super::plot::{Axis, Unit};
use super::{Analysis, Check, Opts, Progress};
use crate::workload::arrivals::FlowSpec;
use anyhow::Context;
use std::collections::BTreeMap;
use std::time::Duration;

/// One measured setting: a routing scheme, the hosts' fast-retransmit
/// threshold (`tcp_reordering`), and whether one aggregation-core link is
/// down for the whole run.
pub struct Setting {
    pub scheme: &'static str,
    pub reordering: u32,
    pub failed_link: bool,
}

const fn s(scheme: &'static str, reordering: u32, failed_link: bool) -> Setting {
    Setting {
        scheme,
        reordering,
        failed_link,
    }
}

/// The paper's comparison: each scheme with its own FR threshold (SOPA
/// 10, the others TCP's default 3), then the failure case for the two
/// packet-level schemes (§4.5 compares only those).
pub const SETTINGS: [Setting; 6] = [
    s("ecmp", 3, false),
    s("hedera", 3, false),
    s("rps", 3, false),
    s("sopa", 10, false),
    s("rps", 3, true),
    s("sopa", 10, true),
];

/// Every link's rate in the experiment.
pub const LINK_RATE: &str = "20Mbps";

const FATTREE: &str = include_str!("../../../topologies/fattree-4.json");

/// The shipped Fat-Tree with `routing.algorithm` and the hosts' FR
/// threshold set.
pub fn config(s: &Setting) -> anyhow::Result<lh_ctrl::config::Config> {
    let mut v: serde_json::Value = serde_json::from_str(FATTREE).context("a shipped topology")?;
    let obj = v
        .as_object_mut()
        .context("a shipped topology is not an object")?;
    let routing = obj
        .entry("routing")
        .or_insert_with(|| serde_json::json!({}))
        .as_object_mut()
        .context("routing is not an object")?;
    routing.insert("algorithm".into(), s.scheme.into());
    // Links slow enough that they, not the shared CPU, are the bottleneck:
    // at 1 Gb/s sixteen flows through one data-plane thread are CPU-bound
    // and every scheme looks alike.
    let tors = obj
        .get_mut("tors")
        .and_then(|t| t.as_object_mut())
        .context("tors is not an object")?;
    tors.insert("link_rate".into(), LINK_RATE.into());
    tors.insert("host_link_rate".into(), LINK_RATE.into());
    obj.insert(
        "hosts".into(),
        serde_json::json!({"tcp": {"reordering": s.reordering}}),
    );
    obj.insert("name".into(), format!("sopa: {}", label(s)).into());
    Ok(lh_ctrl::config::Config::from_json(
        &v.to_string(),
        "sopa (built in)",
    )?)
}

fn label(s: &Setting) -> String {
    label_of(s.scheme, s.reordering, s.failed_link)
}

fn label_of(scheme: &str, reordering: u32, failed: bool) -> String {
    format!("{scheme} r{reordering}{}", if failed { " (F)" } else { "" })
}

const COLUMNS: [&str; 13] = [
    "scheme",
    "reordering",
    "failed_link",
    "round",
    "flow",
    "src",
    "dst",
    "size",
    "fct_us",
    "retrans",
    "reord_seen",
    "ooo_pkts",
    "rtos",
];

/// (bytes per flow, rounds).
fn sizing(quick: bool) -> (u64, usize) {
    if quick { (4 << 20, 1) } else { (16 << 20, 3) }
}

/// A permutation of `hosts` hosts in which every host sends to a host of
/// another pod (`per_pod` hosts a pod), drawn from `seed`: every host sends
/// one flow and receives one.
pub fn permutation(hosts: usize, per_pod: usize, seed: u64) -> Vec<usize> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        // xorshift64*: a fixed, dependency-free stream for a given seed.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    loop {
        let mut p: Vec<usize> = (0..hosts).collect();
        for i in (1..hosts).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            p.swap(i, j);
        }
        if (0..hosts).all(|i| i / per_pod != p[i] / per_pod) {
            return p;
        }
    }
}

fn flows(perm: &[usize], size: u64) -> Vec<FlowSpec> {
    perm.iter()
        .enumerate()
        .map(|(src, &dst)| FlowSpec {
            id: src as u32,
            src,
            dst,
            size,
            start_ns: 0,
        })
        .collect()
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let (size, rounds) = sizing(o.quick);
    pb.set_len(SETTINGS.len() as u64);
    let mut out = Csv::new(&COLUMNS);
    for s in &SETTINGS {
        if crate::signals::take_interrupt() || crate::signals::terminating() {
            anyhow::bail!("interrupted");
        }
        pb.message(&label(s));
        let cfg = config(s)?;
        let tree = lh_ctrl::fattree::FatTree::of(&cfg)
            .ok_or_else(|| anyhow::anyhow!("sopa: topologies/fattree-4.json is not a fat tree"))?;
        let per_pod = tree.hosts() / tree.k();
        let mut net = super::live_network(&cfg)?;
        let hosts = net.endpoints();
        let res = (|| -> anyhow::Result<()> {
            if s.failed_link {
                // The paper's failure is at the first pod's leftmost
                // aggregation switch: here its link to the first core, down
                // before traffic starts, past the detection time so the
                // paths over it are withdrawn.
                let (a, c) = (tree.agg(0, 0), tree.core(0, 0));
                anyhow::ensure!(tree.linked(a, c), "a1-c1 is not a link of the fat tree");
                net.link(&tree.name(a), &tree.name(c), false)
                    .map_err(anyhow::Error::msg)?;
                let detect = cfg
                    .routing
                    .failure_detection
                    .unwrap_or(lh_ctrl::config::DEFAULT_FAILURE_DETECTION);
                std::thread::sleep(Duration::from_nanos(detect.0) + Duration::from_millis(50));
                pb.line(&format!(
                    "sopa: link {}-{} down, its paths withdrawn after {} us",
                    tree.name(a),
                    tree.name(c),
                    detect.0 / 1000
                ));
            }
            pb.line(&format!(
                "sopa: run {} ({}): {} x {} MiB flows x {rounds}",
                net.prefix,
                label(s),
                hosts.len(),
                size >> 20
            ));
            for round in 0..rounds {
                let perm = permutation(hosts.len(), per_pod, o.seed + round as u64);
                let recs = crate::workload::run::run(
                    &hosts,
                    &flows(&perm, size),
                    Duration::from_secs(30),
                    &|| crate::signals::take_interrupt() || crate::signals::terminating(),
                )?;
                for r in recs {
                    out.push(vec![
                        s.scheme.to_string(),
                        s.reordering.to_string(),
                        u8::from(s.failed_link).to_string(),
                        round.to_string(),
                        r.flow.id.to_string(),
                        r.flow.src.to_string(),
                        r.flow.dst.to_string(),
                        r.flow.size.to_string(),
                        r.fct_ns
                            .map_or(String::new(), |v| format!("{:.1}", v as f64 / 1e3)),
                        r.retrans.to_string(),
                        r.reord_seen.to_string(),
                        r.ooo_pkts.to_string(),
                        r.timeouts.to_string(),
                    ]);
                }
            }
            Ok(())
        })();
        super::stop_network(&mut net, pb)?;
        res?;
        pb.inc(1);
    }
    Ok(out)
}

#[derive(Default)]
struct Cell {
    mbps: Vec<f64>,
    fct_ms: Vec<f64>,
    flows: usize,
    retrans: u64,
    reord: u64,
    ooo: u64,
    rtos: u64,
}

/// SOPA's reordering events against RPS's, at most (measured 0.25-0.38x;
/// docs/experiments.md).
const REORDER_MAX: f64 = 0.5;
/// SOPA's retransmissions against RPS's, at most. Usually 0.11-0.15x, but
/// they count every retransmit, not only those reordering causes, and vary
/// with the VM's load: a fresh-clone CI run on a slow VM measured 0.56x
/// while SOPA's reordering events were 0.30x RPS's.
const RETRANS_MAX: f64 = 0.75;

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    let order = |scheme: &str, r: u32, f: bool| {
        SETTINGS
            .iter()
            .position(|s| s.scheme == scheme && s.reordering == r && s.failed_link == f)
            .unwrap_or(SETTINGS.len())
    };
    let mut cells: BTreeMap<(usize, String), Cell> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let scheme = c.rows[r][col["scheme"]].clone();
        let n = |k: &str| -> anyhow::Result<f64> { Ok(c.num(r, k, col[k])?.unwrap_or(0.0)) };
        let re = n("reordering")? as u32;
        let failed = n("failed_link")? != 0.0;
        let e = cells
            .entry((order(&scheme, re, failed), label_of(&scheme, re, failed)))
            .or_default();
        e.flows += 1;
        if let Some(us) = c.num(r, "fct_us", col["fct_us"])?
            && us > 0.0
        {
            e.mbps.push(n("size")? * 8.0 / us);
            e.fct_ms.push(us / 1e3);
        }
        e.retrans += n("retrans")? as u64;
        e.reord += n("reord_seen")? as u64;
        e.ooo += n("ooo_pkts")? as u64;
        e.rtos += n("rtos")? as u64;
    }
    anyhow::ensure!(!cells.is_empty(), "no flows");
    let mut t = format!(
        "SOPA (scaled): permutation of long TCP flows on a k=4 Fat-Tree; throughput per flow in Mb/s, TCP_INFO counters summed, FCT in ms\n{:<16} {:>5} {:>5} {:>7} {:>7} {:>7} {:>8} {:>7} {:>8} {:>5} {:>8} {:>8}\n",
        "setting",
        "flows",
        "done",
        "mean",
        "median",
        "min",
        "retrans",
        "reord",
        "ooo pkts",
        "RTOs",
        "FCT p50",
        "FCT p99"
    );
    #[derive(Clone, Copy)]
    struct Sum {
        mean: f64,
        median: f64,
        min: f64,
        reord: u64,
        retrans: u64,
    }
    let mut sums: BTreeMap<String, Sum> = BTreeMap::new();
    let mut series = Vec::new();
    let mut complete = true;
    for ((_, l), cell) in cells.iter() {
        let mean =
            (!cell.mbps.is_empty()).then(|| cell.mbps.iter().sum::<f64>() / cell.mbps.len() as f64);
        let median = super::pct(&cell.mbps, 50.0);
        let min = cell.mbps.iter().copied().reduce(f64::min);
        let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.0}"));
        t += &format!(
            "{:<16} {:>5} {:>5} {:>7} {:>7} {:>7} {:>8} {:>7} {:>8} {:>5} {:>8} {:>8}\n",
            l,
            cell.flows,
            cell.mbps.len(),
            f(mean),
            f(median),
            f(min),
            cell.retrans,
            cell.reord,
            cell.ooo,
            cell.rtos,
            f(super::pct(&cell.fct_ms, 50.0)),
            f(super::pct(&cell.fct_ms, 99.0))
        );
        complete &= cell.mbps.len() == cell.flows;
        if let (Some(mean), Some(median), Some(min)) = (mean, median, min) {
            sums.insert(
                l.clone(),
                Sum {
                    mean,
                    median,
                    min,
                    reord: cell.reord,
                    retrans: cell.retrans,
                },
            );
        }
        // The chart's samples, in bit/s.
        series.push((
            l.clone(),
            cell.mbps.iter().map(|v| v * 1e6).collect::<Vec<f64>>(),
        ));
    }
    let mut checks = vec![Check::sanity("every flow completed".into(), complete)];
    let get = |k: &str| sums.get(k).copied();
    match (get("ecmp r3"), get("rps r3"), get("sopa r10")) {
        (Some(ecmp), Some(rps), Some(sopa)) => {
            checks.push(Check::sanity(format!(
                    "SOPA reorders far less than RPS: {} reordering events and {} retransmissions vs {} and {} (at most {REORDER_MAX}x and {RETRANS_MAX}x; RPS at least 100 events)",
                    sopa.reord, sopa.retrans, rps.reord, rps.retrans
                ), rps.reord >= 100
                    && (sopa.reord as f64) <= REORDER_MAX * rps.reord as f64
                    && (sopa.retrans as f64) <= RETRANS_MAX * rps.retrans as f64));
            let best = sums
                .iter()
                .filter(|(k, _)| !k.ends_with("(F)"))
                .map(|(_, s)| s.mean)
                .fold(0.0, f64::max);
            checks.push(Check::sanity(format!(
                    "with FR threshold 10, SOPA's throughput is near the best: mean {:.0} Mb/s >= 0.9x the best mean {best:.0}",
                    sopa.mean
                ), sopa.mean >= 0.9 * best));
            checks.push(Check::sanity(format!(
                    "ECMP suffers from hash collisions: its slowest flow {:.0} Mb/s <= 0.7x SOPA's median {:.0}, and its mean {:.0} below SOPA's {:.0}",
                    ecmp.min, sopa.median, ecmp.mean, sopa.mean
                ), ecmp.min <= 0.7 * sopa.median && ecmp.mean < sopa.mean));
        }
        _ => checks.push(Check::sanity(
            "ecmp r3, rps r3 and sopa r10 all measured".into(),
            false,
        )),
    }
    let chart = super::plot::strip(
        "SOPA: permutation on a k=4 Fat-Tree, throughput per flow",
        "one marker per flow, the bar at the median",
        "setting (rN: fast-retransmit threshold N; (F): a failed link)",
        Axis::linear("throughput per flow", Unit::BitsPerSecond),
        series,
    );
    Ok(Analysis {
        table: t,
        chart,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of one setting: a flow per throughput, each with `reord`
    /// reordering events, retransmissions and out-of-order segments.
    fn add(c: &mut Csv, scheme: &str, re: u32, failed: bool, mbps: &[f64], reord: u32) {
        for (i, m) in mbps.iter().enumerate() {
            let size = 1u64 << 20;
            c.push(vec![
                scheme.into(),
                re.to_string(),
                u8::from(failed).to_string(),
                "0".into(),
                i.to_string(),
                i.to_string(),
                ((i + 8) % 16).to_string(),
                size.to_string(),
                format!("{:.1}", size as f64 * 8.0 / m),
                reord.to_string(),
                reord.to_string(),
                reord.to_string(),
                "0".into(),
            ]);
        }
    }

    fn papers() -> Csv {
        let mut c = Csv::new(&COLUMNS);
        add(&mut c, "ecmp", 3, false, &[90.0, 45.0, 47.0, 92.0], 0);
        add(&mut c, "hedera", 3, false, &[90.0, 60.0, 88.0, 91.0], 0);
        add(&mut c, "rps", 3, false, &[70.0, 65.0, 72.0, 68.0], 200);
        add(&mut c, "sopa", 10, false, &[92.0, 91.0, 93.0, 92.0], 10);
        add(&mut c, "rps", 3, true, &[50.0, 40.0, 60.0, 55.0], 400);
        add(&mut c, "sopa", 10, true, &[85.0, 80.0, 88.0, 86.0], 30);
        c
    }

    #[test]
    fn the_papers_shape_is_recognised_and_each_absence_too() {
        let a = analyze(&papers()).unwrap();
        assert!(a.checks.iter().all(|c| c.holds), "{:?}", a.checks);
        assert!(a.table.contains("sopa r10 (F)"), "{}", a.table);
        assert_eq!(a.chart.series().count(), SETTINGS.len());
        // FCT of 1 MiB at 93, 92, 92, 91 Mb/s: 90.2, 91.2, 91.2, 92.2 ms;
        // nearest rank p50 91, p99 92.
        let row = a
            .table
            .lines()
            .find(|l| l.starts_with("sopa r10 "))
            .unwrap();
        assert!(row.ends_with("       91       92"), "{row}");
        // Nearest-rank median of SOPA's [91, 92, 92, 93] is 92.
        assert!(
            a.table
                .contains("sopa r10             4     4      92      92      91"),
            "{}",
            a.table
        );
        let failing = |c: &Csv| analyze(c).unwrap().failing();
        // SOPA reordering as much as RPS.
        let mut c = Csv::new(&COLUMNS);
        add(&mut c, "ecmp", 3, false, &[90.0, 45.0], 0);
        add(&mut c, "rps", 3, false, &[70.0, 65.0], 200);
        add(&mut c, "sopa", 10, false, &[92.0, 91.0], 150);
        let f = failing(&c);
        assert!(f.len() == 1 && f[0].contains("reorders far less"), "{f:?}");
        // SOPA well below the best (RPS).
        let mut c = Csv::new(&COLUMNS);
        add(&mut c, "ecmp", 3, false, &[90.0, 45.0], 0);
        add(&mut c, "rps", 3, false, &[95.0, 95.0], 200);
        add(&mut c, "sopa", 10, false, &[70.0, 70.0], 10);
        let f = failing(&c);
        assert!(f.len() == 1 && f[0].contains("near the best"), "{f:?}");
        // ECMP without collisions.
        let mut c = Csv::new(&COLUMNS);
        add(&mut c, "ecmp", 3, false, &[92.0, 91.0], 0);
        add(&mut c, "rps", 3, false, &[70.0, 65.0], 200);
        add(&mut c, "sopa", 10, false, &[92.0, 91.0], 10);
        let f = failing(&c);
        assert!(f.len() == 1 && f[0].contains("hash collisions"), "{f:?}");
        // A setting missing.
        let mut c = Csv::new(&COLUMNS);
        add(&mut c, "sopa", 10, false, &[92.0], 10);
        assert_eq!(failing(&c).len(), 1);
    }

    #[test]
    fn permutations_cross_pods_and_are_bijective() {
        for seed in 0..20 {
            let p = permutation(16, 4, seed);
            let mut seen = p.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..16).collect::<Vec<_>>());
            assert!((0..16).all(|i| i / 4 != p[i] / 4), "{p:?}");
        }
        assert_ne!(permutation(16, 4, 1), permutation(16, 4, 2));
    }
}
