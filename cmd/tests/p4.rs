//! P4 ToRs on stock BMv2 through the `lighthouse` binary: every ToR on
//! BMv2, a mixed fabric, and the bad-input cases (toolchain missing, a P4
//! compile error, a switch that dies mid-run). Skips visibly without root
//! or without simple_switch / p4c-bm2-ss.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rotornet_1ms() -> PathBuf {
    repo().join("topologies/rotornet-8-1ms.json")
}

fn skip(test: &str) -> bool {
    if skip_unless_root(test) {
        return true;
    }
    // Skips visibly, or fails where the toolchain is required (CI).
    bmv2_thrift::require::p4_test(test, &[]).is_none()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run lighthouse")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether any namespace or run directory of run `p` exists.
fn mine(p: &str) -> bool {
    lh_namespaces()
        .iter()
        .any(|n| n.starts_with(&format!("{p}-")))
        || lh_emu::kernel::state::run_dir(p).exists()
}

fn simple_switches() -> Vec<u32> {
    let o = Command::new("pgrep")
        .args(["-x", "simple_switch"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        // A killed switch whose parent exited may linger as a zombie when
        // PID 1 does not reap: it runs nothing.
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .map(|st| {
                    st.rsplit(')')
                        .next()
                        .is_some_and(|r| !r.trim_start().starts_with('Z'))
                })
                .unwrap_or(false)
        })
        .collect()
}

#[test]
fn every_tor_on_bmv2_pingall_at_1ms_slices() {
    if skip("every_tor_on_bmv2_pingall_at_1ms_slices") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let cfg = rotornet_1ms();
    let o = run(&[
        "run",
        cfg.to_str().unwrap(),
        "--prefix",
        &p,
        "--tor",
        "bmv2",
        "--test",
        "pingall",
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("*** Starting P4 ToRs on BMv2: s1 s2 s3 s4 s5 s6 s7 s8"),
        "{e}"
    );
    assert!(
        e.contains("*** Results: 0% dropped (240/240 received)"),
        "{e}"
    );
    assert!(e.contains("(conservation OK)"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
}

#[test]
fn mixed_fabric_with_one_bmv2_tor_pingall_and_exact_conservation() {
    if skip("mixed_fabric_with_one_bmv2_tor_pingall_and_exact_conservation") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    // pingall, then the counters: frames crossed BMv2 (s3 holds h5, h6)
    // and the swtor side, and the conservation line adds both up.
    let (hp, up) = (dir.path().join("host.pcap"), dir.path().join("up.pcap"));
    std::fs::write(
        &script,
        format!(
            "pingall\ndrops\ntable s3\nqueues s3\npcap s3 eth1 {}\npcap s3 up0 {}\nh5 ping -c 2 h1\npcap stop\nlinks\ndump\n",
            hp.display(),
            up.display()
        ),
    )
    .unwrap();
    let cfg = rotornet_1ms();
    let o = run(&[
        "run",
        cfg.to_str().unwrap(),
        "--tor",
        "bmv2:s3",
        "--prefix",
        &p,
        "--script",
        script.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("*** Results: 0% dropped (240/240 received)"),
        "{e}"
    );
    // h5/h6 ping 14 others each way and each other; every frame of theirs
    // enters or leaves through s3's P4 program.
    let p4_line = e
        .lines()
        .find(|l| l.starts_with("*** P4 ToRs: from hosts"))
        .unwrap_or_else(|| panic!("{e}"));
    let from_hosts: u64 = p4_line.split_whitespace().nth(5).unwrap().parse().unwrap();
    assert_eq!(from_hosts, 2 * 15 * 2, "{p4_line}");
    assert!(e.contains("in flight 0: OK"), "{e}");
    assert!(e.contains("runs the P4 program on BMv2"), "{e}");
    assert!(e.contains("occupancy estimate"), "{e}");
    // pcap, links and dump on the BMv2 ToR: its host port and its uplink
    // (as the OCS sees it) were captured, its ports are present, and dump
    // shows its own process.
    let frames = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    assert!(
        frames(&hp) > 24 + 4 * 100,
        "host-port pcap: {} bytes\n{e}",
        frames(&hp)
    );
    assert!(
        frames(&up) > 24 + 4 * 100,
        "uplink pcap: {} bytes\n{e}",
        frames(&up)
    );
    assert!(e.contains("h5-eth0<->s3-eth1 (OK OK)"), "{e}");
    assert!(e.contains("<P4ToR s3: lo:127.0.0.1,s3-eth1:None"), "{e}");
    assert!(e.contains("(conservation OK)"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
}

#[test]
fn missing_toolchain_says_how_to_install_and_leaves_nothing() {
    if skip_unless_root("missing_toolchain_says_how_to_install_and_leaves_nothing") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let cfg = rotornet_1ms();
    let o = Command::new(BIN)
        .args([
            "run",
            cfg.to_str().unwrap(),
            "--prefix",
            &p,
            "--tor",
            "bmv2",
            "--test",
            "pingall",
        ])
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("simple_switch"), "{e}");
    assert!(e.contains("install-p4.sh"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
}

#[test]
fn a_shared_tor_buffer_on_bmv2_names_the_field_and_leaves_nothing() {
    if skip_unless_root("a_shared_tor_buffer_on_bmv2_names_the_field_and_leaves_nothing") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let dir = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rotornet_1ms()).unwrap()).unwrap();
    v["tors"]["buffer_capacity"] = serde_json::json!(64_000_000);
    let cfg = dir.path().join("shared.json");
    std::fs::write(&cfg, v.to_string()).unwrap();
    let o = run(&[
        "run",
        cfg.to_str().unwrap(),
        "--prefix",
        &p,
        "--tor",
        "bmv2:s2",
        "--test",
        "pingall",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("$.tors.buffer_capacity"), "{e}");
    assert!(e.contains("native ToRs only"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
}

#[test]
fn a_p4_compile_error_names_file_and_line_and_leaves_nothing() {
    if skip("a_p4_compile_error_names_file_and_line_and_leaves_nothing") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.p4");
    std::fs::write(
        &bad,
        "#include <core.p4>\n#include <v1model.p4>\ncontrol C() { apply { x = 1; } }\n",
    )
    .unwrap();
    let cfg = rotornet_1ms();
    let o = run(&[
        "run",
        cfg.to_str().unwrap(),
        "--tor",
        "bmv2:s1",
        "--prefix",
        &p,
        "--p4",
        bad.to_str().unwrap(),
        "--test",
        "pingall",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("broken.p4:3:"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
}

#[test]
fn a_bmv2_switch_that_dies_mid_run_is_reported_and_cleaned_up() {
    if skip("a_bmv2_switch_that_dies_mid_run_is_reported_and_cleaned_up") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let before: Vec<u32> = simple_switches();
    let cfg = rotornet_1ms();
    let mut child = Command::new(BIN)
        .args([
            "run",
            cfg.to_str().unwrap(),
            "--prefix",
            &p,
            "--tor",
            "bmv2:s2",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for its switch, then kill it as a crash would.
    let t0 = Instant::now();
    let pid = loop {
        // This run's switch only (its notification socket is in the run's
        // directory): other runs on the machine have switches too.
        let mine = format!("{}/", lh_emu::kernel::state::run_dir(&p).display());
        if let Some(p) = simple_switches().into_iter().find(|s| {
            !before.contains(s)
                && std::fs::read(format!("/proc/{s}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&mine))
        }) {
            break p;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no simple_switch appeared"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on a pid we just found; no memory is involved.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t1.elapsed() < Duration::from_secs(30), "run did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut e = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut e).unwrap();
    assert_eq!(status.code(), Some(3), "{e}");
    assert!(e.contains("BMv2 ToR s2 (simple_switch pid"), "{e}");
    assert!(e.contains("died"), "{e}");
    assert!(!mine(&p), "run {p} left state behind");
    assert!(!simple_switches().contains(&pid));
}

#[test]
fn p4_check_passes_the_shipped_program_and_fails_a_broken_or_changed_one() {
    if skip("p4_check_passes_the_shipped_program_and_fails_a_broken_or_changed_one") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let o = run(&["p4", "check"]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("*** P4 check PASSED: 4/4 steps"), "{e}");

    // A compile error: named with file and line, nothing else can pass.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.p4");
    std::fs::write(
        &bad,
        "#include <core.p4>\ncontrol C() { apply { x = 1; } }\n",
    )
    .unwrap();
    let o = run(&["p4", "check", "--p4", bad.to_str().unwrap()]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("[FAIL] compile"), "{e}");
    assert!(e.contains("broken.p4:2:"), "{e}");
    assert!(e.contains("*** P4 check FAILED"), "{e}");

    // A program that compiles but no longer takes alternates on a slice
    // miss (§6.3): the BMv2 conformance step catches it.
    let src = dir.path().join("p4");
    std::fs::create_dir_all(src.join("include")).unwrap();
    for f in ["lighthouse.p4"].into_iter().map(String::from).chain(
        std::fs::read_dir(repo().join("p4/include"))
            .unwrap()
            .map(|d| format!("include/{}", d.unwrap().file_name().to_string_lossy())),
    ) {
        let mut text = std::fs::read_to_string(repo().join("p4").join(&f)).unwrap();
        if f == "include/ingress.p4" {
            let n = text.matches("LH_TRY(1)\n").count();
            assert_eq!(n, 1, "the mutation site moved");
            text = text
                .replace("LH_TRY(1)\n", "\n")
                .replace("LH_TRY(2)\n", "\n");
        }
        std::fs::write(src.join(&f), text).unwrap();
    }
    let o = run(&[
        "p4",
        "check",
        "--p4",
        src.join("lighthouse.p4").to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("[PASS] compile"), "{e}");
    assert!(e.contains("[FAIL] conformance on BMv2"), "{e}");
    assert!(
        e.contains("hoho: a slice miss takes the entry's alternate"),
        "{e}"
    );
}
