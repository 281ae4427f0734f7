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

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
}

/// The number after `key` in `text` (e.g. `p50 ` in a percentile line).
fn number_after(text: &str, key: &str) -> f64 {
    let i = text
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {text}"))
        + key.len();
    let n: String = text[i..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    n.parse()
        .unwrap_or_else(|_| panic!("no number after {key:?} in {text}"))
}

/// A live process (zombies count as gone: PID 1 here does not reap).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, r)| !r.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// `lighthouse run CFG --script S --prefix P` with `env` added (`{prefix}`
/// in the script becomes P); asserts that no namespace or state of the
/// prefix is left.
fn run_script(cfg: &Path, script: &str, env: &[(&str, &str)]) -> Run {
    run_script_with(cfg, script, env, &[])
}

/// [`run_script`] with `args` after the config.
fn run_script_with(cfg: &Path, script: &str, env: &[(&str, &str)], args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.lh");
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    std::fs::write(&s, script.replace("{prefix}", &prefix)).unwrap();
    let mut c = Command::new(BIN);
    c.arg("run")
        .arg(cfg)
        .arg("--script")
        .arg(&s)
        .args(["--prefix", &prefix])
        .args(args);
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
    let sysctls = "sysctl net.ipv4.tcp_reordering net.ipv4.tcp_congestion_control net.ipv4.tcp_max_reordering net.ipv4.tcp_sack net.ipv4.tcp_rmem";
    let script = format!("h1 {sysctls}\nh1 ip route\nh16 {sysctls}\nh16 ip route\n");
    let script = script.as_str();
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
    assert!(
        plain.err.contains("net.ipv4.tcp_max_reordering = 300\n")
            && plain.err.contains("net.ipv4.tcp_sack = 1\n"),
        "{}",
        plain.err
    );
    // The paper's Fig. 9 setting, with reno and a 5 ms minimum RTO, and
    // the dupack hybrid's pinned threshold, SACK off and receive buffer.
    let knobs = serde_json::json!({"tcp": {"reordering": 5, "congestion_control": "reno", "rto_min": "5ms",
        "max_reordering": 5, "sack": false, "receive_buffer": 49152}});
    let r = run_script(&rotornet_with(dir.path(), knobs), script, &[]);
    assert!(r.out.status.success(), "{}", r.err);
    assert_eq!(
        r.err.matches("net.ipv4.tcp_reordering = 5\n").count(),
        2,
        "{}",
        r.err
    );
    for line in [
        "net.ipv4.tcp_congestion_control = reno\n",
        "net.ipv4.tcp_max_reordering = 5\n",
        "net.ipv4.tcp_sack = 0\n",
        "net.ipv4.tcp_rmem = 4096\t49152\t49152\n",
    ] {
        assert_eq!(r.err.matches(line).count(), 2, "{line:?}\n{}", r.err);
    }
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

#[test]
fn a_loaded_but_restricted_congestion_control_is_refused_with_the_way_out() {
    // A namespace's default can only be an algorithm the machine allows
    // (`tcp_allowed_congestion_control`); the error says so and names the
    // per-socket way (`flows ... cc=`), not "not available".
    if skip_unless_root("a_loaded_but_restricted_congestion_control_is_refused_with_the_way_out") {
        return;
    }
    let read = |k: &str| std::fs::read_to_string(format!("/proc/sys/net/ipv4/{k}")).unwrap();
    let allowed = read("tcp_allowed_congestion_control");
    let restricted = read("tcp_available_congestion_control")
        .split_whitespace()
        .find(|a| !allowed.split_whitespace().any(|b| b == *a))
        .map(str::to_string);
    let Some(cc) = restricted else {
        eprintln!(
            "SKIPPED a_loaded_but_restricted_congestion_control_is_refused_with_the_way_out: every loaded congestion control is allowed here"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = rotornet_with(
        dir.path(),
        serde_json::json!({"tcp": {"congestion_control": cc}}),
    );
    let r = run_script(&cfg, "nodes\n", &[]);
    assert_eq!(r.out.status.code(), Some(2), "{}", r.err);
    assert!(
        r.err.contains("$.hosts.tcp.congestion_control")
            && r.err.contains("not allowed as a namespace's default")
            && r.err.contains(&format!("cc={cc}")),
        "{}",
        r.err
    );
}

#[test]
fn a_window_cap_holds_from_each_hosts_first_connection_to_a_peer() {
    // The kernel takes a route's locked cwnd (`hosts.tcp.max_window`) from
    // its per-destination TCP metrics, which it makes only when a
    // connection to that destination closes: unseeded, a host's first
    // connection to each peer ran uncapped (docs/fidelity.md). Bring-up
    // seeds every pair, so each host has an entry for every other host
    // with the cap before any traffic of the user's.
    if skip_unless_root("a_window_cap_holds_from_each_hosts_first_connection_to_a_peer") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = rotornet_with(dir.path(), serde_json::json!({"tcp": {"max_window": 32}}));
    let r = run_script(&cfg, "h7 ip tcp_metrics show\n", &[]);
    assert!(r.out.status.success(), "{}", r.err);
    // Mininet's CLI writes a host command's output to stderr.
    let text = &r.err;
    let entries: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" source 10.0.0.7"))
        .collect();
    let peers: std::collections::BTreeSet<&str> =
        entries.iter().filter_map(|l| l.split(' ').next()).collect();
    let want: std::collections::BTreeSet<String> = (1..=16)
        .filter(|k| *k != 7)
        .map(|k| format!("10.0.0.{k}"))
        .collect();
    assert_eq!(peers, want.iter().map(String::as_str).collect(), "{text}");
    assert!(entries.iter().all(|l| l.contains(" cwnd 32 ")), "{text}");
}

#[test]
fn own_cpu_pins_the_data_plane_and_the_hosts_receive_on_the_others() {
    // A frame the data plane writes to a host veth is received, and the
    // host's TCP answer sent, inside that write: on its CPU unless the
    // veth steers it elsewhere (RPS). With --own-cpu the data-plane thread
    // is pinned to the last CPU and every host veth's rps_cpus names the
    // others (swtor::sched::dataplane_cpu says why); without, neither.
    let test = "own_cpu_pins_the_data_plane_and_the_hosts_receive_on_the_others";
    if skip_unless_root(test) {
        return;
    }
    let cpus = swtor::sched::allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("SKIPPED {test}: one CPU");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = rotornet_with(dir.path(), serde_json::Value::Null);
    let script = "sh for h in 1 16; do ip netns exec {prefix}-h$h cat /sys/class/net/h$h-eth0/queues/rx-0/rps_cpus; done; for t in /proc/$PPID/task/*; do grep -qx swtor-dataplane $t/comm && grep Cpus_allowed_list $t/status; done\n";
    let last = *cpus.last().unwrap();
    let rest = swtor::sched::cpu_mask(&cpus[..cpus.len() - 1]);
    let all = swtor::sched::cpu_mask(&cpus);
    for (args, rps, dp) in [
        (&["--own-cpu"][..], rest, last.to_string()),
        (&[][..], "0".to_string(), format!("{}-{last}", cpus[0])),
    ] {
        let r = run_script_with(&cfg, script, &[], args);
        assert!(r.out.status.success(), "{}", r.err);
        let text = format!("{}{}", r.stdout(), r.err);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        assert_eq!(
            lines.iter().filter(|l| **l == rps).count(),
            2,
            "{args:?}: h1's and h16's rps_cpus are {rps} (all CPUs: {all}):\n{text}"
        );
        assert!(
            lines.contains(&format!("Cpus_allowed_list:\t{dp}").as_str()),
            "{args:?}: the data plane may run on {dp}:\n{text}"
        );
    }
}

#[test]
fn memcached_sets_complete_with_fcts_and_the_server_is_gone() {
    if skip_unless_root("memcached_sets_complete_with_fcts_and_the_server_is_gone") {
        return;
    }
    if !lh_emu::net::on_path("memcached") {
        // The missing-tool path is its own test; CI installs the package.
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!(
                "SKIP memcached_sets_complete_with_fcts_and_the_server_is_gone: memcached not installed (scripts/setup.sh)\n"
            ),
        );
        return;
    }
    let cfg = topologies().join("rotornet-8.json");
    // The paper's set-up: one server, seven clients, 4.2 KB SETs every ms;
    // the run's state lists the server while it runs.
    let r = run_script(
        &cfg,
        "memcached h1 h2 h3 h4 h5 h6 h7 h8 count=30\nsh cat /run/lighthouse/{prefix}/state.json\nmemcached h16 h9 count=5 size=100 interval=0\n",
        &[],
    );
    assert!(r.out.status.success(), "{}", r.err);
    assert!(
        r.err.contains("*** memcached on h1 (10.0.0.1:11211), 7 client(s) h2 h3 h4 h5 h6 h7 h8: 30 SETs of 4200 B each, one every 1ms"),
        "{}",
        r.err
    );
    assert!(r.err.contains("210 of 210 flows completed"), "{}", r.err);
    assert!(
        r.err.contains("*** memcached: 210 SETs stored"),
        "{}",
        r.err
    );
    let line = r
        .err
        .lines()
        .find(|l| l.starts_with("SET latency: n 210 "))
        .expect("latency line");
    let (p50, p99) = (number_after(line, "p50 "), number_after(line, "p99 "));
    assert!(p50 > 0.0 && p50 <= p99, "{line}");
    assert!(r.err.contains("*** memcached: 5 SETs stored"), "{}", r.err);
    assert!(!r.err.contains("*** Error"), "{}", r.err);
    // The state file recorded the server (and the shell) as children of the
    // run; none of them outlives it.
    let out = r.stdout();
    let st: serde_json::Value = serde_json::from_str(out.trim()).expect("state.json on stdout");
    let children: Vec<u32> = st["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert!(!children.is_empty(), "{st}");
    for pid in children {
        assert!(!alive(pid), "child {pid} of the run is still running");
    }
}

#[test]
fn a_missing_memcached_names_its_package() {
    if skip_unless_root("a_missing_memcached_names_its_package") {
        return;
    }
    let cfg = topologies().join("rotornet-8.json");
    let r = run_script(
        &cfg,
        "memcached h1 h2 count=5\nmemcached h99\nallreduce 3 h1 h2\n",
        &[("PATH", "/nonexistent")],
    );
    assert!(r.out.status.success(), "{}", r.err);
    assert!(
        r.err.contains("*** Error: memcached: memcached is not installed: install the Debian package `memcached`"),
        "{}",
        r.err
    );
    assert!(
        r.err.contains("*** Error: memcached: no host named h99"),
        "{}",
        r.err
    );
    assert!(
        r.err.contains("*** Error: allreduce: bad size 3"),
        "{}",
        r.err
    );
    assert!(!r.err.contains("SET latency"), "{}", r.err);
}

#[test]
fn ring_allreduce_sums_on_every_host_and_reports_completion() {
    if skip_unless_root("ring_allreduce_sums_on_every_host_and_reports_completion") {
        return;
    }
    let cfg = topologies().join("rotornet-8.json");
    // All 16 hosts at the paper's smallest size, and 3 hosts whose chunks
    // are uneven (25000 elements / 3).
    let r = run_script(
        &cfg,
        "allreduce 800K iters=2\nallreduce 100K h1 h6 h11\n",
        &[],
    );
    assert!(r.out.status.success(), "{}", r.err);
    assert!(
        r.err.contains("over 16 hosts h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12 h13 h14 h15 h16: 800000 B (200000 float32) x 2 iteration(s)"),
        "{}",
        r.err
    );
    assert!(
        r.err
            .contains("over 3 hosts h1 h6 h11: 100000 B (25000 float32) x 5 iteration(s)"),
        "{}",
        r.err
    );
    assert_eq!(
        r.err
            .matches("*** Allreduce result checked: every host holds the elementwise sum")
            .count(),
        2,
        "{}",
        r.err
    );
    let lines: Vec<&str> = r
        .err
        .lines()
        .filter(|l| l.starts_with("completion: n "))
        .collect();
    assert_eq!(lines.len(), 2, "{}", r.err);
    assert!(lines[0].starts_with("completion: n 2 "), "{}", lines[0]);
    assert!(lines[1].starts_with("completion: n 5 "), "{}", lines[1]);
    for l in lines {
        let (p50, max) = (number_after(l, "p50 "), number_after(l, "max "));
        assert!(p50 > 0.0 && p50 <= max, "{l}");
    }
    assert!(r.err.contains("(conservation OK)"), "{}", r.err);
    assert!(!r.err.contains("*** Error"), "{}", r.err);
}

#[test]
fn clean_kills_the_memcached_of_a_crashed_run() {
    if skip_unless_root("clean_kills_the_memcached_of_a_crashed_run") {
        return;
    }
    if !lh_emu::net::on_path("memcached") {
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!(
                "SKIP clean_kills_the_memcached_of_a_crashed_run: memcached not installed\n"
            ),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.lh");
    std::fs::write(&s, "memcached h1 h2 count=100000\n").unwrap();
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    let mut run = Command::new(BIN)
        .arg("run")
        .arg(topologies().join("rotornet-8.json"))
        .arg("--script")
        .arg(&s)
        .args(["--prefix", &prefix])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the server to be recorded in the run's state.
    let state = Path::new("/run/lighthouse")
        .join(&prefix)
        .join("state.json");
    let mut pid = None;
    for _ in 0..200 {
        if let Some(p) = std::fs::read_to_string(&state)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["children"][0].as_u64())
        {
            pid = Some(p as u32);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The run dies without its teardown.
    let _ = run.kill();
    let _ = run.wait();
    let pid = pid.expect("memcached recorded in state.json");
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    assert_eq!(comm.trim(), "memcached");
    assert!(alive(pid), "memcached died with the run; nothing to clean");
    let out = Command::new(BIN)
        .args(["clean", "--prefix", &prefix])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{pid}(memcached)")), "{text}");
    assert!(!alive(pid), "memcached {pid} survived clean");
    assert!(
        !lh_namespaces().iter().any(|n| n.starts_with(&prefix)),
        "{text}"
    );
}
