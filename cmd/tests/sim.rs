//! `lighthouse sim` (docs/virtual-time.md): no root, deterministic output,
//! clear errors.

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
