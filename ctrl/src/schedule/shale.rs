//! Shale (N = n^h): directed cyclic shifts over the base-n digits of a ToR
//! id. An epoch has h(n-1) slots; in slot t the phase is p = t / (n-1) and
//! the shift l = t mod (n-1), and ToR x sends to x with digit p (digit 0 the
//! least significant) increased by l+1 mod n. Each slot is a permutation,
//! built with `connect_directed` on uplink 0 (other uplinks stay idle): ToR
//! x's transmitter reaches y's receiver while x's receiver hears another ToR.

use super::{Endpoint, Schedule, ScheduleError, Topo};
use crate::{SliceId, TorId};

/// The Shale generator for `h` digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shale {
    pub h: u32,
}

/// `n` with `n^h == tors`, if any.
pub fn radix(tors: usize, h: u32) -> Option<usize> {
    if h == 0 || tors < 2 {
        return None;
    }
    let mut n = 2usize;
    loop {
        let p = n.checked_pow(h)?;
        if p == tors {
            return Some(n);
        }
        if p > tors {
            return None;
        }
        n += 1;
    }
}

/// Where ToR `x` sends in slot `t` of the epoch (`n^h` ToRs).
pub fn shift_target(x: usize, n: usize, t: usize) -> usize {
    let p = t / (n - 1);
    let l = t % (n - 1);
    let w = n.pow(p as u32);
    let digit = (x / w) % n;
    x - digit * w + ((digit + l + 1) % n) * w
}

impl Topo for Shale {
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError> {
        let n = radix(tors, self.h).ok_or_else(|| {
            ScheduleError::Infeasible(format!(
                "shale needs the ToR count to be n^h for some n >= 2 (h = {}); {tors} is not",
                self.h
            ))
        })?;
        if uplinks == 0 {
            return Err(ScheduleError::Infeasible(
                "shale needs at least 1 uplink".into(),
            ));
        }
        let slots = self.h as usize * (n - 1);
        if slots > SliceId::MAX as usize {
            return Err(ScheduleError::Infeasible(format!(
                "shale epoch of {slots} slots exceeds the slice id range"
            )));
        }
        Ok(slots)
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        let tors = s.tors();
        let n = radix(tors, self.h)
            .ok_or_else(|| ScheduleError::Infeasible(format!("{tors} is not n^{}", self.h)))?;
        for t in 0..s.slices() {
            for x in 0..tors {
                let y = shift_target(x, n, t);
                s.connect_directed(
                    Endpoint::new(x as TorId, 0),
                    Endpoint::new(y as TorId, 0),
                    t as SliceId,
                )?;
            }
        }
        Ok(())
    }
}

/// The Shale schedule for `tors = n^h` ToRs.
pub fn shale(tors: usize, uplinks: usize, h: u32) -> Result<Schedule, ScheduleError> {
    Schedule::from_topo(&Shale { h }, tors, uplinks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_and_shifts() {
        assert_eq!(radix(27, 3), Some(3));
        assert_eq!(radix(16, 2), Some(4));
        assert_eq!(radix(10, 2), None);
        assert_eq!(radix(7, 1), Some(7));
        // 9 = 3^2: x = 4 is digits (1, 1). Slot 2: phase 1, shift 1 -> digit 1 becomes 2.
        assert_eq!(shift_target(4, 3, 2), 7);
        assert_eq!(shift_target(4, 3, 0), 5);
        assert_eq!(shift_target(5, 3, 0), 3);
    }

    #[test]
    fn builds_directed_epoch() {
        let s = shale(8, 2, 3).unwrap();
        assert_eq!(s.slices(), 3);
        assert_eq!(s.peer(0, Endpoint::new(0, 0)), Some(Endpoint::new(1, 0)));
        assert_eq!(s.peer(0, Endpoint::new(1, 0)), Some(Endpoint::new(0, 0)));
        assert_eq!(s.peer(1, Endpoint::new(0, 0)), Some(Endpoint::new(2, 0)));
        assert_eq!(s.peer(1, Endpoint::new(2, 0)), Some(Endpoint::new(0, 0)));
        assert!(s.peer(0, Endpoint::new(0, 1)).is_none());
        assert!(shale(10, 1, 2).is_err());
    }
}
