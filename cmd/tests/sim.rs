//! `lighthouse sim` (docs/virtual-time.md): no root, deterministic output,
//! clear errors, and ping RTTs that agree with a live run (cross-validation).

mod common;

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn sim(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("sim")
        .args(args)
        .output()
        .expect("run lighthouse")
}

#[test]
fn json_output_is_the_same_on_every_run() {
    let a = sim(&["topologies/rotornet-8.json", "--json"]);
    let b = sim(&["topologies/rotornet-8.json", "--json"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["pingall"]["received"], 240);
    assert_eq!(v["conservation_holds"], true);
    assert!(v["stats"]["frame_hops"].as_u64().unwrap() >= 4 * 480 - 2 * 2 * 16);
    // Wall time is on stderr only.
    assert!(String::from_utf8_lossy(&a.stderr).contains("frame-hops"));
}

#[test]
fn pings_step_with_the_slice_in_which_they_are_sent() {
    // The demo's pings (scripts/demo.lh): 14 pings 13.7 ms apart land in
    // different slices of rotornet-8's 700 us cycle; RTTs 100 us apart.
    let o = sim(&[
        "topologies/rotornet-8.json",
        "--ping",
        "h1",
        "h3",
        "--count",
        "14",
        "--interval",
        "13.7ms",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let mut rtts: Vec<f64> = text
        .lines()
        .filter_map(|l| l.split("time=").nth(1)?.strip_suffix(" ms")?.parse().ok())
        .collect();
    assert_eq!(rtts.len(), 14, "{text}");
    rtts.sort_by(f64::total_cmp);
    rtts.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    // Seven phases of the cycle, one slice (0.1 ms) apart.
    assert_eq!(rtts.len(), 7, "{rtts:?}");
    for w in rtts.windows(2) {
        assert!((w[1] - w[0] - 0.1).abs() < 1e-3, "{rtts:?}");
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let o = sim(&["topologies/rotornet-8.json", "--tor", "bmv2:s3"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--tor: \"bmv2:s3\": the simulation runs the native ToRs only"),
        "{e}"
    );
    let o = sim(&["topologies/rotornet-8.json", "--ping", "h1", "h99"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no host \"h99\" (h1..h16)"));
    let o = sim(&["topologies/rotornet-8.json", "--interval", "soon"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--interval \"soon\""));
}

/// The RTTs (ms) a ping's output lines give (`time=X ms`).
fn rtts_of(text: &str) -> Vec<f64> {
    let mut v: Vec<f64> = text
        .lines()
        .filter_map(|l| l.split("time=").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Nearest-rank percentile of sorted `v`.
fn pct(v: &[f64], p: f64) -> f64 {
    v[((v.len() as f64 * p / 100.0).ceil() as usize).clamp(1, v.len()) - 1]
}

#[test]
fn ping_rtts_agree_with_a_live_run() {
    // Cross-validation (docs/virtual-time.md): rotornet-8 (1 Gb/s, 100 us
    // slices, 700 us cycle), 168 pings h1 -> h3 13.7 ms apart, live and
    // simulated. A ping's RTT is the wait for the s1-s2 circuit (0 to a
    // cycle) plus the path; the live run adds its kernels' and veths'
    // time. The simulation's pings are 13.7013 ms apart so that, as the
    // live ones do, they land at every offset within a slice.
    if common::skip_unless_root("ping_rtts_agree_with_a_live_run") {
        return;
    }
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ping.lh");
    std::fs::write(&script, "h1 ping -c 168 -i 0.0137 h3\n").unwrap();
    let live = Command::new(BIN)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["run", "topologies/rotornet-8.json", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(live.status.success());
    // A node command's output is the run's output: stderr.
    let live = rtts_of(&String::from_utf8_lossy(&live.stderr));
    let o = sim(&[
        "topologies/rotornet-8.json",
        "--ping",
        "h1",
        "h3",
        "--count",
        "168",
        "--interval",
        "13.7013ms",
    ]);
    let simulated = rtts_of(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(
        (live.len(), simulated.len()),
        (168, 168),
        "{live:?} {simulated:?}"
    );
    let spread = |v: &[f64]| pct(v, 75.0) - pct(v, 25.0);
    let (dm, ds) = (
        pct(&live, 50.0) - pct(&simulated, 50.0),
        spread(&live) - spread(&simulated),
    );
    eprintln!(
        "cross-validation: median live - sim {dm:.3} ms, spread (p75 - p25) live - sim {ds:.3} ms"
    );
    // The band: the live median above the simulated one by the hosts'
    // overhead, less the sampling error of the live pings' phases (the
    // median of 168 uniform waits over a cycle: ~0.015 ms): -0.1 to 0.3 ms;
    // the spread of the middle half (the circuit wait; a live ping the
    // machine delays by a millisecond falls outside it) within 1.5 slices
    // (its sampling error over 168 pings: ~0.03 ms).
    assert!(
        (-0.1..=0.3).contains(&dm) && ds.abs() <= 0.15,
        "median live - sim {dm:.3} ms, spread live - sim {ds:.3} ms\nlive {live:?}\nsim {simulated:?}"
    );
}
