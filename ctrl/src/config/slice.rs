//! `slice`: the time slice (duration, guardband, propagation), and what a
//! slice is worth that follows from it: the dark time at its start, how
//! long one topology holds, the bytes an uplink carries in it and the
//! calendar queues' buffer.

use super::{Config, Mode};
use crate::units::Nanos;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SliceTiming {
    /// Slice duration (TO). In TA mode the topology holds for
    /// `ta.update_interval` instead, and this is the data-plane tick.
    pub duration: Nanos,
    /// Dead time at the start of a slice on a circuit that changed.
    pub guardband: Nanos,
    /// One-way propagation delay per fabric link (emulated in software).
    #[serde(default)]
    pub propagation: Nanos,
}

impl Config {
    /// OCS reconfiguration delay (zero for an electrical fabric).
    pub fn reconfiguration_delay(&self) -> Nanos {
        self.ocs
            .as_ref()
            .map(|o| o.reconfiguration_delay)
            .unwrap_or_default()
    }

    /// Dark time at the start of a slice on a changed circuit:
    /// `max(guardband, reconfiguration_delay)` (they overlap, paper §9.3).
    pub fn dark_time(&self) -> Nanos {
        self.slice.guardband.max(self.reconfiguration_delay())
    }

    /// How long one topology holds: the slice in TO mode, the update interval
    /// in TA mode (falling back to the slice if `ta` is absent).
    pub fn topology_period(&self) -> Nanos {
        match (self.mode, &self.ta) {
            (Mode::TA, Some(ta)) => ta.update_interval,
            _ => self.slice.duration,
        }
    }

    /// Bytes one uplink carries in one slice of usable time:
    /// `link_rate × (duration − max(guardband, reconfiguration_delay))`.
    /// In TA mode circuits change only every `ta.update_interval`, so a slice
    /// (the data-plane tick) loses only the guardband.
    pub fn bytes_per_slice(&self) -> u64 {
        let dark = match self.mode {
            Mode::TO => self.dark_time(),
            Mode::TA => self.slice.guardband,
        };
        let usable = Nanos(self.slice.duration.0.saturating_sub(dark.0));
        self.tors.link_rate.bytes_in(usable)
    }

    /// Calendar-queue buffer in bytes: `tors.queue_capacity`, or eight
    /// slices' worth of bytes and at least 64 KiB. The buffer is separate
    /// from what a slice can carry ([`Config::bytes_per_slice`], which
    /// slice-miss detection uses): frames beyond a slice's capacity that no
    /// alternate takes wait a cycle in the buffer instead of being lost.
    pub fn queue_capacity_bytes(&self) -> u64 {
        self.tors
            .queue_capacity
            .unwrap_or_else(|| (8 * self.bytes_per_slice()).max(64 * 1024))
    }
}
