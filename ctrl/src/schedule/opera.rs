//! Opera (N ToRs, u uplinks = u rotor switches).
//!
//! The all-ones N x N matrix is split into N symmetric permutation matrices
//! (matchings; a ToR matched to itself idles on that rotor). Every pair
//! `x != y` lies in exactly one matching and each ToR idles in exactly one.
//! The start is the circulant split, matching `k` pairing `x` with
//! `(k - x) mod N`; random *component switches* then make it less regular
//! (in the union of two matchings a and b, swap a and b on one connected
//! component: every ToR keeps one a-partner and one b-partner, so the split
//! stays valid). Unions of circulant matchings have long-tailed diameters;
//! switched ones behave like random matchings.
//!
//! The cycle has N slices. At slice `s` rotor `s % u` reconfigures to the
//! matching `seq[s]` and holds it for u slices, so each rotor carries N/u
//! matchings and exactly one rotor changes at every slice boundary. The
//! matchings up in slice `s` are the window `seq[s-u+1..=s]`; the u-1
//! rotors that are not reconfiguring hold `seq[s-u+1..s]`.
//!
//! Candidates come from a seeded RNG and the best is kept: first every
//! slice graph connected, then (Opera's aim) the u-1 stable rotors connected
//! on their own, then the smallest worst-case hop count over slices. The
//! plain circulant split in order `0, 1, .., N-1` is always a candidate: a
//! window holding matchings `k` and `k+1` is connected (their union is a
//! Hamiltonian path or cycle), so a connected schedule exists for u >= 2.

use super::graph::{self, NONE};
use super::{Endpoint, Schedule, ScheduleError, Topo};
use crate::{PortId, SliceId, TorId};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Seed used when the config gives none, so runs are reproducible.
pub const DEFAULT_SEED: u64 = 0x004f_5045_5241; // "OPERA"

/// Random candidates tried before keeping the best.
const DRAWS: usize = 24;
/// Component switches per candidate, per ToR.
const SWITCHES_PER_TOR: usize = 8;

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

/// The chosen matchings and how good they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperaPlan {
    pub tors: usize,
    pub uplinks: usize,
    /// `seq[s * tors + x]`: partner of ToR `x` in the matching rotor `s % u`
    /// switches to at slice `s` (`x` itself: idle).
    pub seq: Vec<u32>,
    /// Worst-case hop count over every slice graph (all u rotors).
    pub diameter: u32,
    /// Worst-case hop count using only the u-1 rotors that do not
    /// reconfigure in the slice; `None` if some slice is disconnected then.
    pub stable_diameter: Option<u32>,
}

/// Slice at which rotor `r` last switched, at or before slice `s`.
#[inline]
fn last_switch(n: usize, u: usize, s: usize, r: usize) -> usize {
    (s + n - (s + u - r) % u) % n
}

/// The circulant split in order: matching `k` pairs `x` with `k - x`.
fn circulant(n: usize) -> Vec<u32> {
    let mut seq = vec![0u32; n * n];
    for k in 0..n {
        for x in 0..n {
            seq[k * n + x] = ((k + n - x) % n) as u32;
        }
    }
    seq
}

/// Apply `count` random component switches to the split `seq`.
fn switch_components(seq: &mut [u32], n: usize, count: usize, rng: &mut SmallRng) {
    let mut stamp = vec![0u32; n];
    let mut comp = Vec::with_capacity(n);
    for round in 1..=count as u32 {
        let a = rng.gen_range(0..n);
        let b = (a + rng.gen_range(1..n)) % n;
        // Walk the component of a random ToR in M_a + M_b (degree <= 2).
        comp.clear();
        let start = rng.gen_range(0..n);
        stamp[start] = round;
        comp.push(start);
        let mut i = 0;
        while i < comp.len() {
            let x = comp[i];
            for m in [a, b] {
                let y = seq[m * n + x] as usize;
                if stamp[y] != round {
                    stamp[y] = round;
                    comp.push(y);
                }
            }
            i += 1;
        }
        for &x in &comp {
            seq.swap(a * n + x, b * n + x);
        }
    }
}

/// Score of a candidate, lower is better: (slices with a disconnected
/// graph, slices whose stable rotors are disconnected, worst diameter,
/// worst stable diameter).
type Score = (usize, usize, u32, u32);

struct Scorer {
    n: usize,
    u: usize,
    adj: Vec<u32>,
}

impl Scorer {
    fn fill(&mut self, seq: &[u32], s: usize, skip: Option<usize>) {
        let (n, u) = (self.n, self.u);
        self.adj.fill(NONE);
        for r in 0..u {
            if Some(r) == skip {
                continue;
            }
            let m = last_switch(n, u, s, r);
            for x in 0..n {
                let y = seq[m * n + x];
                if y as usize != x {
                    self.adj[x * u + r] = y;
                }
            }
        }
    }

