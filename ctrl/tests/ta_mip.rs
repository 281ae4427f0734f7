//! Jupiter-style topology engineering heuristic.

use lh_ctrl::config::Scheduler;
use lh_ctrl::schedule::Endpoint;
use lh_ctrl::ta::mip::{components, topology};
use lh_ctrl::ta::{demand, schedule};
use lh_ctrl::{PortId, TorId};
use proptest::prelude::*;

fn case() -> impl Strategy<Value = (Vec<Vec<u64>>, usize)> {
    (2usize..=10, 1usize..=4).prop_flat_map(|(n, u)| {
        (
            proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0u64), 0u64..1000], n),
                n,
            ),
            Just(u),
        )
    })
}

proptest! {
    #[test]
    fn one_matching_per_uplink_valid_and_connected((t, u) in case()) {
        let n = t.len();
        // What `schedule` feeds the heuristic (no diagonal, uniform if 0).
        let ms = topology(&demand(&t), u);
        prop_assert_eq!(ms.len(), u);
        for m in &ms {
            let mut used = vec![false; n];
            for &(a, b) in m {
                prop_assert!(a < b && b < n);
                prop_assert!(!used[a] && !used[b], "ToR used twice on one uplink: {:?}", m);
                used[a] = true;
                used[b] = true;
            }
            prop_assert_eq!(m.len(), n / 2);
        }
        if u >= 2 && n % 2 == 0 {
            prop_assert_eq!(components(n, &ms).len(), 1, "disconnected: {:?}", ms);
        }
        // And it is a valid schedule: one slice, matching p on uplink p.
        let s = schedule(Scheduler::Mip, &t, u).unwrap();
        prop_assert_eq!(s.slices(), 1);
        for (p, m) in ms.iter().enumerate() {
            for &(a, b) in m {
                let peer = s.peer(0, Endpoint::new(a as TorId, p as PortId)).map(|e| e.tor);
                prop_assert_eq!(peer, Some(b as TorId));
            }
        }
    }
}

#[test]
fn heavy_pairs_get_circuits_in_proportion() {
    // 8 ToRs, 3 uplinks: 0<->5 carries most traffic, 2<->7 a fair share,
    // the rest a little.
    let n = 8;
    let mut t = vec![vec![10u64; n]; n];
    for (i, row) in t.iter_mut().enumerate() {
        row[i] = 0;
    }
    t[0][5] = 5000;
    t[5][0] = 5000;
    t[2][7] = 1500;
    let ms = topology(&t, 3);
    let count = |a: usize, b: usize| ms.iter().filter(|m| m.contains(&(a, b))).count();
    assert!(count(0, 5) >= 2, "{ms:?}");
    assert!(count(2, 7) >= 1, "{ms:?}");
    assert_eq!(components(n, &ms).len(), 1);
}

#[test]
fn connectivity_is_repaired() {
    // Two hot pairs dominate: without repair every uplink would repeat
    // {0-1, 2-3}, leaving two islands.
    let mut t = vec![vec![0u64; 4]; 4];
    t[0][1] = 1_000_000;
    t[2][3] = 1_000_000;
    let ms = topology(&t, 2);
    assert!(ms[0].contains(&(0, 1)) && ms[0].contains(&(2, 3)));
    assert_eq!(components(4, &ms).len(), 1, "{ms:?}");
}
