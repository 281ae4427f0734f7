//! RotorLB's bulk below the calendar queues (`crate::rotorlb`): each
//! calendar queue has a bulk queue under it that an uplink sends from only
//! when the calendar queue is empty, so low-latency frames go first, as
//! Opera's ToRs give them priority. Low-latency admission does not count
//! the bulk below it; bulk admission counts both. What a slot leaves of its
//! bulk goes back to RotorLB ([`Calendar::take_bulk`]) to be offered again,
//! not kept a cycle for a circuit that is gone.

use super::{Calendar, Refusal};
use crate::counters::Counters;
use crate::lookup::Step;
use crate::pool::{FramePool, FrameQueue};
use lh_ctrl::{PortId, SliceId, TorId};

impl Calendar {
    /// RotorLB is on: a bulk queue under each calendar queue.
    pub(crate) fn set_bulk(&mut self) {
        self.low = vec![FrameQueue::default(); self.cal.len()];
    }

    /// Bytes in the bulk queue under calendar queue `q`.
    #[inline]
    pub(super) fn low_bytes(&self, q: usize) -> u64 {
        self.low.get(q).map_or(0, |x| x.bytes)
    }

    /// Admission of a bulk frame of `len` bytes to uplink `port` of `tor`
    /// in the current slot (`slice` of `slot`, ToR time `tnow`): the queue,
    /// if the circuit can still carry it in the slot after everything
    /// queued for it.
    pub(crate) fn admit_bulk(
        &self,
        tor: TorId,
        port: PortId,
        slice: SliceId,
        slot: u64,
        tnow: u64,
        len: u64,
    ) -> Result<usize, Refusal> {
        let step = Step { port, depart: None };
        self.admit_above(tor, step, slice, slot, tnow, len, true)
    }

    /// Puts bulk frame `i` into the bulk queue `q` (from
    /// [`Calendar::admit_bulk`]) of `(tor, port)`, towards ToR `dst`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_bulk(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tor: TorId,
        dst: TorId,
        port: PortId,
        q: usize,
        i: u32,
        tnow: u64,
    ) {
        super::stamp(pool, i, dst, tnow);
        self.low[q].push(pool, i);
        self.queued(pool, c, tor, port, i, tnow);
    }

    /// The bulk uplink `port` of `tor` did not send in slice `slice`: out
    /// of the calendar, still counted `queued`.
    pub(crate) fn take_bulk(&mut self, tor: TorId, port: PortId, slice: SliceId) -> FrameQueue {
        let tu = tor as usize * self.uplinks + port as usize;
        let Some(q) = self.low.get_mut(tu * self.s + slice as usize) else {
            return FrameQueue::default();
        };
        let fq = std::mem::take(q);
        let t = tor as usize;
        self.tor_bytes[t] -= fq.bytes;
        self.pending[tu] -= fq.frames;
        self.tor_pending[t] -= fq.frames;
        if self.tor_pending[t] == 0 {
            self.active.remove(t);
        }
        fq
    }
}
