use super::fabric::natural;
use super::*;
use crate::plan::Plan;
use lh_ctrl::config::Config;
use serde_json::json;

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
    // A host with a link to each of two switches joins them.
    let f = to_fabric(&t, "x").unwrap();
    assert_eq!(f.names.extras.len(), 1);
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
    // And its jitter its circuit's, with no warning.
    for l in &mut t.netem {
        l.jitter = Some("2ms".into());
    }
    let f = to_fabric(&t, "x").unwrap();
    assert_eq!(f.config["tors"]["link_jitter"], json!("2ms"));
    assert_eq!(f.config["hosts"]["link"]["jitter"], json!("2ms"));
    assert!(f.notes.is_empty(), "{:?}", f.notes);
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("schedule.json"), f.schedule.to_string()).unwrap();
    let p = d.path().join("c.json");
    std::fs::write(&p, f.config.to_string()).unwrap();
    let cfg = Config::load(&p).unwrap();
    assert_eq!(cfg.tors.link_jitter, Some(lh_ctrl::units::Nanos(2_000_000)));
    for l in &mut t.netem {
        l.jitter = Some("2 parsecs".into());
    }
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(e.contains("jitter='2 parsecs'"), "{e}");
}

#[test]
fn natural_order() {
    let mut v = vec!["s10", "s2", "s1"];
    v.sort_by_key(|s| natural(s));
    assert_eq!(v, ["s1", "s2", "s10"]);
}

fn link(a: &str, b: &str) -> (String, String, Option<f64>) {
    (a.into(), b.into(), None)
}

/// Mininet's linuxrouter.py: a router node with a link to each of three
/// switches, its own names and addresses on each, hosts with theirs and
/// a default route through it.
fn linuxrouter() -> MnTopo {
    let end = |intf: &str, ip: &str| LinkEnd {
        intf: Some(intf.into()),
        ip: Some(ip.into()),
    };
    let host = |ip: &str, gw: &str| HostOpts {
        ip: Some(ip.into()),
        default_route: Some(format!("via {gw}")),
    };
    MnTopo {
        switches: vec!["s1".into(), "s2".into(), "s3".into()],
        hosts: vec!["r0".into(), "h1".into(), "h2".into(), "h3".into()],
        links: vec![
            link("s1", "r0"),
            link("s2", "r0"),
            link("s3", "r0"),
            link("h1", "s1"),
            link("h2", "s2"),
            link("h3", "s3"),
        ],
        ends: vec![
            [LinkEnd::default(), end("r0-eth1", "192.168.1.1/24")],
            [LinkEnd::default(), end("r0-eth2", "172.16.0.1/12")],
            [LinkEnd::default(), end("r0-eth3", "10.0.0.1/8")],
        ],
        host_opts: [
            (
                "r0".to_string(),
                HostOpts {
                    ip: Some("192.168.1.1/24".into()),
                    default_route: None,
                },
            ),
            ("h1".to_string(), host("192.168.1.100/24", "192.168.1.1")),
            ("h2".to_string(), host("172.16.0.100/12", "172.16.0.1")),
            ("h3".to_string(), host("10.0.0.100/8", "10.0.0.1")),
        ]
        .into_iter()
        .collect(),
        ..Default::default()
    }
}

