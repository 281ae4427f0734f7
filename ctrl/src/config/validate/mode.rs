//! Checks of `mode` and what it asks for: a traffic-aware topology, a
//! `ta` section with an update interval the circuits can keep, and a
//! traffic matrix of the network's shape (inline or read from its file).

use super::Checker;
use crate::config::{Config, FabricKind, Mode, TopologyKind, TrafficMatrixSrc};
use crate::units::Nanos;

pub(super) fn check_mode(c: &mut Checker, cfg: &Config) {
    let kind = cfg.topology.kind();
    match cfg.mode {
        Mode::TA if cfg.fabric != FabricKind::Optical => {
            c.err(
                "$.mode",
                "expected \"TO\": an electrical fabric has no circuits to schedule from traffic",
            );
        }
        Mode::TA => {
            if kind != TopologyKind::TrafficAware {
                c.err(
                    "$.topology.kind",
                    format!(
                        "expected \"traffic_aware\" because mode is TA, got {:?}",
                        kind.name()
                    ),
                );
            }
            let Some(ta) = &cfg.ta else {
                c.err(
                    "$.ta",
                    "expected a `ta` object {update_interval, scheduler, traffic_matrix}: mode is TA",
                );
                return;
            };
            if ta.update_interval == Nanos(0) {
                c.err(
                    "$.ta.update_interval",
                    "expected a positive duration, got 0ns",
                );
                return;
            }
            if ta.update_interval < cfg.slice.duration {
                c.err(
                    "$.ta.update_interval",
                    format!(
                        "expected at least slice.duration ({}), got {}",
                        cfg.slice.duration, ta.update_interval
                    ),
                );
            }
            if cfg.slice.guardband >= ta.update_interval {
                c.err(
                    "$.slice.guardband",
                    format!(
                        "expected less than ta.update_interval ({}), got {}",
                        ta.update_interval, cfg.slice.guardband
                    ),
                );
            }
            let reconf = cfg.reconfiguration_delay();
            if cfg.ocs.is_some() && reconf >= ta.update_interval {
                c.err(
                    "$.ocs.reconfiguration_delay",
                    format!(
                        "expected less than ta.update_interval ({}), got {reconf}",
                        ta.update_interval
                    ),
                );
            }
            let dark = cfg.dark_time();
            if dark < ta.update_interval && ta.update_interval.0 < dark.0.saturating_mul(10) {
                tracing::warn!(
                    "$.ta.update_interval: {} is under 10 x max(guardband, reconfiguration_delay) = {}: circuits are dark over 10% of the time",
                    ta.update_interval,
                    Nanos(dark.0 * 10)
                );
            }
        }
        Mode::TO => {
            if kind == TopologyKind::TrafficAware {
                c.err(
                    "$.topology.kind",
                    "expected a traffic-oblivious topology (round_robin, opera, shale, static or file): \"traffic_aware\" needs mode TA",
                );
            }
            if cfg.ta.is_some() {
                c.err(
                    "$.ta",
                    "expected no `ta` object: it is only used when mode is TA",
                );
            }
        }
    }
}

pub(super) fn check_traffic_matrix(c: &mut Checker, cfg: &Config) {
    let Some(ta) = &cfg.ta else { return };
    if cfg.mode != Mode::TA {
        return;
    }
    let n = cfg.tors.count as usize;
    let (rows, from) = match &ta.traffic_matrix {
        TrafficMatrixSrc::Inline(rows) => (rows.clone(), None),
        TrafficMatrixSrc::File(p) => {
            let full = cfg.resolve(p);
            if let Err(e) = crate::textfile::check_file(&full) {
                c.err(
                    "$.ta.traffic_matrix",
                    format!(
                        "expected a traffic-matrix file, but {e} (relative names resolve against the config's directory)"
                    ),
                );
                return;
            }
            match crate::config::read_traffic_matrix(&full) {
                Ok(rows) => (rows, Some(full.display().to_string())),
                Err(e) => {
                    c.errors.push(e);
                    return;
                }
            }
        }
    };
    // For a file, errors name the field and say which row of the file.
    let at = |i: Option<usize>, j: Option<usize>| -> String {
        match (&from, i, j) {
            (Some(_), _, _) | (None, None, _) => "$.ta.traffic_matrix".to_string(),
            (None, Some(i), None) => format!("$.ta.traffic_matrix[{i}]"),
            (None, Some(i), Some(j)) => format!("$.ta.traffic_matrix[{i}][{j}]"),
        }
    };
    let in_file = |s: String| match &from {
        Some(f) => format!("{f}: {s}"),
        None => s,
    };
    if rows.len() != n {
        c.err(
            at(None, None),
            in_file(format!(
                "expected {n} rows (one per ToR, tors.count = {n}), got {}",
                rows.len()
            )),
        );
        return;
    }
    let mut total: u128 = 0;
    for (i, row) in rows.iter().enumerate() {
        if row.len() != n {
            c.err(
                at(Some(i), None),
                in_file(format!(
                    "expected row {i} to have {n} entries (one per ToR), got {}",
                    row.len()
                )),
            );
            continue;
        }
        if row[i] != 0 {
            c.err(
                at(Some(i), Some(i)),
                in_file(format!(
                    "expected 0 on the diagonal (ToR {i} does not send to itself), got {}",
                    row[i]
                )),
            );
        }
        total += row.iter().map(|&x| x as u128).sum::<u128>();
    }
    if total == 0 {
        tracing::warn!("$.ta.traffic_matrix: all zero; the scheduler has no demand to serve");
    }
}
