//! Hotspot (c-Through) matching against brute force.

use lh_ctrl::ta::hotspot::{EXACT_MAX, exact, heuristic, max_weight_matching, symmetric, weight};
use proptest::prelude::*;

/// Best matching weight by trying every partner for the lowest free vertex.
fn brute(w: &[Vec<u64>], free: &mut Vec<usize>) -> u128 {
    let Some(i) = free.pop() else { return 0 };
    let mut best = brute(w, free); // i stays single
    for k in 0..free.len() {
        let j = free.remove(k);
        best = best.max(w[i][j] as u128 + brute(w, free));
        free.insert(k, j);
    }
    free.push(i);
    best
}

fn is_matching(n: usize, pairs: &[(usize, usize)]) -> bool {
    let mut used = vec![false; n];
    pairs.iter().all(|&(a, b)| {
        let ok = a != b && a < n && b < n && !used[a] && !used[b];
        used[a] = true;
        used[b] = true;
        ok
    })
}

fn tm(max_n: usize) -> impl Strategy<Value = Vec<Vec<u64>>> {
    (1usize..=max_n).prop_flat_map(|n| {
        proptest::collection::vec(
            proptest::collection::vec(prop_oneof![Just(0u64), 0u64..100], n),
            n,
        )
    })
}

proptest! {
    #[test]
    fn exact_equals_brute_force(t in tm(8)) {
        let n = t.len();
        let w = symmetric(&t);
        let m = exact(&w);
        prop_assert!(is_matching(n, &m));
        prop_assert_eq!(weight(&w, &m), brute(&w, &mut (0..n).collect()));
        let full = max_weight_matching(&w);
        prop_assert!(is_matching(n, &full));
        prop_assert_eq!(full.len(), n / 2, "completed to a perfect matching");
        prop_assert_eq!(weight(&w, &full), weight(&w, &m));
    }

    #[test]
    fn heuristic_is_valid_and_at_least_half(t in tm(12)) {
        let n = t.len();
        let w = symmetric(&t);
        let h = heuristic(&w);
        prop_assert!(is_matching(n, &h));
        prop_assert_eq!(h.len(), n / 2);
        let opt = weight(&w, &exact(&w));
        prop_assert!(2 * weight(&w, &h) >= opt, "{} vs optimum {}", weight(&w, &h), opt);
    }

    #[test]
    fn large_n_uses_heuristic_and_stays_perfect(t in (EXACT_MAX + 1..=24).prop_flat_map(|n| {
        proptest::collection::vec(proptest::collection::vec(0u64..1000, n), n)
    })) {
        let n = t.len();
        let w = symmetric(&t);
        let m = max_weight_matching(&w);
        prop_assert!(is_matching(n, &m));
        prop_assert_eq!(m.len(), n / 2);
    }
}

#[test]
fn picks_the_hotspots() {
    // 0<->2 and 1<->3 are hot; the symmetric sum counts both directions.
    let mut t = vec![vec![1u64; 4]; 4];
    t[0][2] = 50;
    t[3][1] = 40;
    let w = symmetric(&t);
    assert_eq!(max_weight_matching(&w), vec![(0, 2), (1, 3)]);
    // The same answer by the heuristic on a block-padded big instance.
    let n = 20;
    let mut big = vec![vec![1u64; n]; n];
    for i in (0..n).step_by(2) {
        big[i][(i + 7) % n] = 100 + i as u64;
    }
    let wb = symmetric(&big);
    let m = max_weight_matching(&wb);
    for i in (0..n).step_by(2) {
        let j = (i + 7) % n;
        assert!(
            m.contains(&(i.min(j), i.max(j))),
            "{i}-{j} missing in {m:?}"
        );
    }
}
