//! One test per class of bad config: each asserts the JSON path of the error,
//! that the message says what was expected, and (where a schema can say it)
//! that docs/config.schema.json rejects the same document.

mod config_support;

use config_support::*;
use lh_ctrl::config::{Config, ConfigError};
use serde_json::{Value, json};

fn rotornet() -> Value {
    doc("rotornet-8.json")
}

fn cthrough() -> Value {
    doc("c-through-8.json")
}

fn remove(v: &mut Value, key: &str) {
    v.as_object_mut().unwrap().remove(key).expect("key present");
}

#[test]
fn wrong_type() {
    let mut v = rotornet();
    v["tors"]["count"] = json!("8");
    let e = both_reject(
        &v,
        "$.tors.count",
        &["invalid type", "expected u16", "number of ToRs"],
    );
    assert!(is_parse(&e));

    let mut v = rotornet();
    v["routing"]["same_slice_hops"] = json!("yes");
    both_reject(&v, "$.routing.same_slice_hops", &["expected a boolean"]);

    let mut v = rotornet();
    v["mode"] = json!("XO");
    both_reject(
        &v,
        "$.mode",
        &["unknown variant `XO`", "expected `TO` or `TA`"],
    );

    let mut v = rotornet();
    v["ocs"]["cabling"] = json!("manual");
    both_reject(
        &v,
        "$.ocs.cabling",
        &["\"manual\"", "expected \"auto\" or a list of cables"],
    );

    // Inside a list the path keeps the index.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][1]["ocs_port"] = json!("x");
    both_reject(
        &v,
        "$.ocs.cabling[1].ocs_port",
        &["expected u16", "OCS port index"],
    );

    let mut v = cthrough();
    v["ta"]["traffic_matrix"][2][5] = json!(-3);
    both_reject(
        &v,
        "$.ta.traffic_matrix[2][5]",
        &["expected u64", "byte count"],
    );

    let mut v = cthrough();
    v["ta"]["traffic_matrix"] = json!(7);
    both_reject(
        &v,
        "$.ta.traffic_matrix",
        &["expected a file name, or a list of rows"],
    );

    let mut v = rotornet();
    v["topology"] = json!({"kind": "shale", "h": "two"});
    both_reject(&v, "$.topology.h", &["expected u32", "Shale digits"]);
}

#[test]
fn unknown_fields_top_level_and_nested() {
    let mut v = rotornet();
    v["colour"] = json!("blue");
    let e = both_reject(
        &v,
        "$.colour",
        &["unknown field `colour`", "expected one of", "`tors`"],
    );
    assert!(is_parse(&e));

    let mut v = rotornet();
    v["tors"]["ports"] = json!(4);
    both_reject(&v, "$.tors.ports", &["unknown field `ports`", "`uplinks`"]);

    let mut v = rotornet();
    v["slice"]["guard"] = json!("1us");
    both_reject(
        &v,
        "$.slice.guard",
        &["unknown field `guard`", "`guardband`"],
    );

    let mut v = rotornet();
    v["monitoring"][0]["every"] = json!("1ms");
    both_reject(
        &v,
        "$.monitoring[0].every",
        &["unknown field `every`", "`interval`"],
    );

    let mut v = cthrough();
    v["ta"]["interval"] = json!("1ms");
    both_reject(
        &v,
        "$.ta.interval",
        &["unknown field `interval`", "`update_interval`"],
    );
}

#[test]
fn unknown_fields_inside_topology() {
    // A kind without fields (serde's derived tagged enum would accept this).
    let mut v = rotornet();
    v["topology"] = json!({"kind": "round_robin", "rotors": 2});
    both_reject(
        &v,
        "$.topology.rotors",
        &["unknown field `rotors`", "`kind`"],
    );

    // A kind with fields.
    let mut v = rotornet();
    v["topology"] = json!({"kind": "shale", "h": 3, "n": 2});
    both_reject(&v, "$.topology.n", &["unknown field `n`"]);

    // A field that exists, but for another kind.
    let mut v = rotornet();
    v["topology"] = json!({"kind": "opera", "h": 2});
    both_reject(
        &v,
        "$.topology.h",
        &[
            "`h` is not used by topology kind `opera`",
            "expected only `kind` and `seed`",
        ],
    );
    let mut v = rotornet();
    v["topology"] = json!({"graph": "ring", "kind": "round_robin"});
    both_reject(&v, "$.topology.graph", &["expected no field but `kind`"]);

    let mut v = rotornet();
    v["topology"] = json!({"kind": "ring"});
    both_reject(
        &v,
        "$.topology.kind",
        &["unknown variant `ring`", "`round_robin`"],
    );
}

