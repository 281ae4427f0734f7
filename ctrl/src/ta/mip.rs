//! Topology engineering (Jupiter): with `u` uplinks per ToR, pick a
//! multigraph of degree `u` whose link counts roughly follow the demand,
//! already split into `u` matchings (matching `p` on uplink `p`).
//!
//! Jupiter solves a MIP; without a solver crate this is a documented
//! heuristic:
//! 1. `cap` = total symmetric demand / links in the fabric (`u * N/2`): the
//!    demand one link "absorbs" if load were spread evenly.
//! 2. For each uplink in turn take a maximum-weight matching on the residual
//!    demand and lower every matched pair's residual by `cap`. A pair with
//!    `k * cap` demand thus tends to get `k` parallel links.
//! 3. Jupiter keeps every topology connected (TA-2 in the paper, so that
//!    static routing reaches every pair). If the union is not connected and
//!    `u >= 2`, the last uplink is redone: it first joins the components
//!    of the other uplinks in a ring (heaviest residual pair between
//!    neighbouring components), then matches the remaining ToRs by weight.
//!    With `u = 1` (or odd `N`) connectivity is not guaranteed.

use super::hotspot::{max_weight_matching, symmetric};

/// `u` matchings (pairs `(a, b)`, `a < b`), one per uplink.
pub fn topology(t: &[Vec<u64>], uplinks: usize) -> Vec<Vec<(usize, usize)>> {
    let n = t.len();
    let w = symmetric(t);
    let total: u128 = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| w[i][j] as u128)
        .sum();
    let links = (uplinks * (n / 2)).max(1) as u128;
    let cap = total.div_ceil(links).clamp(1, u64::MAX as u128) as u64;
    let mut residual = w.clone();
    let mut out = Vec::with_capacity(uplinks);
    let mut before_last = residual.clone();
    for p in 0..uplinks {
        if p + 1 == uplinks {
            before_last = residual.clone();
        }
        let m = max_weight_matching(&residual);
        for &(a, b) in &m {
            let r = residual[a][b].saturating_sub(cap);
            residual[a][b] = r;
            residual[b][a] = r;
        }
        out.push(m);
    }
    if uplinks >= 2 && n.is_multiple_of(2) && n > 2 && components(n, &out).len() > 1 {
        let comps = components(n, &out[..uplinks - 1]);
        let last = out.last_mut().unwrap();
        *last = ring_then_match(&before_last, &comps);
    }
    out
}

/// Connected components (sorted vertex lists, by lowest vertex) of the
/// union of the matchings.
pub fn components(n: usize, matchings: &[Vec<(usize, usize)>]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        let mut y = x;
        while p[y] != r {
            let nx = p[y];
            p[y] = r;
            y = nx;
        }
        r
    }
    for m in matchings {
        for &(a, b) in m {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for v in 0..n {
        let r = find(&mut parent, v);
        groups.entry(r).or_default().push(v);
    }
    groups.into_values().collect()
}

/// A perfect matching that links `comps` (each of at least two ToRs) in a
/// ring, then pairs the rest by maximum weight.
fn ring_then_match(w: &[Vec<u64>], comps: &[Vec<usize>]) -> Vec<(usize, usize)> {
    let n = w.len();
    let k = comps.len();
    let mut used = vec![false; n];
    let mut pairs = Vec::new();
    for c in 0..k {
        let (from, to) = (&comps[c], &comps[(c + 1) % k]);
        let mut best: Option<(u64, usize, usize)> = None;
        for &x in from.iter().filter(|&&x| !used[x]) {
            for &y in to.iter().filter(|&&y| !used[y]) {
                if best.is_none_or(|b| w[x][y] > b.0) {
                    best = Some((w[x][y], x, y));
                }
            }
        }
        // Each component gives one ToR to each of its two ring links and
        // has at least two, so a free pair always exists.
        let (_, x, y) = best.expect("components of at least two ToRs");
        used[x] = true;
        used[y] = true;
        pairs.push((x.min(y), x.max(y)));
    }
    let rest: Vec<usize> = (0..n).filter(|&v| !used[v]).collect();
    let sub: Vec<Vec<u64>> = rest
        .iter()
        .map(|&a| rest.iter().map(|&b| w[a][b]).collect())
        .collect();
    for (a, b) in max_weight_matching(&sub) {
        let (x, y) = (rest[a], rest[b]);
        pairs.push((x.min(y), x.max(y)));
    }
    pairs.sort_unstable();
    pairs
}
