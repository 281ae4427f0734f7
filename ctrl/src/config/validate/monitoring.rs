//! Checks of `monitoring`: each monitor's ToR and port exist, and it
//! samples at a positive interval.

use super::Checker;
use crate::config::Config;
use crate::units::Nanos;

pub(super) fn check_monitoring(c: &mut Checker, cfg: &Config) {
    let n = cfg.tors.count;
    let u = cfg.tors.uplinks;
    for (i, m) in cfg.monitoring.iter().enumerate() {
        let at = format!("$.monitoring[{i}]");
        if let Some(t) = m.tor.filter(|t| *t >= n) {
            c.err(
                format!("{at}.tor"),
                format!("expected a ToR index below tors.count ({n}), got {t}"),
            );
        }
        if let Some(p) = m.port.filter(|p| *p >= u) {
            c.err(
                format!("{at}.port"),
                format!("expected an uplink index below tors.uplinks ({u}), got {p}"),
            );
        }
        if m.interval == Nanos(0) {
            c.err(
                format!("{at}.interval"),
                "expected a positive duration, got 0ns",
            );
        }
    }
}
