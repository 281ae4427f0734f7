//! Bring-up + teardown time and peak memory of `lighthouse run CONFIG
//! --test none` (end to end, a child process: wall time and its maxrss from
//! wait4), the same steps timed one by one through the library (compile,
//! namespaces + veths, data-plane start, data-plane stop, namespace
//! teardown), and Mininet's `mn --switch lxbr --controller none --topo
//! linear,T,H --test none` for the same numbers of switches and hosts, in
//! the same run (skipped if `mn` is not installed).
//!
//!     cargo build --release -p lighthouse-cmd
//!     cargo run --release -p lighthouse-emu --example bench_bringup -- [REPS] [CONFIG...]

#[path = "bench_common/mod.rs"]
mod common;

use common::{loadavg, median};
use lh_emu::plan::Plan;
use lh_emu::run::bringup::{Net, NetOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs a command to completion under `/usr/bin/time -f %M`; (wall seconds,
/// maxrss KiB, success). Not wait4's rusage of a direct child: a child
/// forked from this (large, after compiling in-process) process inherits
/// its high-water mark across exec, `time`'s own child does not.
fn timed(prog: &Path, args: &[&str]) -> (f64, u64, bool) {
    let out = std::env::temp_dir().join(format!("bench_bringup.{}", std::process::id()));
    let t0 = Instant::now();
    let ok = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&out)
        .arg(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let secs = t0.elapsed().as_secs_f64();
    let kib = std::fs::read_to_string(&out)
        .ok()
        .and_then(|s| s.lines().last()?.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&out);
    (secs, kib, ok)
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn lighthouse_bin() -> PathBuf {
    std::env::var_os("LIGHTHOUSE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/lighthouse")
        })
}

fn main() {
    common::require_root();
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let mut configs: Vec<String> = args.collect();
    if configs.is_empty() {
        configs = vec!["rotornet-8.json".into(), "opera-108.json".into()];
    }
    let bin = lighthouse_bin();
    assert!(
        bin.is_file(),
        "{}: build it first (cargo build --release)",
        bin.display()
    );
    let have_mn = lh_emu::cli::on_path("mn") && Path::new("/usr/bin/time").is_file();
    for name in &configs {
        let path = common::topology(name);
        let cfg = common::load(name);
        let plan = Plan::from_config(&cfg);
        let (tors, hosts) = (plan.tors, plan.hosts.len());
        let hpt = cfg.tors.hosts_per_tor;
        println!("\n### {name}: {tors} ToRs, {hosts} hosts\n");
        println!(
            "| rep | lighthouse end-to-end s | maxrss MiB | compile s | netns+veths s | fabric start s | fabric stop s | teardown s | mininet s | mininet maxrss MiB | load avg |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); 9];
        for rep in 0..reps {
            let load = loadavg();
            let p = path.to_string_lossy();
            let (e2e, rss, ok) = timed(&bin, &["run", &p, "--test", "none"]);
            assert!(ok, "lighthouse run {name} failed");
            // The same steps through the library, one by one.
            let t = Instant::now();
            let c = lh_ctrl::compile::compile(&cfg).expect("compile");
            let t_compile = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let mut net =
                Net::bring_up(Plan::from_config(&cfg), &NetOptions::default()).expect("bring-up");
            let t_net = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let fab = lh_emu::tor::fabric::start(&net, &c).expect("fabric start");
            let t_fab = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let _ = fab.stop();
            let t_stop = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let rep_td = net.teardown();
            let t_down = t.elapsed().as_secs_f64();
            assert!(rep_td.errors.is_empty(), "teardown: {:?}", rep_td.errors);
            drop(net);
            let (mn, mn_rss) = if have_mn {
                let topo = format!("linear,{tors},{hpt}");
                let (s, r, ok) = timed(
                    Path::new("mn"),
                    &[
                        "--switch",
                        "lxbr",
                        "--controller",
                        "none",
                        "--topo",
                        &topo,
                        "--test",
                        "none",
                    ],
                );
                if !ok {
                    let _ = Command::new("mn").arg("-c").output();
                    (f64::NAN, f64::NAN)
                } else {
                    (s, r as f64 / 1024.0)
                }
            } else {
                (f64::NAN, f64::NAN)
            };
            let row = [
                e2e,
                rss as f64 / 1024.0,
                t_compile,
                t_net,
                t_fab,
                t_stop,
                t_down,
                mn,
                mn_rss,
            ];
            println!(
                "| {rep} | {:.3} | {:.1} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {load:.2} |",
                row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]
            );
            for (c, v) in cols.iter_mut().zip(row) {
                c.push(v);
            }
        }
        let m: Vec<f64> = cols.iter().map(|c| median(c)).collect();
        println!(
            "| median | {:.3} | {:.1} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {:.2} |",
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[5],
            m[6],
            m[7],
            m[8],
            loadavg()
        );
        println!(
            "\n{name}: lighthouse end-to-end / mininet = {:.2} (median of {reps})",
            m[0] / m[7]
        );
    }
    println!(
        "\nbenchmark process VmHWM: {:.1} MiB",
        vm_hwm_kib() as f64 / 1024.0
    );
    let left = lh_emu::netns::list();
    println!(
        "namespaces left: {}",
        if left.is_empty() {
            "none".into()
        } else {
            left.join(" ")
        }
    );
}
