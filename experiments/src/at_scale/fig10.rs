//! Fig. 10 at the paper's scale: RotorNet-8 with two rotors at 100 Gb/s,
//! one 100 Gb/s host per ToR... (the live run's fabric at the paper's
//! rates), slices of the paper's range, 2 us to 300 us, each with a tenth
//! of it as guardband (the paper's 200 ns at 2 us), under VLB and UCMP.
//! Mice: 4.2 KB TCP flows (memcached SETs) between random host pairs,
//! Poisson arrivals, each on a new connection.

use super::Work;
use crate::csv::Csv;
use crate::fig10::{COLUMNS, FLOW_BYTES, UCMP_LESS_SENSITIVE, UCMP_SHORT_SLICES, VLB_PROPORTIONAL};
use crate::{Analysis, Check, Opts, Progress, pct};
use lh_emu::traffic::workload::arrivals::{Pattern, Spec, generate};
use lh_emu::traffic::workload::cdf::SizeCdf;
use lh_sim::{Sim, TcpConfig, apps};
use std::collections::BTreeMap;

/// Slices, us. `--quick` runs the whole setting: it takes about a second,
/// and fewer flows would leave the p99 to a handful of them.
pub const SLICES_US: [u64; 6] = [2, 20, 50, 100, 200, 300];
const FLOWS: usize = 3000;

/// The fabric with `alg` routing and `slice_us` slices.
pub fn config(
    alg: &str,
    slice_us: u64,
) -> anyhow::Result<(lh_ctrl::config::Config, lh_ctrl::compile::Compiled)> {
    let json = crate::fig10::config(alg, slice_us);
    super::edited(&json, &format!("fig10 --sim: {alg}, {slice_us} us"), |v| {
        let t = &mut v["tors"];
        t["link_rate"] = "100Gbps".into();
        t["host_link_rate"] = "100Gbps".into();
        t["hosts_per_tor"] = 1.into();
        let g = slice_us * 100;
        v["slice"]["guardband"] = format!("{g}ns").into();
        v["ocs"]["reconfiguration_delay"] = format!("{}ns", g.min(10_000)).into();
        // Within the dark time before a slice (the paper starts its
        // rotation early by the ToR-to-ToR delay).
        v["slice"]["propagation"] = format!("{}ns", (g / 2).min(500)).into();
    })
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let t0 = std::time::Instant::now();
    let (csv, work) = run_counted(o, pb)?;
    pb.line(&work.line(t0.elapsed()));
    Ok(csv)
}

pub fn run_counted(o: &Opts, pb: &Progress) -> anyhow::Result<(Csv, Work)> {
    let _ = o.quick;
    let (slices, flows) = (&SLICES_US, FLOWS);
    let cdf = SizeCdf::parse(
        "memcached SET",
        &format!("{FLOW_BYTES} 0\n{FLOW_BYTES} 1\n"),
    )?;
    pb.set_len(slices.len() as u64 * 2);
    let mut out = Csv::new(&COLUMNS);
    let mut work = Work::default();
    for &d in slices {
        for alg in ["vlb", "ucmp"] {
            pb.message(&format!("{alg} {d} us"));
            let (_, c) = config(alg, d)?;
            let mut sim = Sim::new(&c, Default::default())?;
            let hosts = sim.hosts();
            // About one flow per host every 100 us: a low load, as live.
            let window_ns = flows as u64 * 100_000 / hosts as u64;
            let spec = Spec {
                hosts,
                pattern: Pattern::AllToAll,
                load: FLOW_BYTES as f64 * 8.0 / 100e-6 / 100e9,
                host_bps: 100e9,
                duration_ns: window_ns * 2,
                max_flows: flows,
                seed: o.seed,
            };
            let specs = generate(&cdf, &spec);
            let recs = apps::flows(&mut sim, &specs, TcpConfig::default(), 5_000_000_000)?;
            for r in &recs {
                out.push(crate::fig10::row(alg, d, r, 3));
            }
            work.add(sim.stats());
            pb.inc(1);
        }
    }
    Ok((out, work))
}

