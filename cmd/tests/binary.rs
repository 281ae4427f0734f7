//! The `lighthouse` binary: bad configs, SIGTERM teardown, crash leftovers
//! cleaned by `lighthouse clean` and by the next run.

mod common;

use common::*;
use lh_emu::kernel::state;
use lh_emu::run::clean;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

const SMALL: &str = r#"{
  "name": "test-small",
  "mode": "TO",
  "tors": { "count": 2, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 2, "host_link_rate": "1Gbps" },
  "ocs": { "count": 1, "ports": 2, "reconfiguration_delay": "10us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "10us" },
  "topology": { "kind": "round_robin" },
  "routing": { "algorithm": "direct" }
}"#;

fn write_cfg(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run_dirs() -> Vec<String> {
    state::runs()
}

/// `lighthouse run --no-fabric` with a pipe on stdin (the CLI reads lines).
fn spawn_run(cfg: &Path, prefix: &str) -> Child {
    Command::new(BIN)
        .args([
            "run",
            cfg.to_str().unwrap(),
            "--no-fabric",
            "--prefix",
            prefix,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_up(prefix: &str, hosts: usize) {
    wait_for("namespaces", Duration::from_secs(20), || {
        lh_namespaces()
            .iter()
            .filter(|n| n.starts_with(prefix))
            .count()
            == hosts + 1
            && state::load(prefix).is_some()
    });
}

#[test]
fn bad_config_names_the_field_and_leaves_nothing() {
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let ns_before = lh_namespaces();
    let runs_before = run_dirs();
    let cases = [
        (
            SMALL.replace(r#""count": 2, "uplinks""#, r#""count": 1, "uplinks""#),
            "$.tors.count",
        ),
        (
            SMALL.replace(r#""hosts_per_tor""#, r#""hosts_per_rack""#),
            "$.tors",
        ),
        (SMALL.replace(r#""100us""#, r#""fast""#), "$.slice.duration"),
    ];
    for (i, (text, field)) in cases.iter().enumerate() {
        let cfg = write_cfg(dir.path(), &format!("bad{i}.json"), text);
        let out = Command::new(BIN)
            .args(["run", cfg.to_str().unwrap(), "--test", "pingall"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} must fail");
        assert!(
            err.contains(field),
            "case {i}: error must name {field}: {err}"
        );
        assert!(
            err.contains(&format!("bad{i}.json")),
            "case {i}: names the file: {err}"
        );
    }
    let missing = Command::new(BIN)
        .args(["run", "/nonexistent/lh.json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/lh.json"));
    let badp = Command::new(BIN)
        .args(["clean", "--prefix", "../etc"])
        .output()
        .unwrap();
    assert!(!badp.status.success());
    assert_eq!(lh_namespaces(), ns_before);
    assert_eq!(run_dirs(), runs_before);
}

#[test]
fn sigterm_tears_the_run_down() {
    if skip_unless_root("sigterm_tears_the_run_down") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path(), "small.json", SMALL);
    let ns_before = lh_namespaces();
    let links_before = root_links();
    let p = free_prefix();
    let mut child = spawn_run(&cfg, &p);
    wait_up(&p, 4);
    // Keep stdin open: EOF would end the run by itself.
    let _stdin = child.stdin.take();
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let st = child.wait().unwrap();
    assert!(!st.success(), "a signalled run reports failure");
    assert_eq!(lh_namespaces(), ns_before);
    assert!(!state::run_dir(&p).exists());
    assert_eq!(root_links(), links_before);
}

#[test]
fn clean_after_kill_9_and_stale_runs_cleaned_at_start() {
    if skip_unless_root("clean_after_kill_9_and_stale_runs_cleaned_at_start") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path(), "small.json", SMALL);
    let ns_before = lh_namespaces();
    let links_before = root_links();

    // Run A with a process of its own inside h1, then kill -9.
    let pa = free_prefix();
    let mut a = spawn_run(&cfg, &pa);
    wait_up(&pa, 4);
    writeln!(a.stdin.as_mut().unwrap(), "h1 sleep 300 &").unwrap();
    let h1 = lh_emu::netns::ns_path(&format!("{pa}-h1"));
    let id = lh_emu::netns::ns_id(&h1).unwrap();
    let ids = std::collections::BTreeSet::from([id]);
    // The sleep itself, not just h1's shell: the shell is in h1 from its
    // spawn, a moment before the run records it, and a wait for any
    // process there read the state in that moment once in a loaded CI.
    wait_for("sleep inside h1", Duration::from_secs(10), || {
        clean::pids_in(&ids).iter().any(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "sleep")
        })
    });
    let inside = clean::pids_in(&ids);
    let st = state::load(&pa).unwrap();
    assert_eq!(st.pid, a.id());
    assert_eq!(
        st.children.len(),
        1,
        "the shell that ran the command is recorded"
    );
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(a.id() as i32, libc::SIGKILL) };
    a.wait().unwrap();
    assert!(
        state::run_dir(&pa).exists(),
        "a killed run leaves its state behind"
    );
    assert!(lh_namespaces().iter().any(|n| n.starts_with(&pa)));

    // `lighthouse clean --prefix` removes exactly that run.
    let out = Command::new(BIN)
        .args(["clean", "--prefix", &pa])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("{pa}-h1")),
        "reports namespaces: {err}"
    );
    assert!(err.contains("sleep"), "reports the killed process: {err}");
    for pid in &inside {
        wait_for("killed pid to vanish", Duration::from_secs(5), || {
            !Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z "))
        });
    }
    assert_eq!(lh_namespaces(), ns_before);
    assert!(!state::run_dir(&pa).exists());
    assert_eq!(root_links(), links_before);

    // A crashed run B is cleaned automatically when run C starts.
    let pb = free_prefix();
    let mut b = spawn_run(&cfg, &pb);
    wait_up(&pb, 4);
    // SAFETY: as above.
    unsafe { libc::kill(b.id() as i32, libc::SIGKILL) };
    b.wait().unwrap();
    let pc = free_prefix();
    let mut c = spawn_run(&cfg, &pc);
    wait_up(&pc, 4);
    assert!(
        !state::run_dir(&pb).exists(),
        "stale run B cleaned at start"
    );
    assert!(!lh_namespaces().iter().any(|n| n.starts_with(&pb)));
    // Run C ends normally on EOF.
    drop(c.stdin.take());
    let st = c.wait().unwrap();
    assert!(st.success());
    assert_eq!(lh_namespaces(), ns_before);
    assert_eq!(root_links(), links_before);
}
