//! The data-plane engine: composes host ports ([`crate::host`]), the native
//! ToR pipeline ([`crate::tor`]), calendar queues with queue rotation
//! ([`crate::calendar`]), the OCS ([`crate::ocs::Ocs`]) and uplink taps
//! ([`crate::capture`]). One OS thread drives it with [`Engine::poll`];
//! nothing here allocates per packet.
//!
//! Times: `now` is CLOCK_MONOTONIC ns (the OCS's truth), passed in. A
//! ToR's view is `now + tor_clock_offset`; every ToR decision (arrival
//! slice, admission, queue rotation, pacing) uses that view, the OCS uses
//! the truth.
//!
//! This file holds the engine's state and its loop ([`Engine::poll`], what
//! it waits for, the OCS's deliveries); building it is in `setup`, its
//! options in `options`, frames from hosts in `ingress`, what a handle
//! reads and changes in `control`, external (P4) ToRs in `external`.

use crate::Timing;
use crate::afpacket::RxFrame;
use crate::calendar::Calendar;
use crate::capture::Captures;
use crate::clock::{SliceClock, offset};
use crate::counters::{Counters, DelayHist, DropReason};
pub use crate::estimator::Occupancy;
use crate::fastmap::IntMap;
use crate::host::Hosts;
pub use crate::nic::FlowPausing;
use crate::nic::Nic;
use crate::ocs::Ocs;
use crate::pool::FramePool;
use crate::pushback::Pushback;
pub use crate::pushback::PushbackTrigger;
use crate::switch::Io;
pub use crate::switch::{FatTreeOptions, Scheme, Switches};
use crate::tor::{Ctx, Pipeline};
use lh_ctrl::TorId;
use std::io;

pub use crate::calendar::PACE_SLACK_NS;
pub use crate::capture::CapturePoint;
pub use crate::port::{MemPort, Port, SentFrame};
pub use crate::tor::MAX_HOPS;

mod control;
mod external;
mod ingress;
mod options;
mod setup;
#[cfg(test)]
mod tests;

pub use options::{EngineOptions, TorFeatures};

pub struct Engine<P: Port> {
    port: P,
    pool: FramePool,
    timing: Timing,
    clock: SliceClock,
    tors: usize,
    uplinks: usize,
    s: usize,
    hosts: Hosts,
    tor: Pipeline,
    cal: Calendar,
    ocs: Ocs,
    cap: Captures,
    /// What each interface the port reports is.
    by_ifindex: IntMap<i32, Iface>,
    /// Per uplink (`tor * uplinks + port`): the ifindex of an external
    /// ToR's uplink veth, 0 for a native ToR.
    ext_uplink: Vec<i32>,
    /// External ToRs and their CPU interfaces.
    ext_cpu: Vec<(TorId, i32)>,
    /// The last ToR-clock slot rotation frames were sent for.
    rotation_slot: u64,
    ext_tx: Vec<(u32, i32)>,
    /// Frames waiting for an external ToR to take them in (issue 41).
    pacer: crate::pacer::Pacer,
    rx: Vec<RxFrame>,
    last_poll: u64,
    /// The loop slept on purpose since the last poll ([`Engine::wait_for_input`]):
    /// the next gap is not a deschedule and does not count in
    /// `max_poll_gap_ns`.
    slept: bool,
    /// Traffic push-back (§7), when enabled.
    pb: Option<Pushback>,
    /// Host NICs (§7), when a host-side mechanism is enabled.
    nic: Option<Nic>,
    /// Fabric delay of delivered frames.
    delay: DelayHist,
    /// Every optical circuit's loss draw (config `tors.link_loss`).
    circuit_loss: Option<crate::netem::Shape>,
    /// The fat tree's switches, when the fabric is one.
    sw: Option<Switches>,
    pub c: Counters,
}

/// What an interface is to the engine.
#[derive(Clone, Copy, Debug)]
enum Iface {
    Host(u16),
    /// An external ToR's uplink `tor * uplinks + port`.
    Uplink(u32),
}

impl<P: Port> Engine<P> {
    /// smoltcp's `poll_at`: the earliest time at which [`Engine::poll`]
    /// can move a frame, as of the last poll (a calendar queue's next
    /// departure or slot boundary, a delay line's next delivery, a host
    /// port's next paced frame); None when the fabric holds nothing, so
    /// that only a new frame from a port can start anything. A time at or
    /// before the last poll means "as soon as you can": the parts that do
    /// not compute their next event (frames held at hosts' NICs, a fat
    /// tree's switches, external ToRs) ask for that while they hold frames.
    pub fn poll_at(&self) -> Option<u64> {
        let now = self.last_poll;
        let next = self.next_event_at();
        let opaque = self.c.held > 0
            || !self.ext_cpu.is_empty()
            || !self.ext_tx.is_empty()
            || (self.sw.is_some() && self.c.queued > 0)
            // Frames somewhere none of the above accounts for.
            || (next.is_none() && self.c.queued > 0);
        if opaque {
            Some(next.map_or(now, |t| t.min(now)))
        } else {
            next
        }
    }

    /// The earliest time at which a calendar queue, RotorLB, the OCS or a
    /// host port can move a frame, as of the last poll; unlike
    /// [`Engine::poll_at`] it leaves out the parts that do not compute
    /// their next event (external ToRs, held frames), so it is never
    /// clamped to "now". A driver that steps time itself (the conformance
    /// harness) polls there, and a frame is stamped when it leaves.
    pub fn next_event_at(&self) -> Option<u64> {
        let now = self.last_poll;
        // Called on every step of a simulation: plain comparisons, not an
        // iterator over an array of options (7% of a flow replay's time).
        let earliest = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
        let a = earliest(self.cal.next_at(now), self.tor.bulk_next_at(now));
        earliest(
            a,
            earliest(self.ocs.next_due(), self.hosts.next_at(&self.pool)),
        )
    }

