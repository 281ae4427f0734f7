//! Every ready config in topologies/ loads, validates and matches the schema.

mod config_support;

use config_support::*;
use lh_ctrl::config::{
    Algorithm, Cabling, Config, FabricKind, Lookup, Mode, Scheduler, StaticGraph, Topology,
    TrafficMatrixSrc,
};
use lh_ctrl::units::{BitsPerSec, Nanos};
use std::collections::BTreeSet;

const EXPECTED: &[&str] = &[
    "c-through-8.json",
    "clos-8.json",
    "jupiter-8.json",
    "mordia-8.json",
    "opera-108.json",
    "opera-8.json",
    "rotornet-8-direct.json",
    "rotornet-8-hoho.json",
    "rotornet-8-hybrid-dupack.json",
    "rotornet-8-hybrid.json",
    "rotornet-8-ucmp.json",
    "rotornet-8-vlb.json",
    "rotornet-8.json",
    "shale-16.json",
];

fn load(name: &str) -> Config {
    Config::load(&topologies_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_topology_loads_and_matches_the_schema() {
    let found: BTreeSet<String> = std::fs::read_dir(topologies_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    for name in EXPECTED {
        assert!(found.contains(*name), "topologies/{name} is missing");
    }
    for name in &found {
        let v = doc(name);
        let errs = schema_errors(&v);
        assert!(errs.is_empty(), "{name} fails the schema: {errs:#?}");
        let cfg = load(name);
        assert!(cfg.validate_all(name).is_empty());
        assert!(
            cfg.name.as_deref().is_some_and(|n| !n.is_empty()),
            "{name} has no name"
        );
        assert_eq!(cfg.base_dir, topologies_dir());
    }
}

/// What the controller writes back is a valid config too, and reads back the same.
#[test]
fn serialized_configs_match_the_schema_and_round_trip() {
    for name in EXPECTED {
        let cfg = load(name);
        let v = serde_json::to_value(&cfg).unwrap();
        let errs = schema_errors(&v);
        assert!(
            errs.is_empty(),
            "{name} serialized fails the schema: {errs:#?}"
        );
        let back = Config::from_json_in(&v.to_string(), name, &cfg.base_dir).unwrap();
        assert_eq!(back, cfg, "{name} does not round-trip");
    }
}

#[test]
fn rotornet_family_has_the_demo_parameters() {
    let algos = [
        ("rotornet-8.json", Algorithm::Direct),
        ("rotornet-8-direct.json", Algorithm::Direct),
        ("rotornet-8-vlb.json", Algorithm::Vlb),
        ("rotornet-8-ucmp.json", Algorithm::Ucmp),
        ("rotornet-8-hoho.json", Algorithm::Hoho),
        ("rotornet-8-hybrid.json", Algorithm::Direct),
    ];
    for (name, algo) in algos {
        let c = load(name);
        assert_eq!(c.mode, Mode::TO, "{name}");
        assert_eq!(c.fabric, FabricKind::Optical, "{name}");
        assert_eq!(
            (c.tors.count, c.tors.uplinks, c.tors.hosts_per_tor),
            (8, 1, 2)
        );
        assert_eq!(c.tors.link_rate, BitsPerSec(1_000_000_000));
        assert_eq!(c.tors.host_link_rate, BitsPerSec(1_000_000_000));
        let ocs = c.ocs.as_ref().unwrap();
        assert_eq!((ocs.count, ocs.ports), (1, 8));
        assert_eq!(ocs.reconfiguration_delay, Nanos(10_000));
        assert_eq!(c.slice.duration, Nanos(100_000));
        assert_eq!(c.slice.guardband, Nanos(10_000));
        assert_eq!(c.slice.propagation, Nanos(1_000));
        assert_eq!(c.topology, Topology::RoundRobin);
        assert_eq!(c.routing.algorithm, algo, "{name}");
        assert!(c.is_cyclic());
        // 1 Gb/s over 90 us of usable slice.
        assert_eq!(c.bytes_per_slice(), 11_250);
        // Buffer: eight slices of bytes (above the 64 KiB floor).
        assert_eq!(c.queue_capacity_bytes(), 90_000);
        // Auto cabling: ToR t on OCS 0 port t.
        let cab: Vec<(u16, u16)> = (0..8).map(|t| (0, t)).collect();
        assert_eq!(c.cabling(), cab);
    }
    assert_eq!(load("rotornet-8-ucmp.json").routing.lookup, Lookup::Source);
    assert_eq!(
        load("rotornet-8-hybrid.json").electrical_rate(),
        Some(BitsPerSec(100_000_000))
    );
    assert_eq!(load("rotornet-8.json").electrical_rate(), None);
    // Fig. 9's dupack hybrid: the same fabric with 60 us slices, so a
    // circuit slice carries 4 full frames (50 us at 1 Gb/s), and hosts
    // that count duplicate ACKs against a threshold that stays put.
    let d = load("rotornet-8-hybrid-dupack.json");
    assert_eq!(d.electrical_rate(), Some(BitsPerSec(100_000_000)));
    assert_eq!(d.routing.algorithm, Algorithm::Direct);
    assert_eq!(d.slice.duration, Nanos(60_000));
    assert_eq!(d.bytes_per_slice() / 1500, 4);
    let t = d.hosts.unwrap().tcp.unwrap();
    assert_eq!(
        (t.sack, t.reordering, t.max_reordering),
        (Some(false), Some(3), Some(3))
    );
    assert_eq!(t.receive_buffer, Some(49_152));
}

#[test]
fn opera_shale_and_clos_shapes() {
    let o = load("opera-108.json");
    assert_eq!(
        (o.tors.count, o.tors.uplinks, o.tors.hosts_per_tor),
        (108, 6, 1)
    );
    let ocs = o.ocs.as_ref().unwrap();
    assert_eq!((ocs.count, ocs.ports), (6, 108));
    assert!(matches!(o.topology, Topology::Opera { .. }));
    assert_eq!(o.routing.algorithm, Algorithm::Opera);
    assert!(lh_ctrl::routing::RoutingOptions::of(&o).same_slice_hops);
    // Every OCS port is used exactly once.
    let ports: BTreeSet<(u16, u16)> = o.cabling().into_iter().collect();
    assert_eq!(ports.len(), 108 * 6);

    let o8 = load("opera-8.json");
    assert_eq!((o8.tors.count, o8.tors.uplinks), (8, 4));
    assert_eq!(o8.ocs.as_ref().unwrap().count, 4);

    let s = load("shale-16.json");
    assert_eq!((s.tors.count, s.tors.uplinks), (16, 1));
    assert_eq!(s.topology, Topology::Shale { h: 2 });

    let c = load("clos-8.json");
    assert_eq!(c.fabric, FabricKind::Electrical);
    assert!(c.ocs.is_none());
    assert_eq!(c.tors.uplinks, 4);
    assert_eq!(
        c.topology,
        Topology::Static {
            graph: StaticGraph::Full
        }
    );
    assert_eq!(c.routing.algorithm, Algorithm::Ecmp);
    assert!(!c.is_cyclic());
    assert!(c.cabling().is_empty());
    // No OCS and no guardband: the whole 100 us slice at 1 Gb/s.
    assert_eq!(c.bytes_per_slice(), 12_500);
}

fn matrix(c: &Config) -> Vec<Vec<u64>> {
    match &c.ta.as_ref().unwrap().traffic_matrix {
        TrafficMatrixSrc::Inline(m) => m.clone(),
        TrafficMatrixSrc::File(_) => panic!("expected an inline matrix"),
    }
}

#[test]
fn ta_architectures_have_hot_spot_matrices() {
    for (name, sched, uplinks) in [
        ("c-through-8.json", Scheduler::Hotspot, 1),
        ("mordia-8.json", Scheduler::Bvn, 1),
        ("jupiter-8.json", Scheduler::Mip, 4),
    ] {
        let c = load(name);
        assert_eq!(c.mode, Mode::TA, "{name}");
        assert_eq!(c.topology, Topology::TrafficAware, "{name}");
        assert_eq!(c.ta.as_ref().unwrap().scheduler, sched, "{name}");
        assert_eq!(c.tors.uplinks, uplinks, "{name}");
        assert!(matches!(c.ocs.as_ref().unwrap().cabling, Cabling::Auto(_)));
        let m = matrix(&c);
        assert_eq!(m, c.traffic_matrix().unwrap());
        assert_eq!(m.len(), 8);
        let max = m.iter().flatten().max().copied().unwrap();
        let min_off = (0..8)
            .flat_map(|i| (0..8).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i][j])
            .min()
            .unwrap();
        assert!(max >= 10 * min_off, "{name}: no clear hot spot");
    }
    // c-Through: each ToR's heaviest peer is unique and the heavy pairs form a
    // perfect matching (t <-> t + 4), which is what a hotspot matching picks.
    let m = matrix(&load("c-through-8.json"));
    for (i, row) in m.iter().enumerate() {
        let peer = (i + 4) % 8;
        assert!(
            row.iter()
                .enumerate()
                .all(|(j, &x)| j == peer || x < row[peer])
        );
        assert_eq!(m[peer][i], row[peer]);
    }
    assert!(
        load("c-through-8.json")
            .ta
            .unwrap()
            .electrical_rate
            .is_some()
    );
    assert_eq!(load("jupiter-8.json").routing.algorithm, Algorithm::Ecmp);
}

/// docs/config.md stays in step: its example is rotornet-8.json, and every
/// field the schema knows is documented.
#[test]
fn reference_doc_matches_the_configs_and_schema() {
    let md = std::fs::read_to_string(repo_root().join("docs/config.md")).unwrap();
    let example = md
        .split("## Example")
        .nth(1)
        .and_then(|s| s.split("```json").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("an example block");
    let mut from_doc = Config::from_json(example, "docs/config.md").unwrap();
    from_doc.base_dir = topologies_dir();
    assert_eq!(from_doc, load("rotornet-8.json"));

    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("docs/config.schema.json")).unwrap(),
    )
    .unwrap();
    assert!(
        jsonschema::meta::is_valid(&schema),
        "docs/config.schema.json is not a valid JSON Schema"
    );
    let mut fields = BTreeSet::new();
    collect_properties(&schema, &mut fields);
    assert!(fields.len() > 40, "{fields:?}");
    for f in fields {
        assert!(
            md.contains(&format!("`{f}`")),
            "docs/config.md does not document `{f}`"
        );
    }
}

fn collect_properties(v: &serde_json::Value, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                out.extend(props.keys().cloned());
            }
            m.values().for_each(|x| collect_properties(x, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_properties(x, out)),
        _ => {}
    }
}