#[test]
fn a_router_node_has_a_port_on_each_switch_with_its_own_address() {
    let f = to_fabric(&linuxrouter(), "linuxrouter").unwrap();
    // s1..s3 are joined only through r0: a hidden ToR routes between them.
    assert_eq!(f.host_counts, [2, 1, 1, 0]);
    assert_eq!(f.names.visible, 3);
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("joined only through hosts")),
        "{:?}",
        f.notes
    );
    let mut p = Plan::with_host_counts(&f.host_counts, f.uplinks);
    f.names.apply(&mut p);
    let r0: Vec<(String, String, String)> = p
        .intfs_of("r0")
        .map(|h| {
            (
                h.host_if.clone(),
                h.tor_if.clone(),
                format!("{}/{}", h.ip, h.prefix_len),
            )
        })
        .collect();
    assert_eq!(
        r0,
        [
            ("r0-eth1".into(), "s1-eth1".into(), "192.168.1.1/24".into()),
            ("r0-eth2".into(), "s2-eth1".into(), "172.16.0.1/12".into()),
            ("r0-eth3".into(), "s3-eth1".into(), "10.0.0.1/8".into()),
        ]
    );
    let h2 = p.host("h2").unwrap();
    assert_eq!(
        (h2.ip.to_string().as_str(), h2.prefix_len, h2.tor),
        ("172.16.0.100", 12, 1)
    );
    assert_eq!(h2.tor_if, "s2-eth2");
    assert_eq!(p.default_routes.len(), 3);
    assert!(
        p.default_routes
            .contains(&("h3".into(), "via 10.0.0.1".into()))
    );
    // Addresses stay through Mininet's ipBase.
    p.set_ipbase("192.168.50.0".parse().unwrap(), 24).unwrap();
    assert_eq!(p.host("h1").unwrap().ip.to_string(), "192.168.1.100");
    assert_eq!(p.intfs_of("r0").nth(2).unwrap().ip.to_string(), "10.0.0.1");
    // `links` shows the topology's own names.
    assert!(
        f.names
            .links
            .contains(&("s1-eth1".into(), "r0-eth1".into())),
        "{:?}",
        f.names.links
    );
    // The generated config compiles: every ToR reaches every other.
    let prepared = prepare_topo(&linuxrouter(), "linuxrouter").unwrap();
    let cfg = Config::load(&prepared.config).unwrap();
    lh_ctrl::compile::compile(&cfg).unwrap();
}

#[test]
fn a_host_with_two_links_to_one_switch_gets_mininets_names() {
    // multilink.py: h1 and h2 each with two links to s1.
    let t = MnTopo {
        switches: vec!["s1".into()],
        hosts: vec!["h1".into(), "h2".into()],
        links: vec![
            link("s1", "h1"),
            link("s1", "h2"),
            link("s1", "h1"),
            link("s1", "h2"),
        ],
        ..Default::default()
    };
    let f = to_fabric(&t, "multilink").unwrap();
    assert_eq!(f.host_counts, [2, 0]);
    let mut p = Plan::with_host_counts(&f.host_counts, f.uplinks);
    f.names.apply(&mut p);
    let of = |h: &str| -> Vec<(String, String)> {
        p.intfs_of(h)
            .map(|i| (i.host_if.clone(), i.tor_if.clone()))
            .collect()
    };
    assert_eq!(
        of("h1"),
        [
            ("h1-eth0".into(), "s1-eth1".into()),
            ("h1-eth1".into(), "s1-eth3".into())
        ]
    );
    assert_eq!(
        of("h2"),
        [
            ("h2-eth0".into(), "s1-eth2".into()),
            ("h2-eth1".into(), "s1-eth4".into())
        ]
    );
    // The second interfaces have no address (Mininet gives one to the first).
    assert!(p.extra_intfs.iter().all(|h| h.ip.is_unspecified()));
    assert_eq!(
        p.extra_intfs.iter().map(|h| h.k).collect::<Vec<_>>(),
        [3, 4]
    );
    let ports: Vec<&str> = p.ports_of(0).iter().map(|h| h.tor_if.as_str()).collect();
    assert_eq!(ports, ["s1-eth1", "s1-eth2", "s1-eth3", "s1-eth4"]);
}

#[test]
fn bad_addresses_and_routes_are_named() {
    let mut t = linuxrouter();
    t.ends[1][1].ip = Some("172.16.0.1/40".into());
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(
        e.contains("link s2-r0 params2=\"172.16.0.1/40\": expected a prefix length"),
        "{e}"
    );
    let mut t = linuxrouter();
    t.host_opts.get_mut("h2").unwrap().ip = Some("192.168.1.100/24".into());
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(
        e.contains("h1-eth0 and h2-eth0 are both given 192.168.1.100")
            || e.contains("h2-eth0 and h1-eth0"),
        "{e}"
    );
    let mut t = linuxrouter();
    t.host_opts.get_mut("h1").unwrap().default_route = Some("via 1.2.3.4; reboot".into());
    let e = to_fabric(&t, "x").unwrap_err().to_string();
    assert!(e.contains("host h1 defaultRoute"), "{e}");
    let v = serde_json::json!({"params2": {"ip": "10.0.0.1/8", "bw": 10}});
    let e = LinkEnd::pair_from_json(&v).unwrap_err();
    assert!(e.contains("params2: bw= is not taken"), "{e}");
    let v = serde_json::json!({"intfName1": 3});
    assert!(
        LinkEnd::pair_from_json(&v)
            .unwrap_err()
            .contains("intfName1=3")
    );
}