    /// Until when the live loop may sleep instead of spinning at `now`, if
    /// it may: only while the fabric holds no frame (nothing has a
    /// deadline), so the core goes back to the hosts and to BMv2
    /// (docs/dataplane.md, "An idle data plane sleeps"). The deadline is
    /// the next ToR-clock slot start, when rotation frames are due and
    /// from which the loop spins again, so a boundary is met as punctually
    /// as by a loop that never slept; a frame from a port ends the sleep
    /// earlier ([`Port::wait`]).
    pub fn idle_until(&self, now: u64) -> Option<u64> {
        if self.c.queued > 0 || self.c.held > 0 || !self.ext_tx.is_empty() {
            // (frames waiting in the pacer count as queued)
            return None;
        }
        let off = self.timing.tor_clock_offset;
        let next = self
            .clock
            .start_of_slot(self.clock.slot(offset(now, off)) + 1);
        Some(offset(next, -off))
    }

    /// Sleeps until a frame may be waiting at the port or `timeout_ns`
    /// passed; false when the port cannot (the caller spins).
    pub fn wait_for_input(&mut self, timeout_ns: u64) -> bool {
        let slept = self.port.wait(timeout_ns);
        self.slept |= slept;
        slept
    }

    /// One loop iteration at time `now`: OCS deliveries, host receive,
    /// uplink transmit, host transmit. Returns true if anything moved.
    pub fn poll(&mut self, now: u64) -> io::Result<bool> {
        if self.last_poll != 0 && !std::mem::take(&mut self.slept) {
            let gap = now.saturating_sub(self.last_poll);
            self.c.max_poll_gap_ns = self.c.max_poll_gap_ns.max(gap);
        }
        self.last_poll = now;
        self.port.poll_start(now);
        if !self.ext_cpu.is_empty() {
            self.send_rotation(now);
        }
        self.cal
            .advance_estimator(offset(now, self.timing.tor_clock_offset));
        let mut busy = false;
        if self.nic.is_some() {
            self.apply_pushbacks(now);
            busy |= self.release_held(now);
        }
        busy |= self.deliver_lines(now);
        if let Some(sw) = self.sw.as_mut() {
            sw.notice(now);
        }
        busy |= self.release_links(now);
        busy |= self.receive(now)?;
        if let Some(sw) = self.sw.as_mut() {
            let mut x = Io {
                pool: &mut self.pool,
                c: &mut self.c,
                hosts: &mut self.hosts,
                delay: &mut self.delay,
            };
            busy |= sw.poll(&mut x, now);
        }
        self.tor
            .dispatch_bulk(&mut self.cal, &mut self.pool, &mut self.c, &self.hosts, now);
        busy |= self.cal.rotate(
            &mut self.pool,
            &mut self.c,
            &mut self.ocs,
            &mut self.cap,
            now,
        );
        busy |= self
            .hosts
            .transmit(&mut self.pool, &mut self.c, &mut self.port, now)?;
        Ok(busy)
    }

    /// OCS delay lines: frames due at `now` arrive at the peer ToR.
    fn deliver_lines(&mut self, now: u64) -> bool {
        let mut busy = false;
        while let Some(tu) = self.ocs.due_line(now) {
            while let Some((i, peer_tor, peer_port, at)) = self.ocs.pop_due(&mut self.pool, tu, now)
            {
                self.c.queued -= 1;
                if self.circuit_loss.as_mut().is_some_and(|s| s.lose()) {
                    self.drop_frame(i, DropReason::LinkLoss);
                    continue;
                }
                self.c.ocs_delivered += 1;
                let peer_tu = peer_tor as usize * self.uplinks + peer_port as usize;
                self.cap.tap(peer_tu, at, &self.pool, i);
                busy = true;
                let ifx = self.ext_uplink[peer_tu];
                if ifx != 0 && self.pacer.is_paced(peer_tor as usize) {
                    // Waits until the ToR has room (crate::pacer).
                    if self.pacer.push(peer_tor as usize, i, ifx) {
                        self.c.queued += 1;
                    } else {
                        self.drop_frame(i, DropReason::TorBacklog);
                    }
                    continue;
                }
                if ifx != 0 {
                    // An external ToR: out of its uplink veth, untagged.
                    self.ext_tx.push((i, ifx));
                    if self.ext_tx.len() == crate::afpacket::BATCH {
                        self.flush_external();
                    }
                    continue;
                }
                // forward() re-counts it as queued if it is enqueued again.
                let mut x = Ctx {
                    pool: &mut self.pool,
                    c: &mut self.c,
                    hosts: &mut self.hosts,
                    cal: &mut self.cal,
                    pb: &mut self.pb,
                    delay: &mut self.delay,
                };
                self.tor.forward(&mut x, peer_tor, true, i, now);
            }
            self.ocs.requeue(&self.pool, tu);
        }
        if !self.ext_tx.is_empty() {
            self.flush_external();
        }
        busy | self.release_paced(now)
    }

    #[inline]
    fn drop_frame(&mut self, i: u32, r: DropReason) {
        self.c.drop_one(r);
        self.pool.release(i);
    }
}
