//! Queue occupancy estimation (paper §6.2): the ingress pipeline of a
//! Tofino cannot read egress queue depths, so it keeps its own register
//! per calendar queue, increments it by the frame length on enqueue and,
//! at every update interval (a packet-generator tick), decrements the
//! active queue by `rate × interval`, floored at 0.
//!
//! swtor's calendar queues know their exact occupancy; with
//! `tor.occupancy: {"estimated": …}` admission (the slice-miss test)
//! reads this estimate instead, and every engine iteration records the
//! estimate's error against the truth (bytes of the active queue not yet
//! serialised onto the link) in [`crate::Counters`].
//!
//! One refinement over the paper's register: the decrement only counts
//! time inside the usable window of the slice (the ToR knows its
//! guardband), so dark time does not drain the estimate.

use lh_ctrl::units::{BitsPerSec, Nanos};

/// How admission learns a calendar queue's occupancy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Occupancy {
    /// The calendar queue's own byte count (what software can afford).
    #[default]
    Exact,
    /// The paper's estimator with this update interval (ns, > 0).
    Estimated { update_interval: u64 },
}

/// Most slice segments one catch-up may walk (after a long idle gap the
/// estimate of every queue has long been drained or is replaced by later
/// catch-ups).
const MAX_SEGMENTS: u64 = 4096;

/// The estimator registers of every calendar queue.
pub(crate) struct Estimator {
    interval: u64,
    /// Per calendar queue (indexed like `Calendar::cal`): estimated bytes.
    est: Vec<u64>,
    /// Sum of `est` (skips catch-up work when everything is drained).
    total: u64,
    /// ToR time of the last tick applied.
    last_tick: u64,
}

impl Estimator {
    pub(crate) fn new(interval: u64, queues: usize) -> Estimator {
        Estimator {
            interval: interval.max(1),
            est: vec![0; queues],
            total: 0,
            last_tick: 0,
        }
    }

    #[inline]
    pub(crate) fn get(&self, q: usize) -> u64 {
        self.est[q]
    }

    /// Enqueue of `len` bytes into queue `q`.
    #[inline]
    pub(crate) fn add(&mut self, q: usize, len: u64) {
        self.est[q] += len;
        self.total += len;
    }

    /// Applies every tick up to ToR time `tnow`. `epoch` and `slice` define
    /// slots; `s` slices per cycle; `uplinks` queues-sets of `s` queues each
    /// (`tu * s + slice`). `window(slot, tu)` is the usable window of that
    /// uplink in that slot (`[start, end)`, ToR time) and `rate(tu)` its
    /// rate.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn advance(
        &mut self,
        tnow: u64,
        epoch: u64,
        slice: u64,
        s: usize,
        uplinks: usize,
        window: impl Fn(u64, usize) -> (u64, u64),
        rate: impl Fn(usize) -> BitsPerSec,
    ) {
        if tnow < epoch {
            return;
        }
        let tick = epoch + (tnow - epoch) / self.interval * self.interval;
        if self.last_tick == 0 || self.last_tick < epoch {
            self.last_tick = tick;
            return;
        }
        if tick <= self.last_tick {
            return;
        }
        if self.total == 0 {
            self.last_tick = tick;
            return;
        }
        // The registers drain over (last_tick, tick]: walk it slot by slot.
        let (a, b) = (self.last_tick, tick);
        self.last_tick = tick;
        let first = (a - epoch) / slice;
        let last = (b - 1 - epoch) / slice;
        let from = if last - first > MAX_SEGMENTS {
            last - MAX_SEGMENTS
        } else {
            first
        };
        for slot in from..=last {
            let sl = (slot % s as u64) as usize;
            for tu in 0..uplinks {
                let q = tu * s + sl;
                if self.est[q] == 0 {
                    continue;
                }
                let (ws, we) = window(slot, tu);
                let lo = ws.max(a);
                let hi = we.min(b);
                if hi <= lo {
                    continue;
                }
                let d = rate(tu).bytes_in(Nanos(hi - lo)).min(self.est[q]);
                self.est[q] -= d;
                self.total -= d;
            }
            if self.total == 0 {
                break;
            }
        }
    }
}

/// Error statistics of the estimator (bytes), sampled at every engine
/// iteration on every uplink's active queue that is not empty in truth or
/// in the estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EstimatorError {
    pub samples: u64,
    pub max_bytes: u64,
    pub sum_bytes: u64,
}

impl EstimatorError {
    #[inline]
    pub(crate) fn record(&mut self, err: u64) {
        self.samples += 1;
        self.sum_bytes += err;
        self.max_bytes = self.max_bytes.max(err);
    }
    /// Mean absolute error in bytes (0 without samples).
    pub fn mean_bytes(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_bytes as f64 / self.samples as f64
        }
    }
}