/// The document text with `topology` replaced by `topo` verbatim (serde_json's
/// Value sorts keys, and the order of `kind` matters for the messages).
fn with_topology_text(topo: &str) -> String {
    let text = rotornet().to_string();
    let old = r#""topology":{"kind":"round_robin"}"#;
    assert!(text.contains(old));
    text.replace(old, &format!(r#""topology":{topo}"#))
}

fn text_error(text: &str) -> ConfigError {
    Config::from_json(text, "t.json").expect_err("bad topology accepted")
}

#[test]
fn topology_errors_do_not_depend_on_field_order() {
    for topo in [r#"{"kind":"opera","h":2}"#, r#"{"h":2,"kind":"opera"}"#] {
        let e = text_error(&with_topology_text(topo));
        assert_eq!(e.json_path(), "$.topology.h", "{topo}");
        assert!(
            e.to_string().contains("expected only `kind` and `seed`"),
            "{e}"
        );
    }
    for topo in [
        r#"{"kind":"round_robin","n":2}"#,
        r#"{"n":2,"kind":"round_robin"}"#,
    ] {
        let e = text_error(&with_topology_text(topo));
        assert_eq!(e.json_path(), "$.topology.n", "{topo}");
        assert!(e.to_string().contains("unknown field `n`"), "{e}");
    }
    // Once `kind` is known, an unknown field is told what that kind takes.
    let e = text_error(&with_topology_text(r#"{"kind":"shale","h":3,"n":2}"#));
    assert_eq!(e.json_path(), "$.topology.n");
    assert!(
        e.to_string()
            .contains("expected only `kind` and `h` for topology kind `shale`"),
        "{e}"
    );
    let e = text_error(&with_topology_text(r#"{"kind":"shale","kind":"opera"}"#));
    assert_eq!(e.json_path(), "$.topology.kind");
    assert!(e.to_string().contains("duplicate field `kind`"), "{e}");
    let e = text_error(&with_topology_text("[1]"));
    assert_eq!(e.json_path(), "$.topology");
    assert!(
        e.to_string()
            .contains("expected a topology object with a `kind`"),
        "{e}"
    );
}

#[test]
fn bad_units() {
    let mut v = rotornet();
    v["slice"]["duration"] = json!("100 parsecs");
    let e = both_reject(
        &v,
        "$.slice.duration",
        &[
            "expected a duration with a unit, like \"50us\"",
            "\"100 parsecs\"",
        ],
    );
    assert!(is_parse(&e));

    let mut v = rotornet();
    v["slice"]["guardband"] = json!(10);
    both_reject(
        &v,
        "$.slice.guardband",
        &["integer `10`", "expected a duration string with a unit"],
    );

    let mut v = rotornet();
    v["tors"]["link_rate"] = json!("1GB/s");
    both_reject(
        &v,
        "$.tors.link_rate",
        &["expected a rate with a unit, like \"10Gbps\""],
    );

    let mut v = rotornet();
    v["monitoring"][0]["interval"] = json!("1 fortnight");
    both_reject(
        &v,
        "$.monitoring[0].interval",
        &["expected a duration with a unit"],
    );

    let mut v = cthrough();
    v["ta"]["electrical_rate"] = json!("fast");
    both_reject(&v, "$.ta.electrical_rate", &["expected a rate with a unit"]);

    let mut v = rotornet();
    v["tors"]["electrical_rate"] = json!("fast");
    both_reject(
        &v,
        "$.tors.electrical_rate",
        &["expected a rate with a unit"],
    );

    // Units the schema's pattern allows but the value does not (sub-ns).
    let mut v = rotornet();
    v["slice"]["propagation"] = json!("0.5ns");
    rejects(
        &v,
        "$.slice.propagation",
        &["not a whole number of nanoseconds"],
    );
}

#[test]
fn missing_fields_are_reported_at_the_field() {
    let mut v = rotornet();
    remove(&mut v["tors"], "count");
    let e = both_reject(
        &v,
        "$.tors.count",
        &[
            "missing required field `count`",
            "expected the number of ToRs",
        ],
    );
    assert!(is_parse(&e));

    let mut v = rotornet();
    remove(&mut v, "routing");
    both_reject(
        &v,
        "$.routing",
        &["missing required field `routing`", "`algorithm`"],
    );

    let mut v = rotornet();
    remove(&mut v["topology"], "kind");
    both_reject(
        &v,
        "$.topology.kind",
        &["missing required field `kind`", "\"round_robin\""],
    );

    let mut v = rotornet();
    v["topology"] = json!({"kind": "shale"});
    both_reject(
        &v,
        "$.topology.h",
        &["missing required field `h`", "Shale digits"],
    );

    let mut v = rotornet();
    v["ocs"]["cabling"] = json!([{"tor": 0, "port": 0, "ocs": 0}]);
    both_reject(
        &v,
        "$.ocs.cabling[0].ocs_port",
        &["missing required field `ocs_port`"],
    );
}

fn explicit_cabling() -> Value {
    // ToR t -> OCS 0 port 7 - t (a valid, non-identity cabling).
    Value::Array(
        (0..8)
            .map(|t| json!({"tor": t, "port": 0, "ocs": 0, "ocs_port": 7 - t}))
            .collect(),
    )
}

#[test]
fn explicit_cabling_is_accepted_and_used() {
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    assert!(schema_errors(&v).is_empty());
    let cfg = Config::from_json(&v.to_string(), "t.json").unwrap();
    let want: Vec<(u16, u16)> = (0..8).map(|t| (0, 7 - t)).collect();
    assert_eq!(cfg.cabling(), want);
}

#[test]
fn infeasible_cabling() {
    // An OCS port out of range.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][3]["ocs_port"] = json!(8);
    let e = rejects(
        &v,
        "$.ocs.cabling[3].ocs_port",
        &["expected an OCS port below ocs.ports (8), got 8"],
    );
    assert!(is_invalid(&e));

    // An OCS out of range.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][6]["ocs"] = json!(1);
    rejects(
        &v,
        "$.ocs.cabling[6].ocs",
        &["expected an OCS index below ocs.count (1), got 1"],
    );

    // A ToR or uplink that does not exist.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][2]["port"] = json!(1);
    rejects(
        &v,
        "$.ocs.cabling[2].port",
        &["expected an uplink index below tors.uplinks (1), got 1"],
    );
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][2]["tor"] = json!(9);
    rejects(
        &v,
        "$.ocs.cabling[2].tor",
        &["expected a ToR index below tors.count (8), got 9"],
    );

    // A (tor, port) left uncabled.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"].as_array_mut().unwrap().remove(5);
    rejects(
        &v,
        "$.ocs.cabling",
        &["expected a cable for every ToR uplink", "(tor 5, port 0)"],
    );

    // Two cables on one OCS port (cable 4 takes cable 2's port 5; port 3 is then free).
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][4]["ocs_port"] = json!(5);
    rejects(
        &v,
        "$.ocs.cabling[4].ocs_port",
        &[
            "expected each OCS port used once",
            "OCS 0 port 5 is already used at $.ocs.cabling[2]",
        ],
    );

    // One uplink cabled twice.
    let mut v = rotornet();
    v["ocs"]["cabling"] = explicit_cabling();
    v["ocs"]["cabling"][7]["tor"] = json!(0);
    rejects(
        &v,
        "$.ocs.cabling[7].port",
        &["ToR 0 uplink 0 is already cabled at $.ocs.cabling[0]"],
    );

    // Auto cabling that does not fit: 8 ToRs x 2 uplinks on one 8-port OCS.
    let mut v = rotornet();
    v["tors"]["uplinks"] = json!(2);
    rejects(
        &v,
        "$.ocs.ports",
        &[
            "expected at least 16 ports per OCS for auto cabling",
            "got 8",
        ],
    );
    // ...but fits on two OCSes.
    v["ocs"]["count"] = json!(2);
    Config::from_json(&v.to_string(), "t.json").unwrap();
}

#[test]
fn mode_and_algorithm_mismatch() {
    let mut v = rotornet();
    v["routing"]["algorithm"] = json!("ecmp");
    let e = both_reject(
        &v,
        "$.routing.algorithm",
        &[
            "expected one of direct, vlb, opera, ucmp, hoho",
            "cyclic schedule",
            "got \"ecmp\"",
        ],
    );
    assert!(is_invalid(&e));

    let mut v = cthrough();
    v["routing"]["algorithm"] = json!("hoho");
    both_reject(
        &v,
        "$.routing.algorithm",
        &[
            "expected one of direct, shortest_path, ecmp, ksp",
            "mode TA",
            "got \"hoho\"",
        ],
    );

    let mut v = doc("clos-8.json");
    v["routing"]["algorithm"] = json!("vlb");
    both_reject(
        &v,
        "$.routing.algorithm",
        &["electrical fabric", "got \"vlb\""],
    );

    // TA needs `ta` and a traffic_aware topology; TO has neither.
    let mut v = cthrough();
    remove(&mut v, "ta");
    both_reject(&v, "$.ta", &["expected a `ta` object", "mode is TA"]);
    let mut v = cthrough();
    v["topology"] = json!({"kind": "round_robin"});
    both_reject(
        &v,
        "$.topology.kind",
        &["expected \"traffic_aware\" because mode is TA"],
    );
    let mut v = rotornet();
    v["topology"] = json!({"kind": "traffic_aware"});
    both_reject(&v, "$.topology.kind", &["\"traffic_aware\" needs mode TA"]);
    let mut v = rotornet();
    v["ta"] = cthrough()["ta"].clone();
    both_reject(&v, "$.ta", &["expected no `ta` object"]);

    // Fabric: optical needs ocs, electrical forbids it and wants static full.
    let mut v = rotornet();
    remove(&mut v, "ocs");
    both_reject(
        &v,
        "$.ocs",
        &["expected an `ocs` object", "fabric is optical"],
    );
    let mut v = doc("clos-8.json");
    v["ocs"] = rotornet()["ocs"].clone();
    both_reject(&v, "$.ocs", &["expected no `ocs` object", "electrical"]);
    let mut v = doc("clos-8.json");
    v["topology"] = json!({"kind": "static", "graph": "ring"});
    both_reject(&v, "$.topology.graph", &["expected \"full\""]);
    let mut v = doc("clos-8.json");
    v["topology"] = json!({"kind": "round_robin"});
    v["routing"]["algorithm"] = json!("direct");
    both_reject(
        &v,
        "$.topology.kind",
        &["expected \"static\" (with graph \"full\")"],
    );
    let mut v = doc("clos-8.json");
    v["mode"] = json!("TA");
    both_reject(&v, "$.mode", &["expected \"TO\""]);
    let mut v = rotornet();
    v["topology"] = json!({"kind": "static", "graph": "full"});
    both_reject(&v, "$.topology.graph", &["expected \"ring\""]);

    // A static optical ring takes static routing.
    let mut v = rotornet();
    v["topology"] = json!({"kind": "static", "graph": "ring"});
    v["routing"]["algorithm"] = json!("shortest_path");
    assert!(schema_errors(&v).is_empty());
    Config::from_json(&v.to_string(), "t.json").unwrap();
}

#[test]
fn bad_traffic_matrix() {
    let mut v = cthrough();
    v["ta"]["traffic_matrix"].as_array_mut().unwrap().pop();
    let e = rejects(
        &v,
        "$.ta.traffic_matrix",
        &["expected 8 rows (one per ToR", "got 7"],
    );
    assert!(is_invalid(&e));

    let mut v = cthrough();
    v["ta"]["traffic_matrix"][2]
        .as_array_mut()
        .unwrap()
        .push(json!(1));
    rejects(
        &v,
        "$.ta.traffic_matrix[2]",
        &["expected row 2 to have 8 entries", "got 9"],
    );

    let mut v = cthrough();
    v["ta"]["traffic_matrix"][3][3] = json!(42);
    rejects(
        &v,
        "$.ta.traffic_matrix[3][3]",
        &["expected 0 on the diagonal", "got 42"],
    );

    let mut v = cthrough();
    v["ta"]["traffic_matrix"] = json!("no-such-matrix.txt");
    rejects(
        &v,
        "$.ta.traffic_matrix",
        &[
            "expected a traffic-matrix file, but",
            "no-such-matrix.txt does not exist",
        ],
    );
}

#[test]
fn traffic_matrix_file_resolves_next_to_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = cthrough();
    let rows = v["ta"]["traffic_matrix"].clone();
    let text: String = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let r: Vec<String> = r
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.to_string())
                .collect();
            r.join(" ") + "\n"
        })
        .collect();
    std::fs::write(dir.path().join("tm.txt"), format!("# bytes\n{text}")).unwrap();
    v["ta"]["traffic_matrix"] = json!("tm.txt");
    let cfg_path = dir.path().join("config.json");
    std::fs::write(&cfg_path, v.to_string()).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let want: Vec<Vec<u64>> = serde_json::from_value(rows).unwrap();
    assert_eq!(cfg.traffic_matrix().unwrap(), want);

    // The same text parsed elsewhere does not find the file.
    rejects(&v, "$.ta.traffic_matrix", &["does not exist"]);

    // A file of the wrong shape names the field and the file.
    std::fs::write(dir.path().join("tm.txt"), "0 1\n1 0\n").unwrap();
    let e = Config::load(&cfg_path).unwrap_err();
    assert_eq!(e.json_path(), "$.ta.traffic_matrix");
    assert!(e.to_string().contains("expected 8 rows"), "{e}");
    assert!(e.to_string().contains("tm.txt"), "{e}");
    std::fs::write(dir.path().join("tm.txt"), "0 x\n").unwrap();
    let e = Config::load(&cfg_path).unwrap_err();
    assert!(
        e.to_string()
            .contains("line 1: expected non-negative integers"),
        "{e}"
    );
}

