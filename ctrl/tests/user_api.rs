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
