//! Mininet command-line habits on `lighthouse run`: flags with no meaning
//! here (and malformed ones) name the nearest equivalent (exit 2, nothing
//! created), `-v` sets the level (`output`: no banners), and `--test
//! build|all|iperfudp` run like Mininet's.

mod common;

use common::*;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn cfg() -> String {
    format!(
        "{}/../topologies/rotornet-8.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn unsupported_mininet_flags_name_the_nearest_equivalent() {
    let c = cfg();
    for (flag, want) in [
        (vec!["--switch", "ovsk"], "--tor native|bmv2"),
        (vec!["--controller", "remote"], "time-flow tables"),
        (vec!["--link", "tc,delay=5"], "delay=5"),
        (vec!["--link", "tc,loss=101"], "0 to 100"),
        (vec!["--link", "ovs"], "--link tc,bw=N"),
        (vec!["--host", "rt"], "--host cfs,cpu=F"),
        (vec!["--host", "cfs,cpu=3"], "cpu=3"),
        (vec!["-x"], "ip netns exec"),
        (vec!["--nat"], "no route out"),
        (vec!["--ipbase", "192.168.0/16"], "A.B.C.D/N"),
        (
            vec!["--post", "/nonexistent/post.lh"],
            "--post /nonexistent/post.lh: no such file",
        ),
        (vec!["-v", "loud"], "expected one of debug"),
    ] {
        let mut args = vec!["run", c.as_str()];
        args.extend(flag.iter().copied());
        let (code, e) = run(&args);
        assert_eq!(code, Some(2), "{flag:?}: {e}");
        assert!(e.contains(want), "{flag:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{flag:?}: one line: {e}");
    }
}

#[test]
fn test_build_all_and_iperfudp_run_like_mininet() {
    if skip_unless_root("test_build_all_and_iperfudp_run_like_mininet") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let c = cfg();
    let (code, e) = run(&[
        "run",
        &c,
        "--test",
        "build",
        "-v",
        "info",
        "--ipbase",
        "10.0.0.0/8",
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(
        e.contains("*** Creating network") && e.contains("*** Done"),
        "{e}"
    );
    assert!(!e.contains("*** Ping"), "build runs no test: {e}");
    // Mininet's `-v output`: what the test prints, no banner.
    let (code, e) = run(&["run", &c, "--test", "pingpair", "-v", "output"]);
    assert_eq!(code, Some(0), "{e}");
    assert_eq!(
        e, "h1 -> h2 \nh2 -> h1 \n*** Results: 0% dropped (2/2 received)\n",
        "only the test's output"
    );
    let (code, e) = run(&["run", &c, "--test", "all"]);
    assert_eq!(code, Some(0), "{e}");
    assert!(
        e.contains("*** Results: 0% dropped (240/240 received)"),
        "{e}"
    );
    assert!(
        e.contains("*** Iperf: testing TCP bandwidth between h1 and h16"),
        "{e}"
    );
    let (code, e) = run(&["run", &c, "--test", "iperfudp"]);
    assert_eq!(code, Some(0), "{e}");
    assert!(e.contains("*** Iperf: testing UDP bandwidth"), "{e}");
}

#[test]
fn link_down_fails_exactly_the_hosts_pairs_and_up_restores_them() {
    if skip_unless_root("link_down_fails_exactly_the_hosts_pairs_and_up_restores_them") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("link.lh");
    std::fs::write(
        &script,
        "link h1 s1 down\npingall\nlink h1 s1 up\npingall\nlink h1 s2 down\n",
    )
    .unwrap();
    let (code, e) = run(&["run", &cfg(), "--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{e}");
    // Down: the 15 pings from h1 and the 15 to it fail, nothing else.
    assert_eq!(
        ping_results(&e),
        [
            "*** Results: 12% dropped (210/240 received)",
            "*** Results: 0% dropped (240/240 received)"
        ],
        "{e}"
    );
    let first: Vec<&str> = e.lines().filter(|l| l.contains(" -> ")).take(16).collect();
    assert_eq!(first[0].trim_end(), format!("h1 ->{}", " X".repeat(15)));
    for row in &first[1..] {
        let cells: Vec<&str> = row
            .split(" -> ")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(cells[0], "X", "{row}");
        assert!(cells[1..].iter().all(|c| *c != "X"), "{row}");
    }
    assert!(e.contains("no link between h1 and s2"), "{e}");
    assert!(e.contains("(conservation OK)"), "{e}");
}

/// `--host cfs,cpu=F`: every host in a cgroup of its own with Mininet's
/// quota (F x period x cores), gone after the run.
#[test]
fn host_cfs_puts_every_host_in_a_cgroup_with_mininets_quota() {
    if skip_unless_root("host_cfs_puts_every_host_in_a_cgroup_with_mininets_quota") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("cg.lh");
    // v2: /sys/fs/cgroup/<cg>/cpu.max; v1: /sys/fs/cgroup/cpu/<cg>/.
    std::fs::write(
        &script,
        "h2 cg=$(awk -F: '$2 == \"cpu\" || $2 == \"\" {print $3}' /proc/self/cgroup | grep lh); echo CG $cg; cat /sys/fs/cgroup$cg/cpu.max /sys/fs/cgroup/cpu$cg/cpu.cfs_quota_us 2>/dev/null\n",
    )
    .unwrap();
    let (code, e) = run(&[
        "run",
        "--topo",
        "single,2",
        "--host",
        "cfs,cpu=.25,period_us=50000",
        "--script",
        script.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{e}");
    let cg = e
        .lines()
        .find_map(|l| l.strip_prefix("CG /"))
        .unwrap_or_else(|| panic!("no cgroup: {e}"));
    assert!(cg.starts_with("lh") && cg.ends_with("-h2"), "{e}");
    let cores = std::thread::available_parallelism().unwrap().get();
    let quota = 12_500 * cores;
    assert!(
        e.contains(&format!("\n{quota} 50000\n")) || e.contains(&format!("\n{quota}\n")),
        "{quota}: {e}"
    );
    for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/cpu"] {
        assert!(!std::path::Path::new(root).join(cg).exists(), "{cg} left");
    }
}

#[test]
fn node_command_output_goes_to_stderr_like_mininet() {
    if skip_unless_root("node_command_output_goes_to_stderr_like_mininet") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("echo.lh");
    std::fs::write(&script, "h1 echo hello-from-h1\n").unwrap();
    let o = Command::new(BIN)
        .args(["run", &cfg(), "--script", script.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("hello-from-h1"));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("hello-from-h1"));
}

/// The RTTs (ms) of a ping's replies in a run's output.
fn rtts(out: &str) -> Vec<f64> {
    out.lines()
        .filter_map(|l| l.split("time=").nth(1)?.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn link_delay_and_loss_are_the_data_planes_own_on_host_and_switch_links() {
    // Mininet's `--link tc,delay=D,loss=P` on `linear,2`: h1 - s1 - s2 - h2.
    // In the data plane (no netem here): each host link delays each way
    // by D, and the switch link, a circuit, by D as its propagation, so a
    // ping's RTT is 6D, as in Mininet (netem on each of the six
    // interfaces it leaves).
    if skip_unless_root("link_delay_and_loss_are_the_data_planes_own_on_host_and_switch_links") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, "h1 ping -c 20 -i 0.05 h2\n").unwrap();
    let s = script.to_str().unwrap();
    let (code, e) = run(&[
        "run",
        "--topo",
        "linear,2",
        "--link",
        "tc,delay=5ms",
        "--script",
        s,
    ]);
    assert_eq!(code, Some(0), "{e}");
    let r = rtts(&e);
    assert_eq!(r.len(), 20, "{e}");
    // 30 ms and the hosts' and data plane's own time (well under 1 ms here).
    // Every reply pays the whole delay; the median shows nothing else is
    // added. Single replies can come later by the hosts' scheduling alone
    // (the first ping's wake-up: 32.3 ms in 1 of 6 quiet runs; a 44.3 ms
    // reply in a CI run on this 2-vCPU VM), which is not the link's delay.
    assert!(r.iter().all(|&t| t >= 30.0), "{r:?}");
    let mut sorted = r.clone();
    sorted.sort_by(f64::total_cmp);
    assert!((30.0..31.0).contains(&sorted[sorted.len() / 2]), "{r:?}");
    // Loss 10% on each link direction, the switch link's on its circuit
    // (tors.link_loss): a ping crosses six, so 0.9^6 = 53% come back.
    std::fs::write(&script, "h1 ping -c 300 -i 0.005 h2\n").unwrap();
    let (code, e) = run(&[
        "run",
        "--topo",
        "linear,2",
        "--link",
        "tc,loss=10",
        "--script",
        s,
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(!e.contains("not applied"), "{e}");
    let got = rtts(&e).len();
    // 300 pings at p = 0.531: sd 8.6; the band is four sd each way.
    assert!((125..=194).contains(&got), "{got} of 300 replies\n{e}");
    // Each lost ping is a frame the fabric counted as dropped, and
    // every frame is accounted for.
    let fabric = e
        .lines()
        .find(|l| l.starts_with("*** Fabric:"))
        .expect("fabric line");
    assert!(fabric.ends_with("(conservation OK)"), "{fabric}");
    let dropped: u64 = fabric
        .split("dropped ")
        .nth(1)
        .and_then(|x| x.split(' ').next()?.parse().ok())
        .expect("dropped count");
    assert!(
        dropped >= (300 - got) as u64,
        "{dropped} dropped, {got} replies"
    );
    // Jitter 4 ms on every link direction, the switch link's on its
    // circuit (tors.link_jitter): six draws of 5 +- 4 ms, mean 30 ms.
    std::fs::write(&script, "h1 ping -c 40 -i 0.05 h2\n").unwrap();
    let (code, e) = run(&[
        "run",
        "--topo",
        "linear,2",
        "--link",
        "tc,delay=5ms,jitter=4ms",
        "--script",
        s,
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(!e.contains("not applied"), "{e}");
    let r = rtts(&e);
    assert!(r.len() >= 38, "{e}");
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let (lo, hi) = r
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &t| (a.min(t), b.max(t)));
    // The mean of 40 such sums: sd 0.5 ms; the spread of a fixed delay is
    // well under 1 ms (above).
    assert!((26.0..34.0).contains(&mean), "{r:?}");
    assert!(hi - lo >= 6.0 && lo >= 6.0, "{r:?}");
}
