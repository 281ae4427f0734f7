//! The emulated OCS as its own process (`lighthouse ocs`, docs/cli.md#lighthouse-ocs):
//! a mixed fabric whose OCS runs as a child process of the run (pingall,
//! exact conservation through the control channel), the run's teardown when
//! that process is killed, `lighthouse ocs`'s bad interfaces (one that
//! does not exist, one another run's OCS holds), and a BMv2 ToR on a
//! "machine" of its own reaching the OCS over kernel VXLAN
//! (docs/scale-out.md). Needs root; the BMv2 tests skip visibly without
//! the P4 toolchain.

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
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

/// Whether any namespace, run directory or process of run `p` exists.
fn anything_of(p: &str) -> Vec<String> {
    let mut v = namespaces_of(p);
    if lh_emu::kernel::state::run_dir(p).exists() {
        v.push(lh_emu::kernel::state::run_dir(p).display().to_string());
    }
    for pid in live_with_cmdline(p) {
        v.push(format!("pid {pid}"));
    }
    v
}

/// The pid in `*** OCS process: pid N, ...`.
fn ocs_pid(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.strip_prefix("*** OCS process: pid "))
        .and_then(|l| l.split(',').next())
        .and_then(|n| n.parse().ok())
}

#[test]
fn mixed_fabric_with_the_ocs_as_its_own_process_pingall_and_exact_conservation() {
    let t = "mixed_fabric_with_the_ocs_as_its_own_process_pingall_and_exact_conservation";
    if skip_unless_root(t) || bmv2_thrift::require::p4_test(t, &[]).is_none() {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    // The counters come from the OCS process over its control socket:
    // `drops` (swtor's and the P4 program's), `queues` of the BMv2 ToR and
    // of a native one, and an uplink capture the OCS process writes.
    let up = dir.path().join("up.pcap");
    std::fs::write(
        &script,
        format!(
            "pingall\ndrops\nqueues s3\nqueues s1\npcap s1 up0 {}\nh1 ping -c 2 h5\npcap stop\n",
            up.display()
        ),
    )
    .unwrap();
    let cfg = repo().join("topologies/rotornet-8-1ms.json");
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
    let pid = ocs_pid(&e).unwrap_or_else(|| panic!("no OCS process started:\n{e}"));
    assert_ne!(pid, 0);
    assert!(
        e.contains("*** Results: 0% dropped (240/240 received)"),
        "{e}"
    );
    // The `drops` verb's conservation line, with swtor's counters read
    // from the OCS process: exact, nothing in flight.
    let line = e
        .lines()
        .find(|l| l.starts_with("*** conservation: sent"))
        .unwrap_or_else(|| panic!("no conservation line:\n{e}"));
    assert!(line.ends_with("in flight 0: OK"), "{line}");
    assert!(e.contains("occupancy estimate"), "{e}");
    let frames = std::fs::metadata(&up).map(|m| m.len()).unwrap_or(0);
    assert!(frames > 24 + 4 * 100, "uplink pcap: {frames} bytes\n{e}");
    // The end-of-run line too (its counters are the OCS process's last).
    assert!(e.contains("(conservation OK)"), "{e}");
    let left = anything_of(&p);
    assert!(left.is_empty(), "run {p} left {left:?}\n{e}");
}

#[test]
fn a_bmv2_tor_on_another_machine_reaches_the_ocs_over_vxlan_pingall() {
    let t = "a_bmv2_tor_on_another_machine_reaches_the_ocs_over_vxlan_pingall";
    if skip_unless_root(t) || bmv2_thrift::require::p4_test(t, &[]).is_none() {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    // Two namespaces stand in for two machines: `<p>-s3` (BMv2 ToR s3 and
    // its host ports) and `<p>-fab` (the OCS process and the native ToRs),
    // joined by one underlay link that carries a kernel VXLAN link per
    // port of s3. Only addresses in the run's namespaces are used.
    std::fs::write(
        &script,
        "pingall\ndrops\ns3 ip -d link show s3-up0\ns3 ip -d link show s3-cpu\ns3 ip -br addr show s3-wan\n",
    )
    .unwrap();
    let cfg = repo().join("topologies/rotornet-8-1ms.json");
    let o = run(&[
        "run",
        cfg.to_str().unwrap(),
        "--tor",
        "bmv2:s3",
        "--vxlan",
        "--prefix",
        &p,
        "--script",
        script.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    let all = format!("{out}{e}");
    assert!(o.status.success(), "{all}");
    assert!(ocs_pid(&e).is_some(), "no OCS process:\n{e}");
    assert!(
        all.contains("*** Results: 0% dropped (240/240 received)"),
        "{all}"
    );
    // s3's uplink and CPU port are VXLAN links to the OCS's machine.
    assert!(
        all.contains("vxlan id 769 remote 198.18.2.1 local 198.18.2.2 dev s3-wan"),
        "{all}"
    );
    assert!(
        all.contains("vxlan id 1023 remote 198.18.2.1 local 198.18.2.2 dev s3-wan"),
        "{all}"
    );
    assert!(all.contains("198.18.2.2/24"), "{all}");
    let line = all
        .lines()
        .find(|l| l.starts_with("*** conservation: sent"))
        .unwrap_or_else(|| panic!("no conservation line:\n{all}"));
    assert!(line.ends_with("in flight 0: OK"), "{line}");
    let left = anything_of(&p);
    assert!(left.is_empty(), "run {p} left {left:?}\n{all}");
}

/// Reads a child's stderr on a thread into a shared string.
fn collect(child: &mut Child) -> std::sync::Arc<std::sync::Mutex<String>> {
    let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let o2 = out.clone();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let mut s = o2.lock().unwrap();
            s.push_str(&l);
            s.push('\n');
        }
    });
    out
}

#[test]
fn a_killed_ocs_process_is_reported_and_the_run_torn_down() {
    if skip_unless_root("a_killed_ocs_process_is_reported_and_the_run_torn_down") {
        return;
    }
    // A native fabric with --ocs-process (the same child process as with
    // BMv2 ToRs, without needing the P4 toolchain) ...
    kill_the_ocs_of(&["--ocs-process"]);
}

#[test]
fn a_killed_ocs_process_of_a_mixed_fabric_is_reported_and_the_run_torn_down() {
    let t = "a_killed_ocs_process_of_a_mixed_fabric_is_reported_and_the_run_torn_down";
    if skip_unless_root(t) || bmv2_thrift::require::p4_test(t, &[]).is_none() {
        return;
    }
    // ... and the one a BMv2 ToR brings, whose simple_switch goes too.
    kill_the_ocs_of(&["--tor", "bmv2:s3"]);
}

/// Starts a run with `args` (its CLI waiting on stdin), SIGKILLs its OCS
/// process once the run has printed its pid, and checks the report, the
/// exit status and that nothing of the run is left.
fn kill_the_ocs_of(args: &[&str]) {
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let p = free_prefix();
    let cfg = repo().join("topologies/rotornet-8-1ms.json");
    let mut child = Command::new(BIN)
        .args(["run", cfg.to_str().unwrap(), "--prefix", &p])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = collect(&mut child);
    let mut pid = None;
    wait_for("the OCS process", Duration::from_secs(60), || {
        pid = ocs_pid(&out.lock().unwrap());
        pid.is_some() || child.try_wait().unwrap().is_some()
    });
    let pid = pid.unwrap_or_else(|| panic!("no OCS process:\n{}", out.lock().unwrap()));
    // It runs in the run's fabric namespace and carries the run's prefix.
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    assert!(String::from_utf8_lossy(&cmdline).contains(&p));
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) on the pid the run printed; no memory is involved.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "run did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(200));
    let e = out.lock().unwrap().clone();
    assert_eq!(status.code(), Some(3), "{e}");
    assert!(
        e.contains(&format!(
            "*** Error: the OCS process (lighthouse ocs, pid {pid}) died"
        )),
        "{e}"
    );
    assert!(e.contains(&format!("*** Tearing down {p}")), "{e}");
    let left = anything_of(&p);
    assert!(left.is_empty(), "run {p} left {left:?}\n{e}");
}

