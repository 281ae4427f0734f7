//! Schedule files: round trip through JSON, and errors that name the file and
//! the JSON path.

use lh_ctrl::config::Config;
use lh_ctrl::schedule::{
    self, Endpoint, Schedule, ScheduleError, opera, schedule_from_file, schedule_from_json,
    schedule_to_json, shale,
};

fn err_text(text: &str, tors: usize, uplinks: usize) -> String {
    schedule_from_json(text, "sched.json", tors, uplinks)
        .unwrap_err()
        .to_string()
}

#[test]
fn round_trips_generated_schedules() {
    for s in [
        schedule::round_robin(7, 2).unwrap(),
        opera(12, 3, 1).unwrap(),
        shale(9, 2, 2).unwrap(),
        schedule::ring(6, 3).unwrap(),
    ] {
        let text = schedule_to_json(&s).unwrap();
        let back = schedule_from_json(&text, "x.json", s.tors(), s.uplinks()).unwrap();
        assert_eq!(back, s);
    }
    // Mixed directed and bidirectional circuits, and an idle slice.
    let mut s = Schedule::new(3, 1, 3);
    s.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
        .unwrap();
    s.connect_directed(Endpoint::new(0, 0), Endpoint::new(1, 0), 1)
        .unwrap();
    s.connect_directed(Endpoint::new(1, 0), Endpoint::new(2, 0), 1)
        .unwrap();
    let text = schedule_to_json(&s).unwrap();
    assert_eq!(text.matches("\"directed\":true").count(), 2, "{text}");
    assert_eq!(schedule_from_json(&text, "x.json", 3, 1).unwrap(), s);
    assert!(schedule_to_json(&schedule::full(3, 1)).is_err());
}

#[test]
fn port_used_twice_names_file_and_circuit() {
    let text = r#"{"slices": 2, "circuits": [
        {"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0},
        {"ts": 1, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0},
        {"ts": 0, "tor1": 2, "port1": 0, "tor2": 1, "port2": 0}
    ]}"#;
    assert_eq!(
        err_text(text, 3, 1),
        "sched.json: at $.circuits[2]: slice 0: ToR 1 port 0 is already used in this slice"
    );
}

#[test]
fn other_errors_name_their_path() {
    let cases = [
        // Unknown field.
        (
            r#"{"slices": 1, "circuits": [{"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0, "ocs": 1}]}"#,
            "sched.json: at $.circuits[0].ocs: unknown field `ocs`",
        ),
        // Port out of range for the config.
        (
            r#"{"slices": 1, "circuits": [{"ts": 0, "tor1": 0, "port1": 2, "tor2": 1, "port2": 0}]}"#,
            "sched.json: at $.circuits[0]: ToR 0 port 2 does not exist (2 ToRs with 1 uplinks)",
        ),
        // Slice out of range.
        (
            r#"{"slices": 1, "circuits": [{"ts": 1, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0}]}"#,
            "sched.json: at $.circuits[0]: slice 1 is out of range (the cycle has 1 slices)",
        ),
        // Self loop.
        (
            r#"{"slices": 1, "circuits": [{"ts": 0, "tor1": 1, "port1": 0, "tor2": 1, "port2": 0}]}"#,
            "sched.json: at $.circuits[0]: slice 0: ToR 1 cannot connect to itself",
        ),
        (
            r#"{"slices": 0, "circuits": []}"#,
            "sched.json: at $.slices: expected 1..=65536 slices, got 0",
        ),
        (
            r#"{"tors": 4, "slices": 1, "circuits": []}"#,
            "sched.json: at $.tors: the file is for 4 ToRs but the config has 2",
        ),
        (
            r#"{"slices": 1, "circuits": [{"ts": 0, "tor1": 0, "port1": 300, "tor2": 1, "port2": 0}]}"#,
            "sched.json: at $.circuits[0].port1: invalid value: integer `300`, expected u8",
        ),
    ];
    for (text, want) in cases {
        let got = err_text(text, 2, 1);
        assert!(got.starts_with(want), "got {got:?}\nwant {want:?}");
    }
    // Missing field: the circuit is named.
    let got = err_text(r#"{"slices": 1, "circuits": [{"ts": 0}]}"#, 2, 1);
    assert!(
        got.starts_with("sched.json: at $.circuits[0]: missing field"),
        "{got}"
    );
}

#[test]
fn config_file_topology_resolves_relative_to_config() {
    let dir = tempfile::tempdir().unwrap();
    let sched = r#"{"slices": 2, "circuits": [
        {"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0},
        {"ts": 1, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0, "directed": true},
        {"ts": 1, "tor1": 1, "port1": 0, "tor2": 2, "port2": 0, "directed": true},
        {"ts": 1, "tor1": 2, "port1": 0, "tor2": 0, "port2": 0, "directed": true}
    ]}"#;
    std::fs::write(dir.path().join("sched.json"), sched).unwrap();
    let cfg_text = r#"{
        "mode": "TO",
        "tors": {"count": 3, "uplinks": 1, "link_rate": "10Gbps",
                 "hosts_per_tor": 1, "host_link_rate": "10Gbps"},
        "ocs": {"count": 1, "ports": 3, "reconfiguration_delay": "1us", "cabling": "auto"},
        "slice": {"duration": "50us", "guardband": "2us"},
        "topology": {"kind": "file", "path": "sched.json"},
        "routing": {"algorithm": "direct"}
    }"#;
    let cfg_path = dir.path().join("config.json");
    std::fs::write(&cfg_path, cfg_text).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let s = schedule::from_config(&cfg).unwrap();
    assert_eq!(s.slices(), 2);
    assert_eq!(s.peer(1, Endpoint::new(1, 0)), Some(Endpoint::new(2, 0)));
    // Slice 1 is a directed ring: ToR 0 hears ToR 2, not ToR 1.
    assert_eq!(s.rx_peer(1, Endpoint::new(0, 0)), Some(Endpoint::new(2, 0)));
    assert_eq!(s.peer(1, Endpoint::new(0, 0)), Some(Endpoint::new(1, 0)));

    let missing = schedule_from_file(&dir.path().join("nope.json"), 3, 1).unwrap_err();
    match missing {
        ScheduleError::File { file, path, msg } => {
            assert!(file.ends_with("nope.json"));
            assert_eq!(path, "$");
            assert!(msg.starts_with("cannot read"), "{msg}");
        }
        e => panic!("unexpected {e}"),
    }
}
