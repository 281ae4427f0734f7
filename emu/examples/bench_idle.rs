//! Idle data plane: how much of a core a native fabric takes when no frame
//! is queued, and what giving it back costs in slice-boundary precision
//! and in a ping's RTT (issue 41, item 5).
//!
//! Per slice duration and per mode, alternating, each run in its own child
//! process (the mode is read when the data-plane thread starts):
//! - `spin`: `SWTOR_IDLE_SPIN=1`, the loop that never sleeps (before);
//! - `sleep`: as shipped, the idle loop blocks in `ppoll` until a frame
//!   arrives or 150 us before the next slot start (`Engine::idle_until`).
//!
//! A run brings up RotorNet-8 with direct routing
//! (topologies/rotornet-8-direct.json, guardband = reconfiguration delay =
//! 10% of the slice), lets it settle 0.5 s, then for SECS seconds with no
//! traffic reads the data-plane thread's CPU time
//! (`/proc/self/task/TID/schedstat`) and the slice-boundary lateness (first
//! poll after each boundary, `Counters::boundary_lateness_hist`), then
//! sends 200 pings h1 -> h2, 5 ms apart (both hosts on ToR 1: every echo
//! crosses the data plane, never the OCS, so its RTT has no schedule wait
//! in it).
//!
//!     cargo run --release -p lighthouse-emu --example bench_idle -- [SECS] [REPS] [DURATIONS_US,...]

#[path = "bench_common/mod.rs"]
mod common;

use common::{Lighthouse, loadavg};
use lh_ctrl::units::Nanos;
use lh_emu::traffic::probe::Pinger;
use std::time::Duration;

fn thread_cpu_ns(tid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn us(ns: Option<u64>) -> String {
    match ns {
        None => "-".into(),
        Some(u64::MAX) => ">1 s".into(),
        Some(n) => format!("{:.1}", n as f64 / 1e3),
    }
}

/// One run in this process; prints one `RESULT` line.
fn child(slice_us: u64, secs: f64) -> Result<(), String> {
    let mut cfg = common::load("rotornet-8-direct.json");
    let d = slice_us * 1000;
    cfg.slice.duration = Nanos(d);
    cfg.slice.guardband = Nanos(d / 10);
    if let Some(o) = cfg.ocs.as_mut() {
        o.reconfiguration_delay = Nanos(d / 10);
    }
    let c = lh_ctrl::compile::compile(&cfg).map_err(|e| e.to_string())?;
    let l = Lighthouse::try_up(&cfg, &c)?;
    let fab = l.fab.as_ref().ok_or("no data plane")?;
    std::thread::sleep(Duration::from_millis(500));
    let tid = fab.dataplane_tid().ok_or("no data-plane thread id")?;
    let k0 = fab.counters();
    let (cpu0, t0) = (thread_cpu_ns(tid), std::time::Instant::now());
    std::thread::sleep(Duration::from_secs_f64(secs));
    let (cpu1, wall) = (thread_cpu_ns(tid), t0.elapsed().as_nanos() as u64);
    let k1 = fab.counters();
    // The idle window's boundaries only.
    let mut k = k1;
    for (a, b) in k
        .boundary_lateness_hist
        .iter_mut()
        .zip(&k0.boundary_lateness_hist)
    {
        *a -= b;
    }
    let share = (cpu1 - cpu0) as f64 / wall as f64;
    let ((h1, _), (_, ip2)) = (l.host(0), l.host(1));
    let p = Pinger::open(Some(&h1)).map_err(|e| format!("ICMP socket: {e}"))?;
    let _ = p.echo(ip2, Duration::from_secs(1)); // ARP
    let mut rtt = Vec::new();
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(5));
        if let Ok(Some(r)) = p.echo(ip2, Duration::from_secs(1)) {
            rtt.push(r.as_secs_f64() * 1e6);
        }
    }
    let n = rtt.len();
    let (r50, r99) = (quantile(&mut rtt, 0.5), quantile(&mut rtt, 0.99));
    let end = l.down();
    println!(
        "RESULT {share:.4} {} {} {r50:.1} {r99:.1} {n} {}",
        us(k.boundary_lateness_quantile_ns(0.5)),
        us(k.boundary_lateness_quantile_ns(0.99)),
        end.conservation_holds()
    );
    Ok(())
}

fn main() {
    common::require_root();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let slice_us: u64 = args[1].parse().unwrap();
        let secs: f64 = args[2].parse().unwrap();
        if let Err(e) = child(slice_us, secs) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let secs: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(5.0);
    let reps: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let durations: Vec<u64> = args
        .get(2)
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1000, 100]);
    let exe = std::env::current_exe().unwrap();
    println!(
        "| slice | rep | mode | data-plane CPU, idle | boundary p50 / p99 (us) | ping h1->h2 RTT p50 / p99 (us) | pings | conservation | load avg |"
    );
    println!("|---:|---:|---|---:|---|---|---:|---|---:|");
    for rep in 0..reps {
        for &d in &durations {
            // Alternate which mode goes first.
            let modes = if rep % 2 == 0 {
                ["spin", "sleep"]
            } else {
                ["sleep", "spin"]
            };
            for mode in modes {
                let load0 = loadavg();
                let mut cmd = std::process::Command::new(&exe);
                cmd.args(["--child", &d.to_string(), &secs.to_string()]);
                if mode == "spin" {
                    cmd.env("SWTOR_IDLE_SPIN", "1");
                } else {
                    cmd.env_remove("SWTOR_IDLE_SPIN");
                }
                let o = cmd.output().expect("run the child");
                let out = String::from_utf8_lossy(&o.stdout);
                let Some(line) = out.lines().find_map(|l| l.strip_prefix("RESULT ")) else {
                    println!(
                        "| {d} us | {rep} | {mode} | failed: {} |",
                        String::from_utf8_lossy(&o.stderr).trim()
                    );
                    continue;
                };
                let f: Vec<&str> = line.split_whitespace().collect();
                let share: f64 = f[0].parse().unwrap_or(f64::NAN);
                println!(
                    "| {d} us | {rep} | {mode} | {:.1}% | {} / {} | {} / {} | {} | {} | {:.2} |",
                    share * 100.0,
                    f[1],
                    f[2],
                    f[3],
                    f[4],
                    f[5],
                    if f[6] == "true" { "OK" } else { "VIOLATED" },
                    (load0 + loadavg()) / 2.0
                );
            }
        }
    }
}
