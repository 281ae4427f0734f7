//! Hop-count diameter of small slice graphs with bitsets: a 108-ToR graph
//! needs two words per node, so one pass costs `n * deg * 2` word ORs. Opera
//! evaluates many candidate orders, hence no per-BFS allocation per node.

/// No edge in an adjacency slot.
pub(crate) const NONE: u32 = u32::MAX;

/// Worst-case hop count over ordered pairs in a directed graph given as
/// `adj[x * deg + i]` (target ToR or [`NONE`]). `Some(d)` when every node
/// reaches every other within `d <= cap` hops; `None` when disconnected or
/// the diameter exceeds `cap` (lets callers abandon a worse candidate early).
pub(crate) fn diameter(n: usize, deg: usize, adj: &[u32], cap: u32) -> Option<u32> {
    debug_assert_eq!(adj.len(), n * deg);
    if n <= 1 {
        return Some(0);
    }
    if n <= 128 {
        diameter_narrow(n, deg, adj, cap)
    } else {
        diameter_words(n, deg, adj, cap)
    }
}

/// [`diameter`] with a row of `n` bits in 64-bit words.
fn diameter_words(n: usize, deg: usize, adj: &[u32], cap: u32) -> Option<u32> {
    let w = n.div_ceil(64);
    let last_mask = if n.is_multiple_of(64) {
        u64::MAX
    } else {
        (1u64 << (n % 64)) - 1
    };
    let is_full =
        |row: &[u64]| row[..w - 1].iter().all(|&x| x == u64::MAX) && row[w - 1] == last_mask;
    // reach[x]: nodes x reaches within d hops.
    let mut reach = vec![0u64; n * w];
    for x in 0..n {
        reach[x * w + x / 64] |= 1 << (x % 64);
    }
    let mut next = reach.clone();
    let mut d = 0u32;
    loop {
        if (0..n).all(|x| is_full(&reach[x * w..(x + 1) * w])) {
            return Some(d);
        }
        if d >= cap {
            return None;
        }
        let mut changed = false;
        // Word by word (no slice copy or comparison: with two words per
        // row those are library calls that cost more than the ORs).
        for x in 0..n {
            let row = x * w;
            let out = &adj[x * deg..(x + 1) * deg];
            for k in 0..w {
                let mut v = reach[row + k];
                for &y in out {
                    if y != NONE {
                        v |= reach[y as usize * w + k];
                    }
                }
                changed |= v != reach[row + k];
                next[row + k] = v;
            }
        }
        if !changed {
            return None;
        }
        std::mem::swap(&mut reach, &mut next);
        d += 1;
    }
}

/// [`diameter`] for up to 128 nodes, a row in one `u128` (opera-108
/// scores 25 candidate orders, 216 diameters each: this is most of its
/// schedule's cost).
fn diameter_narrow(n: usize, deg: usize, adj: &[u32], cap: u32) -> Option<u32> {
    let full = if n == 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    let mut reach: Vec<u128> = (0..n).map(|x| 1u128 << x).collect();
    let mut next = vec![0u128; n];
    let mut d = 0u32;
    loop {
        if reach.iter().all(|&r| r == full) {
            return Some(d);
        }
        if d >= cap {
            return None;
        }
        let mut changed = false;
        for ((out, &r), nx) in adj.chunks_exact(deg).zip(&reach).zip(&mut next) {
            let mut v = r;
            for &y in out {
                if y != NONE {
                    v |= reach[y as usize];
                }
            }
            changed |= v != r;
            *nx = v;
        }
        if !changed {
            return None;
        }
        std::mem::swap(&mut reach, &mut next);
        d += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_and_path_diameters() {
        // Undirected ring of 6: diameter 3.
        let n = 6;
        let mut adj = vec![NONE; n * 2];
        for x in 0..n {
            adj[x * 2] = ((x + 1) % n) as u32;
            adj[x * 2 + 1] = ((x + n - 1) % n) as u32;
        }
        assert_eq!(diameter(n, 2, &adj, u32::MAX), Some(3));
        assert_eq!(diameter(n, 2, &adj, 2), None);
        // Directed ring of 70 (two words per row): diameter 69.
        let n = 70;
        let adj: Vec<u32> = (0..n).map(|x| ((x + 1) % n) as u32).collect();
        assert_eq!(diameter(n, 1, &adj, u32::MAX), Some(69));
        // Two components.
        let adj = vec![1, 0, 3, 2];
        assert_eq!(diameter(4, 1, &adj, u32::MAX), None);
        // Directed rings at and past one u128 row: 127 and 199.
        for n in [128, 200] {
            let adj: Vec<u32> = (0..n).map(|x| ((x + 1) % n) as u32).collect();
            assert_eq!(diameter(n, 1, &adj, u32::MAX), Some(n as u32 - 1));
            assert_eq!(diameter(n, 1, &adj, 50), None);
        }
    }

    /// The one-word rows and the multi-word rows agree, on random graphs
    /// with missing edges, connected or not, with and without a cap.
    #[test]
    fn narrow_rows_agree_with_words() {
        let mut seed = 7u64;
        let mut rnd = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..300 {
            let n = 2 + rnd(127) as usize;
            let deg = 1 + rnd(4) as usize;
            let adj: Vec<u32> = (0..n * deg)
                .map(|_| {
                    if rnd(5) == 0 {
                        NONE
                    } else {
                        rnd(n as u64) as u32
                    }
                })
                .collect();
            let cap = if rnd(2) == 0 { u32::MAX } else { rnd(6) as u32 };
            assert_eq!(
                diameter_narrow(n, deg, &adj, cap),
                diameter_words(n, deg, &adj, cap),
                "n {n} deg {deg} cap {cap}"
            );
        }
    }
}