/// A namespace of test prefix `p` with interfaces `d0..d{n-1}`, up: the
/// ends of veth pairs whose peers `e0..` are there too (they stand in for
/// NICs; this kernel has no dummy devices). Removed on drop.
struct NicNs {
    name: String,
}

impl NicNs {
    fn new(p: &str, n: usize) -> NicNs {
        let name = format!("{p}-nic");
        lh_emu::netns::create(&name).unwrap();
        let ns = NicNs { name };
        for i in 0..n {
            for args in [
                vec![
                    "link".to_string(),
                    "add".into(),
                    format!("d{i}"),
                    "type".into(),
                    "veth".into(),
                    "peer".into(),
                    "name".into(),
                    format!("e{i}"),
                ],
                vec!["link".into(), "set".into(), format!("d{i}"), "up".into()],
                vec!["link".into(), "set".into(), format!("e{i}"), "up".into()],
            ] {
                let st = Command::new("ip")
                    .arg("-n")
                    .arg(&ns.name)
                    .args(&args)
                    .status()
                    .unwrap();
                assert!(st.success(), "ip -n {} {args:?}", ns.name);
            }
        }
        ns
    }
}

impl Drop for NicNs {
    fn drop(&mut self) {
        let _ = lh_emu::netns::delete(&self.name);
    }
}

