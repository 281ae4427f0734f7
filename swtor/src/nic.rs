//! The host system (paper §7): a NIC model between each host's veth and its
//! ToR, inside the data plane (the native ToR receives every host frame
//! first). It receives the ToR's push-back broadcasts ([`crate::pushback`])
//! and holds every frame towards a paused destination ToR until the pause
//! ends, in host memory (counted as `held`, apart from the ToR's buffer).
//! Frames of one host towards one destination ToR stay in order: once one
//! is held, later ones queue behind it. Held frames leave paced at the
//! host link rate.

use crate::clock::SliceClock;
use crate::counters::Counters;
use crate::pool::{FramePool, FrameQueue};
use crate::pushback::PushbackMsg;
use lh_ctrl::TorId;
use lh_ctrl::units::BitsPerSec;

/// How far a NIC's pacing clock may trail (one poll's lateness).
const NIC_SLACK_NS: u64 = 2_000;

pub(crate) struct Nic {
    tors: usize,
    clock: SliceClock,
    /// Per host: its ToR.
    host_tor: Vec<TorId>,
    /// `[host * tors + dst]`: ToR time until which the host must not send
    /// to ToR `dst`.
    pause_until: Vec<u64>,
    /// `[host * tors + dst]`: frames held.
    held: Vec<FrameQueue>,
    /// Keys with held frames (each once).
    active: Vec<u32>,
    is_active: Vec<bool>,
    /// Per host: bytes held, and the limit (host memory).
    host_bytes: Vec<u64>,
    limit: u64,
    /// Per host: when its link is free again (held frames leave paced at
    /// the host link rate, as a NIC sends them).
    next_free: Vec<u64>,
    rate: BitsPerSec,
    cursor: usize,
}

impl Nic {
    pub(crate) fn new(
        host_tor: Vec<TorId>,
        tors: usize,
        clock: SliceClock,
        limit: u64,
        rate: BitsPerSec,
    ) -> Nic {
        let n = host_tor.len() * tors;
        Nic {
            tors,
            clock,
            pause_until: vec![0; n],
            held: vec![FrameQueue::default(); n],
            active: Vec::with_capacity(n),
            is_active: vec![false; n],
            host_bytes: vec![0; host_tor.len()],
            next_free: vec![0; host_tor.len()],
            rate,
            host_tor,
            limit,
            cursor: 0,
        }
    }

    /// A push-back message arrived at ToR `m.sender_tor` at ToR time
    /// `tnow`: broadcast to its hosts. Returns how many hosts it reached.
    pub(crate) fn pushback(&mut self, m: &PushbackMsg, tnow: u64) -> u64 {
        let cur = self.clock.slot(tnow);
        // The low 32 bits of the slot, up to 2^31 slots either side of now.
        let ahead = m.slot.wrapping_sub(cur as u32) as i32 as i64;
        let slot = (cur as i64 + ahead).max(0) as u64;
        let until = self.clock.start_of_slot(slot + 1);
        let mut n = 0;
        for (h, &t) in self.host_tor.iter().enumerate() {
            if t == m.sender_tor {
                let k = h * self.tors + m.dst_tor as usize;
                self.pause_until[k] = self.pause_until[k].max(until);
                n += 1;
            }
        }
        n
    }

    /// Whether host `h`'s frame towards ToR `dst` must wait at ToR time
    /// `tnow` (paused, or earlier frames still held).
    #[inline]
    pub(crate) fn must_hold(&self, h: u16, dst: TorId, tnow: u64) -> bool {
        let k = h as usize * self.tors + dst as usize;
        self.pause_until[k] > tnow || self.held[k].frames > 0
    }

    /// Holds frame `i`; false (not taken) if the host's memory is full.
    pub(crate) fn hold(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        dst: TorId,
        i: u32,
    ) -> bool {
        let len = pool.meta(i).len as u64;
        if self.host_bytes[h as usize] + len > self.limit {
            c.hold_overflow += 1;
            return false;
        }
        let k = h as usize * self.tors + dst as usize;
        self.held[k].push(pool, i);
        self.host_bytes[h as usize] += len;
        if !self.is_active[k] {
            self.is_active[k] = true;
            self.active.push(k as u32);
        }
        c.held += 1;
        c.held_bytes += len;
        c.held_total += 1;
        true
    }

    /// Starts a release pass ([`Nic::pop_ready`]).
    pub(crate) fn begin_release(&mut self) {
        self.cursor = 0;
    }

    /// The next held frame whose pause is over at ToR time `tnow`, with its
    /// host.
    pub(crate) fn pop_ready(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tnow: u64,
    ) -> Option<(u16, u32)> {
        while self.cursor < self.active.len() {
            let k = self.active[self.cursor] as usize;
            if self.held[k].frames == 0 {
                self.is_active[k] = false;
                self.active.swap_remove(self.cursor);
                continue;
            }
            let h = k / self.tors;
            if self.pause_until[k] > tnow || self.next_free[h] > tnow {
                self.cursor += 1;
                continue;
            }
            let i = self.held[k].pop(pool).expect("non-empty");
            let len = pool.meta(i).len as u64;
            self.next_free[h] = self.next_free[h].max(tnow.saturating_sub(NIC_SLACK_NS))
                + self.rate.time_for(len).0;
            self.host_bytes[h] -= len;
            c.held -= 1;
            c.held_bytes -= len;
            return Some((h as u16, i));
        }
        None
    }

    /// Frames held per host.
    pub(crate) fn held_bytes(&self, h: usize) -> u64 {
        self.host_bytes[h]
    }
}
