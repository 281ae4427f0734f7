//! Fig. 10 (§9.2, case III, "choice of optical hardware"): mice-flow FCT
//! on RotorNet as the OCS's slice duration grows, under VLB and UCMP. The
//! paper: VLB's tail FCT grows in proportion to the slice duration (a
//! packet may wait a whole cycle at its random intermediate ToR), UCMP's
//! much less (it picks intermediates whose circuits come soon).
//!
//! Here: RotorNet-8 (round robin) with two rotors (two uplinks per ToR,
//! like the paper's testbed ToRs with several links to the emulated
//! fabric), 2 hosts per ToR, slices 4x apart, guardband a tenth of the
//! slice. Memcached-like SETs: 4.2 KB TCP flows between random host pairs,
//! Poisson arrivals at a low load, through the kernel's TCP.

use super::csv::Csv;
use super::plot::{Axis, Chart, Panel, Series, Style, Unit, si};
use super::{Analysis, Check, Opts, Progress, pct};
use crate::workload::arrivals::{Pattern, Spec};
use crate::workload::cdf::SizeCdf;
use anyhow::Context;
use std::collections::BTreeMap;
use std::time::Duration;

/// The paper's Memcached SET: 4.2 KB per request.
pub const FLOW_BYTES: u64 = 4200;
const UPLINKS: u32 = 2;
const ROUTINGS: [&str; 2] = ["vlb", "ucmp"];

/// RotorNet-8 with `alg` routing and `slice_us` slices.
pub fn config(alg: &str, slice_us: u64) -> String {
    let g = (slice_us * 1000 / 10).max(1000);
    let reconf = g.min(10_000);
    let routing = match alg {
        "vlb" => r#"{"algorithm": "vlb", "lookup": "hop", "seed": 1}"#,
        _ => r#"{"algorithm": "ucmp", "lookup": "source", "same_slice_hops": true}"#,
    };
    format!(
        r#"{{
  "name": "fig10: RotorNet-8 x {UPLINKS} rotors, {alg}, {slice_us} us slices",
  "mode": "TO",
  "fabric": "optical",
  "tors": {{"count": 8, "uplinks": {UPLINKS}, "link_rate": "1Gbps",
           "hosts_per_tor": 2, "host_link_rate": "1Gbps"}},
  "ocs": {{"count": {UPLINKS}, "ports": 8, "reconfiguration_delay": "{reconf}ns", "cabling": "auto"}},
  "slice": {{"duration": "{slice_us}us", "guardband": "{g}ns", "propagation": "1us"}},
  "topology": {{"kind": "round_robin"}},
  "routing": {routing}
}}"#
    )
}

const COLUMNS: [&str; 9] = [
    "routing", "slice_us", "flow", "src", "dst", "size", "start_ns", "fct_us", "retrans",
];

