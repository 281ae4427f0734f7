//! The slice clock (REFERENCE "Time model"): every process on the machine
//! shares CLOCK_MONOTONIC, so the slice of a time `t` is
//! `floor((t - epoch) / d) mod S`, computed per packet from its own timestamp
//! instead of flipping state from a timer.

/// CLOCK_MONOTONIC in nanoseconds (the same clock `std::time::Instant` uses
/// on Linux, but as a number other processes can compare with).
#[inline]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists
    // on Linux, so the call cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Maps monotonic time to (slice, cycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceClock {
    /// CLOCK_MONOTONIC ns of the start of slice 0 of cycle 0.
    pub epoch: u64,
    /// Slice duration in ns (> 0).
    pub slice: u64,
    /// Slices per cycle (>= 1).
    pub slices: u64,
}

impl SliceClock {
    /// A clock whose epoch is a cycle boundary before `now`, shifted by half
    /// a slice from a whole number of cycles since the clock's zero (a
    /// deterministic function of the timing, so two fabrics started with the
    /// same timing agree on slice numbers). The half-slice shift keeps slice
    /// boundaries off multiples of the kernel tick (4 ms at HZ=250), whose
    /// handling delayed ~26% of 1 ms boundaries by 10-60 µs when they
    /// coincided (docs/benchmarks.md, "Shortest slice").
    pub fn aligned(now: u64, slice: u64, slices: u64) -> SliceClock {
        let slice = slice.max(1);
        let slices = slices.max(1);
        let cycle = slice * slices;
        SliceClock {
            epoch: (now / cycle * cycle).saturating_sub(cycle) + slice / 2,
            slice,
            slices,
        }
    }

    /// Ns since the epoch (0 before it).
    #[inline]
    fn since(&self, t: u64) -> u64 {
        t.saturating_sub(self.epoch)
    }

    /// Absolute slot number of `t` (slices since the epoch).
    #[inline]
    pub fn slot(&self, t: u64) -> u64 {
        self.since(t) / self.slice
    }

    /// `(slice, cycle)` of time `t`.
    #[inline]
    pub fn slice_of(&self, t: u64) -> (u16, u64) {
        let n = self.slot(t);
        ((n % self.slices) as u16, n / self.slices)
    }

    /// Start time of the slot containing `t`.
    #[inline]
    pub fn slot_start(&self, t: u64) -> u64 {
        self.epoch + self.slot(t) * self.slice
    }

    /// Start time of absolute slot `n`.
    #[inline]
    pub fn start_of_slot(&self, n: u64) -> u64 {
        self.epoch + n * self.slice
    }
}

/// Applies a signed offset to a time (the ToR clock-error test hook).
#[inline]
pub fn offset(t: u64, off: i64) -> u64 {
    t.saturating_add_signed(off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_math() {
        let c = SliceClock {
            epoch: 1_000,
            slice: 100,
            slices: 3,
        };
        assert_eq!(c.slice_of(1_000), (0, 0));
        assert_eq!(c.slice_of(1_099), (0, 0));
        assert_eq!(c.slice_of(1_100), (1, 0));
        assert_eq!(c.slice_of(1_299), (2, 0));
        assert_eq!(c.slice_of(1_300), (0, 1));
        assert_eq!(c.slot_start(1_250), 1_200);
        // Before the epoch everything is slot 0.
        assert_eq!(c.slice_of(10), (0, 0));
    }

    #[test]
    fn aligned_epoch_is_half_a_slice_off_a_cycle_boundary_not_after_now() {
        let c = SliceClock::aligned(12_345, 100, 4);
        assert_eq!(c.epoch, 11_650);
        assert!(c.epoch <= 12_345);
        assert_eq!(c.slice_of(12_345), (2, 1));
        let t = monotonic_ns();
        assert!(monotonic_ns() >= t);
    }
}
