//! Traffic-aware scheduling (paper §8, Table 5): circuits from a ToR-level
//! traffic matrix. `bvn` (Mordia), `hotspot` (c-Through), `mip` (Jupiter).
//!
//! [`build`] turns `ta.traffic_matrix` into a [`Schedule`]:
//! - `hotspot`: one slice; uplink 0 carries the maximum-weight matching on
//!   the symmetric demand, uplink `p > 0` the maximum-weight matching on the
//!   demand not yet covered (covered pairs drop out).
//! - `bvn`: a cycle of one slice per BvN term of the stuffed matrix, at
//!   least the `N` heaviest terms and as many more as it takes for every
//!   pair with demand to get a circuit (a Mordia-style cycle; all slices
//!   last equally long). Each term is a permutation, set up as one-way
//!   circuits (row `i` sends to `perm[i]`; a fixed point leaves that ToR
//!   dark). As Mordia holds each permutation for a time in proportion to
//!   its weight, the cycle's `uplinks x slices` places (one permutation on
//!   one uplink for one slice) go to the terms in proportion to their
//!   weights, each term at least one ([`bvn::apportion`]), uplink 0's
//!   slices first, heaviest term first. With one uplink that is one slice
//!   per term, heaviest first.
//! - `mip`: one slice; matching `p` of [`mip::topology`] on uplink `p`.
//!
//! The diagonal (traffic inside a ToR) never crosses the fabric and is
//! ignored. An all-zero matrix is treated as uniform demand.
//!
//! Hybrid (c-Through, `ta.electrical_rate` set): the schedule gets one
//! electrical port after the optical ones (index `tors.uplinks`), which
//! reaches every ToR at that rate and carries what has no circuit.

pub mod bvn;
pub mod hotspot;
pub mod mip;

use crate::config::{Config, Scheduler, TrafficMatrixSrc};
use crate::schedule::{Endpoint, Schedule, ScheduleError};
use crate::{PortId, SliceId, TorId};
use bvn::Matrix;

#[derive(Debug, thiserror::Error)]
pub enum TaError {
    /// `$.ta` is absent.
    #[error("$.ta: required for a traffic-aware topology")]
    Missing,
    #[error("cannot read the traffic matrix: {err}")]
    Io {
        file: String,
        err: crate::textfile::TextError,
    },
    /// The matrix is malformed; `path` is the JSON path (`$.ta.traffic_matrix[2]`
    /// inline, `file: $[2]` for a matrix file).
    #[error("{path}: {msg}")]
    Matrix { path: String, msg: String },
    #[error("traffic-aware schedule: {0}")]
    Schedule(#[from] ScheduleError),
}

/// Reads `cfg.ta.traffic_matrix` (inline rows, or a JSON file of rows
/// relative to the config's directory) and checks it is `N x N`.
pub fn traffic_matrix(cfg: &Config) -> Result<Matrix, TaError> {
    let ta = cfg.ta.as_ref().ok_or(TaError::Missing)?;
    let n = cfg.tors.count as usize;
    let (rows, prefix) = match &ta.traffic_matrix {
        TrafficMatrixSrc::Inline(rows) => (rows.clone(), "$.ta.traffic_matrix".to_string()),
        TrafficMatrixSrc::File(p) => {
            let path = if p.is_absolute() {
                p.clone()
            } else {
                cfg.base_dir.join(p)
            };
            let file = path.display().to_string();
            let text = crate::textfile::read_text(&path).map_err(|err| TaError::Io {
                file: file.clone(),
                err,
            })?;
            // Text rows (docs/config.md#ta): the same reader the config's
            // validation uses, so a matrix that loads also builds.
            if !text.trim_start().starts_with('[') {
                let rows =
                    crate::config::read_traffic_matrix(&path).map_err(|e| TaError::Matrix {
                        path: format!("{file}: $"),
                        msg: e.to_string(),
                    })?;
                check_matrix(&rows, n, &format!("{file}: $"))?;
                return Ok(rows);
            }
            let de = &mut serde_json::Deserializer::from_str(&text);
            let rows: Matrix = serde_path_to_error::deserialize(de).map_err(|e| {
                let p = e.path().to_string();
                TaError::Matrix {
                    path: format!("{file}: ${}", if p == "." { String::new() } else { p }),
                    msg: format!(
                        "expected a JSON array of rows of non-negative integers: {}",
                        e.into_inner()
                    ),
                }
            })?;
            (rows, format!("{file}: $"))
        }
    };
    check_matrix(&rows, n, &prefix)?;
    Ok(rows)
}

fn check_matrix(rows: &[Vec<u64>], n: usize, prefix: &str) -> Result<(), TaError> {
    if rows.len() != n {
        return Err(TaError::Matrix {
            path: prefix.to_string(),
            msg: format!("expected {n} rows (one per ToR), got {}", rows.len()),
        });
    }
    for (i, r) in rows.iter().enumerate() {
        if r.len() != n {
            return Err(TaError::Matrix {
                path: format!("{prefix}[{i}]"),
                msg: format!("expected {n} columns (one per ToR), got {}", r.len()),
            });
        }
    }
    Ok(())
}

/// The paper's `topo_aware(TM)`: the schedule for `cfg`'s traffic matrix
/// and scheduler.
pub fn build(cfg: &Config) -> Result<Schedule, TaError> {
    let ta = cfg.ta.as_ref().ok_or(TaError::Missing)?;
    let tm = traffic_matrix(cfg)?;
    Ok(crate::schedule::with_electrical(
        cfg,
        schedule(ta.scheduler, &tm, cfg.tors.uplinks as usize)?,
    ))
}

/// The demand the schedulers see: no diagonal; uniform if empty.
pub fn demand(tm: &[Vec<u64>]) -> Matrix {
    let n = tm.len();
    let mut m: Matrix = tm.to_vec();
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = 0;
    }
    if m.iter().flatten().all(|&v| v == 0) {
        for (i, row) in m.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = u64::from(i != j);
            }
        }
    }
    debug_assert_eq!(m.len(), n);
    m
}

