//! Checks of `slice`: a positive duration, a guardband and a
//! reconfiguration delay that leave part of it, a duty cycle worth having.

use super::Checker;
use crate::config::{Config, FabricKind, Mode};
use crate::units::Nanos;

pub(super) fn check_timing(c: &mut Checker, cfg: &Config) {
    let s = &cfg.slice;
    if s.duration == Nanos(0) {
        c.err("$.slice.duration", "expected a positive duration, got 0ns");
        return;
    }
    if s.guardband >= s.duration {
        c.err(
            "$.slice.guardband",
            format!(
                "expected less than slice.duration ({}), got {}",
                s.duration, s.guardband
            ),
        );
    }
    // In TA mode circuits change only every update interval; its checks
    // are in check_mode.
    let reconf = cfg.reconfiguration_delay();
    if cfg.mode == Mode::TO {
        if cfg.ocs.is_some() && reconf >= s.duration {
            c.err(
                "$.ocs.reconfiguration_delay",
                format!(
                    "expected less than slice.duration ({}), got {reconf}",
                    s.duration
                ),
            );
        }
        let dark = cfg.dark_time();
        if dark < s.duration && s.duration.0 < dark.0.saturating_mul(10) {
            tracing::warn!(
                "$.slice.duration: {} is under 10 x max(guardband, reconfiguration_delay) = {}: the duty cycle is below 90%",
                s.duration,
                Nanos(dark.0 * 10)
            );
        }
    }
    // A cyclic schedule's warning waits for the schedule
    // (`schedule::from_config_with_ocs`): one whose circuits never change
    // (a single slice, as a Mininet topology's) has no next circuit.
    if cfg.fabric == FabricKind::Optical && cfg.mode != Mode::TO && s.propagation > cfg.dark_time()
    {
        tracing::warn!(
            "$.slice.propagation: {} exceeds the dark time {} at a slice start: frames sent at the end of a slice may reach the next circuit",
            s.propagation,
            cfg.dark_time()
        );
    }
}
