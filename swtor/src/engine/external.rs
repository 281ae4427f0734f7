//! The engine's side of external ToRs (BMv2, docs/p4.md): the frames the
//! OCS hands them, paced to what they take in (crate::pacer), the tagged
//! frames they send, and their rotation frames.

use super::Engine;
use crate::afpacket::RxFrame;
use crate::calendar::Refusal;
use crate::clock::offset;
use crate::counters::DropReason;
use crate::port::Port;
use crate::wire;
use lh_ctrl::{PortId, TorId};

impl<P: Port> Engine<P> {
    /// Sends the external ToRs what their windows allow (crate::pacer).
    pub(super) fn release_paced(&mut self, now: u64) -> bool {
        if self.pacer.waiting() == 0 {
            return false;
        }
        let mut busy = false;
        for k in 0..self.pacer.len() {
            loop {
                self.ext_tx.clear();
                self.pacer
                    .release(k, now, crate::afpacket::BATCH, &mut self.ext_tx);
                let n = self.ext_tx.len();
                if n == 0 {
                    break;
                }
                busy = true;
                let sent = match self.port.send_batch(&self.pool, &self.ext_tx) {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::debug!("external uplink transmit: {e}");
                        0
                    }
                };
                for &(i, _) in &self.ext_tx[..sent] {
                    self.pool.release(i);
                }
                self.c.queued -= sent as u64;
                self.c.to_external += sent as u64;
                self.pacer.sent(k, sent);
                if sent < n {
                    // The socket is full: the rest wait, first in line.
                    self.pacer.put_back(k, &self.ext_tx[sent..]);
                    self.ext_tx.clear();
                    break;
                }
                self.ext_tx.clear();
                if n < crate::afpacket::BATCH {
                    break;
                }
            }
        }
        busy
    }

    /// Sends the frames the OCS delivered to external ToRs; what the port
    /// does not take is dropped as `tx_error` (they left `queued` already).
    pub(super) fn flush_external(&mut self) {
        let sent = match self.port.send_batch(&self.pool, &self.ext_tx) {
            Ok(n) => n,
            Err(e) => {
                tracing::debug!("external uplink transmit: {e}");
                0
            }
        };
        for (k, &(i, _)) in self.ext_tx.iter().enumerate() {
            if k < sent {
                self.c.to_external += 1;
            } else {
                self.c.drop_one(DropReason::TxError);
            }
            self.pool.release(i);
        }
        self.ext_tx.clear();
    }

    /// A frame an external ToR sent on uplink `tu` (received at true time
    /// `now`): strip its departure tag and put it into that calendar queue,
    /// without a pipeline (the ToR decided); only the buffer is checked.
    pub(super) fn external_ingress(&mut self, f: RxFrame, tu: usize, now: u64) {
        let i = f.idx;
        self.c.from_external += 1;
        let tag = if f.truncated {
            return self.drop_frame(i, DropReason::TooBig);
        } else {
            match wire::shim_strip_departure(&mut self.pool, i) {
                Some(t) => t,
                None => return self.drop_frame(i, DropReason::BadHeader),
            }
        };
        let tor = (tu / self.uplinks) as TorId;
        let port = (tu % self.uplinks) as PortId;
        // The destination ToR (the electrical fabric forwards by it).
        if wire::ipv4_dst(self.pool.data(i)).is_none() {
            return self.drop_frame(i, DropReason::BadHeader);
        }
        let dst = match self.hosts.dest(self.pool.data(i)) {
            Some(h) => self.hosts.tor(h),
            None => return self.drop_frame(i, DropReason::UnknownHost),
        };
        let len = self.pool.meta(i).wire_len();
        let q = match self.cal.admit_buffer(tor, port, tag.slice, len) {
            Ok(q) => q,
            Err(Refusal::Full) => return self.drop_frame(i, DropReason::QueueFull),
            Err(_) => return self.drop_frame(i, DropReason::BadHeader),
        };
        let tnow = offset(now, self.timing.tor_clock_offset);
        let slot = self.clock.slot(tnow) as u32;
        if (tag.slot.wrapping_sub(slot) as i32) < 0 {
            // BMv2 was slow: the slot passed; the frame waits for the next
            // occurrence of its slice.
            self.c.late_from_tor += 1;
        }
        self.pool.meta_mut(i).tag = 0;
        self.cal
            .enqueue(&mut self.pool, &mut self.c, tor, dst, port, q, i, tnow);
    }

    /// One rotation frame per external ToR on its CPU port at every slot
    /// start (ToR clock); a slot the thread missed entirely is skipped.
    pub(super) fn send_rotation(&mut self, now: u64) {
        let slot = self.clock.slot(offset(now, self.timing.tor_clock_offset));
        if slot == self.rotation_slot {
            return;
        }
        self.rotation_slot = slot;
        let slice = (slot % self.s as u64) as u16;
        self.ext_tx.clear();
        for k in 0..self.ext_cpu.len() {
            let Some(i) = self.pool.alloc_from(&[0u8; wire::ROTATION_FRAME_LEN]) else {
                break;
            };
            wire::rotation_frame(self.pool.data_mut(i), slice, slot as u32);
            self.ext_tx.push((i, self.ext_cpu[k].1));
        }
        let sent = self.port.send_batch(&self.pool, &self.ext_tx).unwrap_or(0);
        self.c.rotation_tx += sent as u64;
        for &(t, _) in &self.ext_cpu[..sent] {
            self.pacer.sent_outside(t as usize, 1);
        }
        for &(i, _) in &self.ext_tx {
            self.pool.release(i);
        }
        self.ext_tx.clear();
    }
}
