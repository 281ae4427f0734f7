use super::*;

#[test]
fn builtins_name_like_mininet() {
    let t = builtin("tree,2,2").unwrap();
    assert_eq!(t.switches, ["s1", "s2", "s3"]);
    assert_eq!(t.hosts, ["h1", "h2", "h3", "h4"]);
    assert!(t.links.iter().any(|(a, b, _)| a == "s2" && b == "h2"));
    let f = to_fabric(&t, "tree,2,2").unwrap();
    assert_eq!(f.host_counts, [0, 2, 2]);
    assert_eq!(f.uplinks, 2);
    assert!(f.notes.is_empty(), "{:?}", f.notes);
    let l = to_fabric(&builtin("linear,4").unwrap(), "linear,4").unwrap();
    assert_eq!(l.host_counts, [1, 1, 1, 1]);
    assert_eq!(l.schedule["circuits"].as_array().unwrap().len(), 3);
    let s = to_fabric(&builtin("single,3").unwrap(), "single,3").unwrap();
    assert_eq!(s.host_counts, [3, 0]);
    assert!(builtin("ring,3").is_err());
    assert!(builtin("linear,0").is_err());
    assert!(builtin("linear,x").is_err());
}

#[test]
fn every_generated_config_compiles() {
    for spec in [
        "single,3",
        "linear,5",
        "tree,2,3",
        "tree,3,2",
        "minimal",
        "reversed,3",
    ] {
        let p = prepare(
            None,
            &MnSource {
                topo: Some(spec.into()),
                ..Default::default()
            },
        )
        .unwrap();
        let cfg = Config::load(&p.config).unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let plan = p.plan(&cfg);
        assert_eq!(plan.tors, c.schedule.tors());
        // Every pair of ToRs with hosts is routed within the one slice.
        for a in 0..plan.tors {
            for b in 0..plan.tors {
                if a != b && !plan.hosts_of(a).is_empty() && !plan.hosts_of(b).is_empty() {
                    let p = lh_ctrl::tables::walk(
                        &c.tables,
                        &c.schedule,
                        a as u16,
                        b as u16,
                        Some(0),
                        None,
                        None,
                    )
                    .unwrap_or_else(|e| panic!("{spec} {a}->{b}: {e}"));
                    assert_eq!(
                        p.latency_slots(),
                        Some(0),
                        "{spec}: static links never wait"
                    );
                }
            }
        }
    }
}

#[test]
fn bad_shapes_are_named() {
    let t = MnTopo {
        switches: vec!["s1".into()],
        hosts: vec!["h1".into(), "h2".into()],
        links: vec![("h1".into(), "h2".into(), None)],
        ..Default::default()
    };
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(e.contains("joins two hosts"), "{e}");
    let t = MnTopo {
        switches: vec!["s1".into(), "s2".into()],
        hosts: vec!["h1".into()],
        links: vec![
            ("h1".into(), "s1".into(), None),
            ("h1".into(), "s2".into(), None),
        ],
        ..Default::default()
    };
    assert!(
        to_fabric(&t, "x")
            .unwrap_err()
            .to_string()
            .contains("more than one link")
    );
    let t = MnTopo {
        switches: vec!["s1".into(), "s2".into()],
        hosts: vec!["h1".into(), "h2".into()],
        links: vec![
            ("h1".into(), "s1".into(), None),
            ("h2".into(), "s2".into(), None),
        ],
        ..Default::default()
    };
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(e.contains("switches s1 and s2 are not connected"), "{e}");
}

#[test]
fn p4_tutorial_topology_json() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("topology.json");
    std::fs::write(
        &f,
        r#"{"hosts": {"h1": {"ip": "10.0.1.1/24"}, "h2": {"ip": "10.0.2.2/24"}, "h3": {}},
            "switches": {"s1": {}, "s2": {}, "s3": {}},
            "links": [["h1", "s1-p1"], ["h2", "s2-p1"], ["h3", "s3-p1"],
                      ["s1-p2", "s2-p2", "0", 100], ["s1-p3", "s3-p2"], ["s3-p3", "s2-p3"]]}"#,
    )
    .unwrap();
    let t = p4_topology_json(&f).unwrap();
    assert_eq!(t.links[3], ("s1".into(), "s2".into(), Some(100.0)));
    let fab = to_fabric(&t, "topology.json").unwrap();
    assert_eq!(fab.host_counts, [1, 1, 1]);
    assert_eq!(fab.uplinks, 2);
    assert_eq!(fab.config["tors"]["link_rate"], "100000Kbps");
}