pub fn slices_us(quick: bool) -> &'static [u64] {
    if quick {
        &[100, 400, 1600]
    } else {
        &[100, 400, 1600, 6400]
    }
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let slices = slices_us(o.quick);
    let (flows, window_s) = if o.quick { (300, 2.0) } else { (800, 5.0) };
    let cdf = SizeCdf::parse(
        "memcached SET",
        &format!("{FLOW_BYTES} 0\n{FLOW_BYTES} 1\n"),
    )?;
    pb.set_len((slices.len() * ROUTINGS.len()) as u64);
    let mut out = Csv::new(&COLUMNS);
    for &d in slices {
        for alg in ROUTINGS {
            if crate::signals::take_interrupt() || crate::signals::terminating() {
                anyhow::bail!("interrupted");
            }
            pb.message(&format!("{alg} {d} us"));
            let cfg = lh_ctrl::config::Config::from_json(&config(alg, d), "fig10 (built in)")
                .context("fig10's config")?;
            let mut net = super::live_network(&cfg)?;
            let hosts = net.endpoints();
            let host_bps = net.host_bps();
            // Poisson arrivals aiming at `flows` flows over the window (a
            // little more is generated, the cap keeps `flows`).
            let load = 1.2 * flows as f64 * FLOW_BYTES as f64 * 8.0
                / (hosts.len() as f64 * host_bps * window_s);
            let spec = Spec {
                hosts: hosts.len(),
                pattern: Pattern::AllToAll,
                load,
                host_bps,
                duration_ns: (window_s * 1e9) as u64,
                max_flows: flows,
                seed: o.seed,
            };
            let specs = crate::workload::arrivals::generate(&cdf, &spec);
            pb.line(&format!(
                "fig10: run {} ({}): {} flows of {FLOW_BYTES} B",
                net.prefix,
                cfg.name.as_deref().unwrap_or(""),
                specs.len()
            ));
            let recs = crate::workload::run::run(&hosts, &specs, Duration::from_secs(5), &|| {
                crate::signals::take_interrupt() || crate::signals::terminating()
            });
            super::stop_network(&mut net, pb)?;
            for r in recs? {
                out.push(vec![
                    alg.to_string(),
                    d.to_string(),
                    r.flow.id.to_string(),
                    r.flow.src.to_string(),
                    r.flow.dst.to_string(),
                    r.flow.size.to_string(),
                    r.flow.start_ns.to_string(),
                    r.fct_ns
                        .map_or(String::new(), |v| format!("{:.1}", v as f64 / 1e3)),
                    r.retrans.to_string(),
                ]);
            }
            pb.inc(1);
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Cell {
    fcts_ms: Vec<f64>,
    flows: usize,
}

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    let mut cells: BTreeMap<(String, u64), Cell> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let alg = c.rows[r][col["routing"]].clone();
        let d = c.num(r, "slice_us", col["slice_us"])?.unwrap_or(0.0) as u64;
        let e = cells.entry((alg, d)).or_default();
        e.flows += 1;
        if let Some(us) = c.num(r, "fct_us", col["fct_us"])? {
            e.fcts_ms.push(us / 1e3);
        }
    }
    anyhow::ensure!(!cells.is_empty(), "no flows");
    let mut t = format!(
        "Fig. 10 (scaled): {FLOW_BYTES} B TCP flows (Memcached SETs) on RotorNet-8 x {UPLINKS} rotors; FCT in ms\n{:<8} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9}\n",
        "routing", "slice us", "flows", "done", "p50", "p95", "p99"
    );
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut p95: BTreeMap<(String, u64), f64> = BTreeMap::new();
    let mut complete = true;
    for ((alg, d), cell) in &cells {
        let f = |p| pct(&cell.fcts_ms, p);
        let s = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
        t += &format!(
            "{:<8} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9}\n",
            alg.to_uppercase(),
            d,
            cell.flows,
            cell.fcts_ms.len(),
            s(f(50.0)),
            s(f(95.0)),
            s(f(99.0))
        );
        complete &= cell.fcts_ms.len() as f64 >= 0.95 * cell.flows as f64;
        for (p, name) in [(95.0, "p95"), (50.0, "p50")] {
            if let Some(v) = f(p) {
                series
                    .entry(format!("{} {name}", alg.to_uppercase()))
                    .or_default()
                    .push((*d as f64, v));
            }
        }
        if let Some(v) = f(95.0) {
            p95.insert((alg.clone(), *d), v);
        }
    }
    let ds: Vec<u64> = {
        let mut v: Vec<u64> = cells.keys().map(|(_, d)| *d).collect();
        v.dedup();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (lo, hi) = (ds[0], ds[ds.len() - 1]);
    let get = |a: &str, d: u64| p95.get(&(a.to_string(), d)).copied();
    let mut checks = vec![Check::sanity(
        "every run completed at least 95% of its flows".into(),
        complete,
    )];
    match (
        get("vlb", lo),
        get("vlb", hi),
        get("ucmp", lo),
        get("ucmp", hi),
    ) {
        (Some(v0), Some(v1), Some(u0), Some(u1)) if hi > lo => {
            checks.push(Check::sanity(format!(
                    "VLB's tail grows with the slice: p95 {v0:.2} ms at {lo} us -> {v1:.2} ms at {hi} us (at least 2x)"
                ), v1 >= 2.0 * v0));
            let top = ds
                .iter()
                .filter_map(|&d| get("vlb", d))
                .fold(f64::NEG_INFINITY, f64::max);
            checks.push(Check::sanity(
                format!("VLB's p95 is largest at the longest slice ({v1:.2} ms)"),
                v1 >= top,
            ));
            checks.push(Check::sanity(format!(
                    "UCMP stays nearly flat: its p95 grows {:.2} ms ({u0:.2} -> {u1:.2}), at most half of VLB's {:.2} ms",
                    u1 - u0,
                    v1 - v0
                ), (u1 - u0) <= 0.5 * (v1 - v0)));
            checks.push(Check::sanity(format!(
                    "UCMP's tail below VLB's at {hi} us slices: {u1:.2} ms vs {v1:.2} ms (at most 0.8x)"
                ), u1 <= 0.8 * v1));
        }
        _ => checks.push(Check::sanity(
            "both routings measured at two slice durations at least".into(),
            false,
        )),
    }
    let chart = chart(&cells, &series);
    Ok(Analysis {
        table: t,
        chart,
        checks,
    })
}

/// Fig. 10's chart: per slice duration, the CDF of the flows' FCT under
/// VLB and UCMP (one x range for all), then their p95 against the slice
/// duration (`series`: "VLB p95" and the like, slice us -> ms).
fn chart(
    cells: &BTreeMap<(String, u64), Cell>,
    series: &BTreeMap<String, Vec<(f64, f64)>>,
) -> Chart {
    let name = |alg: &str| alg.to_uppercase();
    let all = cells
        .values()
        .flat_map(|c| c.fcts_ms.iter())
        .map(|ms| ms / 1e3);
    let (lo, hi) = all
        .filter(|v| *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    let x = || {
        let a = Axis::log("flow completion time", Unit::Seconds);
        if lo.is_finite() && hi > lo {
            a.with_range(lo / 1.2, hi * 1.2)
        } else {
            a
        }
    };
    let mut ds: Vec<u64> = cells.keys().map(|(_, d)| *d).collect();
    ds.sort_unstable();
    ds.dedup();
    let letter = |i: usize| char::from(b'a' + i as u8);
    let mut panels: Vec<Panel> = ds
        .iter()
        .enumerate()
        .map(|(i, &d)| Panel {
            title: format!(
                "({}) {} slices",
                letter(i),
                si(d as f64 * 1e-6, Unit::Seconds)
            ),
            x: x(),
            y: Axis::cdf(),
            series: ROUTINGS
                .iter()
                .filter_map(|alg| {
                    let c = cells.get(&(alg.to_string(), d))?;
                    let secs: Vec<f64> = c.fcts_ms.iter().map(|ms| ms / 1e3).collect();
                    Some(Series::cdf(name(alg), &secs))
                })
                .collect(),
        })
        .collect();
    panels.push(Panel {
        title: format!("({}) 95th-percentile FCT", letter(ds.len())),
        x: Axis::log("slice duration", Unit::Seconds)
            .with_ticks(ds.iter().map(|&d| d as f64 * 1e-6).collect()),
        y: Axis::log("p95 flow completion time", Unit::Seconds),
        series: ROUTINGS
            .iter()
            .filter_map(|alg| {
                let pts = series.get(&format!("{} p95", name(alg)))?;
                let pts = pts.iter().map(|&(d, ms)| (d * 1e-6, ms / 1e3)).collect();
                Some(Series::new(name(alg), Style::Line, pts))
            })
            .collect(),
    });
    Chart {
        title: format!(
            "Fig. 10: {} flows on RotorNet-8, FCT vs slice duration",
            si(FLOW_BYTES as f64, Unit::Bytes)
        ),
        panels,
        columns: 0,
        legend: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(c: &mut Csv, alg: &str, d: u64, fcts: &[f64]) {
        for (i, f) in fcts.iter().enumerate() {
            c.push(vec![
                alg.into(),
                d.to_string(),
                i.to_string(),
                "0".into(),
                "1".into(),
                "4200".into(),
                "0".into(),
                format!("{}", f * 1e3),
                "0".into(),
            ]);
        }
    }

    #[test]
    fn the_papers_shape_is_recognised_and_its_absence_too() {
        let mut c = Csv::new(&COLUMNS);
        let ramp = |base: f64, k: f64| {
            (1..=20)
                .map(|i| base + k * i as f64 / 20.0)
                .collect::<Vec<_>>()
        };
        add(&mut c, "vlb", 100, &ramp(0.5, 0.5));
        add(&mut c, "vlb", 1600, &ramp(0.5, 8.0));
        add(&mut c, "ucmp", 100, &ramp(0.5, 0.3));
        add(&mut c, "ucmp", 1600, &ramp(0.5, 1.0));
        let a = analyze(&c).unwrap();
        assert!(a.checks.iter().all(|c| c.holds), "{:?}", a.checks);
        assert!(a.table.contains("VLB") && a.table.contains("1600"));
        // UCMP growing as much as VLB: not the paper's shape.
        let mut bad = Csv::new(&COLUMNS);
        add(&mut bad, "vlb", 100, &ramp(0.5, 0.5));
        add(&mut bad, "vlb", 1600, &ramp(0.5, 8.0));
        add(&mut bad, "ucmp", 100, &ramp(0.5, 0.5));
        add(&mut bad, "ucmp", 1600, &ramp(0.5, 8.0));
        assert!(!analyze(&bad).unwrap().checks.iter().all(|c| c.holds));
    }

    #[test]
    fn the_configs_compile() {
        for alg in ROUTINGS {
            for &d in slices_us(false) {
                let cfg = lh_ctrl::config::Config::from_json(&config(alg, d), "t").unwrap();
                lh_ctrl::compile::compile(&cfg).unwrap();
            }
        }
        assert!(SizeCdf::parse("x", "4200 0\n4200 1\n").unwrap().mean() == 4200.0);
    }
}
