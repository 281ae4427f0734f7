//! earliest_path: the paper's worked example and agreement with brute force.

mod routing_util;

use lh_ctrl::routing::{RoutingOptions, UNLIMITED, check_path, earliest_path};
use lh_ctrl::{SliceId, TorId};
use proptest::prelude::*;
use routing_util::*;

fn opts(same_slice: bool) -> RoutingOptions {
    RoutingOptions {
        same_slice_hops: same_slice,
        ..RoutingOptions::default()
    }
}

#[test]
fn fig2_direct_waits_for_slice_2() {
    let s = fig2();
    let p = earliest_path(&s, 0, 3, 0, 1, &opts(false)).unwrap();
    assert_eq!(p.hops.len(), 1);
    assert_eq!(
        (p.hops[0].tor, p.hops[0].port, p.hops[0].depart),
        (0, 0, Some(2))
    );
    assert_eq!(p.latency_slots(), Some(2));
}

#[test]
fn fig2_earliest_goes_via_tor1() {
    let s = fig2();
    for same in [false, true] {
        let p = earliest_path(&s, 0, 3, 0, UNLIMITED, &opts(same)).unwrap();
        let hops: Vec<_> = p.hops.iter().map(|h| (h.tor, h.depart)).collect();
        assert_eq!(hops, vec![(0, Some(0)), (1, Some(1))], "same_slice={same}");
        check_path(&s, &p, same).unwrap();
        // A two-hop budget finds the same; arriving in slice 1 the direct
        // circuit (slice 2) is the best one-or-two-hop answer... unless a
        // two-hop path arrives earlier: 0-2 in slot 1, 2-3 in slot 3.
        assert_eq!(earliest_path(&s, 0, 3, 0, 2, &opts(same)), Some(p));
    }
    let p = earliest_path(&s, 0, 3, 1, UNLIMITED, &opts(false)).unwrap();
    assert_eq!(arrival_hops(&p), (2, 1));
}

#[test]
fn opera_style_hops_inside_one_slot() {
    // Slice 0: 0-1 on uplink 0 and 1-2 on uplink 1; slice 1: 0-2.
    let mut s = lh_ctrl::schedule::Schedule::new(3, 2, 2);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(1, 1), ep(2, 1), 0).unwrap();
    s.connect(ep(0, 0), ep(2, 0), 1).unwrap();
    let opera = earliest_path(&s, 0, 2, 0, UNLIMITED, &opts(true)).unwrap();
    assert_eq!(arrival_hops(&opera), (0, 2));
    let rotor = earliest_path(&s, 0, 2, 0, UNLIMITED, &opts(false)).unwrap();
    // RotorNet: via ToR 1 it would have to wait a full cycle (not allowed),
    // so the direct circuit in slot 1 wins.
    assert_eq!(arrival_hops(&rotor), (1, 1));
    check_path(&s, &opera, true).unwrap();
    assert!(check_path(&s, &opera, false).is_err());
}

#[test]
fn rotornet_wait_is_below_one_cycle() {
    // 0-1 and 1-2 only ever in slice 0 (different uplinks): in RotorNet
    // style 1 would have to hold the packet exactly S slots, so no path.
    let mut s = lh_ctrl::schedule::Schedule::new(3, 2, 3);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(1, 1), ep(2, 1), 0).unwrap();
    assert_eq!(earliest_path(&s, 0, 2, 0, UNLIMITED, &opts(false)), None);
    assert_eq!(bfs_oracle(&s, 0, 2, 0, None, false), None);
    assert!(earliest_path(&s, 0, 2, 0, UNLIMITED, &opts(true)).is_some());
}

/// Chain 0-1-2-3-4 on uplink 0; link `k` (ToRs `k`, `k + 1`) is up only in
/// slice `2k mod 3`, so every transit ToR holds the packet the longest a
/// RotorNet wait allows (2 slots of S = 3) and the only path arrives more
/// than two cycles after the packet entered.
fn slow_chain() -> lh_ctrl::schedule::Schedule {
    let mut s = lh_ctrl::schedule::Schedule::new(5, 1, 3);
    for k in 0..4u16 {
        s.connect(ep(k, 0), ep(k + 1, 0), (2 * k % 3) as SliceId)
            .unwrap();
    }
    s
}

