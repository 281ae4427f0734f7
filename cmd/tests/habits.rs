//! Mininet habits through the binary: `link sX sY down|up` fails the
//! optical circuits in the OCS; one persistent shell per node; Ctrl-C in
//! the interactive CLI (tests/habits_pty.rs has the terminal ones).

mod common;

use common::*;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn topo(name: &str) -> String {
    format!("{}/../topologies/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `lighthouse run CONFIG --script` over `lines`: (exit code, stderr).
fn run_script(config: &str, lines: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, lines).unwrap();
    let o = Command::new(BIN)
        .args(["run", config, "--script", script.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The hosts a pingall row of `src` could not reach, per pingall.
fn unreachable_from(e: &str, src: &str) -> Vec<Vec<String>> {
    let head = format!("{src} -> ");
    e.lines()
        .filter_map(|l| l.strip_prefix(&head))
        .map(|cells| {
            cells
                .split_whitespace()
                .enumerate()
                .filter(|(_, c)| *c == "X")
                .map(|(i, _)| {
                    // Cells skip the source itself: index i is host i+1
                    // before it, i+2 from it on.
                    let k: usize = src[1..].parse().unwrap();
                    format!("h{}", if i + 1 < k { i + 1 } else { i + 2 })
                })
                .collect()
        })
        .collect()
}

#[test]
fn tor_link_down_fails_exactly_the_direct_pairs_and_up_restores_them() {
    if skip_unless_root("tor_link_down_fails_exactly_the_direct_pairs_and_up_restores_them") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // Direct routing: h1,h2 (s1) reach h3,h4 (s2) only over the s1-s2
    // circuit, so exactly those 8 pings are lost, each request as one
    // link_down drop at the OCS.
    let (code, e) = run_script(
        &topo("rotornet-8-direct.json"),
        "link s1 s2 down\npingall\ndrops\nlink s2 s1 up\npingall\nlink s1 s1 down\nlink s1 s9 down\n",
    );
    assert_eq!(code, Some(0), "{e}");
    assert_eq!(
        ping_results(&e),
        [
            "*** Results: 3% dropped (232/240 received)",
            "*** Results: 0% dropped (240/240 received)"
        ],
        "{e}"
    );
    for (src, lost) in [
        ("h1", ["h3", "h4"]),
        ("h2", ["h3", "h4"]),
        ("h3", ["h1", "h2"]),
        ("h4", ["h1", "h2"]),
    ] {
        assert_eq!(
            unreachable_from(&e, src),
            [lost.to_vec(), vec![]],
            "{src}: {e}"
        );
    }
    for k in 5..=16 {
        let src = format!("h{k}");
        assert_eq!(
            unreachable_from(&e, &src),
            [Vec::<String>::new(), vec![]],
            "{e}"
        );
    }
    assert!(
        e.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["link_down", "8"]),
        "each lost request is one link_down drop: {e}"
    );
    assert!(
        e.contains("*** Error: no link between s1 and s1: the schedule has no optical circuit"),
        "{e}"
    );
    assert!(e.contains("*** Error: no link between s1 and s9"), "{e}");
    assert!(e.contains("(conservation OK)"), "{e}");
}

#[test]
fn each_node_keeps_one_shell_and_teardown_ends_it() {
    if skip_unless_root("each_node_keeps_one_shell_and_teardown_ends_it") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let (code, e) = run_script(
        &topo("rotornet-8.json"),
        "h1 cd /tmp\nh1 pwd\nh2 pwd\nh1 sleep 30 &\nh1 kill %1\nh1 echo kill-status=$?\n\
         h1 false\nh1 echo false-status=$?\nh1 echo shell=$$ mark=$1\nh1 echo again=$$\n\
         h1 exit 3\nh1 echo new-shell-cwd=$(pwd)\n",
    );
    assert_eq!(code, Some(0), "{e}");
    let lines: Vec<&str> = e.lines().collect();
    let at = |s: &str| lines.iter().position(|l| *l == s);
    // cd persists in h1's shell, not in h2's.
    assert!(at("/tmp").is_some(), "{e}");
    assert_eq!(lines.iter().filter(|l| **l == "/tmp").count(), 1, "{e}");
    // A job started with & is there for the next command.
    assert!(at("kill-status=0").is_some(), "{e}");
    assert!(
        at("false-status=1").is_some(),
        "$? survives the marker: {e}"
    );
    let shell = |tag: &str| {
        e.lines()
            .find_map(|l| l.strip_prefix(tag))
            .map(|s| s.split_whitespace().next().unwrap().to_string())
            .unwrap_or_else(|| panic!("{tag}: {e}"))
    };
    let pid = shell("shell=");
    assert_eq!(shell("again="), pid, "one shell for both commands: {e}");
    let prefix = run_prefix(&e);
    assert!(e.contains(&format!("mark={prefix}:h1")), "{e}");
    assert!(
        e.contains("*** The shell of h1 exited; a new one starts with its next command"),
        "{e}"
    );
    // Exactly /tmp: the run's own cwd may itself be under /tmp.
    assert!(at("new-shell-cwd=/tmp").is_none(), "a fresh shell: {e}");
    assert!(e.contains("new-shell-cwd="), "{e}");
    // Teardown killed every shell of the run (and the background sleep).
    assert_eq!(live_with_cmdline(&format!("{prefix}:")), Vec::<u32>::new());
    let pid: u32 = pid.parse().unwrap();
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        state.is_empty() || state.contains(") Z"),
        "shell {pid} outlived the run: {state}"
    );
}
