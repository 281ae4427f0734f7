//! Hotspot scheduling (c-Through): one circuit per ToR, chosen as a
//! maximum-weight matching on the symmetric demand `t[i][j] + t[j][i]`
//! (a circuit is bidirectional, so both directions count).
//!
//! The pairing is a matching in a general (non-bipartite) graph. For
//! `N <= EXACT_MAX` it is solved exactly by dynamic programming over
//! subsets (`O(2^N * N)`); above that by a greedy matching (heaviest pair
//! first, a 1/2-approximation) improved by 2-opt swaps of two pairs until no
//! swap helps. Unmatched ToRs are then paired arbitrarily (zero-weight pairs
//! cost nothing), so the result is perfect when `N` is even.

/// Largest `N` solved exactly.
pub const EXACT_MAX: usize = 16;

/// `t[i][j] + t[j][i]` with a zero diagonal.
pub fn symmetric(t: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let n = t.len();
    let mut w = vec![vec![0u64; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j {
                w[i][j] = t[i][j].saturating_add(t[j][i]);
            }
        }
    }
    w
}

/// Total weight of `pairs` under `w`.
pub fn weight(w: &[Vec<u64>], pairs: &[(usize, usize)]) -> u128 {
    pairs.iter().map(|&(a, b)| w[a][b] as u128).sum()
}

/// A maximum-weight matching on the symmetric weights `w` (exact up to
/// [`EXACT_MAX`] ToRs, heuristic above), completed to a perfect matching
/// (one ToR left over when `N` is odd). Pairs are `(a, b)` with `a < b`,
/// sorted.
pub fn max_weight_matching(w: &[Vec<u64>]) -> Vec<(usize, usize)> {
    let mut pairs = if w.len() <= EXACT_MAX {
        exact(w)
    } else {
        heuristic(w)
    };
    complete(w.len(), &mut pairs);
    pairs
}

/// Pairs up ToRs not yet in `pairs`, lowest ids first.
fn complete(n: usize, pairs: &mut Vec<(usize, usize)>) {
    let mut used = vec![false; n];
    for &(a, b) in pairs.iter() {
        used[a] = true;
        used[b] = true;
    }
    let free: Vec<usize> = (0..n).filter(|&i| !used[i]).collect();
    for c in free.chunks_exact(2) {
        pairs.push((c[0], c[1]));
    }
    for p in pairs.iter_mut() {
        *p = (p.0.min(p.1), p.0.max(p.1));
    }
    pairs.sort_unstable();
}

/// Exact maximum-weight matching by DP over the set of still-free ToRs:
/// the lowest free ToR either stays single or pairs with another free one.
pub fn exact(w: &[Vec<u64>]) -> Vec<(usize, usize)> {
    let n = w.len();
    assert!(n <= 24, "exact matching is exponential in N");
    let full = (1usize << n) - 1;
    // best[mask]: best weight matching inside `mask`.
    let mut best = vec![0u128; 1 << n];
    for mask in 1..=full {
        let i = mask.trailing_zeros() as usize;
        let rest = mask & !(1 << i);
        let mut b = best[rest];
        let mut r = rest;
        while r != 0 {
            let j = r.trailing_zeros() as usize;
            r &= r - 1;
            let v = best[rest & !(1 << j)] + w[i][j] as u128;
            if v > b {
                b = v;
            }
        }
        best[mask] = b;
    }
    // Walk the choices back.
    let mut pairs = Vec::new();
    let mut mask = full;
    while mask != 0 {
        let i = mask.trailing_zeros() as usize;
        let rest = mask & !(1 << i);
        if best[mask] == best[rest] {
            mask = rest;
            continue;
        }
        let mut r = rest;
        loop {
            let j = r.trailing_zeros() as usize;
            r &= r - 1;
            if best[rest & !(1 << j)] + w[i][j] as u128 == best[mask] {
                pairs.push((i, j));
                mask = rest & !(1 << j);
                break;
            }
        }
    }
    pairs
}

/// Greedy (heaviest pair first) then 2-opt: for two pairs (a,b), (c,d)
/// try (a,c),(b,d) and (a,d),(b,c); keep any strict improvement, repeat
/// until none (each round strictly increases the weight, so it ends).
pub fn heuristic(w: &[Vec<u64>]) -> Vec<(usize, usize)> {
    let n = w.len();
    let mut edges: Vec<(u64, usize, usize)> = Vec::with_capacity(n * n / 2);
    for (i, row) in w.iter().enumerate() {
        for (j, &x) in row.iter().enumerate().skip(i + 1) {
            edges.push((x, i, j));
        }
    }
    edges.sort_unstable_by(|a, b| b.0.cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut used = vec![false; n];
    let mut pairs = Vec::new();
    for &(_, i, j) in &edges {
        if !used[i] && !used[j] {
            used[i] = true;
            used[j] = true;
            pairs.push((i, j));
        }
    }
    // Pair leftovers first so 2-opt can move them into better pairs.
    complete(n, &mut pairs);
    let val = |a: usize, b: usize| w[a][b] as u128;
    let mut improved = true;
    while improved {
        improved = false;
        for x in 0..pairs.len() {
            for y in x + 1..pairs.len() {
                let (a, b) = pairs[x];
                let (c, d) = pairs[y];
                let now = val(a, b) + val(c, d);
                let s1 = val(a, c) + val(b, d);
                let s2 = val(a, d) + val(b, c);
                if s1 > now && s1 >= s2 {
                    pairs[x] = (a, c);
                    pairs[y] = (b, d);
                    improved = true;
                } else if s2 > now {
                    pairs[x] = (a, d);
                    pairs[y] = (b, c);
                    improved = true;
                }
            }
        }
    }
    pairs
}
