//! Shortest slice: sweeps the slice duration of RotorNet-8 with direct
//! routing (topologies/rotornet-8-direct.json, guardband = reconfiguration
//! delay = 10% of the slice) and per duration brings the network up through
//! the library, runs a pingall (one echo per ordered pair, 1 s timeout) and
//! one TCP flow h1 -> h3 (ToR 0 -> ToR 1), and reads the data plane's
//! counters: misrouted frames (guardband + no_circuit drops, must be 0) and
//! the slice-boundary lateness histograms (first poll after each slot
//! boundary minus the boundary; all boundaries, and those at which frames
//! were queued).
//!
//! A run whose namespaces disappear under it (another process ran
//! `lighthouse clean`) is reported and repeated.
//!
//!     cargo run --release -p lighthouse-emu --example bench_slice -- [SECS] [REPS] [DURATIONS_US,...] [idle]
//!
//! With `idle` no traffic is sent: the fabric runs SECS seconds untouched
//! (a control for the boundary error of an unloaded data plane).

#[path = "bench_common/mod.rs"]
mod common;

use common::{Lighthouse, loadavg, median};
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use lh_ctrl::units::Nanos;
use lh_emu::traffic::probe::{Amount, Pinger, tcp_flow};
use std::time::Duration;
use swtor::DropReason;

fn fmt_ns(ns: Option<u64>) -> String {
    match ns {
        None => "-".into(),
        Some(u64::MAX) => ">1 s".into(),
        Some(n) if n < 1_000 => format!("{n} ns"),
        Some(n) if n < 1_000_000 => format!("{:.1} us", n as f64 / 1e3),
        Some(n) => format!("{:.1} ms", n as f64 / 1e6),
    }
}

struct Run {
    sent: u32,
    lost: u32,
    /// None: no TCP flow (a full-size frame does not fit in a slice).
    mbps: Option<f64>,
    k: swtor::Counters,
}

fn run_once(cfg: &Config, c: &Compiled, secs: f64, fits: bool, idle: bool) -> Result<Run, String> {
    let l = Lighthouse::try_up(cfg, c)?;
    if idle {
        std::thread::sleep(Duration::from_secs_f64(secs));
        let k = l.down();
        return Ok(Run {
            sent: 0,
            lost: 0,
            mbps: None,
            k,
        });
    }
    let n = l.net.plan.hosts.len();
    // Pingall: every ordered pair once (ARP is answered by the ToRs).
    let (mut sent, mut lost) = (0, 0);
    for s in 0..n {
        let (ns, _) = l.host(s);
        let p = Pinger::open(Some(&ns)).map_err(|e| format!("ICMP socket: {e}"))?;
        for t in (0..n).filter(|&t| t != s) {
            sent += 1;
            if !matches!(p.echo(l.host(t).1, Duration::from_secs(1)), Ok(Some(_))) {
                lost += 1;
            }
        }
    }
    let ((h1, _), (h3, ip3)) = (l.host(0), l.host(2));
    let mbps = if fits {
        let f = tcp_flow(Some(&h1), Some(&h3), ip3, Amount::Seconds(secs))
            .map_err(|e| format!("TCP flow: {e}"))?;
        Some(f.server_bps / 1e6)
    } else {
        None
    };
    let k = l.down();
    Ok(Run {
        sent,
        lost,
        mbps,
        k,
    })
}