#[test]
fn schedule_file_must_exist() {
    let mut v = rotornet();
    v["topology"] = json!({"kind": "file", "path": "sched-that-is-not-there.json"});
    rejects(
        &v,
        "$.topology.path",
        &[
            "expected a schedule file, but",
            "sched-that-is-not-there.json does not exist",
        ],
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), "{}").unwrap();
    v["topology"]["path"] = json!("s.json");
    let p = dir.path().join("c.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let cfg = Config::load(&p).unwrap();
    assert_eq!(
        cfg.resolve(std::path::Path::new("s.json")),
        dir.path().join("s.json")
    );
    Config::from_json_in(&v.to_string(), "c.json", dir.path()).unwrap();
}

#[test]
fn counts_and_timing() {
    let mut v = rotornet();
    v["tors"]["count"] = json!(1);
    both_reject(&v, "$.tors.count", &["expected at least 2 ToRs, got 1"]);
    let mut v = rotornet();
    v["tors"]["uplinks"] = json!(0);
    both_reject(&v, "$.tors.uplinks", &["expected at least 1 uplink"]);
    let mut v = rotornet();
    v["tors"]["hosts_per_tor"] = json!(0);
    both_reject(&v, "$.tors.hosts_per_tor", &["expected at least 1 host"]);

    let mut v = rotornet();
    v["slice"]["guardband"] = json!("100us");
    rejects(
        &v,
        "$.slice.guardband",
        &["expected less than slice.duration (100us), got 100us"],
    );
    let mut v = rotornet();
    v["ocs"]["reconfiguration_delay"] = json!("0.2ms");
    rejects(
        &v,
        "$.ocs.reconfiguration_delay",
        &["expected less than slice.duration (100us), got 200us"],
    );
    // In TA mode the OCS reconfigures every update interval instead.
    let mut v = cthrough();
    assert_eq!(v["ocs"]["reconfiguration_delay"], json!("1ms"));
    v["ocs"]["reconfiguration_delay"] = json!("100ms");
    rejects(
        &v,
        "$.ocs.reconfiguration_delay",
        &["expected less than ta.update_interval (100ms), got 100ms"],
    );
    let mut v = cthrough();
    v["ta"]["update_interval"] = json!("50us");
    rejects(
        &v,
        "$.ta.update_interval",
        &["expected at least slice.duration (100us)"],
    );
}

