//! Birkhoff–von Neumann decomposition (Mordia): a non-negative integer
//! matrix, stuffed to equal row and column sums, is a sum of weighted
//! permutation matrices; each becomes one circuit configuration.
//!
//! Stuffing (Solstice-style) raises entries by `min(row slack, col slack)`:
//! first on entries that already carry demand (keeps the matrix sparse,
//! hence few terms), then off the diagonal, and on the diagonal only as a
//! last resort (a fixed point means "no circuit for this ToR").
//!
//! Decomposition: repeatedly take a perfect matching on the nonzero entries,
//! `q` = its minimum, record `(q, P)`, subtract `qP`. Each round zeroes at
//! least one entry, so there are at most `N^2` terms. The matching is kept
//! between rounds and only rows that lost their edge are re-augmented
//! (Kuhn), so the whole decomposition is `O(N^4)` rather than `O(N^5)`.

/// A square traffic matrix: `m[i][j]` bytes from ToR `i` to ToR `j`.
pub type Matrix = Vec<Vec<u64>>;

/// One BvN term: `weight` times the permutation `perm` (row `i` -> column
/// `perm[i]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub weight: u64,
    pub perm: Vec<usize>,
}

fn sums(m: &[Vec<u64>]) -> (Vec<u64>, Vec<u64>) {
    let n = m.len();
    let mut rows = vec![0u64; n];
    let mut cols = vec![0u64; n];
    for (i, r) in m.iter().enumerate() {
        for (j, &v) in r.iter().enumerate() {
            rows[i] += v;
            cols[j] += v;
        }
    }
    (rows, cols)
}

/// `m` raised entrywise until every row and column sums to the largest
/// row or column sum of `m`.
pub fn stuff(m: &[Vec<u64>]) -> Matrix {
    let n = m.len();
    let mut out: Matrix = m.to_vec();
    let (rows, cols) = sums(m);
    let target = rows.iter().chain(&cols).copied().max().unwrap_or(0);
    let mut rs: Vec<u64> = rows.iter().map(|r| target - r).collect();
    let mut cs: Vec<u64> = cols.iter().map(|c| target - c).collect();
    // Pass 0: entries with demand; 1: any off-diagonal; 2: anything.
    for pass in 0..3 {
        for i in 0..n {
            for j in 0..n {
                if rs[i] == 0 {
                    break;
                }
                let ok = match pass {
                    0 => m[i][j] > 0,
                    1 => i != j,
                    _ => true,
                };
                if ok {
                    let d = rs[i].min(cs[j]);
                    out[i][j] += d;
                    rs[i] -= d;
                    cs[j] -= d;
                }
            }
        }
    }
    debug_assert!(rs.iter().chain(&cs).all(|&x| x == 0));
    out
}

/// Tries to match row `i` along an augmenting path (Kuhn).
fn augment(
    i: usize,
    m: &[Vec<u64>],
    seen: &mut [bool],
    row_of: &mut [Option<usize>],
    col_of: &mut [Option<usize>],
) -> bool {
    for j in 0..m.len() {
        if m[i][j] == 0 || seen[j] {
            continue;
        }
        seen[j] = true;
        if row_of[j].is_none_or(|k| augment(k, m, seen, row_of, col_of)) {
            row_of[j] = Some(i);
            col_of[i] = Some(j);
            return true;
        }
    }
    false
}

