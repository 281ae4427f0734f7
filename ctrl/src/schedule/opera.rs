//! Opera (N ToRs, u uplinks = u rotor switches).
//!
//! The all-ones N x N matrix splits into N symmetric permutation matrices:
//! matching `k` pairs `x` with `(k - x) mod N` (a ToR with `2x = k mod N` is
//! a fixed point and idles on that rotor). Every pair `x != y` lies in exactly
//! one matching (`k = x + y`), and each ToR idles once per cycle.
//!
//! The cycle has N slices. At slice `s` rotor `s % u` reconfigures to the
//! matching `order[s]` and holds it for u slices, so each rotor carries N/u
//! matchings and exactly one rotor changes at every slice boundary. The
//! matchings up in slice `s` are the window `order[s-u+1..=s]`, and the
//! u-1 rotors that are not reconfiguring are `order[s-u+1..s]`.
//!
//! `order` is drawn with a seeded RNG; several draws are scored and the best
//! kept: first every slice graph connected, then (Opera's aim) the u-1
//! stable rotors connected on their own, then the smallest worst-case hop
//! count. The identity order is always a candidate: any window with two
//! adjacent matchings `k, k+1` is connected, so a connected schedule always
//! exists when u >= 2.

use super::graph::{self, NONE};
use super::{Endpoint, Schedule, ScheduleError, Topo};
use crate::{PortId, SliceId, TorId};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

/// Seed used when the config gives none, so runs are reproducible.
pub const DEFAULT_SEED: u64 = 0x004f_5045_5241; // "OPERA"

/// Random orders tried before keeping the best.
const DRAWS: usize = 48;

/// The Opera generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opera {
    pub seed: u64,
}

impl Default for Opera {
    fn default() -> Self {
        Opera { seed: DEFAULT_SEED }
    }
}

/// The chosen matching order and how good it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperaPlan {
    pub tors: usize,
    pub uplinks: usize,
    /// `order[s]`: the matching rotor `s % u` switches to at slice `s`.
    pub order: Vec<usize>,
    /// Worst-case hop count over every slice graph (all u rotors).
    pub diameter: u32,
    /// Worst-case hop count using only the u-1 rotors that do not
    /// reconfigure in the slice; `None` if some slice is disconnected then.
    pub stable_diameter: Option<u32>,
}

/// Partner of `x` in matching `k`, `None` for a fixed point.
#[inline]
fn partner(n: usize, k: usize, x: usize) -> Option<usize> {
    let y = (k + n - x) % n;
    (y != x).then_some(y)
}

/// Slice at which rotor `r` last switched, at or before slice `s`.
#[inline]
fn last_switch(n: usize, u: usize, s: usize, r: usize) -> usize {
    (s + n - (s + u - r) % u) % n
}

/// Score of an order, lower is better: (slices with a disconnected graph,
/// slices whose stable rotors are disconnected, worst diameter, worst
/// stable diameter).
type Score = (usize, usize, u32, u32);

struct Scorer {
    n: usize,
    u: usize,
    adj: Vec<u32>,
}

impl Scorer {
    fn fill(&mut self, order: &[usize], s: usize, skip: Option<usize>) {
        let (n, u) = (self.n, self.u);
        self.adj.fill(NONE);
        for r in 0..u {
            if Some(r) == skip {
                continue;
            }
            let k = order[last_switch(n, u, s, r)];
            for x in 0..n {
                if let Some(y) = partner(n, k, x) {
                    self.adj[x * u + r] = y as u32;
                }
            }
        }
    }

    fn score(&mut self, order: &[usize]) -> Score {
        let (n, u) = (self.n, self.u);
        let mut sc: Score = (0, 0, 0, 0);
        for s in 0..n {
            self.fill(order, s, None);
            match graph::diameter(n, u, &self.adj, u32::MAX) {
                Some(d) => sc.2 = sc.2.max(d),
                None => sc.0 += 1,
            }
            self.fill(order, s, Some(s % u));
            match graph::diameter(n, u, &self.adj, u32::MAX) {
                Some(d) => sc.3 = sc.3.max(d),
                None => sc.1 += 1,
            }
        }
        sc
    }
}

