//! Checks of `tor`: the ToR and host systems' mechanisms (occupancy
//! estimation, flow pausing, offloading, push-back).

use super::Checker;
use crate::config::Config;
use crate::units::Nanos;

/// `$.tor`: the ToR and host systems of paper §6–§7.
pub(super) fn check_tor_system(c: &mut Checker, cfg: &Config) {
    use crate::config::{OccupancyMode, PushbackWhen};
    let Some(t) = &cfg.tor else { return };
    if let OccupancyMode::Estimated { update_interval } = t.occupancy {
        if update_interval == Nanos(0) {
            c.err(
                "$.tor.occupancy.estimated.update_interval",
                "expected a positive duration, got 0ns",
            );
        } else if update_interval > cfg.slice.duration {
            c.err(
                "$.tor.occupancy.estimated.update_interval",
                format!(
                    "expected at most one slice ({}), got {update_interval}",
                    cfg.slice.duration
                ),
            );
        }
    }
    if let Some(f) = &t.flow_pausing {
        if f.elephant_bytes == 0 {
            c.err(
                "$.tor.flow_pausing.elephant_bytes",
                "expected a positive byte count, got 0",
            );
        }
        if f.aging == Nanos(0) {
            c.err(
                "$.tor.flow_pausing.aging",
                "expected a positive duration, got 0ns",
            );
        }
    }
    if t.offload.is_some_and(|o| o.queues == 0) {
        c.err("$.tor.offload.queues", "expected at least 1, got 0");
    }
    if t.pushback == Some(PushbackWhen::AfterReroutes(0)) {
        c.err(
            "$.tor.pushback.after_reroutes",
            "expected at least 1 (use \"first_rejection\" to push back at once)",
        );
    }
}