/// Decomposes a matrix whose rows and columns all have the same sum (e.g.
/// the output of [`stuff`]) into weighted permutations, in the order found.
/// Panics if the sums differ (Birkhoff's theorem needs them equal).
pub fn decompose_stuffed(m: &[Vec<u64>]) -> Vec<Term> {
    let n = m.len();
    let (rows, cols) = sums(m);
    assert!(
        rows.iter().chain(&cols).all(|&x| x == rows[0]),
        "BvN needs equal row and column sums"
    );
    let mut s: Matrix = m.to_vec();
    let mut col_of: Vec<Option<usize>> = vec![None; n];
    let mut row_of: Vec<Option<usize>> = vec![None; n];
    let mut terms = Vec::new();
    if n == 0 {
        return terms;
    }
    // Every row's remaining sum; each term lowers all of them by q.
    let mut left = rows[0];
    while left > 0 {
        for i in 0..n {
            if col_of[i].is_none() {
                let mut seen = vec![false; n];
                let ok = augment(i, &s, &mut seen, &mut row_of, &mut col_of);
                // A non-zero matrix with equal line sums always has a
                // perfect matching on its support (Birkhoff / Hall).
                assert!(ok, "no perfect matching on a doubly stochastic support");
            }
        }
        let perm: Vec<usize> = col_of.iter().map(|c| c.unwrap()).collect();
        let q = (0..n).map(|i| s[i][perm[i]]).min().unwrap();
        for i in 0..n {
            let j = perm[i];
            s[i][j] -= q;
            if s[i][j] == 0 {
                col_of[i] = None;
                row_of[j] = None;
            }
        }
        terms.push(Term { weight: q, perm });
        left -= q;
    }
    terms
}

/// Stuffs `m` and decomposes it. The terms sum to `stuff(m)`.
pub fn decompose(m: &[Vec<u64>]) -> Vec<Term> {
    decompose_stuffed(&stuff(m))
}

/// `sum(weight * P)` over the terms, an `n x n` matrix.
pub fn reconstruct(terms: &[Term], n: usize) -> Matrix {
    let mut out = vec![vec![0u64; n]; n];
    for t in terms {
        for (i, &j) in t.perm.iter().enumerate() {
            out[i][j] += t.weight;
        }
    }
    out
}

/// How many of `places` each of `terms` gets: in proportion to its weight
/// (largest remainder), each at least one, all `places` given out (when
/// there are at least as many places as terms). The terms' order breaks
/// ties.
pub fn apportion(terms: &[Term], places: usize) -> Vec<usize> {
    let k = terms.len();
    if k == 0 {
        return Vec::new();
    }
    let mut out = vec![1usize; k];
    let rest = places.saturating_sub(k) as u128;
    let total: u128 = terms.iter().map(|t| u128::from(t.weight)).sum();
    if rest == 0 || total == 0 {
        return out;
    }
    let mut given = 0u128;
    let mut frac: Vec<(u128, usize)> = Vec::with_capacity(k);
    for (i, t) in terms.iter().enumerate() {
        let share = u128::from(t.weight) * rest;
        out[i] += (share / total) as usize;
        given += share / total;
        frac.push((share % total, i));
    }
    // Largest remainders first; the earlier term on a tie.
    frac.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in frac.iter().take((rest - given) as usize) {
        out[i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_example() {
        let m = vec![vec![0, 3, 1], vec![2, 0, 0], vec![0, 1, 0]];
        let s = stuff(&m);
        let (r, c) = sums(&s);
        assert!(r.iter().chain(&c).all(|&x| x == 4));
        let terms = decompose(&m);
        assert_eq!(reconstruct(&terms, 3), s);
        assert!(terms.iter().all(|t| t.weight > 0));
    }

    fn term(weight: u64) -> Term {
        Term {
            weight,
            perm: vec![0],
        }
    }

    #[test]
    fn apportion_is_by_weight_with_one_each() {
        let t = [term(90), term(6), term(4)];
        // One each, then the 7 left by weight: 6.3, 0.42, 0.28; the last
        // place to the largest remainder, 0.42.
        assert_eq!(apportion(&t, 10), vec![7, 2, 1]);
        assert_eq!(apportion(&t, 3), vec![1, 1, 1]);
        // Fewer places than terms: one each all the same (the cycle has a
        // slice per term).
        assert_eq!(apportion(&t, 2), vec![1, 1, 1]);
        // Largest remainder: 4 left, shares 2.4, 1.6 -> 2 + 2.
        assert_eq!(apportion(&[term(3), term(2)], 6), vec![3, 3]);
        // Equal remainders: the earlier term.
        assert_eq!(apportion(&[term(1), term(1)], 3), vec![2, 1]);
        assert_eq!(apportion(&[term(0), term(0)], 4), vec![1, 1]);
        assert!(apportion(&[], 4).is_empty());
        for places in 3..40 {
            assert_eq!(apportion(&t, places).iter().sum::<usize>(), places);
        }
    }
}
