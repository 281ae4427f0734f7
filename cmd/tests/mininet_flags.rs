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
        (vec!["--link", "tc,bw=10,delay=5ms"], "slice.propagation"),
        (vec!["--link", "tc,loss=1"], "`link <a> <b> down`"),
        (vec!["--link", "ovs"], "--link tc,bw=N"),
        (vec!["--host", "cfs"], "--host process"),
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