fn check_size(tors: usize, uplinks: usize) -> Result<(), ScheduleError> {
    if uplinks < 2 {
        return Err(ScheduleError::Infeasible(format!(
            "opera needs at least 2 uplinks (rotors) so that a slice graph stays connected while one rotor reconfigures; got {uplinks}"
        )));
    }
    if !tors.is_multiple_of(uplinks) || tors < 2 * uplinks {
        return Err(ScheduleError::Infeasible(format!(
            "opera gives each of the {uplinks} rotors tors/uplinks matchings, so the ToR count must be a multiple of the uplink count and at least twice it; got {tors} ToRs"
        )));
    }
    if tors > u16::MAX as usize {
        return Err(ScheduleError::Infeasible(format!(
            "opera: {tors} ToRs exceed the slice id range"
        )));
    }
    Ok(())
}

/// Choose the matching order for `tors` ToRs and `uplinks` rotors.
pub fn plan(tors: usize, uplinks: usize, seed: u64) -> Result<OperaPlan, ScheduleError> {
    check_size(tors, uplinks)?;
    let (n, u) = (tors, uplinks);
    let mut scorer = Scorer {
        n,
        u,
        adj: vec![NONE; n * u],
    };
    let mut order: Vec<usize> = (0..n).collect();
    let mut best_order = order.clone();
    let mut best = scorer.score(&order);
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..DRAWS {
        order.shuffle(&mut rng);
        let sc = scorer.score(&order);
        if sc < best {
            best = sc;
            best_order.copy_from_slice(&order);
        }
    }
    if best.0 > 0 {
        return Err(ScheduleError::Infeasible(format!(
            "opera: no matching order keeps every slice graph connected for {n} ToRs with {u} rotors ({} of {n} slices disconnected)",
            best.0
        )));
    }
    let stable_diameter = (best.1 == 0).then_some(best.3);
    if stable_diameter.is_none() {
        tracing::info!(
            tors = n,
            rotors = u,
            disconnected = best.1,
            "opera: the u-1 stable rotors alone are not connected in every slice"
        );
    }
    tracing::debug!(
        tors = n,
        rotors = u,
        diameter = best.2,
        "opera schedule chosen"
    );
    Ok(OperaPlan {
        tors: n,
        uplinks: u,
        order: best_order,
        diameter: best.2,
        stable_diameter,
    })
}

impl OperaPlan {
    /// Realise the plan in `s` (sized `tors x uplinks x tors` slices).
    pub fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        let (n, u) = (self.tors, self.uplinks);
        for ts in 0..n {
            for r in 0..u {
                let k = self.order[last_switch(n, u, ts, r)];
                for x in 0..n {
                    match partner(n, k, x) {
                        Some(y) if x < y => s.connect(
                            Endpoint::new(x as TorId, r as PortId),
                            Endpoint::new(y as TorId, r as PortId),
                            ts as SliceId,
                        )?,
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }
}

impl Topo for Opera {
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError> {
        check_size(tors, uplinks)?;
        Ok(tors)
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        plan(s.tors(), s.uplinks(), self.seed)?.build(s)
    }
}

/// The Opera schedule for `tors` ToRs with `uplinks` rotors.
pub fn opera(tors: usize, uplinks: usize, seed: u64) -> Result<Schedule, ScheduleError> {
    Schedule::from_topo(&Opera { seed }, tors, uplinks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchings_cover_all_pairs_once() {
        let n = 9;
        let mut seen = vec![0; n * n];
        for k in 0..n {
            for x in 0..n {
                match partner(n, k, x) {
                    Some(y) => seen[x * n + y] += 1,
                    None => seen[x * n + x] += 1,
                }
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
    }

    #[test]
    fn last_switch_is_the_rotors_slice() {
        let (n, u) = (12, 3);
        for s in 0..n {
            for r in 0..u {
                let l = last_switch(n, u, s, r);
                assert_eq!(l % u, r);
                assert!((s + n - l) % n < u);
            }
        }
    }

    #[test]
    fn rejects_bad_sizes() {
        assert!(opera(12, 1, 1).is_err());
        assert!(opera(10, 3, 1).is_err());
        assert!(opera(3, 3, 1).is_err());
        assert!(opera(6, 3, 1).is_ok());
    }
}