#[test]
fn topology_feasibility() {
    let mut v = rotornet();
    v["topology"] = json!({"kind": "shale", "h": 2});
    v["routing"]["algorithm"] = json!("hoho");
    rejects(
        &v,
        "$.tors.count",
        &["expected n^2 ToRs for an integer n >= 2", "got 8"],
    );
    v["topology"]["h"] = json!(3); // 8 = 2^3
    Config::from_json(&v.to_string(), "t.json").unwrap();

    let mut v = doc("shale-16.json");
    v["tors"]["uplinks"] = json!(2);
    v["ocs"]["ports"] = json!(32);
    both_reject(
        &v,
        "$.tors.uplinks",
        &["expected 1 uplink for topology shale"],
    );
    let mut v = doc("shale-16.json");
    v["topology"]["h"] = json!(0);
    both_reject(&v, "$.topology.h", &["expected at least 1 digit"]);

    let mut v = doc("opera-8.json");
    v["tors"]["uplinks"] = json!(3);
    v["ocs"]["count"] = json!(3);
    rejects(
        &v,
        "$.tors.count",
        &["expected a multiple of tors.uplinks (3)", "got 8"],
    );
    let mut v = doc("opera-8.json");
    v["tors"]["uplinks"] = json!(1);
    both_reject(
        &v,
        "$.tors.uplinks",
        &["expected at least 2 uplinks (rotors) for topology opera"],
    );
}