#[test]
fn names_and_ports_are_mininets() {
    // linear,3: s2's ports in link order: eth1 h2, eth2 s1, eth3 s3.
    let f = to_fabric(&builtin("linear,3").unwrap(), "linear,3").unwrap();
    assert_eq!(f.names.uplinks[1], ["s2-eth2", "s2-eth3"]);
    assert_eq!(f.names.uplinks[0], ["s1-eth2"]);
    let mut p = Plan::with_host_counts(&f.host_counts, f.uplinks);
    f.names.apply(&mut p);
    assert_eq!(p.hosts[1].tor_if, "s2-eth1");
    // reversed,3: h1 on the last port, as SingleSwitchReversedTopo.
    let f = to_fabric(&builtin("reversed,3").unwrap(), "reversed,3").unwrap();
    let ports: Vec<usize> = f.names.hosts.iter().map(|h| h.2).collect();
    assert_eq!(ports, [3, 2, 1]);
    assert_eq!(f.names.visible, 1, "the added ToR is hidden");
    // A script's own names are kept; addresses in natural name order.
    let t = MnTopo {
        switches: vec!["s1".into(), "s2".into()],
        hosts: vec!["server".into(), "client".into()],
        links: vec![
            ("server".into(), "s1".into(), None),
            ("client".into(), "s2".into(), None),
            ("s1".into(), "s2".into(), None),
        ],
        ..Default::default()
    };
    let f = to_fabric(&t, "x").unwrap();
    let mut p = Plan::with_host_counts(&f.host_counts, f.uplinks);
    f.names.apply(&mut p);
    assert_eq!(p.host("client").unwrap().ip.to_string(), "10.0.0.1");
    assert_eq!(p.host("server").unwrap().ip.to_string(), "10.0.0.2");
    assert_eq!(p.host("client").unwrap().host_if, "client-eth0");
    assert!(f.notes.is_empty(), "{:?}", f.notes);
    let mut long = t.clone();
    long.hosts[0] = "averyverylongname".into();
    let e = to_fabric(&long, "x").unwrap_err().to_string();
    assert!(e.contains("node name \"averyverylongname\""), "{e}");
}

#[test]
fn torus_is_mininets() {
    let t = builtin("torus,3,3").unwrap();
    assert_eq!(t.switches.len(), 9);
    assert_eq!(t.hosts[0], "h1x1");
    assert_eq!(t.links.len(), 9 + 18);
    assert!(
        builtin("torus,2,3")
            .unwrap_err()
            .to_string()
            .contains("3x3")
    );
    let p = prepare(
        None,
        &MnSource {
            topo: Some("torus,3,3".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let cfg = Config::load(&p.config).unwrap();
    lh_ctrl::compile::compile(&cfg).unwrap();
    let plan = p.plan(&cfg);
    assert_eq!(plan.tor("s2x3"), Some(5));
    assert_eq!(plan.uplink_label(0, 0), "s1x1-eth2");
}

/// Shaped switch links queue what tc's queue would: `max_queue_size`
/// full frames, else netem's 1000; unshaped ones keep the default.
#[test]
fn shaped_switch_links_queue_as_tc() {
    let cap = |bw: Option<f64>, q: Option<u64>| {
        let mut t = builtin("linear,3").unwrap();
        for l in &mut t.links {
            l.2 = bw;
        }
        t.netem = vec![
            LinkNetem {
                max_queue_size: q,
                ..Default::default()
            };
            t.links.len()
        ];
        to_fabric(&t, "x").unwrap().config["tors"]["queue_capacity"].as_u64()
    };
    assert_eq!(cap(None, None), None);
    assert_eq!(cap(Some(100.0), None), Some(1000 * 1514));
    assert_eq!(cap(None, Some(50)), Some(50 * 1514));
    assert_eq!(cap(Some(10.0), Some(7)), Some(7 * 1514));
    // A switch link's loss is its circuit's.
    let mut t = builtin("linear,2").unwrap();
    t.netem = vec![
        LinkNetem {
            loss: Some(2.5),
            ..Default::default()
        };
        t.links.len()
    ];
    let c = to_fabric(&t, "x").unwrap().config;
    assert_eq!(c["tors"]["link_loss"], json!(2.5));
    assert_eq!(c["hosts"]["link"]["loss"], json!(2.5));
}

#[test]
fn natural_order() {
    let mut v = vec!["s10", "s2", "s1"];
    v.sort_by_key(|s| natural(s));
    assert_eq!(v, ["s1", "s2", "s10"]);
}