/// `ip -d link show`'s promiscuity count of `dev` in namespace `ns`.
fn promiscuity(ns: &str, dev: &str) -> u32 {
    let o = Command::new("ip")
        .args(["-n", ns, "-d", "link", "show", dev])
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&o.stdout);
    t.split_whitespace()
        .skip_while(|w| *w != "promiscuity")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no promiscuity in {t}"))
}

/// `--port` for every port of rr4-direct (4 ToRs, 1 uplink): d0..d7.
fn rr4_ports(names: &[&str; 8]) -> Vec<String> {
    let mut v = Vec::new();
    for t in 0..4 {
        v.push("--port".into());
        v.push(format!("s{}:up0={}", t + 1, names[2 * t]));
        v.push("--port".into());
        v.push(format!("s{}:cpu={}", t + 1, names[2 * t + 1]));
    }
    v
}

fn rr4() -> String {
    repo()
        .join("tests/conformance/configs/rr4-direct.json")
        .display()
        .to_string()
}

#[test]
fn ocs_with_a_missing_or_taken_interface_names_it_and_leaves_nothing() {
    if skip_unless_root("ocs_with_a_missing_or_taken_interface_names_it_and_leaves_nothing") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // The "NICs" live in a namespace of the test's own prefix: each OCS
    // claims a prefix of its own, which no namespace may already carry.
    let nic = NicNs::new(&free_prefix(), 8);
    let p1 = free_prefix();
    let p2 = loop {
        let p = free_prefix();
        if p != p1 {
            break p;
        }
    };
    let names = ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"];

    // A NIC that does not exist: named, exit 2, nothing left.
    let mut bad = names;
    bad[5] = "nosuch5";
    let mut args: Vec<String> = ["ocs", &rr4(), "--netns", &nic.name, "--prefix", &p2]
        .map(String::from)
        .to_vec();
    args.extend(rr4_ports(&bad));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&a);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--port s3:cpu=nosuch5: no interface nosuch5 in network namespace"),
        "{e}"
    );
    assert!(anything_of(&p2).is_empty(), "{:?}", anything_of(&p2));

    // The first OCS holds d0..d7 ...
    let mut args1: Vec<String> = ["ocs", &rr4(), "--netns", &nic.name, "--prefix", &p1]
        .map(String::from)
        .to_vec();
    args1.extend(rr4_ports(&names));
    let mut first = Command::new(BIN)
        .args(&args1)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = collect(&mut first);
    let sock = lh_emu::tor::ocs::socket_path(&p1);
    wait_for("the first OCS's socket", Duration::from_secs(30), || {
        sock.exists() || first.try_wait().unwrap().is_some()
    });
    assert!(sock.exists(), "{}", out.lock().unwrap());
    // ... so a second one on the same namespace's d0..d7 is refused.
    let mut args2 = args1.clone();
    args2[5] = p2.clone();
    let a: Vec<&str> = args2.iter().map(String::as_str).collect();
    let o = run(&a);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("interface d0 is already used by run {p1}")),
        "{e}"
    );
    assert!(anything_of(&p2).is_empty(), "{:?}", anything_of(&p2));

    // The first answers on its control socket (the run's `drops` reads
    // these counters), then stops on SIGTERM with its directory removed.
    // The protocol as docs/cli.md#lighthouse-ocs shows it: a JSON line each way.
    let mut s = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    std::io::Write::write_all(&mut s, b"{\"op\":\"counters\"}\n").unwrap();
    let mut line = String::new();
    BufReader::new(&s).read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let c: swtor::Counters = serde_json::from_value(v["ok"].clone()).unwrap();
    assert!(
        c.rotation_tx > 0,
        "rotation frames on the CPU ports: {line}"
    );
    drop(s);
    // Its ports take frames for any MAC while it runs (a NIC would need
    // it), and only then.
    assert_eq!(promiscuity(&nic.name, "d0"), 1);
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    let t0 = Instant::now();
    let st = loop {
        if let Some(s) = first.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "OCS did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(100));
    let e = out.lock().unwrap().clone();
    assert!(st.success(), "{e}");
    assert!(e.contains("(conservation OK)"), "{e}");
    assert_eq!(promiscuity(&nic.name, "d0"), 0);
    drop(nic);
    let left = anything_of(&p1);
    assert!(left.is_empty(), "{left:?}");
}
