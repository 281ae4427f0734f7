//! Host TCP knobs from the config and the paper's applications (memcached
//! with a SET load generator, ring allreduce), through the `lighthouse`
//! binary on real namespaces and kernel TCP. Each test uses its own run
//! prefix and checks that nothing of it is left behind.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn topologies() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies")
}

/// rotornet-8.json with `hosts` set to `hosts` (none if null).
fn rotornet_with(dir: &Path, hosts: serde_json::Value) -> PathBuf {
    let text = std::fs::read_to_string(topologies().join("rotornet-8.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    if !hosts.is_null() {
        v["hosts"] = hosts;
    }
    let p = dir.join("config.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

struct Run {
    out: Output,
    err: String,
}

/// `lighthouse run CFG --script S --prefix P` with `env` added; asserts
/// that no namespace or process of the prefix is left.
fn run_script(cfg: &Path, script: &str, env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.lh");
    std::fs::write(&s, script).unwrap();
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    let mut c = Command::new(BIN);
    c.arg("run")
        .arg(cfg)
        .arg("--script")
        .arg(&s)
        .args(["--prefix", &prefix]);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run lighthouse");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let left: Vec<String> = lh_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert!(left.is_empty(), "run {prefix} left {left:?}\n{err}");
    assert!(
        !Path::new("/run/lighthouse").join(&prefix).exists(),
        "run {prefix} left its state directory"
    );
    Run { out, err }
}

#[test]
fn tcp_knobs_are_set_in_every_host_namespace() {
    if skip_unless_root("tcp_knobs_are_set_in_every_host_namespace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "h1 sysctl net.ipv4.tcp_reordering net.ipv4.tcp_congestion_control\nh1 ip route\nh16 sysctl net.ipv4.tcp_reordering net.ipv4.tcp_congestion_control\nh16 ip route\n";
    // Without the section: the kernel's per-namespace defaults.
    let plain = run_script(
        &rotornet_with(dir.path(), serde_json::Value::Null),
        script,
        &[],
    );
    assert!(plain.out.status.success(), "{}", plain.err);
    assert!(
        plain.err.contains("net.ipv4.tcp_reordering = 3\n"),
        "{}",
        plain.err
    );
    assert!(!plain.err.contains("rto_min"), "{}", plain.err);
    // The paper's Fig. 9 setting, with reno and a 5 ms minimum RTO.
    let knobs = serde_json::json!({"tcp": {"reordering": 5, "congestion_control": "reno", "rto_min": "5ms"}});
    let r = run_script(&rotornet_with(dir.path(), knobs), script, &[]);
    assert!(r.out.status.success(), "{}", r.err);
    assert_eq!(
        r.err.matches("net.ipv4.tcp_reordering = 5\n").count(),
        2,
        "{}",
        r.err
    );
    assert_eq!(
        r.err
            .matches("net.ipv4.tcp_congestion_control = reno\n")
            .count(),
        2,
        "{}",
        r.err
    );
    assert!(
        r.err.contains(
            "10.0.0.0/8 dev h1-eth0 proto kernel scope link src 10.0.0.1 rto_min lock 5ms"
        ),
        "{}",
        r.err
    );
    assert!(
        r.err.contains(
            "10.0.0.0/8 dev h16-eth0 proto kernel scope link src 10.0.0.16 rto_min lock 5ms"
        ),
        "{}",
        r.err
    );
}

#[test]
fn bad_tcp_knobs_are_refused_naming_the_field() {
    if skip_unless_root("bad_tcp_knobs_are_refused_naming_the_field") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Valid syntax, but no such module in this kernel: refused at bring-up.
    let cfg = rotornet_with(
        dir.path(),
        serde_json::json!({"tcp": {"congestion_control": "nosuchcc"}}),
    );
    let r = run_script(&cfg, "h1 sysctl net.ipv4.tcp_congestion_control\n", &[]);
    assert_eq!(r.out.status.code(), Some(2), "{}", r.err);
    assert!(
        r.err.contains("$.hosts.tcp.congestion_control")
            && r.err.contains("\"nosuchcc\" is not available")
            && r.err.contains("available: "),
        "{}",
        r.err
    );
    // Rejected by the config checks before anything exists.
    let cfg = rotornet_with(dir.path(), serde_json::json!({"tcp": {"reordering": 0}}));
    let r = run_script(&cfg, "nodes\n", &[]);
    assert_eq!(r.out.status.code(), Some(2), "{}", r.err);
    assert!(r.err.contains("$.hosts.tcp.reordering"), "{}", r.err);
    assert!(!r.err.contains("*** Run lh"), "{}", r.err);
}
