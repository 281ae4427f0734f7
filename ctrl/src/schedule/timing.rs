//! The time model (docs/time-model.md) as functions the data plane and the
//! summaries share, so both agree on when a circuit carries bytes.
//!
//! A slice `[start, start + d)` of a circuit that differs from the previous
//! slice's begins with `dark = max(guardband, reconfiguration_delay)` during
//! which nothing may cross; an unchanged circuit is usable for the whole
//! slice. Usable bytes per slice are `rate x (d - dark)`.

use super::{Endpoint, Schedule};
use crate::SliceId;
use crate::config::Config;
use crate::units::Nanos;

/// Dark time at the start of a slice on a circuit that changed:
/// the guardband and the OCS reconfiguration overlap, so the larger counts.
pub fn reconfig_dark(cfg: &Config) -> Nanos {
    let reconf = cfg
        .ocs
        .as_ref()
        .map(|o| o.reconfiguration_delay)
        .unwrap_or_default();
    cfg.slice.guardband.max(reconf)
}

/// Dark time at the start of slice `ts` on `ep`: [`reconfig_dark`] when the
/// circuit changed since the previous slice, else zero.
pub fn dark_time(cfg: &Config, s: &Schedule, ts: SliceId, ep: Endpoint) -> Nanos {
    if s.changed(ts, ep) {
        reconfig_dark(cfg)
    } else {
        Nanos(0)
    }
}

/// `(start, end)` offsets from the slice start between which `ep`'s circuit
/// in `ts` may carry bytes. Empty (`start == end`) when the dark time fills
/// the slice or the port has no circuit.
pub fn usable_window(cfg: &Config, s: &Schedule, ts: SliceId, ep: Endpoint) -> (Nanos, Nanos) {
    let d = cfg.slice.duration;
    if !s.is_electrical(ep.port) && s.peer(ts, ep).is_none() {
        return (d, d);
    }
    (dark_time(cfg, s, ts, ep).min(d), d)
}

/// Bytes `ep` can send in slice `ts`: port rate x usable window.
pub fn usable_bytes(cfg: &Config, s: &Schedule, ts: SliceId, ep: Endpoint) -> u64 {
    let (a, b) = usable_window(cfg, s, ts, ep);
    port_rate(cfg, s, ep.port).bytes_in(Nanos(b.0 - a.0))
}

/// The rate of uplink `port`: `ta.electrical_rate` for the electrical port
/// of a hybrid fabric, else the link rate.
pub fn port_rate(cfg: &Config, s: &Schedule, port: crate::PortId) -> crate::units::BitsPerSec {
    let hybrid_rate = cfg.ta.as_ref().and_then(|t| t.electrical_rate);
    match hybrid_rate {
        Some(r) if s.is_electrical(port) && s.optical_uplinks() > 0 => r,
        _ => cfg.tors.link_rate,
    }
}

// The shared slice clock (slice = floor((t - epoch) / d) mod S) lives with
// the data plane that reads it per packet: swtor::clock::SliceClock.
