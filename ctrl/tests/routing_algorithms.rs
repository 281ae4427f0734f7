//! The TO routing algorithms: the paper's example, path validity, per-hop
//! consistency, UCMP's Pareto sets and thresholds.

mod routing_util;

use lh_ctrl::config::Algorithm;
use lh_ctrl::routing::{
    self, Path, PathRef, RouteSet, RoutingError, RoutingOptions, UNLIMITED, check_path,
    earliest_path, route,
};
use lh_ctrl::schedule::Schedule;
use lh_ctrl::{SliceId, Slot, TorId};
use proptest::prelude::*;
use routing_util::*;
use std::collections::HashMap;

fn opts(same_slice: bool) -> RoutingOptions {
    RoutingOptions {
        same_slice_hops: same_slice,
        ..RoutingOptions::default()
    }
}

fn find(rs: &RouteSet, src: TorId, dst: TorId, ts: SliceId) -> Vec<PathRef<'_>> {
    rs.paths
        .iter()
        .filter(|p| p.src == src && p.dst == dst && p.arrival == Some(ts))
        .collect()
}

fn hop_list<'a>(p: impl Into<PathRef<'a>>) -> Vec<(TorId, Option<Slot>)> {
    p.into().hops.iter().map(|h| (h.tor, h.depart)).collect()
}

