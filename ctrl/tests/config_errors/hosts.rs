//! The hosts' transport: TCP knobs, OTCP and the bulk threshold.

use super::*;

#[test]
fn host_tcp_knobs() {
    // Valid: the paper's Fig. 9 setting, and each field alone.
    let mut v = rotornet();
    v["hosts"] = json!({"tcp": {"reordering": 5, "congestion_control": "cubic", "rto_min": "5ms"}});
    let c = Config::from_json(&v.to_string(), "t.json").expect("valid hosts.tcp");
    let t = c.hosts.unwrap().tcp.unwrap();
    assert_eq!(t.reordering, Some(5));
    assert_eq!(t.congestion_control.as_deref(), Some("cubic"));
    assert_eq!(t.rto_min, Some(lh_ctrl::units::Nanos(5_000_000)));
    assert!(schema_errors(&v).is_empty(), "{:?}", schema_errors(&v));
    v["hosts"] = json!({"tcp": {}});
    assert!(Config::from_json(&v.to_string(), "t.json").is_ok());

    let mut v = rotornet();
    v["hosts"] = json!({"tcp": {"reordering": 0}});
    both_reject(
        &v,
        "$.hosts.tcp.reordering",
        &["expected an integer 1..=300, got 0"],
    );
    v["hosts"] = json!({"tcp": {"reordering": 301}});
    both_reject(&v, "$.hosts.tcp.reordering", &["got 301"]);
    v["hosts"] = json!({"tcp": {"reordering": "5"}});
    both_reject(
        &v,
        "$.hosts.tcp.reordering",
        &["invalid type", "tcp_reordering"],
    );

    // Fig. 9's dupack hybrid: a pinned threshold, SACK off, a bounded
    // receive buffer.
    v["hosts"] = json!({"tcp": {"reordering": 5, "max_reordering": 5, "sack": false, "receive_buffer": 32768}});
    let t = Config::from_json(&v.to_string(), "t.json")
        .expect("valid dupack knobs")
        .hosts
        .unwrap()
        .tcp
        .unwrap();
    assert_eq!(
        (t.max_reordering, t.sack, t.receive_buffer),
        (Some(5), Some(false), Some(32768))
    );
    assert!(schema_errors(&v).is_empty(), "{:?}", schema_errors(&v));
    v["hosts"] = json!({"tcp": {"max_reordering": 0}});
    both_reject(
        &v,
        "$.hosts.tcp.max_reordering",
        &["expected an integer 1..=300, got 0"],
    );
    v["hosts"] = json!({"tcp": {"max_reordering": 301}});
    both_reject(&v, "$.hosts.tcp.max_reordering", &["got 301"]);
    v["hosts"] = json!({"tcp": {"max_reordering": -1}});
    both_reject(
        &v,
        "$.hosts.tcp.max_reordering",
        &["invalid value", "tcp_max_reordering"],
    );
    v["hosts"] = json!({"tcp": {"sack": 0}});
    both_reject(&v, "$.hosts.tcp.sack", &["invalid type", "a boolean"]);
    v["hosts"] = json!({"tcp": {"receive_buffer": 4095}});
    both_reject(
        &v,
        "$.hosts.tcp.receive_buffer",
        &["expected bytes 4096..=67108864", "got 4095"],
    );
    v["hosts"] = json!({"tcp": {"receive_buffer": 67108865}});
    both_reject(&v, "$.hosts.tcp.receive_buffer", &["got 67108865"]);
    v["hosts"] = json!({"tcp": {"receive_buffer": "32KiB"}});
    both_reject(
        &v,
        "$.hosts.tcp.receive_buffer",
        &["invalid type", "4096..=67108864"],
    );

    v["hosts"] = json!({"tcp": {"congestion_control": "Cubic!"}});
    both_reject(
        &v,
        "$.hosts.tcp.congestion_control",
        &["congestion control module name", "\"Cubic!\""],
    );
    v["hosts"] = json!({"tcp": {"congestion_control": ""}});
    both_reject(&v, "$.hosts.tcp.congestion_control", &["got \"\""]);

    v["hosts"] = json!({"tcp": {"rto_min": "500us"}});
    rejects(
        &v,
        "$.hosts.tcp.rto_min",
        &["whole milliseconds", "got 500us"],
    );
    v["hosts"] = json!({"tcp": {"rto_min": "200s"}});
    rejects(&v, "$.hosts.tcp.rto_min", &["120000ms", "got 200s"]);
    v["hosts"] = json!({"tcp": {"rto_min": 5}});
    both_reject(&v, "$.hosts.tcp.rto_min", &["whole milliseconds"]);

    // OTCP: fan-in, host overhead, the socket-level RTO max against the
    // kernel's range, and no global rto_min next to per-route ones.
    v["hosts"] =
        json!({"tcp": {"otcp": {"fan_in": 8, "host_overhead": "20us", "socket_rto_max": "2s"}}});
    let c = Config::from_json(&v.to_string(), "t.json").expect("valid otcp");
    let o = c.hosts.unwrap().tcp.unwrap().otcp.unwrap();
    assert_eq!(
        (o.fan_in, o.host_overhead),
        (8, Some(lh_ctrl::units::Nanos(20_000)))
    );
    assert!(schema_errors(&v).is_empty(), "{:?}", schema_errors(&v));
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 0}}});
    both_reject(
        &v,
        "$.hosts.tcp.otcp.fan_in",
        &["expected an integer 1..=65535", "got 0"],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 70000}}});
    both_reject(&v, "$.hosts.tcp.otcp.fan_in", &["got 70000"]);
    v["hosts"] = json!({"tcp": {"otcp": {}}});
    both_reject(
        &v,
        "$.hosts.tcp.otcp.fan_in",
        &["missing required field `fan_in`"],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 8, "socket_rto_max": "200ms"}}});
    rejects(
        &v,
        "$.hosts.tcp.otcp.socket_rto_max",
        &[
            "200ms is below the kernel's minimum 1000ms",
            "TCP_RTO_MAX_MS",
        ],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 8, "socket_rto_max": "121s"}}});
    rejects(
        &v,
        "$.hosts.tcp.otcp.socket_rto_max",
        &["above the kernel's maximum 120000ms"],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 8, "socket_rto_max": "1500us"}}});
    rejects(
        &v,
        "$.hosts.tcp.otcp.socket_rto_max",
        &["whole milliseconds"],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 8, "host_overhead": "2s"}}});
    rejects(
        &v,
        "$.hosts.tcp.otcp.host_overhead",
        &["at most 1s", "got 2s"],
    );
    v["hosts"] = json!({"tcp": {"rto_min": "5ms", "otcp": {"fan_in": 8}}});
    rejects(
        &v,
        "$.hosts.tcp.rto_min",
        &["OTCP sets rto_min per destination route"],
    );
    v["hosts"] = json!({"tcp": {"otcp": {"fan_in": 8, "iw": 3}}});
    both_reject(&v, "$.hosts.tcp.otcp.iw", &["unknown field"]);

    // Unknown fields keep their path.
    v["hosts"] = json!({"tcp": {"reorder": 5}});
    both_reject(&v, "$.hosts.tcp.reorder", &["unknown field"]);
    v["hosts"] = json!({"udp": {}});
    both_reject(&v, "$.hosts.udp", &["unknown field"]);
}

