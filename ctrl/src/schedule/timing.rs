//! The time model (docs/time-model.md) as functions the data plane and the
//! summaries share, so both agree on when a circuit carries bytes.
//!
//! A slice `[start, start + d)` of a circuit that differs from the previous
//! slice's begins with `dark = max(guardband, reconfiguration_delay)` during
//! which nothing may cross; an unchanged circuit is usable for the whole
//! slice. Usable bytes per slice are `rate x (d - dark)`.

use super::{Endpoint, Schedule};
use crate::config::Config;
use crate::units::Nanos;
use crate::{SliceId, Slot};

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

/// Where a time falls in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceAt {
    /// Slices elapsed since the epoch (absolute slice number).
    pub abs: u64,
    /// `abs mod S`.
    pub ts: SliceId,
    /// Time since the slice started.
    pub offset: Nanos,
}

/// Maps a shared monotonic clock to slices: every ToR computes
/// `slice = floor((t - epoch) / d) mod S` from the same clock, so no ToR
/// needs a timer flip to agree with the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceClock {
    /// Clock reading (ns) at which slice 0 of cycle 0 starts.
    pub epoch: Nanos,
    pub duration: Nanos,
    pub slices: usize,
}

impl SliceClock {
    pub fn new(epoch: Nanos, duration: Nanos, slices: usize) -> Self {
        assert!(duration.0 > 0, "slice duration must be positive");
        SliceClock {
            epoch,
            duration,
            slices: slices.max(1),
        }
    }

    /// The clock for `s` with `cfg`'s slice duration.
    pub fn for_schedule(cfg: &Config, s: &Schedule, epoch: Nanos) -> Self {
        SliceClock::new(epoch, cfg.slice.duration, s.slices())
    }

    /// Where `t` (same clock as `epoch`) falls; `None` before the epoch.
    #[inline]
    pub fn at(&self, t: Nanos) -> Option<SliceAt> {
        let since = t.0.checked_sub(self.epoch.0)?;
        let abs = since / self.duration.0;
        Some(SliceAt {
            abs,
            ts: (abs % self.slices as u64) as SliceId,
            offset: Nanos(since % self.duration.0),
        })
    }

    /// Clock reading at which absolute slice `abs` starts.
    #[inline]
    pub fn start_of(&self, abs: u64) -> Nanos {
        Nanos(self.epoch.0 + abs * self.duration.0)
    }

    /// Clock reading at which slot `slot` (counted from the cycle containing
    /// absolute slice `abs`) starts: how a path's departure slot maps to time.
    #[inline]
    pub fn slot_start(&self, abs: u64, slot: Slot) -> Nanos {
        let cycle_start = abs - abs % self.slices as u64;
        self.start_of(cycle_start + slot as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_maps_time_to_slices() {
        let c = SliceClock::new(Nanos(1_000), Nanos(100), 3);
        assert_eq!(c.at(Nanos(999)), None);
        let a = c.at(Nanos(1_000 + 350)).unwrap();
        assert_eq!((a.abs, a.ts, a.offset), (3, 0, Nanos(50)));
        let a = c.at(Nanos(1_000 + 599)).unwrap();
        assert_eq!((a.abs, a.ts, a.offset), (5, 2, Nanos(99)));
        assert_eq!(c.start_of(3), Nanos(1_300));
        // Slot 4 of the cycle holding absolute slice 5 (cycle 1 = 3..6).
        assert_eq!(c.slot_start(5, 4), Nanos(1_000 + 700));
    }
}
