//! Late source-route hops (Opera's paths outlast their slice): a hop that
//! reaches its ToR after its departure slice leaves at once while its
//! circuit is still up, and a hop whose slice is full takes a later slice
//! of the same circuit. On `crate::circuits::CircuitRuns`; used by
//! `crate::tor`.

use super::Calendar;
use crate::lookup::Step;
use lh_ctrl::{PortId, SliceId, TorId};

impl Calendar {
    /// Late source-route hops: a frame that reaches `tor` in slice
    /// `arrival`, after its hop's departure slice `depart` has ended, whose
    /// uplink `port` has kept the same circuit since then. It can leave now:
    /// parked in `depart`'s queue it would wait a whole cycle for a circuit
    /// that is up. (Opera's low-latency paths use only such circuits, so
    /// that a packet late by less than a slice still finds its path.)
    #[inline]
    pub(crate) fn still_up(
        &self,
        tor: TorId,
        port: PortId,
        depart: SliceId,
        arrival: SliceId,
    ) -> bool {
        if !self.rotation || port as usize >= self.uplinks || self.elec[port as usize] {
            return false;
        }
        let late = (arrival as usize + self.s - depart as usize % self.s) % self.s;
        let tu = tor as usize * self.uplinks + port as usize;
        late > 0 && self.runs.before(arrival as usize, tu) >= late
    }

    /// A source-route hop whose departure slice is full (a slice miss):
    /// the first later slice in which uplink `step.port` still has the same
    /// circuit and the frame fits: its queue. `None` if the circuit changes
    /// first.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn admit_while_up(
        &self,
        tor: TorId,
        step: Step,
        arrival: SliceId,
        slot: u64,
        tnow: u64,
        len: u64,
    ) -> Option<usize> {
        if !self.rotation || step.port as usize >= self.uplinks || self.elec[step.port as usize] {
            return None;
        }
        let d = step.depart.unwrap_or(arrival) as usize % self.s;
        let tu = tor as usize * self.uplinks + step.port as usize;
        // Stay within the cycle: a rank past it would be read as an earlier slice.
        let rank = (d + self.s - arrival as usize) % self.s;
        let more = self.runs.after(d, tu).min(self.s - 1 - rank);
        (1..=more).find_map(|k| {
            let next = Step {
                port: step.port,
                depart: Some(((d + k) % self.s) as SliceId),
            };
            self.admit(tor, next, arrival, slot, tnow, len).ok()
        })
    }
}