#[test]
fn transport_knobs_and_bulk_threshold() {
    // Valid: the Opera authors' window (20 segments), and every RTO knob.
    let mut v = rotornet();
    v["hosts"] = json!({"tcp": {"initial_window": 20, "max_window": 20, "rto_min": "1ms",
                                "rto_max": "1s", "rto_initial": "10ms"}});
    let c = Config::from_json(&v.to_string(), "t.json").expect("valid transport knobs");
    let t = c.hosts.unwrap().tcp.unwrap();
    assert_eq!((t.initial_window, t.max_window), (Some(20), Some(20)));
    assert_eq!(t.rto_max, Some(lh_ctrl::units::Nanos(1_000_000_000)));
    assert_eq!(t.rto_initial, Some(lh_ctrl::units::Nanos(10_000_000)));
    assert!(schema_errors(&v).is_empty(), "{:?}", schema_errors(&v));

    for (field, bad, needle) in [
        (
            "initial_window",
            json!(0),
            "expected segments 1..=65535, got 0",
        ),
        (
            "max_window",
            json!(65536),
            "expected segments 1..=65535, got 65536",
        ),
        ("rto_max", json!("500us"), "whole milliseconds"),
        ("rto_initial", json!("0ms"), "whole milliseconds"),
    ] {
        v["hosts"] = json!({"tcp": {field: bad}});
        rejects(&v, &format!("$.hosts.tcp.{field}"), &[needle]);
    }
    v["hosts"] = json!({"tcp": {"max_window": 65536}});
    both_reject(&v, "$.hosts.tcp.max_window", &["got 65536"]);
    v["hosts"] = json!({"tcp": {"initial_window": 30, "max_window": 20}});
    rejects(
        &v,
        "$.hosts.tcp.initial_window",
        &["at most max_window (20), got 30"],
    );
    v["hosts"] = json!({"tcp": {"rto_min": "5ms", "rto_max": "2ms"}});
    rejects(&v, "$.hosts.tcp.rto_max", &["at least rto_min (5ms)"]);
    v["hosts"] = json!({"tcp": {"initial_window": 4, "otcp": {"fan_in": 8}}});
    rejects(
        &v,
        "$.hosts.tcp.initial_window",
        &["OTCP sets initial_window per destination route"],
    );

    // routing.bulk_threshold: Opera's only, and at least a byte.
    let mut v = rotornet();
    v["routing"]["bulk_threshold"] = json!(15_000_000);
    rejects(
        &v,
        "$.routing.bulk_threshold",
        &["only routing.algorithm \"opera\""],
    );
    v["routing"]["algorithm"] = json!("opera");
    let c = Config::from_json(&v.to_string(), "t.json").expect("opera takes it");
    assert_eq!(c.routing.bulk_threshold, Some(15_000_000));
    assert_eq!(
        lh_ctrl::routing::RoutingOptions::of(&c).bulk_threshold,
        Some(15_000_000)
    );
    v["routing"]["bulk_threshold"] = json!(0);
    both_reject(&v, "$.routing.bulk_threshold", &["at least 1 byte"]);

    // routing.bulk: Opera's only, and one of the two names.
    let mut v = rotornet();
    v["routing"]["bulk"] = json!("rotorlb");
    rejects(&v, "$.routing.bulk", &["only routing.algorithm \"opera\""]);
    v["routing"]["algorithm"] = json!("opera");
    let c = Config::from_json(&v.to_string(), "t.json").expect("opera takes it");
    assert_eq!(c.routing.bulk, lh_ctrl::config::BulkTransport::Rotorlb);
    v["routing"]["bulk"] = json!("vlb");
    both_reject(&v, "$.routing.bulk", &["rotorlb"]);
}
