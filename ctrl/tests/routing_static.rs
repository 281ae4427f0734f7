//! Static-topology routing (TA, Clos): shortest paths, ECMP, Yen's KSP.

mod routing_util;

use lh_ctrl::TorId;
use lh_ctrl::config::Algorithm;
use lh_ctrl::routing::static_routes::{k_shortest_paths, shortest_paths};
use lh_ctrl::routing::{PathRef, RoutingOptions, check_path, route, tors_of};
use lh_ctrl::schedule::Schedule;
use proptest::prelude::*;
use routing_util::*;
use std::collections::HashSet;

/// Undirected static graph (one slice) from an edge list; each ToR uses
/// its uplinks in edge order.
fn graph(n: usize, uplinks: usize, edges: &[(TorId, TorId)]) -> Schedule {
    let mut s = Schedule::new(n, uplinks, 1);
    let mut used = vec![0u8; n];
    for &(a, b) in edges {
        let (pa, pb) = (used[a as usize], used[b as usize]);
        s.connect(ep(a, pa), ep(b, pb), 0).unwrap();
        used[a as usize] += 1;
        used[b as usize] += 1;
    }
    s
}

fn tors<'a>(s: &Schedule, p: impl Into<PathRef<'a>>) -> Vec<TorId> {
    tors_of(p, s)
}

