//! The fat tree (fabric "fattree", SOPA's fabric) through the binary, with
//! real host namespaces and the kernel's TCP: pingall is 0% lost for ecmp,
//! rps, sopa and hedera; a TCP flow crosses pods; `link aX cY down` loses frames
//! as `link_down` while the failure is undetected and none after
//! `routing.failure_detection`; conservation holds exactly; `nodes`,
//! `net`, `dump` and `ports` list the aggregation and core switches.

mod common;

use common::*;
use serde_json::{Value, json};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn fattree4(alg: &str, detection: &str) -> Value {
    let path = format!(
        "{}/../topologies/fattree-4.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["routing"]["algorithm"] = json!(alg);
    v["routing"]["failure_detection"] = json!(detection);
    v
}

/// Runs `lighthouse run CONFIG --script` over `lines` under a fresh
/// prefix: (exit code, stderr); checks nothing of the run is left.
fn run_script(cfg: &Value, lines: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (c, script) = (dir.path().join("c.json"), dir.path().join("s.lh"));
    std::fs::write(&c, cfg.to_string()).unwrap();
    std::fs::write(&script, lines).unwrap();
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    let o = Command::new(BIN)
        .args(["run", c.to_str().unwrap(), "--prefix", &prefix])
        .args(["--script", script.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(namespaces_of(&prefix).is_empty(), "namespaces left behind");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn pingall_results(e: &str) -> Vec<&str> {
    ping_results(e)
        .into_iter()
        .filter(|l| l.contains("dropped"))
        .collect()
}

/// The `link_down` count of the last `drops` table.
fn link_down(e: &str) -> u64 {
    e.lines()
        .rev()
        .find_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["link_down", n] => n.parse().ok(),
            _ => None,
        })
        .expect("a drops table")
}

/// The final line `*** Fabric: sent S delivered D dropped X queued Q`
/// must balance exactly.
fn assert_conserved(e: &str) {
    let l = e
        .lines()
        .find(|l| l.starts_with("*** Fabric: sent"))
        .expect("final counters");
    let n: Vec<u64> = l
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(n.len(), 4, "{l}");
    assert_eq!(n[0], n[1] + n[2] + n[3], "{l}");
    assert!(l.ends_with("(conservation OK)"), "{l}");
}

#[test]
fn pingall_and_tcp_work_for_every_scheme() {
    if skip_unless_root("pingall_and_tcp_work_for_every_scheme") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    for alg in ["ecmp", "rps", "sopa", "hedera"] {
        let (code, e) = run_script(&fattree4(alg, "1ms"), "pingall\niperf h1 h16\n");
        assert_eq!(code, Some(0), "{alg}: {e}");
        assert!(
            e.contains(&format!(
                "*** Starting fat tree: k=4, 8 edge, 8 aggregation, 4 core switches, routing {}",
                {
                    let mut s = alg.to_string();
                    s[..1].make_ascii_uppercase();
                    s
                }
            )),
            "{alg}: {e}"
        );
        assert_eq!(
            pingall_results(&e),
            ["*** Results: 0% dropped (240/240 received)"],
            "{alg}: {e}"
        );
        // h1 (pod 0) to h16 (pod 3): a TCP flow over the cores.
        let iperf = e
            .lines()
            .find(|l| l.starts_with("*** Results: ['"))
            .unwrap_or_else(|| panic!("{alg}: no iperf result: {e}"));
        let mbps: f64 = iperf
            .trim_start_matches("*** Results: ['")
            .split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or(0.0);
        let unit_ok = iperf.contains("Mbits/sec") || iperf.contains("Gbits/sec");
        assert!(unit_ok && mbps > 0.0, "{alg}: {iperf}");
        assert_conserved(&e);
    }
}

#[test]
fn failed_agg_core_link_loses_frames_until_detected_then_none() {
    if skip_unless_root("failed_agg_core_link_loses_frames_until_detected_then_none") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // a1 = A(pod 0, 0), c1 = C(0, 0). Undetected for the whole run: SOPA's
    // round-robin sends some pings over the dead link, lost as link_down.
    let (code, e) = run_script(
        &fattree4("sopa", "3600s"),
        "link a1 c1 down\npingall\ndrops\nlink a1 a2 down\nlink s1 c1 down\n",
    );
    assert_eq!(code, Some(0), "{e}");
    let r = pingall_results(&e);
    assert_eq!(r.len(), 1, "{e}");
    assert_ne!(r[0], "*** Results: 0% dropped (240/240 received)", "{e}");
    assert!(link_down(&e) > 0, "{e}");
    assert!(
        e.contains("*** Error: no link between a1 and a2 in the fat tree"),
        "{e}"
    );
    assert!(
        e.contains("*** Error: no link between s1 and c1 in the fat tree"),
        "{e}"
    );
    assert_conserved(&e);

    // Detected after 1 ms: once that has passed, every path over the link
    // is withdrawn and nothing is lost; `link up` restores it.
    for alg in ["sopa", "ecmp", "rps"] {
        let (code, e) = run_script(
            &fattree4(alg, "1ms"),
            "link a1 c1 down\nh1 sleep 0.05\npingall\ndrops\nlink a1 c1 up\nh1 sleep 0.05\npingall\n",
        );
        assert_eq!(code, Some(0), "{alg}: {e}");
        assert_eq!(
            pingall_results(&e),
            [
                "*** Results: 0% dropped (240/240 received)",
                "*** Results: 0% dropped (240/240 received)"
            ],
            "{alg}: {e}"
        );
        assert_eq!(link_down(&e), 0, "{alg}: {e}");
        assert_conserved(&e);
    }
}

#[test]
fn k6_sopa_config_reaches_all_54_hosts_with_tcp_reordering_10() {
    if skip_unless_root("k6_sopa_config_reaches_all_54_hosts_with_tcp_reordering_10") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let path = format!(
        "{}/../topologies/fattree-6.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(cfg["routing"]["algorithm"], "sopa");
    // SOPA raises the fast-retransmit threshold to 10 on every host.
    let (code, e) = run_script(
        &cfg,
        "pingall\ndrops\nh1 sysctl -n net.ipv4.tcp_reordering\nh54 sysctl -n net.ipv4.tcp_reordering\n",
    );
    assert_eq!(code, Some(0), "{e}");
    // A failure names the lost pairs and the fabric's drops first: the
    // whole transcript (54 rows) is cut short in CI logs.
    let lost: Vec<&str> = e
        .lines()
        .filter(|l| l.contains(" -> ") && l.split_whitespace().any(|w| w == "X"))
        .collect();
    let drops: Vec<&str> = e
        .lines()
        .skip_while(|l| !l.starts_with("*** Results"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && l.trim() != "10")
        .collect();
    assert_eq!(
        pingall_results(&e),
        ["*** Results: 0% dropped (2862/2862 received)"],
        "rows with losses: {lost:?}\ndrops: {drops:?}\n{e}"
    );
    assert_eq!(e.lines().filter(|l| l.trim() == "10").count(), 2, "{e}");
    assert_conserved(&e);
}

#[test]
fn nodes_net_dump_and_ports_list_every_fat_tree_switch() {
    if skip_unless_root("nodes_net_dump_and_ports_list_every_fat_tree_switch") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, e) = run_script(&fattree4("sopa", "1ms"), "nodes\nnet\ndump\nports\n");
    assert_eq!(code, Some(0), "{e}");
    let lines: Vec<&str> = e.lines().collect();
    // `nodes`: 16 hosts and 8 edge, 8 aggregation and 4 core switches, sorted.
    let at = lines
        .iter()
        .position(|l| *l == "available nodes are: ")
        .expect("nodes");
    let nodes: Vec<&str> = lines[at + 1].split(' ').collect();
    assert_eq!(nodes.len(), 36, "{e}");
    assert_eq!((nodes[0], nodes[8], nodes[35]), ("a1", "c1", "s8"), "{e}");
    // `net`: every switch with the far end of each port, as `links` names
    // them; an edge switch has no ToR uplinks beside its fat-tree ports.
    for want in [
        "s1 lo:  s1-eth1:h1-eth0 s1-eth2:h2-eth0 s1-eth3:a1-eth1 s1-eth4:a2-eth1",
        "a1 lo:  a1-eth1:s1-eth3 a1-eth2:s2-eth3 a1-eth3:c1-eth1 a1-eth4:c2-eth1",
        "c4 lo:  c4-eth1:a2-eth4 c4-eth2:a4-eth4 c4-eth3:a6-eth4 c4-eth4:a8-eth4",
    ] {
        assert!(lines.contains(&want), "{want}\n{e}");
    }
    // `dump`: 20 switches, each in the data plane's thread.
    let dump: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("<FatTreeSwitch "))
        .collect();
    assert_eq!(dump.len(), 20, "{e}");
    assert!(
        dump.iter()
            .any(|l| l.starts_with("<FatTreeSwitch c2: lo:127.0.0.1,c2-eth1:None,")),
        "{e}"
    );
    let pids: std::collections::HashSet<&str> = dump
        .iter()
        .map(|l| l.rsplit("pid=").next().unwrap())
        .collect();
    assert_eq!(pids.len(), 1, "{e}");
    // `ports`: Mininet's numbering, 0 for lo.
    assert!(
        lines.contains(&"a8 lo:0 a8-eth1:1 a8-eth2:2 a8-eth3:3 a8-eth4:4 "),
        "{e}"
    );
}
