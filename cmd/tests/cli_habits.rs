//! Mininet habits through the `lighthouse` binary: `time` on stdout,
//! `xterm` without a display, `py` evaluating `h1.IP()`, `dpctl`/`switch`/`wait` recognised,
//! per-node pids in `dump`, and ToR uplinks in `net`/`links`.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

/// 4 ToRs with one optical uplink each: every pair meets once a cycle.
const FOUR: &str = r#"{
  "name": "habits-4",
  "mode": "TO",
  "tors": { "count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps" },
  "ocs": { "count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "10us" },
  "topology": { "kind": "round_robin" },
  "routing": { "algorithm": "direct" }
}"#;

fn cfg(dir: &Path) -> PathBuf {
    let p = dir.join("four.json");
    std::fs::write(&p, FOUR).unwrap();
    p
}

/// Our run's prefix, from its `*** Run lhXXXX:` line.
fn prefix_of(err: &str) -> String {
    let i = err.find("*** Run lh").expect("run line") + 8;
    err[i..i + 6].to_string()
}

fn assert_left_nothing(prefix: &str) {
    let left: Vec<String> = lh_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect();
    assert!(left.is_empty(), "run {prefix} left {left:?}");
}

fn run_script(cfg: &Path, script: &str, env_display: bool) -> (Output, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.lh");
    std::fs::write(&s, script).unwrap();
    let mut c = Command::new(BIN);
    c.arg("run").arg(cfg).arg("--script").arg(&s);
    if !env_display {
        c.env_remove("DISPLAY");
    }
    let o = c.output().expect("run lighthouse");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, out, err)
}

#[test]
fn time_xterm_and_mininet_only_verbs() {
    if skip_unless_root("time_xterm_and_mininet_only_verbs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (o, out, err) = run_script(
        &cfg(dir.path()),
        "time nodes\nxterm h1 h9\npy h1.IP()\ndpctl dump-flows\nswitch s1 stop\nwait\n",
        false,
    );
    assert!(o.status.success(), "{err}");
    // Mininet: `time` writes its line on stdout, the command's own output
    // stays on the CLI's stream.
    assert!(out.starts_with("*** Elapsed time: "), "stdout: {out}");
    assert!(out.trim_end().ends_with(" secs"), "stdout: {out}");
    assert!(!err.contains("Elapsed"), "{err}");
    assert!(err.contains("available nodes are: \nh1 h2 h3 h4 s1 s2 s3 s4\n"));
    assert!(err.contains("Error: Cannot connect to display\n"), "{err}");
    assert!(err.contains("node 'h9' not in network\n"), "{err}");
    assert!(!err.contains("Unknown command"), "{err}");
    // `py` evaluates a node expression, as Mininet's.
    assert!(err.contains("\n10.0.0.1\n"), "{err}");
    assert!(
        err.contains("*** dpctl: ToRs are not OpenFlow switches"),
        "{err}"
    );
    assert!(err.contains("*** switch s1 stop: not supported"), "{err}");
    assert!(err.contains("link <host> s1 down"), "{err}");
    assert!(
        err.contains("*** Waiting for switches to connect\ns1 s2 s3 s4 \n"),
        "{err}"
    );
    assert_left_nothing(&prefix_of(&err));
}

#[test]
fn net_and_links_show_the_tor_uplinks_through_the_ocs() {
    if skip_unless_root("net_and_links_show_the_tor_uplinks_through_the_ocs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (o, _out, err) = run_script(&cfg(dir.path()), "net\nlinks\n", false);
    assert!(o.status.success(), "{err}");
    // `net`: s1's uplink reaches s2, s3 and s4 over the cycle.
    let line = err
        .lines()
        .find(|l| l.starts_with("s1 lo:  s1-eth1:h1-eth0 s1-up0:"))
        .unwrap_or_else(|| panic!("no s1 net line with its uplink:\n{err}"));
    let peers: Vec<&str> = line.rsplit_once(':').unwrap().1.split(',').collect();
    let mut sorted = peers.clone();
    sorted.sort();
    assert_eq!(sorted, ["s2-up0", "s3-up0", "s4-up0"], "{line}");
    // `links`: the host links, then each ToR pair once.
    assert!(err.contains("h1-eth0<->s1-eth1 (OK OK) \n"), "{err}");
    let ups: Vec<&str> = err.lines().filter(|l| l.contains("-up0<->")).collect();
    assert_eq!(ups.len(), 6, "4 ToRs: 6 pairs\n{err}");
    for l in ["s1-up0<->s2-up0", "s1-up0<->s4-up0", "s3-up0<->s4-up0"] {
        assert!(
            ups.iter()
                .any(|u| u.starts_with(l) && u.ends_with("(OK OK) ")),
            "{l}: {ups:?}"
        );
    }
    assert_left_nothing(&prefix_of(&err));
}

/// The inode of a network namespace file (or /proc/PID/ns/net).
fn ns_inode(p: &Path) -> u64 {
    std::fs::metadata(p).expect("namespace").ino()
}

#[test]
fn dump_shows_a_pid_per_node() {
    if skip_unless_root("dump_shows_a_pid_per_node") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .arg("run")
        .arg(cfg(dir.path()))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "dump").unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut prefix, mut dump) = (String::new(), Vec::new());
    for l in lines.by_ref() {
        let l = l.unwrap();
        if l.starts_with("*** Run lh") {
            prefix = prefix_of(&l);
        }
        if l.starts_with('<') {
            dump.push(l.clone());
        }
        if l.starts_with("<OpticalToR s4:") {
            break;
        }
    }
    let pid_of = |node: &str| -> u32 {
        let l = dump
            .iter()
            .find(|l| l.contains(&format!(" {node}: ")))
            .unwrap_or_else(|| panic!("no dump line for {node}: {dump:?}"));
        let p = l.rsplit_once("pid=").unwrap().1;
        p.trim_end_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .unwrap()
    };
    // Each host's pid is a process inside that host's namespace.
    let mut hosts = Vec::new();
    for k in 1..=4 {
        let pid = pid_of(&format!("h{k}"));
        let ns = lh_emu::netns::ns_path(&format!("{prefix}-h{k}"));
        assert_eq!(
            ns_inode(&PathBuf::from(format!("/proc/{pid}/ns/net"))),
            ns_inode(&ns),
            "h{k} pid {pid} is not in {}",
            ns.display()
        );
        hosts.push(pid);
    }
    hosts.dedup();
    assert_eq!(hosts.len(), 4, "{dump:?}");
    // A native ToR's pid is the run's data-plane thread.
    let tid = pid_of("s1");
    let comm = std::fs::read_to_string(format!("/proc/{}/task/{tid}/comm", child.id()));
    assert_eq!(comm.ok().as_deref(), Some("swtor-dataplane\n"), "{dump:?}");
    assert!(
        dump[4].starts_with("<OpticalToR s1: lo:127.0.0.1,s1-eth1:None,s1-up0:None pid="),
        "{dump:?}"
    );
    writeln!(stdin, "exit").unwrap();
    drop(stdin);
    for _ in lines {}
    assert!(child.wait().unwrap().success());
    assert_left_nothing(&prefix);
}