    /// Score `seq`, or `None` as soon as it cannot beat `best`.
    fn score(&mut self, seq: &[u32], best: Option<Score>) -> Option<Score> {
        let n = self.n;
        // Once some candidate is fully connected, only fully connected ones
        // with no larger diameter can beat it: cap the searches.
        let cap = match best {
            Some((0, 0, d, _)) => Some(d),
            _ => None,
        };
        let mut sc: Score = (0, 0, 0, 0);
        for s in 0..n {
            self.fill(seq, s, None);
            match graph::diameter(n, self.u, &self.adj, cap.unwrap_or(u32::MAX)) {
                Some(d) => sc.2 = sc.2.max(d),
                None if cap.is_some() => return None,
                None => sc.0 += 1,
            }
            self.fill(seq, s, Some(s % self.u));
            match graph::diameter(n, self.u, &self.adj, u32::MAX) {
                Some(d) => sc.3 = sc.3.max(d),
                None if cap.is_some() => return None,
                None => sc.1 += 1,
            }
        }
        Some(sc)
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

/// Choose the matchings and their order for `tors` ToRs and `uplinks` rotors.
pub fn plan(tors: usize, uplinks: usize, seed: u64) -> Result<OperaPlan, ScheduleError> {
    check_size(tors, uplinks)?;
    let (n, u) = (tors, uplinks);
    let mut scorer = Scorer {
        n,
        u,
        adj: vec![NONE; n * u],
    };
    let base = circulant(n);
    let mut best_seq = base.clone();
    let mut best = scorer
        .score(&base, None)
        .expect("uncapped scoring always returns a score");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut split = base.clone();
    let mut perm: Vec<usize> = (0..n).collect();
    // Candidates are drawn in order and scored a batch at a time in
    // parallel, each against the best before its batch, then taken in
    // order: a score that cannot beat an older best cannot beat a newer
    // (better) one, and the scores returned are exact, so the choice is
    // the one of scoring them one by one.
    let batch = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 4);
    let mut cands = vec![base.clone(); batch];
    let mut scorers: Vec<Scorer> = (0..batch)
        .map(|_| Scorer {
            n,
            u,
            adj: vec![NONE; n * u],
        })
        .collect();
    let mut drawn = 0;
    while drawn < DRAWS {
        let k = batch.min(DRAWS - drawn);
        for cand in &mut cands[..k] {
            split.copy_from_slice(&base);
            switch_components(&mut split, n, SWITCHES_PER_TOR * n, &mut rng);
            perm.shuffle(&mut rng);
            for (s, &m) in perm.iter().enumerate() {
                cand[s * n..(s + 1) * n].copy_from_slice(&split[m * n..(m + 1) * n]);
            }
        }
        drawn += k;
        let scores: Vec<Option<Score>> = if k == 1 {
            vec![scorers[0].score(&cands[0], Some(best))]
        } else {
            std::thread::scope(|sc| {
                let handles: Vec<_> = scorers[..k]
                    .iter_mut()
                    .zip(&cands[..k])
                    .map(|(scorer, cand)| sc.spawn(move || scorer.score(cand, Some(best))))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("opera scorer panicked"))
                    .collect()
            })
        };
        for (score, cand) in scores.into_iter().zip(&cands) {
            if let Some(sc) = score
                && sc < best
            {
                best = sc;
                best_seq.copy_from_slice(cand);
            }
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
        seq: best_seq,
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
                let m = last_switch(n, u, ts, r);
                for x in 0..n {
                    let y = self.seq[m * n + x] as usize;
                    if x < y {
                        s.connect(
                            Endpoint::new(x as TorId, r as PortId),
                            Endpoint::new(y as TorId, r as PortId),
                            ts as SliceId,
                        )?;
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

    /// Each pair in exactly one matching, each ToR idle in exactly one.
    fn assert_split(seq: &[u32], n: usize) {
        let mut seen = vec![0; n * n];
        for m in 0..n {
            for x in 0..n {
                let y = seq[m * n + x] as usize;
                assert_eq!(seq[m * n + y] as usize, x, "matching {m} is symmetric");
                seen[x * n + y] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
    }

    #[test]
    fn splits_cover_all_pairs_once() {
        let mut rng = SmallRng::seed_from_u64(3);
        for n in [2, 5, 8, 9, 30] {
            let mut seq = circulant(n);
            assert_split(&seq, n);
            switch_components(&mut seq, n, 50 * n, &mut rng);
            assert_split(&seq, n);
            if n >= 8 {
                assert_ne!(seq, circulant(n), "switches change the split");
            }
        }
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