/// `tor` (paper §6–§7): the forms parse, and errors name their JSON path.
#[test]
fn tor_system_section_parses_and_errors_name_the_path() {
    use lh_ctrl::config::{OccupancyMode, PushbackWhen};
    let base = std::fs::read_to_string(topologies_dir().join("rotornet-8.json")).unwrap();
    let with = |tor: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
        v["tor"] = serde_json::from_str(tor).unwrap();
        Config::from_json(&v.to_string(), "t.json")
    };
    let c = with(r#"{"occupancy": {"estimated": {"update_interval": "1us"}}, "pushback": {"after_reroutes": 3}}"#)
        .unwrap();
    let t = c.tor.unwrap();
    assert_eq!(
        t.occupancy,
        OccupancyMode::Estimated {
            update_interval: lh_ctrl::units::Nanos(1000)
        }
    );
    assert_eq!(t.pushback, Some(PushbackWhen::AfterReroutes(3)));
    assert!(t.slice_miss_detection);
    let c = with(
        r#"{"occupancy": "exact", "pushback": "first_rejection", "slice_miss_detection": false}"#,
    )
    .unwrap();
    assert_eq!(c.tor.unwrap().pushback, Some(PushbackWhen::FirstRejection));
    let path = |tor: &str| with(tor).unwrap_err().json_path().to_string();
    assert_eq!(
        path(r#"{"occupancy": {"estimated": {"update_interval": "0ns"}}}"#),
        "$.tor.occupancy.estimated.update_interval"
    );
    assert_eq!(
        path(r#"{"occupancy": {"estimated": {"update_interval": "1s"}}}"#),
        "$.tor.occupancy.estimated.update_interval"
    );
    assert_eq!(
        path(r#"{"pushback": {"after_reroutes": 0}}"#),
        "$.tor.pushback.after_reroutes"
    );
    assert!(
        path(r#"{"occupancy": {"estimated": {"interval": "1us"}}}"#).starts_with("$.tor.occupancy")
    );
    assert!(path(r#"{"bogus": 1}"#).starts_with("$.tor"));
    // What a frame that fits no slice meets: deferred a cycle by default,
    // or dropped (Opera).
    use lh_ctrl::config::SliceMissAction;
    assert_eq!(
        with("{}").unwrap().tor.unwrap().on_slice_miss,
        SliceMissAction::Defer
    );
    assert_eq!(
        with(r#"{"on_slice_miss": "drop"}"#)
            .unwrap()
            .tor
            .unwrap()
            .on_slice_miss,
        SliceMissAction::Drop
    );
    assert_eq!(path(r#"{"on_slice_miss": "later"}"#), "$.tor.on_slice_miss");
}
