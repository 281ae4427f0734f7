//! Properties of the topology generators (round robin, Opera, Shale, ring):
//! every slice is a valid matching per OCS, and each generator's defining
//! property holds.

use lh_ctrl::config::Config;
use lh_ctrl::schedule::{
    self, Endpoint, LinkKind, Schedule, ScheduleError, ocs, opera, round_robin, shale,
};
use lh_ctrl::{PortId, SliceId, TorId};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};

/// A config with `ocs_count` OCSes of `ports` ports and auto cabling.
fn config(n: usize, u: usize, ocs_count: usize, ports: usize, topology: &str) -> Config {
    let text = format!(
        r#"{{
        "mode": "TO",
        "tors": {{"count": {n}, "uplinks": {u}, "link_rate": "10Gbps",
                  "hosts_per_tor": 1, "host_link_rate": "10Gbps"}},
        "ocs": {{"count": {ocs_count}, "ports": {ports}, "reconfiguration_delay": "1us",
                 "cabling": "auto"}},
        "slice": {{"duration": "50us", "guardband": "2us"}},
        "topology": {topology},
        "routing": {{"algorithm": "direct"}}
    }}"#
    );
    Config::parse_json(&text, "test.json").expect("test config parses")
}

/// Every slice: each transmitter and receiver used at most once, no self
/// loops, and the schedule compiles onto OCS-per-uplink auto cabling (or
/// one big OCS when `one_ocs`), each OCS port used once per direction.
fn assert_valid(s: &Schedule, one_ocs: bool) {
    let (n, u) = (s.tors(), s.uplinks());
    for ts in 0..s.slices() as SliceId {
        let mut tx = HashSet::new();
        let mut rx = HashSet::new();
        for (from, to) in s.circuits(ts) {
            assert_ne!(from.tor, to.tor, "self loop in slice {ts}");
            assert!(tx.insert(from), "slice {ts}: {from:?} sends twice");
            assert!(rx.insert(to), "slice {ts}: {to:?} receives twice");
            assert_eq!(s.rx_peer(ts, to), Some(from));
        }
    }
    let (count, ports) = if one_ocs { (1, n * u) } else { (u, n) };
    let cabling = config(n, u, count, ports, r#"{"kind": "round_robin"}"#).cabling();
    let o = ocs::compile(s, &cabling, count, ports).expect("compiles onto auto cabling");
    assert_eq!(o.circuit_count(), s.circuit_count());
    for per_slice in &o.ocs {
        for list in per_slice {
            let ins: HashSet<_> = list.iter().map(|c| c.0).collect();
            let outs: HashSet<_> = list.iter().map(|c| c.1).collect();
            assert_eq!(ins.len(), list.len());
            assert_eq!(outs.len(), list.len());
        }
    }
}

/// Bidirectional generators: every circuit's reverse is also up.
fn assert_symmetric(s: &Schedule) {
    for ts in 0..s.slices() as SliceId {
        for (from, to) in s.circuits(ts) {
            assert_eq!(s.peer(ts, to), Some(from));
        }
    }
}

/// Ports that change at the boundary into slice `ts`.
fn changing_ports(s: &Schedule, ts: SliceId) -> BTreeSet<PortId> {
    let mut v = BTreeSet::new();
    for t in 0..s.tors() {
        for p in 0..s.uplinks() {
            if s.changed(ts, Endpoint::new(t as TorId, p as PortId)) {
                v.insert(p as PortId);
            }
        }
    }
    v
}

#[test]
fn round_robin_meets_every_pair_once_per_cycle() {
    for n in 2..=41usize {
        for u in 1..=4usize {
            let s = round_robin(n, u).unwrap();
            let matchings = if n % 2 == 0 { n - 1 } else { n };
            assert_eq!(s.slices(), matchings.div_ceil(u), "N={n} u={u}");
            assert_valid(&s, false);
            assert_symmetric(&s);
            let mut count = vec![0u32; n * n];
            for ts in 0..s.slices() as SliceId {
                for (from, to) in s.circuits(ts) {
                    assert_eq!(from.port, to.port, "circuits join equal uplinks");
                    count[from.tor as usize * n + to.tor as usize] += 1;
                }
            }
            for a in 0..n {
                for b in 0..n {
                    let want = u32::from(a != b);
                    assert_eq!(count[a * n + b], want, "N={n} u={u} pair ({a},{b})");
                }
            }
            // Even N: perfect matchings, so each used uplink is busy.
            if n % 2 == 0 {
                let used: usize = (0..s.slices() as SliceId)
                    .map(|ts| s.circuits(ts).len())
                    .sum();
                assert_eq!(used, matchings * n);
            }
        }
    }
}

#[test]
fn round_robin_rejects_degenerate_sizes() {
    assert!(matches!(
        round_robin(1, 1),
        Err(ScheduleError::Infeasible(_))
    ));
    assert!(matches!(
        round_robin(4, 0),
        Err(ScheduleError::Infeasible(_))
    ));
}

fn check_opera(s: &Schedule, n: usize, u: usize) {
    assert_eq!(s.slices(), n);
    assert_valid(s, false);
    assert_symmetric(s);
    for ts in 0..n as SliceId {
        assert!(
            s.diameter(ts, |_| true).is_some(),
            "N={n} u={u}: slice {ts} graph is disconnected"
        );
        let want: BTreeSet<PortId> = [(ts as usize % u) as PortId].into();
        assert_eq!(changing_ports(s, ts), want, "N={n} u={u} slice {ts}");
    }
    // Each pair meets on exactly one rotor, for the u slices its matching
    // is held; each ToR idles once per cycle on some rotor.
    let mut seen = vec![Vec::new(); n * n];
    let mut idle = vec![0usize; n];
    for ts in 0..n as SliceId {
        for t in 0..n {
            for p in 0..u {
                match s.peer(ts, Endpoint::new(t as TorId, p as PortId)) {
                    Some(e) => seen[t * n + e.tor as usize].push(p as PortId),
                    None => idle[t] += 1,
                }
            }
        }
    }
    for a in 0..n {
        assert_eq!(idle[a], u, "ToR {a} idles for one held matching");
        for b in 0..n {
            let v = &seen[a * n + b];
            if a == b {
                assert!(v.is_empty());
            } else {
                assert_eq!(v.len(), u, "pair ({a},{b})");
                assert!(v.iter().all(|&p| p == v[0]), "pair ({a},{b}) on one rotor");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn opera_slices_connected_one_rotor_changes(u in 2usize..=6, m in 2usize..=6, seed: u64) {
        let n = u * m;
        let s = opera(n, u, seed).unwrap();
        check_opera(&s, n, u);
    }

    #[test]
    fn round_robin_valid_for_any_size(n in 2usize..=64, u in 1usize..=8) {
        let s = round_robin(n, u).unwrap();
        assert_valid(&s, false);
    }

    #[test]
    fn ring_is_valid_on_one_ocs(n in 2usize..=40, u in 1usize..=7) {
        let s = schedule::ring(n, u).unwrap();
        assert_eq!(s.slices(), 1);
        assert_valid(&s, true);
        assert_symmetric(&s);
        // ToR t reaches t + j + 1 on uplink 2j.
        for t in 0..n {
            for j in 0..u / 2 {
                if (j + 1) % n != 0 {
                    let e = s.peer(0, Endpoint::new(t as TorId, (2 * j) as PortId)).unwrap();
                    prop_assert_eq!(e, Endpoint::new(((t + j + 1) % n) as TorId, (2 * j + 1) as PortId));
                }
            }
        }
    }
}

#[test]
fn opera_108_tors_6_rotors() {
    let s = opera(108, 6, opera::DEFAULT_SEED).unwrap();
    check_opera(&s, 108, 6);
    let p = opera::plan(108, 6, opera::DEFAULT_SEED).unwrap();
    assert!(
        p.stable_diameter.is_some(),
        "the 5 stable rotors should stay connected"
    );
    // A union of 6 random matchings on 108 nodes has diameter 4-5; the
    // chosen schedule must not be worse than 6 in any slice.
    assert!(p.diameter <= 6, "diameter {}", p.diameter);
    let worst = (0..108).filter_map(|ts| s.diameter(ts, |_| true)).max();
    assert_eq!(worst, Some(p.diameter));
    // The same seed gives the same schedule; another seed another order.
    assert_eq!(s, opera(108, 6, opera::DEFAULT_SEED).unwrap());
    assert_ne!(p.seq, opera::plan(108, 6, 7).unwrap().seq);
}

#[test]
fn shale_shifts_reach_digit_neighbours() {
    for (n, h) in [
        (2usize, 1u32),
        (2, 3),
        (3, 2),
        (4, 2),
        (3, 3),
        (5, 1),
        (2, 5),
    ] {
        let tors = n.pow(h);
        for u in [1usize, 2] {
            let s = shale(tors, u, h).unwrap();
            assert_eq!(s.slices(), h as usize * (n - 1));
            assert_valid(&s, false);
            for ts in 0..s.slices() as SliceId {
                // A permutation on uplink 0: every ToR sends and receives once.
                let c = s.circuits(ts);
                assert_eq!(c.len(), tors);
                assert!(c.iter().all(|(f, t)| f.port == 0 && t.port == 0));
                let dst: HashSet<_> = c.iter().map(|x| x.1.tor).collect();
                assert_eq!(dst.len(), tors);
            }
            for x in 0..tors {
                let mut got = Vec::new();
                for ts in 0..s.slices() as SliceId {
                    got.extend(s.neighbors(x as TorId, ts));
                }
                let mut want = Vec::new();
                for p in 0..h {
                    let w = n.pow(p);
                    let d = (x / w) % n;
                    for v in (0..n).filter(|&v| v != d) {
                        want.push((x - d * w + v * w) as TorId);
                    }
                }
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "n={n} h={h} x={x}");
            }
        }
    }
    assert!(matches!(shale(12, 1, 2), Err(ScheduleError::Infeasible(_))));
}

#[test]
fn from_config_dispatches_and_verifies() {
    let cfg = config(8, 2, 2, 8, r#"{"kind": "round_robin"}"#);
    let (s, o) = schedule::from_config_with_ocs(&cfg).unwrap();
    assert_eq!(s, round_robin(8, 2).unwrap());
    assert_eq!(o, s.verify(&cfg).unwrap());
    assert_eq!((o.ocs.len(), o.slices, o.circuit_count()), (2, 4, 7 * 8));
    let s =
        schedule::from_config(&config(12, 3, 3, 12, r#"{"kind": "opera", "seed": 5}"#)).unwrap();
    assert_eq!(s, opera(12, 3, 5).unwrap());
    let s = schedule::from_config(&config(12, 3, 3, 12, r#"{"kind": "opera"}"#)).unwrap();
    assert_eq!(s, opera(12, 3, opera::DEFAULT_SEED).unwrap());
    let s = schedule::from_config(&config(9, 1, 1, 9, r#"{"kind": "shale", "h": 2}"#)).unwrap();
    assert_eq!(s.slices(), 4);
    let s = schedule::from_config(&config(
        6,
        2,
        1,
        12,
        r#"{"kind": "static", "graph": "ring"}"#,
    ))
    .unwrap();
    assert_eq!(s.neighbors(0, 0), vec![1, 5]);
    // The ring joins uplinks 0 and 1, which auto cabling puts on two OCSes.
    let e = schedule::from_config(&config(
        6,
        2,
        2,
        6,
        r#"{"kind": "static", "graph": "ring"}"#,
    ))
    .unwrap_err();
    assert!(matches!(e, ScheduleError::CrossOcs { .. }), "{e}");
    // Validation refuses this combination; from_config must refuse it too.
    let mut cfg = config(6, 2, 2, 6, r#"{"kind": "round_robin"}"#);
    cfg.topology = lh_ctrl::config::Topology::TrafficAware;
    let e = schedule::from_config(&cfg).unwrap_err();
    assert_eq!(
        e,
        ScheduleError::Infeasible("traffic-aware topologies are built by ta::build".into())
    );
    // Too few OCS ports for the auto cabling.
    let e = schedule::from_config(&config(8, 2, 2, 7, r#"{"kind": "round_robin"}"#)).unwrap_err();
    assert!(
        matches!(e, ScheduleError::NoSuchOcsPort { tor: 7, .. }),
        "{e}"
    );
    // "full" is electrical only.
    let e = schedule::from_config(&config(
        8,
        2,
        2,
        8,
        r#"{"kind": "static", "graph": "full"}"#,
    ))
    .unwrap_err();
    assert!(matches!(e, ScheduleError::Infeasible(_)));
}

#[test]
fn electrical_full_fabric() {
    let text = r#"{
        "mode": "TO", "fabric": "electrical",
        "tors": {"count": 4, "uplinks": 2, "link_rate": "10Gbps",
                 "hosts_per_tor": 1, "host_link_rate": "10Gbps"},
        "slice": {"duration": "50us", "guardband": "2us"},
        "topology": {"kind": "static", "graph": "full"},
        "routing": {"algorithm": "shortest_path"}
    }"#;
    let cfg = Config::from_json(text, "e.json").unwrap();
    let s = schedule::from_config(&cfg).unwrap();
    assert_eq!(s.kind(), LinkKind::Electrical);
    assert_eq!(s.neighbors(0, 0), vec![1, 2, 3]);
    let o = ocs::compile_for(&cfg, &s).unwrap();
    assert_eq!(o.circuit_count(), 0);
    assert!(o.ocs.is_empty());
}
