//! Checks of `routing`: an algorithm the schedule can run (cyclic, still,
//! or a fat tree's), and knobs only where their algorithm reads them.

use super::Checker;
use crate::config::{Algorithm, BulkTransport, Config, FabricKind, Mode};
use crate::units::Nanos;

/// Algorithms that route over a cyclic multi-slice TO schedule.
const CYCLIC_ALGOS: &[Algorithm] = &[
    Algorithm::Direct,
    Algorithm::Vlb,
    Algorithm::Opera,
    Algorithm::Ucmp,
    Algorithm::Hoho,
];
/// Algorithms for a topology that holds still (static, electrical, TA).
const STATIC_ALGOS: &[Algorithm] = &[
    Algorithm::Direct,
    Algorithm::ShortestPath,
    Algorithm::Ecmp,
    Algorithm::Ksp,
];

/// Algorithms of a fat tree's switches (SOPA and its baselines).
const FATTREE_ALGOS: &[Algorithm] = &[
    Algorithm::Ecmp,
    Algorithm::Rps,
    Algorithm::Sopa,
    Algorithm::Hedera,
];

fn algo_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Direct => "direct",
        Algorithm::Vlb => "vlb",
        Algorithm::Opera => "opera",
        Algorithm::Ucmp => "ucmp",
        Algorithm::Hoho => "hoho",
        Algorithm::ShortestPath => "shortest_path",
        Algorithm::Ecmp => "ecmp",
        Algorithm::Ksp => "ksp",
        Algorithm::Rps => "rps",
        Algorithm::Sopa => "sopa",
        Algorithm::Hedera => "hedera",
    }
}

pub(super) fn check_routing(c: &mut Checker, cfg: &Config) {
    let r = &cfg.routing;
    let (allowed, why) = if cfg.is_cyclic() {
        (
            CYCLIC_ALGOS,
            format!(
                "a traffic-oblivious cyclic schedule (topology {})",
                cfg.topology.kind().name()
            ),
        )
    } else if cfg.fabric == FabricKind::FatTree {
        (FATTREE_ALGOS, "a fat tree (fabric \"fattree\")".into())
    } else if cfg.mode == Mode::TA {
        (STATIC_ALGOS, "mode TA (each topology holds still)".into())
    } else if cfg.fabric == FabricKind::Electrical {
        (STATIC_ALGOS, "an electrical fabric".into())
    } else {
        (STATIC_ALGOS, "a static topology".into())
    };
    if !allowed.contains(&r.algorithm) {
        let list: Vec<&str> = allowed.iter().map(|a| algo_name(*a)).collect();
        c.err(
            "$.routing.algorithm",
            format!(
                "expected one of {} for {why}, got {:?}{}",
                list.join(", "),
                algo_name(r.algorithm),
                if FATTREE_ALGOS.contains(&r.algorithm) && !allowed.contains(&r.algorithm) {
                    " (rps, sopa and hedera route a fat tree: fabric \"fattree\")"
                } else {
                    ""
                }
            ),
        );
    }
    match r.hedera_interval {
        Some(_) if r.algorithm != Algorithm::Hedera => c.err(
            "$.routing.hedera_interval",
            "expected no hedera_interval: only routing.algorithm \"hedera\" schedules flows",
        ),
        Some(Nanos(0)) => c.err(
            "$.routing.hedera_interval",
            "expected a positive duration, got 0ns",
        ),
        _ => {}
    }
    if r.failure_detection.is_some() && cfg.fabric != FabricKind::FatTree {
        c.err(
            "$.routing.failure_detection",
            "expected no failure_detection: only a fat tree (fabric \"fattree\") withdraws paths over failed links",
        );
    }
    match r.bulk_threshold {
        Some(_) if r.algorithm != Algorithm::Opera => c.err(
            "$.routing.bulk_threshold",
            "expected no bulk_threshold: only routing.algorithm \"opera\" has a bulk class (UCMP computes its own thresholds)",
        ),
        Some(0) => c.err(
            "$.routing.bulk_threshold",
            "expected at least 1 byte, got 0",
        ),
        _ => {}
    }
    if r.bulk != BulkTransport::Direct && r.algorithm != Algorithm::Opera {
        c.err(
            "$.routing.bulk",
            "expected no bulk: only routing.algorithm \"opera\" has a bulk class",
        );
    }
    if r.k == Some(0) {
        c.err("$.routing.k", "expected at least 1, got 0");
    }
    match r.max_hop {
        Some(0) => c.err("$.routing.max_hop", "expected at least 1 hop, got 0"),
        Some(h) if h != 1 && r.algorithm == Algorithm::Direct => c.err(
            "$.routing.max_hop",
            format!("expected 1 (or leave it out): direct routing takes one hop, got {h}"),
        ),
        _ => {}
    }
}
