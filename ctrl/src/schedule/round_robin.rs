//! Round robin (RotorNet, Sirius): the circle method's perfect matchings.
//!
//! For even N there are N-1 rounds; round r pairs N-1 with r and
//! (r+i) mod (N-1) with (r-i) mod (N-1) for i = 1..N/2-1. Odd N adds a dummy
//! node, so there are N rounds and the ToR paired with the dummy idles.
//! Every unordered pair of ToRs meets exactly once per cycle.
//!
//! With u uplinks (u rotor switches) the matchings are shared out: slice `s`
//! uses matching `s*u + p` on uplink `p` (idle past the last matching), so
//! the cycle has ceil(matchings / u) slices. A circuit always joins the same
//! uplink index on both ToRs, so uplink `p` can live on its own OCS.

use super::{Endpoint, Schedule, ScheduleError, Topo};
use crate::{PortId, SliceId, TorId};

/// The round-robin generator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundRobin;

/// Number of circle-method matchings for `n` ToRs.
pub fn matchings(n: usize) -> usize {
    if n.is_multiple_of(2) { n - 1 } else { n }
}

/// The pairs of circle-method round `r` for `n` ToRs (a dummy is added when
/// `n` is odd and its partner is left out).
pub fn round_pairs(n: usize, r: usize) -> Vec<(TorId, TorId)> {
    let m = n + n % 2; // even node count including the dummy
    let k = m - 1;
    let mut v = Vec::with_capacity(m / 2);
    let mut push = |a: usize, b: usize| {
        if a < n && b < n {
            v.push((a as TorId, b as TorId));
        }
    };
    push(m - 1, r);
    for i in 1..m / 2 {
        push((r + i) % k, (r + k - i) % k);
    }
    v
}

impl Topo for RoundRobin {
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError> {
        if tors < 2 {
            return Err(ScheduleError::Infeasible(format!(
                "round robin needs at least 2 ToRs, got {tors}"
            )));
        }
        if uplinks == 0 {
            return Err(ScheduleError::Infeasible(
                "round robin needs at least 1 uplink".into(),
            ));
        }
        Ok(matchings(tors).div_ceil(uplinks))
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        let (n, u) = (s.tors(), s.uplinks());
        let m = matchings(n);
        for ts in 0..s.slices() {
            for p in 0..u {
                let r = ts * u + p;
                if r >= m {
                    continue;
                }
                for (a, b) in round_pairs(n, r) {
                    s.connect(
                        Endpoint::new(a, p as PortId),
                        Endpoint::new(b, p as PortId),
                        ts as SliceId,
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// The round-robin schedule for `tors` ToRs with `uplinks` uplinks each.
pub fn round_robin(tors: usize, uplinks: usize) -> Result<Schedule, ScheduleError> {
    Schedule::from_topo(&RoundRobin, tors, uplinks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_tors_one_uplink() {
        let s = round_robin(4, 1).unwrap();
        assert_eq!(s.slices(), 3);
        // Round 0: 3<->0, 1<->2.
        assert_eq!(s.neighbors(0, 0), vec![3]);
        assert_eq!(s.neighbors(1, 0), vec![2]);
    }

    #[test]
    fn odd_count_idles_one_tor_per_round() {
        let s = round_robin(5, 1).unwrap();
        assert_eq!(s.slices(), 5);
        for ts in 0..5 {
            let idle = (0..5).filter(|&t| s.neighbors(t, ts).is_empty()).count();
            assert_eq!(idle, 1, "slice {ts}");
        }
    }

    #[test]
    fn matchings_split_over_uplinks() {
        // 8 ToRs: 7 matchings over 3 uplinks -> 3 slices, slice 2 has only
        // matching 6 on uplink 0.
        let s = round_robin(8, 3).unwrap();
        assert_eq!(s.slices(), 3);
        assert!(s.peer(2, Endpoint::new(0, 0)).is_some());
        assert!(s.peer(2, Endpoint::new(0, 1)).is_none());
        assert!(s.peer(2, Endpoint::new(0, 2)).is_none());
    }
}
