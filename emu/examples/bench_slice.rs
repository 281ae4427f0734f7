//! Shortest slice: sweeps the slice duration of RotorNet-8 with direct
//! routing (topologies/rotornet-8-direct.json, guardband = reconfiguration
//! delay = 10% of the slice) and per duration brings the network up through
//! the library, runs a pingall (one echo per ordered pair, 1 s timeout) and
//! one TCP flow h1 -> h3 (ToR 0 -> ToR 1), and reads the data plane's
//! counters: misrouted frames (guardband + no_circuit drops, must be 0) and
//! the slice-boundary lateness histogram (first poll after each slot
//! boundary minus the boundary).
//!
//!     cargo run --release -p lighthouse-emu --example bench_slice -- [SECS] [REPS] [DURATIONS_US,...]

#[path = "bench_common/mod.rs"]
mod common;

use common::{Lighthouse, loadavg, median};
use lh_ctrl::units::Nanos;
use lh_emu::probe::{Amount, Pinger, tcp_flow};
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

fn main() {
    common::require_root();
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let durations: Vec<u64> = args
        .next()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1000, 500, 200, 100, 50, 20, 10]);
    let base = common::load("rotornet-8-direct.json");
    println!(
        "| slice | pingall loss | TCP Mb/s | duty share Mb/s | TCP / duty | misrouted (guardband+no_circuit) | slice_miss drops | deferred | boundary p50 | boundary p99 | boundaries > 2.048 us | max poll gap | load avg |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut summary = Vec::new();
    for us in durations {
        let (mut s_loss, mut s_sent, mut s_mis, mut s_mbps, mut s_p99, mut s_duty) =
            (0, 0, 0, Vec::new(), Vec::new(), 0.0);
        for _ in 0..reps {
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
            let slices = c.schedule.slices() as f64;
            // Direct routing: a pair has its circuit one slice per cycle, minus
            // the dark time.
            let duty = cfg.tors.link_rate.0 as f64 * (d - timing.dark().0) as f64
                / d as f64
                / slices
                / 1e6;
            let load0 = loadavg();
            let l = Lighthouse::up(&cfg, &c);
            let n = l.net.plan.hosts.len();
            // Pingall: every ordered pair once (ARP is answered by the ToRs).
            let (mut sent, mut lost) = (0, 0);
            for s in 0..n {
                let (ns, _) = l.host(s);
                let p = Pinger::open(Some(&ns)).expect("ICMP socket");
                for t in (0..n).filter(|&t| t != s) {
                    sent += 1;
                    if !matches!(p.echo(l.host(t).1, Duration::from_secs(1)), Ok(Some(_))) {
                        lost += 1;
                    }
                }
            }
            let ((h1, _), (h3, ip3)) = (l.host(0), l.host(2));
            let flow = tcp_flow(Some(&h1), Some(&h3), ip3, Amount::Seconds(secs));
            let k = l.down();
            let mbps = flow
                .as_ref()
                .map(|f| f.server_bps / 1e6)
                .unwrap_or(f64::NAN);
            let misrouted = k.dropped(DropReason::Guardband) + k.dropped(DropReason::NoCircuit);
            let total: u64 = k.boundary_lateness_hist.iter().sum();
            let over: u64 = k.boundary_lateness_hist[4..].iter().sum();
            println!(
                "| {us} us | {lost}/{sent} | {mbps:.1} | {duty:.1} | {:.2} | {misrouted} | {} | {} | {} | {} | {:.2}% of {total} | {} | {:.2} |",
                mbps / duty,
                k.dropped(DropReason::SliceMiss),
                k.deferred,
                fmt_ns(k.boundary_lateness_quantile_ns(0.5)),
                fmt_ns(k.boundary_lateness_quantile_ns(0.99)),
                over as f64 * 100.0 / total.max(1) as f64,
                fmt_ns(Some(k.max_poll_gap_ns)),
                (load0 + loadavg()) / 2.0,
            );
            if let Err(e) = flow {
                eprintln!("{us} us: TCP flow failed: {e}");
            }
            s_loss += lost;
            s_sent += sent;
            s_mis += misrouted;
            s_mbps.push(mbps);
            s_p99.push(k.boundary_lateness_quantile_ns(0.99).unwrap_or(u64::MAX));
            s_duty = duty;
        }
        s_p99.sort_unstable();
        summary.push(format!(
            "| {us} us | {s_loss}/{s_sent} | {:.1} | {:.2} | {s_mis} | {} | {} |",
            median(&s_mbps),
            median(&s_mbps) / s_duty,
            fmt_ns(s_p99.get(s_p99.len() / 2).copied()),
            fmt_ns(s_p99.last().copied()),
        ));
    }
    println!(
        "\nsummary over {reps} run(s) per duration (load avg now {:.2}):\n",
        loadavg()
    );
    println!(
        "| slice | pingall loss (all runs) | TCP Mb/s (median) | TCP / duty | misrouted (all runs) | boundary p99 (median run) | boundary p99 (worst run) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for r in summary {
        println!("{r}");
    }
}
