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
use crate::units::{BitsPerSec, Nanos};

/// The time model's parameters, read from a config once: what the data
/// plane (`swtor::Timing`) and the controller's window and rate functions
/// below both use (`Compiled::timing()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeModel {
    pub slice: Nanos,
    pub guardband: Nanos,
    /// OCS reconfiguration delay (0 without an OCS).
    pub reconfiguration: Nanos,
    pub propagation: Nanos,
    pub link_rate: BitsPerSec,
    /// Rate of the electrical port of a hybrid fabric (`tors.electrical_rate`
    /// or `ta.electrical_rate`).
    pub electrical_rate: Option<BitsPerSec>,
    pub host_rate: BitsPerSec,
    /// Bytes per calendar queue.
    pub queue_capacity: u64,
    /// Bytes a ToR's calendar queues share (`tors.buffer_capacity`;
    /// `u64::MAX`: no shared limit).
    pub buffer_capacity: u64,
}

impl TimeModel {
    pub fn from_config(cfg: &Config) -> TimeModel {
        TimeModel {
            slice: cfg.slice.duration,
            guardband: cfg.slice.guardband,
            reconfiguration: cfg
                .ocs
                .as_ref()
                .map(|o| o.reconfiguration_delay)
                .unwrap_or_default(),
            propagation: cfg.slice.propagation,
            link_rate: cfg.tors.link_rate,
            electrical_rate: cfg.electrical_rate(),
            host_rate: cfg.tors.host_link_rate,
            queue_capacity: cfg.queue_capacity_bytes(),
            buffer_capacity: cfg.tors.buffer_capacity.unwrap_or(u64::MAX),
        }
    }

    /// Dark time at the start of a slice on a circuit that changed: the
    /// guardband and the OCS reconfiguration overlap, so the larger counts.
    pub fn dark(&self) -> Nanos {
        self.guardband.max(self.reconfiguration)
    }

    /// The rate of uplink `port`: the electrical rate for the electrical
    /// port of a hybrid fabric (one with optical uplinks too), else the
    /// link rate.
    pub fn port_rate(&self, s: &Schedule, port: crate::PortId) -> BitsPerSec {
        match self.electrical_rate {
            Some(r) if s.is_electrical(port) && s.optical_uplinks() > 0 => r,
            _ => self.link_rate,
        }
    }

    /// [`TimeModel::port_rate`] of every uplink, in port order.
    pub fn port_rates(&self, s: &Schedule) -> Vec<BitsPerSec> {
        (0..s.uplinks())
            .map(|p| self.port_rate(s, p as crate::PortId))
            .collect()
    }
}

/// Dark time at the start of a slice on a circuit that changed
/// ([`TimeModel::dark`]).
pub fn reconfig_dark(cfg: &Config) -> Nanos {
    TimeModel::from_config(cfg).dark()
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

/// True when `ep`'s circuit in `ts` carries at least one frame of
/// `tors.max_frame` bytes inside its usable window at the port's rate. A
/// circuit that is shorter can carry nothing useful, so routing avoids it.
/// Electrical ports and one-slice schedules (the circuit never goes dark)
/// always carry frames.
pub fn carries_frame(cfg: &Config, s: &Schedule, ts: SliceId, ep: Endpoint) -> bool {
    if s.is_electrical(ep.port) || s.slices() == 1 {
        return true;
    }
    usable_bytes(cfg, s, ts, ep) >= cfg.max_frame()
}

/// Circuits whose usable window cannot carry one `tors.max_frame` frame,
/// as `(slice, transmitter)`, in slice then ToR then port order.
pub fn short_windows(cfg: &Config, s: &Schedule) -> Vec<(SliceId, Endpoint)> {
    let mut v = Vec::new();
    if s.slices() == 1 {
        return v;
    }
    for ts in 0..s.slices() as SliceId {
        for t in 0..s.tors() {
            for p in 0..s.optical_uplinks() {
                let ep = Endpoint::new(t as crate::TorId, p as crate::PortId);
                if s.peer(ts, ep).is_some() && !carries_frame(cfg, s, ts, ep) {
                    v.push((ts, ep));
                }
            }
        }
    }
    v
}

/// The schedule routing uses: `s` without the circuits of
/// [`short_windows`], or `None` when every circuit carries a frame (route
/// on `s` itself). Tables built from its paths are valid on `s`.
pub fn routable(cfg: &Config, s: &Schedule) -> Option<(Schedule, usize)> {
    let short = short_windows(cfg, s);
    if short.is_empty() {
        return None;
    }
    let mut view = s.clone();
    for &(ts, ep) in &short {
        view.cut(ts, ep);
    }
    Some((view, short.len()))
}

/// The rate of uplink `port`: the electrical rate for the electrical port
/// of a hybrid fabric, else the link rate.
pub fn port_rate(cfg: &Config, s: &Schedule, port: crate::PortId) -> BitsPerSec {
    TimeModel::from_config(cfg).port_rate(s, port)
}

// The shared slice clock (slice = floor((t - epoch) / d) mod S) lives with
// the data plane that reads it per packet: swtor::SliceClock (swtor/src/clock.rs).
