//! Fixed topologies: a one-slice optical schedule ("ring") or an electrical
//! fabric ("full").
//!
//! Ring (a circulant): for j = 0..u/2, uplink 2j of ToR t connects to uplink
//! 2j+1 of ToR (t + j + 1) mod N, so ToR t reaches t ± (j+1). With an odd
//! uplink count the last uplink joins t and t + N/2 (same uplink on both) when
//! N is even, and idles when N is odd. Offsets j+1 that are multiples of N
//! would be self-loops and are left idle. Uplinks 2j and 2j+1 meet in one
//! circuit, so both must be cabled to the same OCS (true for a single OCS;
//! with `"auto"` cabling and several OCSes use an explicit cabling).

use super::{Endpoint, Schedule, ScheduleError, Topo};
use crate::{PortId, TorId};

/// The ring (circulant) generator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ring;

impl Topo for Ring {
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError> {
        if tors < 2 || uplinks == 0 {
            return Err(ScheduleError::Infeasible(format!(
                "a ring needs at least 2 ToRs and 1 uplink, got {tors} ToRs with {uplinks} uplinks"
            )));
        }
        Ok(1)
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        let (n, u) = (s.tors(), s.uplinks());
        for j in 0..u / 2 {
            let off = j + 1;
            if off % n == 0 {
                continue;
            }
            for t in 0..n {
                s.connect(
                    Endpoint::new(t as TorId, (2 * j) as PortId),
                    Endpoint::new(((t + off) % n) as TorId, (2 * j + 1) as PortId),
                    0,
                )?;
            }
        }
        if u % 2 == 1 && n % 2 == 0 {
            let p = (u - 1) as PortId;
            for t in 0..n / 2 {
                s.connect(
                    Endpoint::new(t as TorId, p),
                    Endpoint::new((t + n / 2) as TorId, p),
                    0,
                )?;
            }
        }
        Ok(())
    }
}

/// The ring topology as a one-slice optical schedule.
pub fn ring(tors: usize, uplinks: usize) -> Result<Schedule, ScheduleError> {
    Schedule::from_topo(&Ring, tors, uplinks)
}

/// An electrical fabric where every ToR reaches every ToR.
pub fn full(tors: usize, uplinks: usize) -> Schedule {
    Schedule::electrical(tors, uplinks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::LinkKind;

    #[test]
    fn ring_neighbours() {
        let s = ring(6, 4).unwrap();
        assert_eq!(s.slices(), 1);
        assert_eq!(s.neighbors(0, 0), vec![1, 2, 4, 5]);
        assert_eq!(s.diameter(0, |_| true), Some(2));
        let odd = ring(6, 3).unwrap();
        assert_eq!(odd.neighbors(0, 0), vec![1, 3, 5]);
        let odd_n = ring(5, 1).unwrap();
        assert_eq!(odd_n.circuit_count(), 0);
        assert_eq!(full(4, 2).kind(), LinkKind::Electrical);
    }
}
