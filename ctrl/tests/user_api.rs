//! The user API facade (`LighthouseNet`) behaves like the paper's Table 1
//! and Fig. 6: topology calls report validity, routing and entries() work on
//! whatever schedule the user built.

use lh_ctrl::config::{Config, Lookup, Multipath, Scheduler};
use lh_ctrl::net::LighthouseNet;
use lh_ctrl::tables::walk;

fn rotornet8() -> LighthouseNet {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../topologies/rotornet-8.json");
    LighthouseNet::load(p.as_ref()).unwrap()
}

#[test]
fn fig6_round_robin_direct_entries() {
    let mut net = rotornet8();
    assert!(net.round_robin());
    assert_eq!(net.schedule().slices(), 7);
    let paths = net.direct().unwrap();
    assert_eq!(paths.paths.len(), 8 * 7 * 7);
    let t = net.entries(&paths, Lookup::Hop, Multipath::None).unwrap();
    for p in &paths.paths {
        let w = walk(&t, net.schedule(), p.src, p.dst, p.arrival, None, None).unwrap();
        assert_eq!(w.hops, p.hops);
    }
    // Every ToR meets every other exactly once per cycle.
    for tor in 0..8 {
        let mut met: Vec<u16> = (0..7).flat_map(|ts| net.neighbors(tor, ts)).collect();
        met.sort_unstable();
        assert_eq!(met, (0..8).filter(|&t| t != tor).collect::<Vec<_>>());
    }
}

#[test]
fn connect_reports_refusals_and_ta_wildcard_slice() {
    let mut net = rotornet8();
    net.new_schedule(2);
    assert!(net.connect(0, 0, 1, 0, 0));
    assert!(
        !net.connect(1, 0, 2, 0, 0),
        "port 0 of ToR 1 is taken in slice 0"
    );
    assert!(!net.connect(3, 0, 3, 0, 1), "self loop");
    assert!(!net.connect(0, 0, 1, 0, 7), "slice out of range");
    // ts = -1 (TA): every slice.
    assert!(net.connect(4, 0, 5, 0, -1));
    assert_eq!(net.neighbors(4, 0), vec![5]);
    assert_eq!(net.neighbors(4, 1), vec![5]);
}

#[test]
fn topologies_that_do_not_fit_the_config_are_refused() {
    let mut net = rotornet8();
    // Opera needs at least two uplinks; rotornet-8 has one.
    assert!(!net.topo_opera());
    // Shale with h = 2 needs N = n^2; 8 is not a square.
    assert!(!net.topo_shale(2));
    // The schedule is left as it was.
    assert!(net.round_robin());
    assert!(!net.topo_shale(2));
    assert_eq!(net.schedule().slices(), 7);
}

#[test]
fn traffic_aware_topology_and_static_routing() {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../topologies/jupiter-8.json");
    let cfg = Config::load(p.as_ref()).unwrap();
    let tm = lh_ctrl::ta::traffic_matrix(&cfg).unwrap();
    let mut net = LighthouseNet::new(cfg);
    assert!(net.topo_aware(&tm, Scheduler::Mip));
    let r = net.ecmp().unwrap();
    let t = net.entries(&r, Lookup::Hop, Multipath::Flow).unwrap();
    assert!(lh_ctrl::tables::is_plain_flow_table(&t));
    assert!(!net.shortest_path(0, 5).is_empty());
}

#[test]
fn a_scripts_topo_grows_the_cycle_and_is_checked_at_the_end() {
    let mut net = rotornet8();
    net.begin_topo();
    assert!(net.connect(0, 0, 1, 0, 0));
    assert!(net.connect(2, 0, 3, 0, 4));
    assert!(!net.connect(0, 0, 5, 0, 0), "port booked twice");
    assert!(net.refusal().unwrap().contains("ToR 0 port 0"));
    net.end_topo(None).unwrap();
    assert_eq!(net.schedule().slices(), 5);
    assert_eq!(net.neighbors(2, 4), vec![3]);
    assert!(net.neighbors(2, 3).is_empty());
    // Outside a topo() a later slice is refused, not grown.
    assert!(!net.connect(4, 0, 5, 0, 9));
    assert!(net.refusal().unwrap().contains("slice 9"));
    assert_eq!(net.schedule().slices(), 5);
    // An explicit cycle longer than what was connected is kept; shorter is refused.
    net.begin_topo();
    assert!(net.connect(0, 0, 1, 0, 2));
    net.end_topo(Some(6)).unwrap();
    assert_eq!(net.schedule().slices(), 6);
    net.begin_topo();
    assert!(net.connect(0, 0, 1, 0, 5));
    assert!(net.end_topo(Some(3)).is_err());
    net.begin_topo();
    assert!(net.end_topo(None).is_err(), "an empty topo() is refused");
}

