//! `lighthouse sim` (docs/virtual-time.md): no root, deterministic output,
//! clear errors (here), RTTs and FCTs that agree with a live run
//! (`live`: cross-validation), and the experiments at the paper's scale
//! (`scale`).

#[path = "../common/mod.rs"]
mod common;
mod live;
mod scale;

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

use common::sim;

#[test]
fn json_output_is_the_same_on_every_run() {
    let a = sim(&["topologies/rotornet-8.json", "--json"]);
    let b = sim(&["topologies/rotornet-8.json", "--json"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["pingall"]["received"], 240);
    assert_eq!(v["conservation_holds"], true);
    assert!(v["stats"]["frame_hops"].as_u64().unwrap() >= 4 * 480 - 2 * 2 * 16);
    // Wall time is on stderr only.
    assert!(String::from_utf8_lossy(&a.stderr).contains("frame-hops"));
}

#[test]
fn pings_step_with_the_slice_in_which_they_are_sent() {
    // The demo's pings (scripts/demo.lh): 14 pings 13.7 ms apart land in
    // different slices of rotornet-8's 700 us cycle; RTTs 100 us apart.
    let o = sim(&[
        "topologies/rotornet-8.json",
        "--ping",
        "h1",
        "h3",
        "--count",
        "14",
        "--interval",
        "13.7ms",
    ]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let mut rtts: Vec<f64> = text
        .lines()
        .filter_map(|l| l.split("time=").nth(1)?.strip_suffix(" ms")?.parse().ok())
        .collect();
    assert_eq!(rtts.len(), 14, "{text}");
    rtts.sort_by(f64::total_cmp);
    rtts.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    // Seven phases of the cycle, one slice (0.1 ms) apart.
    assert_eq!(rtts.len(), 7, "{rtts:?}");
    for w in rtts.windows(2) {
        assert!((w[1] - w[0] - 0.1).abs() < 1e-3, "{rtts:?}");
    }
}

#[test]
fn a_host_delay_is_paid_at_each_receive() {
    // h1 -> h2 share a ToR (no circuit to wait for): the echo request and
    // the reply each reach a host, so --host-delay adds twice its value.
    let rtt = |d: &str| -> f64 {
        let o = sim(&[
            "topologies/rotornet-8.json",
            "--ping",
            "h1",
            "h2",
            "--count",
            "1",
            "--host-delay",
            d,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.lines()
            .find_map(|l| l.split("time=").nth(1)?.strip_suffix(" ms")?.parse().ok())
            .unwrap_or_else(|| panic!("no RTT in {text}"))
    };
    let (ideal, slow) = (rtt("0us"), rtt("25us"));
    assert!(ideal > 0.0 && ideal < 0.05, "{ideal}");
    assert!((slow - ideal - 0.05).abs() < 1e-3, "{ideal} -> {slow}");
    let o = sim(&["topologies/rotornet-8.json", "--host-delay", "soon"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--host-delay"));
}

#[test]
fn host_links_delay_and_lose_in_virtual_time_as_live() {
    // `hosts.link` (netem's options in the data plane, crate swtor's
    // netem.rs): the simulation runs the same engine, so h1 -> h2 (one
    // ToR, four host-link crossings a ping) pays 4 x 1 ms, and a seed
    // gives the same losses run after run.
    let dir = tempfile::tempdir().unwrap();
    let mut c: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../topologies/rotornet-8.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut with = |link: serde_json::Value, name: &str| {
        c["hosts"] = serde_json::json!({ "link": link });
        let p = dir.path().join(name);
        std::fs::write(&p, c.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let slow = with(serde_json::json!({"delay": "1ms"}), "slow.json");
    let lossy = with(serde_json::json!({"loss": 20, "seed": 5}), "lossy.json");
    let o = sim(&[&slow, "--ping", "h1", "h2", "--count", "3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(out.matches("time=4.003 ms").count(), 3, "{out}");
    let run = || {
        let o = sim(&[&lossy, "--ping", "h1", "h2", "--count", "100"]);
        // As ping's: 1 when a reply is missing.
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let (a, b) = (run(), run());
    let got = a.matches("time=").count();
    // 0.8^4 = 41% of 100 come back (sd 4.9).
    assert!((21..=61).contains(&got), "{got}: {a}");
    assert!(a.contains("link_loss") && a.contains(": OK"), "{a}");
    assert_eq!(a, b, "the same seed, the same losses");
}

#[test]
fn bad_input_is_a_clear_error() {
    let o = sim(&["topologies/rotornet-8.json", "--tor", "bmv2:s3"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--tor: \"bmv2:s3\": the simulation runs the native ToRs only"),
        "{e}"
    );
    let o = sim(&["topologies/rotornet-8.json", "--ping", "h1", "h99"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no host \"h99\" (h1..h16)"));
    let o = sim(&["topologies/rotornet-8.json", "--interval", "soon"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--interval \"soon\""));
}

#[test]
fn the_quiet_check_sees_a_busy_process() {
    // A busy process of its own: never beside a live run of this binary.
    let _q = common::QUIET.read().unwrap_or_else(|e| e.into_inner());
    let mut spin = Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    let busy = common::busy_processes(std::time::Duration::from_millis(500));
    spin.kill().unwrap();
    spin.wait().unwrap();
    assert!(
        busy.iter()
            .any(|(c, p, s)| *p == spin.id() && c == "sh" && *s > 0.5),
        "{busy:?}"
    );
}

#[test]
fn sim_refuses_what_it_does_not_run() {
    let o = experiment(&["fig9", "--sim", "--quick"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains(
            "--sim: fig9 does not run in virtual time; these do: fig8, fig8-sweep, fig10, table3-sweep, table2, table3"
        ),
        "{err}"
    );
    let o = sim(&["topologies/rotornet-8.json", "--workload", "nonsense"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--workload nonsense"));
    let o = sim(&[
        "topologies/rotornet-8.json",
        "--workload",
        "kvstore",
        "--load",
        "2",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--load 2"));
}

#[test]
fn a_workload_runs_on_the_simulated_tcp() {
    let o = sim(&[
        "topologies/rotornet-8.json",
        "--workload",
        "kvstore",
        "--load",
        "0.1",
        "--duration",
        "2ms",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["conservation_holds"], true);
    let all = v["flows"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "all")
        .cloned()
        .unwrap();
    assert!(all["flows"].as_u64().unwrap() > 10, "{all}");
    assert_eq!(all["flows"], all["completed"], "{all}");
}

#[test]
fn progress_is_drawn_on_a_terminal_only_and_never_with_quiet() {
    // Off a terminal: the wall-time summary line and nothing else; with
    // --quiet not even that, and stdout is the same.
    let o = sim(&["topologies/rotornet-8.json"]);
    let q = sim(&["topologies/rotornet-8.json", "--quiet"]);
    assert!(o.status.success() && q.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("*** Simulated "), "{err}");
    assert!(
        q.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&q.stderr)
    );
    assert_eq!(o.stdout, q.stdout);
    // On a terminal (script(1)'s pseudo-terminal), a run of more than two
    // seconds shows, from its second second, virtual time against wall
    // time and frame-hops/s; the same run with --quiet shows none.
    // (Its exit status is not asked: at this load some elephants are
    // still going when the drain ends, which makes it 1 either way.)
    let (_, shown) = common::on_terminal(&format!("sim {LONG_RUN}"));
    assert!(
        shown.contains("sim [00:00:02]")
            && shown.contains("ms a second)")
            && shown.contains("M frame-hops/s"),
        "{shown}"
    );
    let (_, quiet) = common::on_terminal(&format!("sim {LONG_RUN} --quiet"));
    assert!(!quiet.contains("frame-hops"), "{quiet}");
    for out in [&shown, &quiet] {
        assert!(out.contains("*** conservation: "), "{out}");
    }
}

/// A `lighthouse sim` run of a few seconds' wall time (release build).
const LONG_RUN: &str = "topologies/opera-108.json --workload websearch --load 0.4 --duration 250ms";

/// `lighthouse experiment ARGS`: CPU-bound, so not beside a live
/// cross-validation (`common::QUIET`).
fn experiment(args: &[&str]) -> std::process::Output {
    let _q = common::QUIET.read().unwrap_or_else(|e| e.into_inner());
    Command::new(BIN)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("experiment")
        .args(args)
        .output()
        .expect("run lighthouse")
}
