//! Error messages through the binary, one test per class: exit code 2, one
//! statement on one line, no repeated text, the right words, and no run
//! state left behind (`run` checks everything before creating any).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

const RR8: &str = r#"{
  "mode": "TO",
  "tors": { "count": 8, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps" },
  "ocs": { "count": 1, "ports": 8, "reconfiguration_delay": "1us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "GB" },
  "topology": TOPO,
  "routing": { "algorithm": "direct" }
}"#;

fn rr8(guardband: &str, topo: &str) -> String {
    RR8.replace("GB", guardband).replace("TOPO", topo)
}

fn file_topo(path: &str) -> String {
    format!(r#"{{ "kind": "file", "path": "{path}" }}"#)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The error line of `lighthouse ARGS`, checked for the common rules.
fn error_of(args: &[&str]) -> String {
    let runs = lh_emu::kernel::state::runs();
    let ns = lh_namespaces();
    let out = Command::new(BIN)
        .env("LIGHTHOUSE_LOG", "error")
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {err}");
    let msg = lines[0]
        .strip_prefix("lighthouse: error: ")
        .unwrap_or_else(|| panic!("{err}"))
        .to_string();
    // No statement repeated: no ": "-separated part appears twice.
    let parts: Vec<&str> = msg.split(": ").collect();
    for (i, p) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].iter().any(|q| q == p && p.len() > 3),
            "{args:?}: {p:?} repeated in {msg}"
        );
    }
    if args[0] == "run" {
        assert_eq!(
            lh_emu::kernel::state::runs(),
            runs,
            "{args:?}: run state left"
        );
        if is_root() {
            assert_eq!(lh_namespaces().len(), ns.len(), "{args:?}: namespaces left");
        }
    }
    msg
}

fn both(cfg: &Path) -> Vec<String> {
    let c = cfg.to_str().unwrap();
    vec![
        error_of(&["compile", c]),
        error_of(&["run", c, "--test", "none"]),
    ]
}

#[test]
fn config_that_is_a_directory_device_or_missing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    for m in both(dir.path()) {
        assert_eq!(m, format!("{d} is a directory, not a file"));
    }
    for m in both(Path::new("/dev/null")) {
        assert_eq!(m, "/dev/null is a character device, not a regular file");
    }
    for m in both(&dir.path().join("nope.json")) {
        assert_eq!(m, format!("{d}/nope.json does not exist"));
    }
}

#[test]
fn schedule_and_matrix_files_that_are_directories_or_devices() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cfg = write(dir.path(), "c.json", rr8("1us", &file_topo(d)).as_bytes());
    for m in both(&cfg) {
        assert!(
            m.contains(&format!(
                "at $.topology.path: expected a schedule file, but {d} is a directory, not a file"
            )),
            "{m}"
        );
    }
    let cfg = write(
        dir.path(),
        "c.json",
        rr8("1us", &file_topo("/dev/zero")).as_bytes(),
    );
    let m = error_of(&["compile", cfg.to_str().unwrap()]);
    assert!(
        m.contains("/dev/zero is a character device, not a regular file"),
        "{m}"
    );
    let ta = format!(
        r#"{{"mode": "TA",
  "tors": {{"count": 4, "uplinks": 1, "link_rate": "10Gbps", "hosts_per_tor": 1, "host_link_rate": "10Gbps"}},
  "ocs": {{"count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto"}},
  "slice": {{"duration": "1ms", "guardband": "10us"}},
  "topology": {{"kind": "traffic_aware"}},
  "routing": {{"algorithm": "direct"}},
  "ta": {{"update_interval": "10ms", "scheduler": "bvn", "traffic_matrix": "{d}"}}}}"#
    );
    let cfg = write(dir.path(), "ta.json", ta.as_bytes());
    let m = error_of(&["compile", cfg.to_str().unwrap()]);
    assert!(
        m.contains(&format!("at $.ta.traffic_matrix: expected a traffic-matrix file, but {d} is a directory, not a file")),
        "{m}"
    );
}