/// The bounds, fixed before any run. "Proportional": from 20 us up (below
/// that the host's own microseconds dominate), VLB's p99 grows at least
/// half as fast as the slice. "Less sensitive": UCMP's p99 grows at most
/// half as much as VLB's over the same slices, and stays below VLB's.
pub const PROPORTIONAL: f64 = 0.5;
pub const LESS: f64 = 0.5;
const FROM_US: u64 = 20;

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    let mut cells: BTreeMap<(String, u64), (Vec<f64>, usize)> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let alg = c.rows[r][col["routing"]].clone();
        let d = c.num(r, "slice_us", col["slice_us"])?.unwrap_or(0.0) as u64;
        let e = cells.entry((alg, d)).or_default();
        e.1 += 1;
        if let Some(us) = c.num(r, "fct_us", col["fct_us"])? {
            e.0.push(us / 1e3);
        }
    }
    anyhow::ensure!(!cells.is_empty(), "no flows");
    let mut t = format!(
        "Fig. 10 at the paper's scale (virtual time): {FLOW_BYTES} B TCP flows on RotorNet-8 x 2 rotors, 100 Gb/s; FCT in ms\n{:<8} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9}\n",
        "routing", "slice us", "flows", "done", "p50", "p95", "p99"
    );
    let mut complete = true;
    let mut p99: BTreeMap<(String, u64), f64> = BTreeMap::new();
    for ((alg, d), (v, n)) in &cells {
        let s = |p| pct(v, p).map_or("-".into(), |x| format!("{x:.4}"));
        t += &format!(
            "{:<8} {d:>9} {n:>6} {:>6} {:>9} {:>9} {:>9}\n",
            alg.to_uppercase(),
            v.len(),
            s(50.0),
            s(95.0),
            s(99.0)
        );
        complete &= v.len() == *n;
        if let Some(x) = pct(v, 99.0) {
            p99.insert((alg.clone(), *d), x);
        }
    }
    let mut checks = vec![Check::sanity("every flow completed".into(), complete)];
    let slices: Vec<u64> = {
        let mut s: Vec<u64> = cells.keys().map(|(_, d)| *d).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let (lo, hi) = (
        slices.iter().copied().find(|&d| d >= FROM_US),
        slices.last().copied(),
    );
    if let (Some(lo), Some(hi)) = (lo, hi)
        && hi > lo
    {
        let g = |a: &str| {
            p99.get(&(a.into(), hi))
                .zip(p99.get(&(a.into(), lo)))
                .map(|(h, l)| h / l)
        };
        let want = PROPORTIONAL * hi as f64 / lo as f64;
        checks.push(Check::assert(
            VLB_PROPORTIONAL,
            format!(
                "VLB's p99 grows {} from {lo} to {hi} us slices (bound: at least {want:.1}x, {PROPORTIONAL} of the slices' {:.0}x)",
                g("vlb").map_or("-".into(), |x| format!("{x:.2}x")),
                hi as f64 / lo as f64
            ),
            g("vlb").is_some_and(|x| x >= want),
        ));
        checks.push(Check::assert(
            UCMP_LESS_SENSITIVE,
            format!(
                "UCMP's p99 grows {} over the same slices (bound: at most {LESS} of VLB's growth)",
                g("ucmp").map_or("-".into(), |x| format!("{x:.2}x")),
            ),
            g("ucmp").zip(g("vlb")).is_some_and(|(u, v)| u <= LESS * v),
        ));
        let below = slices.iter().filter(|&&d| d >= FROM_US).all(|&d| {
            p99.get(&("ucmp".into(), d))
                .zip(p99.get(&("vlb".into(), d)))
                .is_some_and(|(u, v)| u < v)
        });
        checks.push(Check::assert(
            UCMP_LESS_SENSITIVE,
            format!("UCMP's p99 below VLB's at every slice from {lo} us: {below}"),
            below,
        ));
    }
    if let Some(&first) = slices.first() {
        let x = |a: &str| p99.get(&(a.into(), first)).copied();
        checks.push(Check::report(
            UCMP_SHORT_SLICES,
            format!(
                "at {first} us: UCMP's p99 {} ms, VLB's {} ms",
                x("ucmp").map_or("-".into(), |v| format!("{v:.4}")),
                x("vlb").map_or("-".into(), |v| format!("{v:.4}"))
            ),
        ));
    }
    let chart = crate::fig10::analyze(c)?.chart;
    Ok(Analysis {
        table: t,
        chart,
        checks,
    })
}