/// Builds the schedule for an `N x N` matrix (`N` = its size) and `uplinks`
/// uplinks per ToR.
pub fn schedule(
    scheduler: Scheduler,
    tm: &[Vec<u64>],
    uplinks: usize,
) -> Result<Schedule, TaError> {
    let n = tm.len();
    check_matrix(tm, n, "$")?;
    let d = demand(tm);
    let pair = |s: &mut Schedule, a: usize, b: usize, p: usize, ts: usize| {
        s.connect(
            Endpoint::new(a as TorId, p as PortId),
            Endpoint::new(b as TorId, p as PortId),
            ts as SliceId,
        )
    };
    match scheduler {
        Scheduler::Hotspot => {
            let mut s = Schedule::new(n, uplinks, 1);
            let mut residual = hotspot::symmetric(&d);
            for p in 0..uplinks {
                for (a, b) in hotspot::max_weight_matching(&residual) {
                    pair(&mut s, a, b, p, 0)?;
                    residual[a][b] = 0;
                    residual[b][a] = 0;
                }
            }
            Ok(s)
        }
        Scheduler::Mip => {
            let mut s = Schedule::new(n, uplinks, 1);
            for (p, m) in mip::topology(&d, uplinks).into_iter().enumerate() {
                for (a, b) in m {
                    pair(&mut s, a, b, p, 0)?;
                }
            }
            Ok(s)
        }
        Scheduler::Bvn => {
            let mut terms = bvn::decompose(&d);
            // Heaviest first; ties keep decomposition order.
            terms.sort_by_key(|t| std::cmp::Reverse(t.weight));
            // Keep the heaviest N terms, then more until every pair with
            // demand has a circuit in some slice, so direct routing (Mordia
            // is circuit-only) reaches every destination.
            let mut covered = vec![false; n * n];
            let mut uncovered = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .filter(|&(i, j)| i != j && d[i][j] > 0)
                .count();
            let mut keep = 0;
            for t in &terms {
                if keep >= n.max(1) && uncovered == 0 {
                    break;
                }
                keep += 1;
                for (i, &j) in t.perm.iter().enumerate() {
                    if i != j && !covered[i * n + j] {
                        covered[i * n + j] = true;
                        if d[i][j] > 0 {
                            uncovered -= 1;
                        }
                    }
                }
            }
            terms.truncate(keep.max(1));
            let slices = terms.len();
            let mut s = Schedule::new(n, uplinks, slices);
            if uplinks == 0 {
                return Ok(s);
            }
            // Mordia holds each permutation for a time in proportion to its
            // weight. The cycle keeps one slice per term; its `uplinks x
            // slices` (uplink, slice) places are shared out by weight, each
            // term at least one, and filled uplink by uplink, heaviest term
            // first: a ToR with several OCS ports has a circuit on each.
            let units = bvn::apportion(&terms, uplinks * slices);
            let places = terms
                .iter()
                .zip(units)
                .flat_map(|(t, u)| std::iter::repeat_n(&t.perm, u));
            for (m, perm) in places.enumerate() {
                let (p, k) = (m / slices, m % slices);
                for (i, &j) in perm.iter().enumerate() {
                    if i != j {
                        s.connect_directed(
                            Endpoint::new(i as TorId, p as PortId),
                            Endpoint::new(j as TorId, p as PortId),
                            k as SliceId,
                        )?;
                    }
                }
            }
            Ok(s)
        }
    }
}