#[test]
fn earliest_arrival_beyond_two_cycles_is_found() {
    // Module docs of routing/earliest.rs: the horizon "starts at 2S and
    // doubles until every reachable answer fits", and waits are `< S`
    // (RotorNet transit leaves in `[a + 1, a + S - 1]`). Entering in slice
    // 0 the path leaves ToRs 0..3 in slots 0, 2, 4, 6 (arrival 6 = 2S);
    // entering in slice 1 or 2, ToR 0 waits for slot 3 and it arrives in
    // slot 9 = 3S, past a first doubling too.
    let s = slow_chain();
    for same in [false, true] {
        for (ts, departs) in [(0, [0, 2, 4, 6]), (1, [3, 5, 7, 9]), (2, [3, 5, 7, 9])] {
            for budget in [UNLIMITED, 4] {
                let p = earliest_path(&s, 0, 4, ts, budget, &opts(same)).unwrap();
                let got: Vec<_> = p.hops.iter().map(|h| (h.tor, h.depart)).collect();
                let want: Vec<_> = (0..4).map(|k| (k as TorId, Some(departs[k]))).collect();
                assert_eq!(got, want, "ts={ts} same={same} budget={budget}");
                check_path(&s, &p, same).unwrap();
                assert_eq!(Some(arrival_hops(&p)), bfs_oracle(&s, 0, 4, ts, None, same));
            }
            // Three hops cannot reach ToR 4 at any horizon.
            assert_eq!(earliest_path(&s, 0, 4, ts, 3, &opts(same)), None);
        }
    }
}

#[test]
fn equal_arrivals_prefer_leaving_earlier() {
    // Module docs of routing/earliest.rs: paths are ranked by earliest
    // arrival, then fewest hops, then earliest departure from each ToR.
    // 0-1 (slot 0) then 1-3 (slot 2), or 0-2 (slot 1) then 2-3 (slot 2):
    // both arrive in slot 2 with 2 hops, so ToR 0 leaves at once via 1.
    let mut s = lh_ctrl::schedule::Schedule::new(4, 2, 3);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(0, 0), ep(2, 0), 1).unwrap();
    s.connect(ep(1, 0), ep(3, 0), 2).unwrap();
    s.connect(ep(2, 0), ep(3, 1), 2).unwrap();
    for same in [false, true] {
        for budget in [UNLIMITED, 2] {
            let p = earliest_path(&s, 0, 3, 0, budget, &opts(same)).unwrap();
            let got: Vec<_> = p.hops.iter().map(|h| (h.tor, h.depart)).collect();
            assert_eq!(got, vec![(0, Some(0)), (1, Some(2))], "same={same}");
            assert_eq!(Some(arrival_hops(&p)), bfs_oracle(&s, 0, 3, 0, None, same));
        }
    }
}

fn sched() -> impl Strategy<Value = (usize, usize, usize, u64, u64)> {
    (
        3usize..=6,
        1usize..=2,
        2usize..=5,
        any::<u64>(),
        40u64..=100,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn matches_brute_force_with_budget((n, u, sl, seed, keep) in sched(), max_hop in 1u8..=3, same in any::<bool>()) {
        let s = random_schedule(n, u, sl, seed, keep);
        for src in 0..n as TorId {
            for dst in (0..n as TorId).filter(|&d| d != src) {
                for ts in 0..sl as SliceId {
                    let got = earliest_path(&s, src, dst, ts, max_hop, &opts(same));
                    let want = brute_walks(&s, src, dst, ts, max_hop as usize, same);
                    prop_assert_eq!(got.as_ref().map(arrival_hops), want, "{} -> {} ts {}", src, dst, ts);
                    if let Some(p) = got {
                        prop_assert!(p.hops.len() <= max_hop as usize);
                        prop_assert_eq!(p.arrival, Some(ts));
                        if let Err(e) = check_path(&s, &p, same) {
                            prop_assert!(false, "invalid path {:?}: {}", p, e);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn matches_state_search_unlimited((n, u, sl, seed, keep) in sched(), same in any::<bool>()) {
        let s = random_schedule(n, u, sl, seed, keep);
        for src in 0..n as TorId {
            for dst in (0..n as TorId).filter(|&d| d != src) {
                for ts in 0..sl as SliceId {
                    let got = earliest_path(&s, src, dst, ts, UNLIMITED, &opts(same));
                    let want = bfs_oracle(&s, src, dst, ts, None, same);
                    prop_assert_eq!(got.as_ref().map(arrival_hops), want, "{} -> {} ts {}", src, dst, ts);
                    if let Some(p) = got
                        && let Err(e) = check_path(&s, &p, same)
                    {
                        prop_assert!(false, "invalid path {:?}: {}", p, e);
                    }
                }
            }
        }
    }

    #[test]
    fn both_oracles_agree_on_budgets((n, u, sl, seed, keep) in sched(), max_hop in 1usize..=3, same in any::<bool>()) {
        // Guards the oracles themselves: two unrelated searches.
        let s = random_schedule(n, u, sl, seed, keep);
        for ts in 0..sl as SliceId {
            prop_assert_eq!(
                brute_walks(&s, 0, (n - 1) as TorId, ts, max_hop, same),
                bfs_oracle(&s, 0, (n - 1) as TorId, ts, Some(max_hop), same)
            );
        }
    }
}