#[test]
fn monitoring_and_routing_ranges() {
    let mut v = rotornet();
    v["monitoring"] = json!([{"metric": "buffer_usage", "tor": 8, "interval": "1ms"}]);
    rejects(
        &v,
        "$.monitoring[0].tor",
        &["expected a ToR index below tors.count (8), got 8"],
    );
    let mut v = rotornet();
    v["monitoring"] = json!([
        {"metric": "bw_usage", "interval": "1ms"},
        {"metric": "bw_usage", "port": 1, "interval": "1ms"}
    ]);
    rejects(
        &v,
        "$.monitoring[1].port",
        &["expected an uplink index below tors.uplinks (1)"],
    );
    let mut v = rotornet();
    v["monitoring"][0]["interval"] = json!("0ns");
    rejects(
        &v,
        "$.monitoring[0].interval",
        &["expected a positive duration"],
    );
    let mut v = rotornet();
    v["monitoring"][0]["metric"] = json!("latency");
    both_reject(
        &v,
        "$.monitoring[0].metric",
        &["unknown variant `latency`", "`buffer_usage`"],
    );

    let mut v = doc("jupiter-8.json");
    v["routing"]["k"] = json!(0);
    both_reject(&v, "$.routing.k", &["expected at least 1, got 0"]);
    let mut v = rotornet();
    v["routing"]["max_hop"] = json!(0);
    both_reject(&v, "$.routing.max_hop", &["expected at least 1 hop"]);
    let mut v = rotornet();
    v["routing"]["max_hop"] = json!(3);
    rejects(&v, "$.routing.max_hop", &["direct routing takes one hop"]);
}

