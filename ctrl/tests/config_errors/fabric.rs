//! The fabric: cabling, mode and algorithm, traffic matrices, schedule
//! files, counts and timing, feasibility, ranges, hybrids, fat trees,
//! shared buffers.

use super::*;

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