/// Every simple path from `src` to `dst` as ToR lists (ports ignored:
/// the test graphs have no parallel edges).
fn simple_paths(s: &Schedule, src: TorId, dst: TorId) -> Vec<Vec<TorId>> {
    fn rec(s: &Schedule, cur: &mut Vec<TorId>, dst: TorId, out: &mut Vec<Vec<TorId>>) {
        let x = *cur.last().unwrap();
        if x == dst {
            out.push(cur.clone());
            return;
        }
        for y in s.neighbors(x, 0) {
            if !cur.contains(&y) {
                cur.push(y);
                rec(s, cur, dst, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    rec(s, &mut vec![src], dst, &mut out);
    out
}

#[test]
fn yen_on_a_known_graph() {
    //   0 - 1 - 2
    //   |   |   |
    //   3 - 4 - 5     plus chord 0-4
    let s = graph(
        6,
        4,
        &[
            (0, 1),
            (1, 2),
            (0, 3),
            (1, 4),
            (2, 5),
            (3, 4),
            (4, 5),
            (0, 4),
        ],
    );
    let got: Vec<Vec<TorId>> = k_shortest_paths(&s, 0, 5, 5)
        .iter()
        .map(|p| tors(&s, p))
        .collect();
    // Lengths 2, 3, 3, 3, 4: 0-4-5; then 0-1-2-5, 0-1-4-5, 0-3-4-5; then a
    // 4-hop path (0-4-1-2-5).
    assert_eq!(got[0], vec![0, 4, 5]);
    let three: HashSet<Vec<TorId>> = got[1..4].iter().cloned().collect();
    let want: HashSet<Vec<TorId>> = [vec![0, 1, 2, 5], vec![0, 1, 4, 5], vec![0, 3, 4, 5]]
        .into_iter()
        .collect();
    assert_eq!(three, want);
    assert_eq!(got[4].len(), 5);
    assert_eq!(got[4], vec![0, 4, 1, 2, 5]);
    // Only as many loopless paths as exist.
    let line = graph(3, 2, &[(0, 1), (1, 2)]);
    assert_eq!(k_shortest_paths(&line, 0, 2, 4).len(), 1);
}

#[test]
fn ecmp_returns_every_equal_cost_path() {
    // A 2x2 grid: 0 -> 3 via 1 or via 2.
    let s = graph(4, 2, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let v: HashSet<Vec<TorId>> = shortest_paths(&s, 0, 3)
        .iter()
        .map(|p| tors(&s, p))
        .collect();
    assert_eq!(v, [vec![0, 1, 3], vec![0, 2, 3]].into_iter().collect());
    let rs = route(Algorithm::Ecmp, &s, &RoutingOptions::default()).unwrap();
    let to3: Vec<PathRef<'_>> = rs
        .paths
        .iter()
        .filter(|p| p.src == 0 && p.dst == 3)
        .collect();
    assert_eq!(to3.len(), 2);
    assert_eq!(
        rs.paths.iter().filter(|p| p.src == 0 && p.dst == 1).count(),
        1
    );
    for p in &rs.paths {
        check_path(&s, p, false).unwrap();
        assert!(p.arrival.is_none() && p.hops.iter().all(|h| h.depart.is_none()));
    }
}

#[test]
fn electrical_fabric_spreads_over_every_spine() {
    let s = Schedule::electrical(5, 3);
    let rs = route(Algorithm::Ecmp, &s, &RoutingOptions::default()).unwrap();
    assert_eq!(rs.paths.len(), 5 * 4 * 3);
    let ports: HashSet<u8> = rs
        .paths
        .iter()
        .filter(|p| p.src == 1 && p.dst == 4)
        .map(|p| p.hops[0].port)
        .collect();
    assert_eq!(ports, [0, 1, 2].into_iter().collect());
    let sp = route(Algorithm::ShortestPath, &s, &RoutingOptions::default()).unwrap();
    assert_eq!(sp.paths.len(), 20);
    let ksp = route(
        Algorithm::Ksp,
        &s,
        &RoutingOptions {
            k: 4,
            ..Default::default()
        },
    )
    .unwrap();
    for p in ksp.paths.iter().chain(&rs.paths) {
        check_path(&s, p, false).unwrap();
    }
    // k = 4 > 3 spines: the fourth path relays through another ToR.
    let g: Vec<PathRef<'_>> = ksp
        .paths
        .iter()
        .filter(|p| p.src == 0 && p.dst == 1)
        .collect();
    assert_eq!(
        g.iter().map(|p| p.hops.len()).collect::<Vec<_>>(),
        vec![1, 1, 1, 2]
    );
}

#[test]
fn static_direct_falls_back_to_shortest_path() {
    let s = graph(4, 2, &[(0, 1), (1, 2), (2, 3)]);
    let rs = route(Algorithm::Direct, &s, &RoutingOptions::default()).unwrap();
    let p = rs.paths.iter().find(|p| p.src == 0 && p.dst == 3).unwrap();
    assert_eq!(tors(&s, p), vec![0, 1, 2, 3]);
    let p = rs.paths.iter().find(|p| p.src == 2 && p.dst == 1).unwrap();
    assert_eq!(p.hops.len(), 1);
    // Per-hop consistent: the next step depends on (ToR, dst) only.
    let sp = route(Algorithm::ShortestPath, &s, &RoutingOptions::default()).unwrap();
    let mut m = std::collections::HashMap::new();
    for p in &sp.paths {
        for h in p.hops {
            assert_eq!(*m.entry((h.tor, p.dst)).or_insert(h.port), h.port);
        }
    }
}

proptest! {
    /// Yen's answer against enumerating every simple path: same lengths as
    /// the k shortest, distinct, loopless, valid.
    #[test]
    fn yen_matches_enumeration(n in 4usize..=7, k in 1usize..=6, pairs in proptest::collection::vec(any::<bool>(), 21)) {
        // A simple graph (no parallel edges), at most 3 uplinks per ToR.
        let mut edges = Vec::new();
        let mut deg = vec![0; n];
        let mut i = 0;
        for a in 0..n {
            for b in a + 1..n {
                if i < pairs.len() && pairs[i] && deg[a] < 3 && deg[b] < 3 {
                    edges.push((a as TorId, b as TorId));
                    deg[a] += 1;
                    deg[b] += 1;
                }
                i += 1;
            }
        }
        let s = graph(n, 3, &edges);
        for src in 0..n as TorId {
            for dst in (0..n as TorId).filter(|&d| d != src) {
                let got = k_shortest_paths(&s, src, dst, k);
                let mut all: Vec<usize> = simple_paths(&s, src, dst).iter().map(Vec::len).collect();
                all.sort();
                all.truncate(k);
                let lens: Vec<usize> = got.iter().map(|p| p.hops.len() + 1).collect();
                prop_assert_eq!(&lens, &all);
                let mut distinct = HashSet::new();
                for p in &got {
                    check_path(&s, p, false).unwrap();
                    let t = tors(&s, p);
                    let uniq: HashSet<_> = t.iter().collect();
                    prop_assert_eq!(uniq.len(), t.len(), "loop in {:?}", t);
                    prop_assert!(distinct.insert(t));
                }
                // ECMP = exactly the shortest simple paths.
                let sp = shortest_paths(&s, src, dst);
                let min = all.first().copied();
                let want = simple_paths(&s, src, dst).into_iter().filter(|p| Some(p.len()) == min).count();
                prop_assert_eq!(sp.len(), want);
            }
        }
    }
}

/// c-Through style: uplink 0 optical (circuits 0-1 and 2-3), uplink 1
/// electrical to every ToR.
fn hybrid4() -> Schedule {
    let mut s = Schedule::hybrid(4, 1, 1, 1);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(2, 0), ep(3, 0), 0).unwrap();
    s
}

#[test]
fn hybrid_schedule_routes_hot_pairs_over_the_circuit_and_the_rest_electrically() {
    let mut s = hybrid4();
    assert!(s.is_electrical(1) && !s.is_electrical(0));
    assert!(
        s.connect(ep(0, 1), ep(2, 1), 0).is_err(),
        "no circuits on electrical ports"
    );
    for alg in [Algorithm::Direct, Algorithm::ShortestPath] {
        let rs = route(alg, &s, &RoutingOptions::default()).unwrap();
        assert_eq!(rs.paths.len(), 12, "{alg:?}");
        for p in &rs.paths {
            check_path(&s, p, false).unwrap();
            assert_eq!(p.hops.len(), 1, "{alg:?} {p:?}");
            let hot = p.src / 2 == p.dst / 2;
            assert_eq!(p.hops[0].port, if hot { 0 } else { 1 }, "{alg:?} {p:?}");
            assert_eq!(tors(&s, p), vec![p.src, p.dst]);
        }
    }
    // ECMP / KSP: the circuit first, then the electrical port; never an
    // electrical hop to a ToR other than the destination.
    let ecmp = route(Algorithm::Ecmp, &s, &RoutingOptions::default()).unwrap();
    let ports = |rs: &lh_ctrl::routing::RouteSet, src, dst| -> Vec<Vec<u8>> {
        rs.paths
            .iter()
            .filter(|p| p.src == src && p.dst == dst)
            .map(|p| p.hops.iter().map(|h| h.port).collect())
            .collect()
    };
    assert_eq!(ports(&ecmp, 0, 1), vec![vec![0], vec![1]]);
    assert_eq!(ports(&ecmp, 0, 3), vec![vec![1]]);
    let ksp = route(
        Algorithm::Ksp,
        &s,
        &RoutingOptions {
            k: 3,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ports(&ksp, 0, 1), vec![vec![0], vec![1]]);
    // 0 -> 3: electrical, or the circuit to 1 then electrical, or
    // electrical is never a relay so 0 -e-> 2 -o-> 3 does not appear.
    assert_eq!(ports(&ksp, 0, 3), vec![vec![1], vec![0, 1]]);
    for p in &ksp.paths {
        check_path(&s, p, false).unwrap();
        assert_eq!(*tors(&s, p).last().unwrap(), p.dst);
        for (i, h) in p.hops.iter().enumerate() {
            if s.is_electrical(h.port) {
                assert_eq!(i + 1, p.hops.len(), "electrical hops end at dst: {p:?}");
            }
        }
    }
}

#[test]
fn hybrid_tables_walk_to_the_destination() {
    use lh_ctrl::config::{Lookup, Multipath};
    use lh_ctrl::tables::{entries, walk};
    let s = hybrid4();
    let rs = route(Algorithm::Direct, &s, &RoutingOptions::default()).unwrap();
    let t = entries(&s, &rs, Lookup::Hop, Multipath::None, 1).unwrap();
    for p in &rs.paths {
        let w = walk(&t, &s, p.src, p.dst, None, None, None).unwrap();
        assert_eq!(w.hops, p.hops);
    }
}