#[test]
fn syntax_errors_and_trailing_text() {
    let e = Config::from_json("{\"mode\": \"TO\",", "t.json").unwrap_err();
    assert!(is_parse(&e));
    assert!(e.to_string().contains("line 1"), "{e}");
    let text = rotornet().to_string() + " {}";
    let e = Config::from_json(&text, "t.json").unwrap_err();
    assert_eq!(e.json_path(), "$");
    assert!(e.to_string().contains("trailing characters"), "{e}");
}

#[test]
fn validate_all_reports_every_error() {
    let mut v = rotornet();
    v["tors"]["hosts_per_tor"] = json!(0);
    v["slice"]["guardband"] = json!("1ms");
    v["routing"]["algorithm"] = json!("ksp");
    let cfg = Config::parse_json(&v.to_string(), "t.json").unwrap();
    let paths: Vec<String> = cfg
        .validate_all("t.json")
        .iter()
        .map(|e| e.json_path().to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "$.tors.hosts_per_tor",
            "$.slice.guardband",
            "$.routing.algorithm"
        ]
    );
    match cfg.validate("t.json") {
        Err(ConfigError::Invalid { path, .. }) => assert_eq!(path, "$.tors.hosts_per_tor"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn load_reports_unreadable_files() {
    let e = Config::load(std::path::Path::new("/nonexistent/lighthouse.json")).unwrap_err();
    assert!(matches!(e, ConfigError::Io { .. }));
    assert_eq!(e.json_path(), "$");
}

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
fn a_hybrid_to_fabric_needs_an_optical_to_config_and_a_positive_rate() {
    let mut v = rotornet();
    v["tors"]["electrical_rate"] = json!("0Mbps");
    rejects(&v, "$.tors.electrical_rate", &["must be a positive rate"]);
    let mut v = cthrough();
    v["tors"]["electrical_rate"] = json!("100Mbps");
    rejects(
        &v,
        "$.tors.electrical_rate",
        &["mode TA", "ta.electrical_rate"],
    );
    let mut v = doc("clos-8.json");
    v["tors"]["electrical_rate"] = json!("100Mbps");
    rejects(&v, "$.tors.electrical_rate", &["fabric is electrical"]);
    let mut v = rotornet();
    v["tors"]["electrical_rate"] = json!("100Mbps");
    assert!(schema_errors(&v).is_empty());
    Config::from_json(&v.to_string(), "hybrid").unwrap();
}

/// `fabric: "fattree"`: odd k, a shape that is not the fat tree's, and
/// routing schemes that do not fit the fabric name their field.
#[test]
fn fat_tree_errors_name_the_field() {
    let fat = || doc("fattree-4.json");
    let mut v = fat();
    v["topology"]["k"] = json!(5);
    both_reject(&v, "$.topology.k", &["even k", "got 5"]);

    let mut v = fat();
    v["tors"]["count"] = json!(6);
    rejects(
        &v,
        "$.tors.count",
        &["expected 8", "k²/2 edge switches", "got 6"],
    );

    let mut v = fat();
    v["tors"]["hosts_per_tor"] = json!(3);
    rejects(&v, "$.tors.hosts_per_tor", &["expected 2", "got 3"]);

    let mut v = fat();
    v["tors"]["buffer_capacity"] = json!(64_000_000);
    rejects(
        &v,
        "$.tors.buffer_capacity",
        &["expected none", "no calendar queues"],
    );

    // opera on a fat tree.
    let mut v = fat();
    v["routing"]["algorithm"] = json!("opera");
    both_reject(
        &v,
        "$.routing.algorithm",
        &[
            "expected one of ecmp, rps, sopa, hedera for a fat tree",
            "\"opera\"",
        ],
    );

    // sopa on an optical TO config.
    let mut v = rotornet();
    v["routing"]["algorithm"] = json!("sopa");
    both_reject(
        &v,
        "$.routing.algorithm",
        &[
            "got \"sopa\"",
            "sopa and hedera route a fat tree: fabric \"fattree\"",
        ],
    );

    // A fat_tree topology on another fabric, and the reverse.
    let mut v = doc("clos-8.json");
    v["topology"] = json!({"kind": "fat_tree", "k": 4});
    both_reject(&v, "$.fabric", &["expected \"fattree\""]);
    let mut v = fat();
    v["topology"] = json!({"kind": "static", "graph": "full"});
    both_reject(
        &v,
        "$.topology.kind",
        &["expected \"fat_tree\"", "\"static\""],
    );

    let mut v = rotornet();
    v["routing"]["failure_detection"] = json!("1ms");
    rejects(&v, "$.routing.failure_detection", &["only a fat tree"]);

    let mut v = fat();
    v["routing"]["hedera_interval"] = json!("10ms");
    rejects(
        &v,
        "$.routing.hedera_interval",
        &["only routing.algorithm \"hedera\""],
    );
    v["routing"]["algorithm"] = json!("hedera");
    assert!(Config::from_json(&v.to_string(), "t.json").is_ok());
    v["routing"]["hedera_interval"] = json!("0ns");
    rejects(&v, "$.routing.hedera_interval", &["positive"]);

    let mut v = fat();
    v["tor"] = json!({"slice_miss_detection": false});
    rejects(&v, "$.tor", &["no `tor` section"]);
}

#[test]
fn shared_buffer_below_one_frame() {
    let mut v = rotornet();
    v["tors"]["buffer_capacity"] = json!(1000);
    both_reject(
        &v,
        "$.tors.buffer_capacity",
        &["at least one 1500-byte frame", "got 1000"],
    );
    v["tors"]["buffer_capacity"] = json!(1500);
    let c = Config::from_json(&v.to_string(), "t.json").unwrap();
    assert_eq!(c.tors.buffer_capacity, Some(1500));
    assert!(schema_errors(&v).is_empty());
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