/// Every (src != dst, ts) has a path (per class) and every path is valid.
fn assert_complete_and_valid(s: &Schedule, rs: &RouteSet, same: bool) {
    let n = s.tors();
    let classes = rs.classes.as_ref().map_or(1, |c| c.thresholds.len());
    let mut seen: HashMap<(TorId, TorId, SliceId, Option<u8>), usize> = HashMap::new();
    for p in &rs.paths {
        check_path(s, p, same).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        *seen
            .entry((p.src, p.dst, p.arrival.unwrap(), p.class))
            .or_default() += 1;
    }
    for src in 0..n as TorId {
        for dst in (0..n as TorId).filter(|&d| d != src) {
            for ts in 0..s.slices() as SliceId {
                for c in 0..classes {
                    let class = rs.classes.as_ref().map(|_| c as u8);
                    assert!(
                        seen.contains_key(&(src, dst, ts, class)),
                        "missing {src}->{dst} ts {ts} class {class:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn fig2_algorithms() {
    let s = fig2();
    let direct = route(Algorithm::Direct, &s, &opts(false)).unwrap();
    let p = find(&direct, 0, 3, 0);
    assert_eq!(p.len(), 1);
    assert_eq!(hop_list(p[0]), vec![(0, Some(2))]);

    let via1 = vec![(0, Some(0)), (1, Some(1))];
    let hoho = route(Algorithm::Hoho, &s, &opts(false)).unwrap();
    assert_eq!(hop_list(find(&hoho, 0, 3, 0)[0]), via1);
    // Only one circuit leaves ToR 0 in slice 0, so VLB's draw is forced.
    let vlb = route(Algorithm::Vlb, &s, &opts(false)).unwrap();
    assert_eq!(hop_list(find(&vlb, 0, 3, 0)[0]), via1);
    // Direct circuit up in the arrival slice: VLB goes direct.
    assert_eq!(hop_list(find(&vlb, 0, 3, 2)[0]), vec![(0, Some(2))]);
    for rs in [&direct, &hoho, &vlb] {
        assert_complete_and_valid(&s, rs, false);
        assert_eq!(rs.paths.len(), 4 * 3 * 3);
    }
}

#[test]
fn opera_classes_are_low_latency_and_direct() {
    let s = opera_like(12, 3);
    let o = opts(false);
    let rs = route(Algorithm::Opera, &s, &o).unwrap();
    let th = rs.classes.clone().unwrap().thresholds;
    assert_eq!(th, vec![0, routing::opera::bulk_threshold(&s, &o)]);
    assert!(th[1] > 0);
    // Class 0 is checked Opera style, class 1 is a single hop either way.
    assert_complete_and_valid(&s, &rs, true);
    for p in &rs.paths {
        let ts = p.arrival.unwrap();
        match p.class {
            Some(0) => {
                // Never earlier than the earliest path over every circuit.
                let e = earliest_path(&s, p.src, p.dst, ts, UNLIMITED, &opts(true)).unwrap();
                assert!(arrival_hops(p) >= arrival_hops(&e), "{p:?} vs {e:?}");
                // Every hop's circuit stays up, to the same ToR, into the
                // next slice (Opera leaves out the rotor that reconfigures).
                for h in p.hops.iter() {
                    let d = h.depart.unwrap() as usize % s.slices();
                    let at = |t: usize| {
                        s.peer(
                            (t % s.slices()) as SliceId,
                            lh_ctrl::schedule::Endpoint::new(h.tor, h.port),
                        )
                    };
                    assert!(at(d).is_some() && at(d) == at(d + 1), "{p:?}: hop {h:?}");
                }
            }
            Some(1) => {
                let e = earliest_path(&s, p.src, p.dst, ts, 1, &o).unwrap();
                assert_eq!(
                    p,
                    &Path {
                        class: Some(1),
                        ..e
                    }
                );
            }
            c => panic!("unexpected class {c:?}"),
        }
    }
    // Each class decomposes into per-hop entries on its own.
    for (class, ignore_ingress) in [(0, true), (1, false)] {
        let part = RouteSet {
            paths: rs.paths.iter().filter(|p| p.class == Some(class)).collect(),
            classes: None,
        };
        assert_eq!(
            per_hop_conflict(&s, &part, ignore_ingress),
            None,
            "class {class}"
        );
    }
    // Opera's expander slices reach most pairs inside the arrival slot.
    let same_slot = rs
        .paths
        .iter()
        .filter(|p| p.class == Some(0) && p.latency_slots() == Some(0))
        .count();
    assert!(same_slot * 2 > rs.paths.len() / 2, "{same_slot}");
}

#[test]
fn opera_multipath_lists_the_slices_equal_paths_first_hop_apart() {
    // With multipath and k = 5 (the Opera authors' 5 paths), class 0 lists
    // after its path the other first hops from which the path arrives as
    // early with as few hops: distinct first uplinks, each loop-free, on
    // circuits that last into the next slice; class 1 stays one path.
    let s = opera_like(24, 6);
    let o = RoutingOptions {
        multipath: true,
        k: 5,
        ..opts(false)
    };
    let rs = route(Algorithm::Opera, &s, &o).unwrap();
    let single = route(Algorithm::Opera, &s, &opts(false)).unwrap();
    assert_complete_and_valid(&s, &rs, true);
    let mut more = 0;
    for src in 0..24 {
        for dst in (0..24).filter(|&d| d != src) {
            for ts in 0..s.slices() as SliceId {
                let all = find(&rs, src, dst, ts);
                let ll: Vec<_> = all.iter().filter(|p| p.class == Some(0)).collect();
                assert_eq!(all.iter().filter(|p| p.class == Some(1)).count(), 1);
                let first = find(&single, src, dst, ts)
                    .into_iter()
                    .find(|p| p.class == Some(0))
                    .unwrap();
                assert_eq!(ll[0].to_path(), first.to_path(), "the best path first");
                assert!(ll.len() <= 5);
                more += ll.len() - 1;
                let mut ports: Vec<_> = ll.iter().map(|p| p.hops[0].port).collect();
                ports.dedup();
                assert_eq!(ports.len(), ll.len(), "distinct first hops: {ll:?}");
                for p in &ll {
                    assert_eq!(arrival_hops(&p.to_path()), arrival_hops(&first.to_path()));
                    let tors = lh_ctrl::routing::tors_of(**p, &s);
                    let mut u = tors.clone();
                    u.sort();
                    u.dedup();
                    assert_eq!(u.len(), tors.len(), "no ToR twice: {tors:?}");
                }
            }
        }
    }
    assert!(more > 0, "some pair has an equal second path");
}

#[test]
fn vlb_multipath_emits_distinct_intermediates() {
    let s = opera_like(12, 3);
    let o = RoutingOptions {
        multipath: true,
        k: 3,
        ..opts(false)
    };
    let rs = route(Algorithm::Vlb, &s, &o).unwrap();
    assert_complete_and_valid(&s, &rs, false);
    let mut groups: HashMap<(TorId, TorId, SliceId), Vec<PathRef<'_>>> = HashMap::new();
    for p in &rs.paths {
        groups
            .entry((p.src, p.dst, p.arrival.unwrap()))
            .or_default()
            .push(p);
    }
    let mut multi = 0;
    for (k, g) in groups {
        assert!(g.len() <= 3, "{k:?}");
        if g.len() > 1 {
            multi += 1;
            let mids: Vec<TorId> = g.iter().map(|p| p.hops[1].tor).collect();
            let mut d = mids.clone();
            d.sort();
            d.dedup();
            assert_eq!(d.len(), mids.len(), "{k:?}");
            assert!(
                g.iter()
                    .all(|p| p.hops.len() == 2 && p.hops[0].depart == Some(k.2 as Slot))
            );
        }
    }
    assert!(multi > 0);
    // The single-path draw is the first alternative, and the seed matters.
    let single = route(Algorithm::Vlb, &s, &opts(false)).unwrap();
    assert_eq!(single.paths.len(), 12 * 11 * 12);
    let other = route(
        Algorithm::Vlb,
        &s,
        &RoutingOptions {
            seed: 99,
            ..opts(false)
        },
    )
    .unwrap();
    assert_ne!(single, other);
}

/// The relays VLB may use for a packet entering `src` in slice `ts`
/// (module docs of routing/vlb.rs): distinct neighbours of `src` in `ts`
/// other than `dst` (lowest uplink each) whose direct circuit to `dst` is up
/// in a slot of `[ts + 1, ts + S - 1]` (RotorNet). Maps each to
/// `(uplink from src, earliest relay slot)`.
fn vlb_relays(s: &Schedule, src: TorId, dst: TorId, ts: SliceId) -> HashMap<TorId, (u16, Slot)> {
    let sl = s.slices() as Slot;
    let mut out = HashMap::new();
    for (p, mid) in s.links(src, ts) {
        if mid == dst || out.contains_key(&mid) {
            continue;
        }
        let relay = (ts as Slot + 1..ts as Slot + sl).find(|&t| {
            s.links(mid, (t % sl) as SliceId)
                .iter()
                .any(|&(_, y)| y == dst)
        });
        if let Some(t) = relay {
            out.insert(mid, (p as u16, t));
        }
    }
    out
}

#[test]
fn vlb_spreads_uniformly_over_every_valid_intermediate() {
    // routing/vlb.rs: with no direct circuit in the arrival slice the
    // packet leaves at once to an intermediate drawn uniformly (seeded RNG)
    // among the neighbours that can relay; the intermediate then takes its
    // own earliest direct circuit. Over 90 seeds every valid relay of every
    // such (src, dst, ts) is drawn, each about equally often, never an
    // invalid one; with `k` = #relays, multipath emits all of them.
    let s = opera_like(12, 3);
    let seeds = 90u64;
    let runs: Vec<RouteSet> = (0..seeds)
        .map(|seed| {
            route(
                Algorithm::Vlb,
                &s,
                &RoutingOptions {
                    seed,
                    ..opts(false)
                },
            )
            .unwrap()
        })
        .collect();
    let all = route(
        Algorithm::Vlb,
        &s,
        &RoutingOptions {
            multipath: true,
            k: 3,
            ..opts(false)
        },
    )
    .unwrap();
    let mut spread = 0;
    for (src, dst, ts) in [
        (0, 5, 0),
        (1, 7, 2),
        (3, 10, 5),
        (4, 9, 7),
        (6, 11, 11),
        (2, 8, 4),
    ] {
        let relays = vlb_relays(&s, src, dst, ts);
        let mut count: HashMap<TorId, u64> = HashMap::new();
        for rs in &runs {
            let p = find(rs, src, dst, ts);
            assert_eq!(p.len(), 1);
            if relays.is_empty() {
                assert_eq!(p[0].hops.len(), 1, "no relay: wait for the direct circuit");
                continue;
            }
            let (h0, h1) = (p[0].hops[0], p[0].hops[1]);
            let mid = h1.tor;
            let &(p1, t2) = relays
                .get(&mid)
                .unwrap_or_else(|| panic!("{mid} cannot relay"));
            assert_eq!((h0.port as u16, h0.depart), (p1, Some(ts as Slot)));
            assert_eq!(h1.depart, Some(t2));
            *count.entry(mid).or_default() += 1;
        }
        let mut multi: Vec<TorId> = find(&all, src, dst, ts)
            .iter()
            .map(|p| p.hops[p.hops.len() - 1].tor)
            .collect();
        if relays.is_empty() {
            continue;
        }
        spread += 1;
        assert_eq!(
            count.len(),
            relays.len(),
            "{src}->{dst}@{ts}: {count:?} of {relays:?}"
        );
        let fair = seeds / relays.len() as u64;
        for (&mid, &c) in &count {
            assert!(
                c * 2 >= fair && c <= fair * 3 / 2 + 1,
                "{src}->{dst}@{ts}: {mid} drawn {c} of {seeds}"
            );
        }
        multi.sort();
        let mut want: Vec<TorId> = relays.keys().copied().collect();
        want.sort();
        assert_eq!(
            multi, want,
            "{src}->{dst}@{ts}: multipath emits every relay"
        );
    }
    assert!(spread >= 4, "the cases exercise the draw");
}

#[test]
fn to_algorithms_refuse_electrical_and_static_refuse_rotors() {
    let e = Schedule::electrical(4, 2);
    assert!(matches!(
        route(Algorithm::Hoho, &e, &opts(false)),
        Err(RoutingError::Unsupported(_))
    ));
    assert!(matches!(
        route(Algorithm::Ecmp, &fig2(), &opts(false)),
        Err(RoutingError::Unsupported(_))
    ));
    // Direct on a static fabric is the wildcard variant.
    let d = route(Algorithm::Direct, &e, &opts(false)).unwrap();
    assert_eq!(d.paths.len(), 12);
    assert!(
        d.paths
            .iter()
            .all(|p| p.arrival.is_none() && p.hops.len() == 1 && p.hops[0].depart.is_none())
    );
}

#[test]
fn missing_direct_circuit_is_an_error() {
    let mut s = Schedule::new(3, 1, 2);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(1, 0), ep(2, 0), 1).unwrap();
    assert!(matches!(
        route(Algorithm::Direct, &s, &opts(false)),
        Err(RoutingError::NoPath { .. })
    ));
    // HOHO relays through ToR 1 instead.
    let h = route(Algorithm::Hoho, &s, &opts(false)).unwrap();
    assert_complete_and_valid(&s, &h, false);
    // VLB relays only over a circuit up in the arrival slice: 0 -> 2 in
    // slice 0 could go via 1, but 2 -> 0 in slice 0 cannot leave at all
    // (the first failure in destination, source, slice order).
    assert_eq!(
        route(Algorithm::Vlb, &s, &opts(false)),
        Err(RoutingError::NoPath {
            src: 2,
            dst: 0,
            ts: 0,
            max_hop: 2
        })
    );
}

#[test]
fn ucmp_on_rotornet_picks_pareto_points() {
    let s = circle(8, 1, 7);
    let o = RoutingOptions {
        bytes_per_slice: 1000,
        ..opts(false)
    };
    let rs = route(Algorithm::Ucmp, &s, &o).unwrap();
    check_ucmp(&s, &rs, &o);
    assert!(rs.classes.as_ref().unwrap().thresholds.len() >= 2);
}

fn check_ucmp(s: &Schedule, rs: &RouteSet, o: &RoutingOptions) {
    let same = o.same_slice_hops;
    let th = &rs.classes.as_ref().unwrap().thresholds;
    assert_eq!(th[0], 0);
    assert!(th.windows(2).all(|w| w[0] < w[1]), "{th:?}");
    assert_complete_and_valid(s, rs, same);
    let cap = o.max_hop.unwrap_or(routing::ucmp::DEFAULT_MAX_HOP);
    let mut groups: HashMap<(TorId, TorId, SliceId), Vec<PathRef<'_>>> = HashMap::new();
    for p in &rs.paths {
        groups
            .entry((p.src, p.dst, p.arrival.unwrap()))
            .or_default()
            .push(p);
    }
    for ((src, dst, ts), g) in groups {
        assert_eq!(g.len(), th.len());
        let classes: Vec<u8> = g.iter().map(|p| p.class.unwrap()).collect();
        assert_eq!(classes, (0..th.len() as u8).collect::<Vec<_>>());
        // Pareto set from independent searches, one per hop budget.
        let mut pts: Vec<(u32, Slot)> = Vec::new();
        for h in 1..=cap {
            if let Some((a, hops)) = brute_or_bfs(s, src, dst, ts, h as usize, same)
                && pts.last().is_none_or(|l| a - (ts as Slot) < l.1)
            {
                pts.push((hops, a - ts as Slot));
            }
        }
        assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 > w[1].1));
        // Class 0: the lowest latency; last class: the fewest hops.
        let lat: Vec<Slot> = g.iter().map(|p| p.latency_slots().unwrap()).collect();
        let hops: Vec<usize> = g.iter().map(|p| p.hops.len()).collect();
        assert_eq!(
            (hops[0] as u32, lat[0]),
            *pts.last().unwrap(),
            "{src}->{dst} ts {ts}"
        );
        assert_eq!((*hops.last().unwrap() as u32, *lat.last().unwrap()), pts[0]);
        // Bigger classes never take more hops or less latency.
        assert!(hops.windows(2).all(|w| w[0] >= w[1]) && lat.windows(2).all(|w| w[0] <= w[1]));
        // Every class path is a Pareto point.
        for (h, l) in hops.iter().zip(&lat) {
            assert!(pts.contains(&(*h as u32, *l)));
        }
    }
}

fn brute_or_bfs(
    s: &Schedule,
    src: TorId,
    dst: TorId,
    ts: SliceId,
    h: usize,
    same: bool,
) -> Option<(Slot, u32)> {
    bfs_oracle(s, src, dst, ts, Some(h), same)
}

fn sched() -> impl Strategy<Value = (usize, usize, usize, u64)> {
    (3usize..=6, 1usize..=2, 2usize..=5, any::<u64>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Per-hop consistency: HOHO, direct and VLB paths that reach a ToR in
    /// the same slice (from hosts, or from the fabric) agree on the step.
    #[test]
    fn per_hop_suffixes_agree((n, u, sl, seed) in sched(), same in any::<bool>()) {
        let s = random_schedule(n, u, sl, seed, 100);
        let o = opts(same);
        for alg in [Algorithm::Hoho, Algorithm::Direct, Algorithm::Vlb] {
            match route(alg, &s, &o) {
                Ok(rs) => {
                    assert_complete_and_valid(&s, &rs, same);
                    prop_assert_eq!(per_hop_conflict(&s, &rs, false), None, "{:?}", alg);
                    if same && alg == Algorithm::Hoho {
                        // Opera style: host and fabric arrivals share a state.
                        prop_assert_eq!(per_hop_conflict(&s, &rs, true), None);
                    }
                }
                Err(RoutingError::NoPath { src, dst, ts, .. }) => {
                    // Only when there really is none.
                    let budget = if alg == Algorithm::Hoho { None } else { Some(1) };
                    prop_assert_eq!(bfs_oracle(&s, src, dst, ts, budget, same), None);
                }
                Err(e) => prop_assert!(false, "{}", e),
            }
        }
    }

    /// HOHO on circle-method schedules over several cycles: paths are
    /// earliest-arrival and consistent across arrival slices.
    #[test]
    fn hoho_on_round_robin(half in 2usize..=5, u in 1usize..=3, same in any::<bool>()) {
        let n = 2 * half;
        let s = circle(n, u, n - 1);
        let rs = route(Algorithm::Hoho, &s, &opts(same)).unwrap();
        assert_complete_and_valid(&s, &rs, same);
        prop_assert_eq!(per_hop_conflict(&s, &rs, false), None);
        for p in rs.paths.iter().step_by(7) {
            let want = bfs_oracle(&s, p.src, p.dst, p.arrival.unwrap(), None, same);
            prop_assert_eq!(Some(arrival_hops(p)), want);
        }
    }

    #[test]
    fn ucmp_pareto_and_thresholds((n, u, sl, seed) in sched(), same in any::<bool>(), b in 1u64..5000) {
        let s = random_schedule(n, u, sl, seed, 100);
        let o = RoutingOptions { bytes_per_slice: b, max_hop: Some(4), ..opts(same) };
        match route(Algorithm::Ucmp, &s, &o) {
            Ok(rs) => check_ucmp(&s, &rs, &o),
            Err(RoutingError::NoPath { src, dst, ts, .. }) => {
                prop_assert_eq!(bfs_oracle(&s, src, dst, ts, Some(4), same), None);
            }
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}

#[test]
fn ucmp_thresholds_follow_the_formula() {
    use routing::ucmp::{Point, point_for, thresholds};
    // Points lowest latency first: (4 hops, 0), (2 hops, 3), (1 hop, 20).
    let pts = [
        Point {
            hops: 4,
            latency: 0,
        },
        Point {
            hops: 2,
            latency: 3,
        },
        Point {
            hops: 1,
            latency: 20,
        },
    ];
    // B (l_few - l_many) / (h_many - h_few) / 0.5: 100*3/2*2 = 300, 100*17/1*2 = 3400.
    let th = thresholds(&pts, 100);
    assert_eq!(th, vec![300, 3400]);
    assert_eq!(point_for(&th, 0), 0);
    assert_eq!(point_for(&th, 299), 0);
    assert_eq!(point_for(&th, 300), 1);
    assert_eq!(point_for(&th, 1 << 40), 2);
    // Non-monotone raw thresholds are raised to a running maximum.
    let pts = [
        Point {
            hops: 3,
            latency: 0,
        },
        Point {
            hops: 2,
            latency: 10,
        },
        Point {
            hops: 1,
            latency: 11,
        },
    ];
    assert_eq!(thresholds(&pts, 1), vec![20, 20]);
}

#[test]
fn options_from_config() {
    let r: lh_ctrl::config::Routing =
        serde_json::from_str(r#"{"algorithm": "opera", "multipath": "flow"}"#).unwrap();
    let o = RoutingOptions::from_config(&r, 1000);
    assert!(o.same_slice_hops && o.multipath);
    assert_eq!(
        (o.k, o.seed, o.bytes_per_slice, o.max_hop),
        (4, 1, 1000, None)
    );
    let r: lh_ctrl::config::Routing =
        serde_json::from_str(r#"{"algorithm": "hoho", "max_hop": 3, "k": 2, "seed": 9}"#).unwrap();
    let o = RoutingOptions::from_config(&r, 0);
    assert!(!o.same_slice_hops && !o.multipath);
    assert_eq!(
        (o.k, o.seed, o.bytes_per_slice, o.max_hop),
        (2, 9, 1, Some(3))
    );
}

#[test]
fn earliest_path_on_an_electrical_fabric_is_one_hop() {
    let s = Schedule::electrical(4, 2);
    let p = earliest_path(&s, 0, 3, 0, UNLIMITED, &opts(false)).unwrap();
    assert_eq!(hop_list(&p), vec![(0, Some(0))]);
    assert_eq!(p.hops[0].port, 0);
    assert_eq!(routing::neighbors(&s, 1, 0), vec![0, 2, 3]);
}