fn main() {
    common::require_root();
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let durations: Vec<u64> = args
        .next()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1000, 500, 200, 100, 50, 20, 10]);
    let idle = args.next().as_deref() == Some("idle");
    let base = common::load("rotornet-8-direct.json");
    println!(
        "| slice | pingall loss | TCP Mb/s | duty share Mb/s | TCP / duty | misrouted (guardband+no_circuit) | slice_miss drops | deferred | boundary p50 | boundary p99 | boundaries > 2.048 us | p99 with frames queued | max poll gap | load avg |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut summary = Vec::new();
    for us in durations {
        let mut cfg = base.clone();
        let d = us * 1000;
        cfg.slice.duration = Nanos(d);
        cfg.slice.guardband = Nanos(d / 10);
        if let Some(o) = cfg.ocs.as_mut() {
            o.reconfiguration_delay = Nanos(d / 10);
        }
        let c = match lh_ctrl::compile::compile(&cfg) {
            Ok(c) => c,
            Err(e) => {
                println!("| {us} us | compile error: {e} |");
                continue;
            }
        };
        let timing = swtor::Timing::from_config(&cfg);
        let light = d - timing.dark().0;
        // Direct routing: a pair has its circuit one slice per cycle, minus
        // the dark time.
        let duty = cfg.tors.link_rate.0 as f64 * light as f64
            / d as f64
            / c.schedule.slices() as f64
            / 1e6;
        // A full-size frame that cannot fit in a slice's light time never
        // crosses (it waits in the buffer) and a TCP flow would block.
        let frame_ns = 1514 * 8 * 1_000_000_000 / cfg.tors.link_rate.0.max(1);
        let fits = frame_ns <= light;
        let (mut s_loss, mut s_sent, mut s_mis) = (0, 0, 0);
        let (mut s_mbps, mut s_p99, mut s_q99) = (Vec::new(), Vec::new(), Vec::new());
        let mut done = 0;
        let mut failures = 0;
        while done < reps && failures < 3 {
            let load0 = loadavg();
            let r = match run_once(&cfg, &c, secs, fits, idle) {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    eprintln!("{us} us: run failed ({e}); repeating");
                    continue;
                }
            };
            done += 1;
            let k = &r.k;
            let misrouted = k.dropped(DropReason::Guardband) + k.dropped(DropReason::NoCircuit);
            let total: u64 = k.boundary_lateness_hist.iter().sum();
            let over: u64 = k.boundary_lateness_hist[4..].iter().sum();
            let p99 = k.boundary_lateness_quantile_ns(0.99);
            let q99 = k.boundary_lateness_queued_quantile_ns(0.99);
            let mbps = r.mbps.unwrap_or(f64::NAN);
            println!(
                "| {us} us | {}/{} | {} | {duty:.1} | {} | {misrouted} | {} | {} | {} | {} | {:.2}% of {total} | {} | {} | {:.2} |",
                r.lost,
                r.sent,
                r.mbps
                    .map_or("n/a (frame > slice)".into(), |m| format!("{m:.1}")),
                r.mbps.map_or("-".into(), |m| format!("{:.2}", m / duty)),
                k.dropped(DropReason::SliceMiss),
                k.deferred,
                fmt_ns(k.boundary_lateness_quantile_ns(0.5)),
                fmt_ns(p99),
                over as f64 * 100.0 / total.max(1) as f64,
                fmt_ns(q99),
                fmt_ns(Some(k.max_poll_gap_ns)),
                (load0 + loadavg()) / 2.0,
            );
            s_loss += r.lost;
            s_sent += r.sent;
            s_mis += misrouted;
            s_mbps.push(mbps);
            s_p99.push(p99.unwrap_or(u64::MAX));
            s_q99.push(q99.unwrap_or(0));
        }
        s_p99.sort_unstable();
        s_q99.sort_unstable();
        let m = median(&s_mbps);
        summary.push(format!(
            "| {us} us | {s_loss}/{s_sent} | {} | {} | {s_mis} | {} | {} | {} |",
            if m.is_nan() {
                "n/a".into()
            } else {
                format!("{m:.1}")
            },
            if m.is_nan() {
                "-".into()
            } else {
                format!("{:.2}", m / duty)
            },
            fmt_ns(s_p99.get(s_p99.len() / 2).copied()),
            fmt_ns(s_p99.last().copied()),
            fmt_ns(s_q99.get(s_q99.len() / 2).copied()),
        ));
    }
    println!(
        "\nsummary, {reps} run(s) per duration (load avg now {:.2}):\n",
        loadavg()
    );
    println!(
        "| slice | pingall loss (all runs) | TCP Mb/s (median) | TCP / duty share | misrouted (all runs) | boundary p99 (median run) | boundary p99 (worst run) | p99 with frames queued (median run) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in summary {
        println!("{r}");
    }
}
