//! How long each uplink keeps a circuit, from the ToRs' view of the
//! schedule: what lets a late source-route hop leave while its circuit is
//! still up (`Calendar::still_up`, `admit_while_up`; docs/fidelity.md).

/// How long each uplink keeps a circuit: `[slice][uplink]`, the slices
/// right before and right after `slice` in which the uplink's peer is the
/// one it has in `slice` (cyclic, at most `S - 1`; 0 where there is no
/// circuit).
#[derive(Clone, Debug, Default)]
pub(crate) struct CircuitRuns {
    n: usize,
    before: Vec<u16>,
    after: Vec<u16>,
}

impl CircuitRuns {
    pub(crate) fn new(peer: &[u32], s: usize, n: usize) -> CircuitRuns {
        let cap = (s.saturating_sub(1)).min(u16::MAX as usize);
        let mut r = CircuitRuns {
            n,
            before: vec![0; s * n],
            after: vec![0; s * n],
        };
        for tu in 0..n {
            let p = |ts: usize| peer[(ts % s) * n + tu];
            let set = |v: &mut Vec<u16>, ts: usize, k: usize| {
                if p(ts) != crate::ocs::NONE {
                    v[(ts % s) * n + tu] = k.min(cap) as u16;
                }
            };
            // A slice where the peer changes; none: the same all cycle.
            let Some(c) = (0..s).find(|&ts| p(ts) != p(ts + s - 1)) else {
                for ts in 0..s {
                    set(&mut r.before, ts, cap);
                    set(&mut r.after, ts, cap);
                }
                continue;
            };
            // One pass each way from the change, in O(S).
            let mut k = 0;
            for ts in c..c + s {
                k = if ts > c && p(ts) == p(ts - 1) {
                    k + 1
                } else {
                    0
                };
                set(&mut r.before, ts, k);
            }
            k = 0;
            for ts in (c..c + s).rev() {
                k = if ts + 1 < c + s && p(ts) == p(ts + 1) {
                    k + 1
                } else {
                    0
                };
                set(&mut r.after, ts, k);
            }
        }
        r
    }

    #[inline]
    pub(crate) fn before(&self, slice: usize, tu: usize) -> usize {
        self.before[slice * self.n + tu] as usize
    }

    #[inline]
    pub(crate) fn after(&self, slice: usize, tu: usize) -> usize {
        self.after[slice * self.n + tu] as usize
    }
}
