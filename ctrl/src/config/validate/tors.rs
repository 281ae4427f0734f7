//! Checks of `tors`: enough ToRs and uplinks, frame and buffer sizes, and
//! a hybrid's electrical uplink only where it means something.

use super::Checker;
use crate::config::{Config, FabricKind, Mode};

pub(super) fn check_tors(c: &mut Checker, cfg: &Config) -> bool {
    let t = &cfg.tors;
    let mut ok = true;
    if t.count < 2 {
        c.err(
            "$.tors.count",
            format!("expected at least 2 ToRs, got {}", t.count),
        );
        ok = false;
    }
    if t.uplinks == 0 {
        c.err(
            "$.tors.uplinks",
            "expected at least 1 uplink per ToR, got 0",
        );
        ok = false;
    }
    if t.hosts_per_tor == 0 {
        c.err(
            "$.tors.hosts_per_tor",
            "expected at least 1 host per ToR, got 0",
        );
    }
    if let Some(f) = t.max_frame.filter(|f| !(64..=65535).contains(f)) {
        c.err(
            "$.tors.max_frame",
            format!("expected the largest frame in bytes, 64..=65535, got {f}"),
        );
    }
    if t.queue_capacity == Some(0) {
        c.err(
            "$.tors.queue_capacity",
            "expected a positive number of bytes (or leave it out for one slice's worth), got 0",
        );
    } else if let Some(q) = t.queue_capacity.filter(|q| *q < 1500) {
        tracing::warn!(
            "$.tors.queue_capacity: {q} bytes cannot hold one 1500-byte frame; large packets will always miss their slice"
        );
    }
    if let Some(b) = t.buffer_capacity.filter(|b| *b < 1500) {
        c.err(
            "$.tors.buffer_capacity",
            format!(
                "expected the bytes a ToR's calendar queues share, at least one 1500-byte frame (or leave it out for no shared limit), got {b}"
            ),
        );
    }
    // (A zero rate is refused by the parser.)
    if t.electrical_rate.is_some() {
        if cfg.fabric == FabricKind::Electrical {
            c.err(
                "$.tors.electrical_rate",
                "expected no electrical_rate: fabric is electrical (every uplink already is); it adds an electrical uplink to an optical fabric",
            );
        } else if cfg.mode == Mode::TA {
            c.err(
                "$.tors.electrical_rate",
                "expected no electrical_rate with mode TA: a traffic-aware hybrid (c-Through) sets ta.electrical_rate",
            );
        }
    }
    ok
}
