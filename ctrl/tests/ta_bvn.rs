//! Birkhoff–von Neumann decomposition properties.

use lh_ctrl::ta::bvn::{decompose, decompose_stuffed, reconstruct, stuff};
use proptest::prelude::*;

fn matrix() -> impl Strategy<Value = Vec<Vec<u64>>> {
    (1usize..=8).prop_flat_map(|n| {
        proptest::collection::vec(
            proptest::collection::vec(prop_oneof![Just(0u64), 0u64..1000], n),
            n,
        )
    })
}

fn line_sums(m: &[Vec<u64>]) -> Vec<u64> {
    let n = m.len();
    let mut v: Vec<u64> = m.iter().map(|r| r.iter().sum()).collect();
    v.extend((0..n).map(|j| m.iter().map(|r| r[j]).sum::<u64>()));
    v
}

proptest! {
    #[test]
    fn stuffing_and_reconstruction(m in matrix()) {
        let n = m.len();
        let s = stuff(&m);
        for i in 0..n {
            for j in 0..n {
                prop_assert!(s[i][j] >= m[i][j]);
            }
        }
        let sums = line_sums(&s);
        let target = *line_sums(&m).iter().max().unwrap();
        prop_assert!(sums.iter().all(|&x| x == target), "{:?}", sums);

        let terms = decompose(&m);
        prop_assert!(terms.len() <= n * n, "{} terms for n = {}", terms.len(), n);
        for t in &terms {
            prop_assert!(t.weight > 0);
            let mut seen = vec![false; n];
            for &j in &t.perm {
                prop_assert!(!seen[j], "not a permutation: {:?}", t.perm);
                seen[j] = true;
            }
            // Only entries of the stuffed matrix's support are used.
            for (i, &j) in t.perm.iter().enumerate() {
                prop_assert!(s[i][j] > 0);
            }
        }
        prop_assert_eq!(reconstruct(&terms, n), s);
    }
}

#[test]
fn doubly_stochastic_input_is_not_stuffed() {
    let m = vec![vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0]];
    assert_eq!(stuff(&m), m);
    let terms = decompose_stuffed(&m);
    assert_eq!(reconstruct(&terms, 3), m);
    // Two cyclic shifts with weights 2 and 1.
    let mut w: Vec<u64> = terms.iter().map(|t| t.weight).collect();
    w.sort_unstable();
    assert_eq!(w, vec![1, 2]);
}

#[test]
fn zero_matrix_has_no_terms() {
    assert!(decompose(&[vec![0, 0], vec![0, 0]]).is_empty());
}

#[test]
#[should_panic(expected = "equal row and column sums")]
fn unequal_sums_are_refused() {
    decompose_stuffed(&[vec![0, 1], vec![0, 0]]);
}