#[test]
fn non_utf8_input_gets_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = rr8("1us", r#"{ "kind": "round_robin" }"#).into_bytes();
    // Line 3, after `  "tors": { "count": 8, ` (25 characters).
    let at = bytes.iter().position(|&b| b == b'"').unwrap();
    bytes.insert(at + 1, 0xff);
    let cfg = write(dir.path(), "latin.json", &bytes);
    let p = cfg.to_str().unwrap();
    for m in both(&cfg) {
        assert_eq!(
            m,
            format!(
                "{p} is not UTF-8 text: byte 0xff at line 2 column 4 (byte offset 5) is invalid"
            )
        );
    }
    // The same in a schedule file.
    let sched = write(
        dir.path(),
        "s.json",
        b"{\"slices\": 7,\n \"circuits\": [\xc3]}",
    );
    let cfg = write(
        dir.path(),
        "c.json",
        rr8("1us", &file_topo("s.json")).as_bytes(),
    );
    let m = error_of(&["compile", cfg.to_str().unwrap()]);
    assert!(
        m.contains(&format!(
            "{}: at $: cannot read: the file is not UTF-8 text: byte 0xc3 at line 2 column 15 (byte offset 28) is invalid",
            sched.display()
        )),
        "{m}"
    );
}

#[test]
fn a_utf8_byte_order_mark_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(rr8("1us", r#"{ "kind": "round_robin" }"#).as_bytes());
    let cfg = write(dir.path(), "bom.json", &bytes);
    let out = Command::new(BIN)
        .args(["compile", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("8 ToRs x 1 uplinks"));
}

#[test]
fn routing_failures_name_the_config_fields() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        dir.path(),
        "dark.json",
        rr8("99us", r#"{ "kind": "round_robin" }"#).as_bytes(),
    );
    let [c, r] = &both(&cfg)[..] else { panic!() };
    for m in [c, r] {
        for f in [
            "routing: no path from ToR 1 to ToR 0",
            "routing.algorithm direct",
            "topology.kind round_robin",
            "tors.uplinks = 1",
            "slice.guardband = 99us",
            "ocs.reconfiguration_delay = 1us",
            "tors.max_frame = 1514",
            "tors.link_rate = 1Gbps",
            "slice.duration = 100us",
        ] {
            assert!(m.contains(f), "{f} missing: {m}");
        }
    }
    assert!(
        c.starts_with(&format!("compiling {}: routing: ", cfg.display())),
        "{c}"
    );
    assert!(
        r.starts_with("compiling the configuration: routing: "),
        "{r}"
    );
}

/// Fat trees: an odd k and a routing scheme that does not fit the fabric
/// are refused by `compile` and `run` alike, naming the field, exit 2,
/// nothing left behind.
#[test]
fn fat_tree_configs_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        "{}/../topologies/fattree-4.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let good = std::fs::read_to_string(src).unwrap();
    for (name, from, to, want) in [
        (
            "odd.json",
            "\"k\": 4",
            "\"k\": 5",
            "at $.topology.k: expected an even k",
        ),
        (
            "opera.json",
            "\"algorithm\": \"sopa\"",
            "\"algorithm\": \"opera\"",
            "at $.routing.algorithm: expected one of ecmp, rps, sopa, hedera for a fat tree",
        ),
    ] {
        assert!(good.contains(from));
        let cfg = write(dir.path(), name, good.replace(from, to).as_bytes());
        for m in both(&cfg) {
            assert!(m.contains(want), "{want}: {m}");
        }
    }
    // sopa on an optical TO config.
    let cfg = write(
        dir.path(),
        "sopa-optical.json",
        rr8("1us", r#"{ "kind": "round_robin" }"#)
            .replace("\"direct\"", "\"sopa\"")
            .as_bytes(),
    );
    for m in both(&cfg) {
        assert!(
            m.contains("at $.routing.algorithm:") && m.contains("sopa and hedera route a fat tree"),
            "{m}"
        );
    }
}