#[test]
fn path_from_tors_and_slots_names_the_hop_and_slice_without_a_circuit() {
    let mut net = rotornet8();
    assert!(net.round_robin());
    let up = net.neighbors(0, 0)[0];
    let p = net.path(&[0, up], &[0], 0).unwrap();
    assert_eq!((p.src, p.dst, p.arrival, p.hops.len()), (0, up, Some(0), 1));
    assert_eq!(p.hops[0].depart, Some(0));
    let down = (1..8).find(|t| !net.neighbors(0, 0).contains(t)).unwrap();
    let e = net.path(&[0, down], &[0], 0).unwrap_err();
    assert!(
        e.contains(&format!("path 0->{down}")) && e.contains("hop 0") && e.contains("slice 0"),
        "{e}"
    );
    // Two hops; a wait of a whole cycle at the middle ToR is refused.
    let mid = net.neighbors(up, 1)[0];
    assert_ne!(mid, 0);
    let p = net.path(&[0, up, mid], &[0, 1], 0).unwrap();
    assert_eq!(p.hops[1].tor, up);
    assert!(
        net.path(&[0, up, mid], &[0, 8], 0)
            .unwrap_err()
            .contains("waits")
    );
    assert!(net.path(&[0], &[], 0).unwrap_err().contains("two ToRs"));
    assert!(
        net.path(&[0, up], &[0, 1], 0)
            .unwrap_err()
            .contains("departure slots")
    );
    assert!(net.path(&[0, 99], &[0], 0).unwrap_err().contains("ToR 99"));
}

#[test]
fn earliest_paths_to_agrees_with_earliest_path_and_compiled_uses_the_scripts_routes() {
    let mut net = rotornet8();
    assert!(net.round_robin());
    let slices = net.schedule().slices();
    let all = net.earliest_paths_to(5, 2);
    for src in 0..8u16 {
        for ts in 0..slices as u16 {
            let one = lh_ctrl::routing::earliest_path(
                net.schedule(),
                src,
                5,
                ts,
                2,
                &lh_ctrl::routing::RoutingOptions::of(&net.config),
            );
            assert_eq!(all[src as usize * slices + ts as usize], one);
            assert_eq!(net.earliest_path(src, 5, ts, 2), one);
        }
    }
    let routes = net.hoho().unwrap();
    let c = net
        .compiled(Some((&routes, Lookup::Source, Multipath::None)))
        .unwrap();
    assert_eq!(c.routes, routes);
    assert_eq!(c.config.routing.lookup, Lookup::Source);
    assert_eq!(c.schedule, *net.schedule());
    // None: the config's algorithm on the script's schedule.
    let c = net.compiled(None).unwrap();
    assert_eq!(c.routes, net.direct().unwrap());
}

#[test]
fn earliest_path_guards_and_solving_several_destinations() {
    let mut net = rotornet8();
    assert!(net.round_robin());
    assert_eq!(net.earliest_path(3, 3, 0, 2), None);
    assert_eq!(net.earliest_path(0, 99, 0, 2), None);
    assert_eq!(net.earliest_path(99, 0, 0, 2), None);
    assert_eq!(net.earliest_path(0, 3, 0, 0), None);
    let slices = net.schedule().slices();
    let many = net.earliest_paths_to_many(&[2, 99, 5], 2);
    assert_eq!(many.len(), 3);
    assert!(many.iter().all(|v| v.len() == 8 * slices));
    assert_eq!(many[0], net.earliest_paths_to(2, 2));
    assert!(many[1].iter().all(Option::is_none), "no ToR 99");
    assert_eq!(many[2], net.earliest_paths_to(5, 2));
    assert_eq!(many[0][2 * slices], None, "a ToR to itself");
    assert!(many[0][0].is_some());
    assert!(net.earliest_paths_to(2, 0).iter().all(Option::is_none));
}

#[test]
fn connect_in_one_slice_leaves_the_others_alone() {
    let mut net = rotornet8();
    net.new_schedule(2);
    assert!(net.connect(0, 0, 1, 0, 0));
    assert!(net.neighbors(0, 1).is_empty());
    assert!(net.connect(0, 0, 1, 0, 1));
    assert_eq!(net.neighbors(0, 1), vec![1]);
}

#[test]
fn path_over_an_electrical_port_needs_another_tor() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../topologies/c-through-8.json"
    );
    let net = LighthouseNet::load(p.as_ref()).unwrap();
    let net = {
        let c = lh_ctrl::compile::compile(&net.config).unwrap();
        LighthouseNet::from_compiled(&c)
    };
    let s = net.schedule();
    let e = (0..s.uplinks() as u8)
        .find(|&p| s.is_electrical(p))
        .expect("an electrical port");
    let circuit = |t: u16| {
        (0..s.uplinks() as u8)
            .filter(|&p| !s.is_electrical(p))
            .any(|p| {
                s.peer(0, lh_ctrl::schedule::Endpoint::new(0, p))
                    .is_some_and(|x| x.tor == t)
            })
    };
    // No circuit joins ToR 0 to `far` in slice 0; the packet switch does.
    let far = (1..8)
        .find(|&t| !circuit(t))
        .expect("a ToR without a circuit");
    let p = net.path(&[0, far], &[0], 0).unwrap();
    assert_eq!(p.hops[0].port, e, "the electrical uplink");
}
