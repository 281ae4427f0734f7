//! The document's text and shape: types, unknown and missing fields,
//! units, syntax, every error at once, unreadable files.

use super::*;

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
