//! The data-plane engine: native ToRs (time-flow lookup, calendar queues,
//! slice-miss admission, rerouting) and the emulated OCS (independent circuit
//! and guardband checks, propagation delay line). One OS thread drives it
//! with [`Engine::poll`]; nothing here allocates per packet.
//!
//! Times: `now` is CLOCK_MONOTONIC ns (the OCS's truth). A ToR's view is
//! `now + tor_clock_offset`; every ToR decision (arrival slice, admission,
//! queue rotation, pacing) uses that view, the OCS uses the truth.

use crate::afpacket::RxFrame;
use crate::clock::{SliceClock, offset};
use crate::counters::{Counters, DropReason};
use crate::lookup::{LookupIndex, Step};
use crate::pcap::PcapWriter;
use crate::pool::{FramePool, FrameQueue, MAX_FRAME, NIL};
use crate::wire;
use crate::{FabricSpec, Timing};
use lh_ctrl::config::Multipath;
use lh_ctrl::schedule::{Endpoint, LinkKind, Schedule};
use lh_ctrl::tables::Tables;
use lh_ctrl::units::BitsPerSec;
use lh_ctrl::{PortId, SliceId, TorId};
use std::collections::HashMap;
use std::io::{self, BufWriter};
use std::net::Ipv4Addr;

/// Frames may cross at most this many ToRs (guards against table loops).
pub const MAX_HOPS: u8 = 16;
/// How far a paced link's virtual clock may trail real time, so a late loop
/// iteration can catch up with a short burst instead of losing capacity.
pub const PACE_SLACK_NS: u64 = 200_000;
/// Peer-table marker of an electrical port: it reaches the frame's
/// destination ToR (same port index) at any time.
const ELECTRICAL: u32 = u32::MAX - 1;
/// Flow byte counters for UCMP classes (direct-mapped by flow hash).
const FLOW_SLOTS: usize = 1 << 16;

/// A batch-oriented frame port: the host-facing AF_PACKET socket, or a
/// veth-attached external ToR joining the OCS later.
pub trait Port: Send {
    /// Receives frames into fresh pool slots, appending them to `out`, and
    /// stamps each `Meta::t` with its receive time (at least `now`).
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize>;
    /// Sends (pool index, ifindex) frames; returns how many leading frames
    /// were taken. The caller keeps ownership of the slots.
    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize>;
    /// Frames the port lost before the engine saw them (e.g. a full kernel
    /// socket buffer) since the previous call.
    fn take_drops(&mut self) -> u64 {
        0
    }
}

impl Port for crate::afpacket::RawSocket {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        crate::afpacket::RawSocket::recv_batch(self, pool, out, now)
    }
    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        crate::afpacket::RawSocket::send_batch(self, pool, frames)
    }
    fn take_drops(&mut self) -> u64 {
        crate::afpacket::RawSocket::take_drops(self).unwrap_or(0)
    }
}

/// Which frames of a ToR a capture records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapturePoint {
    /// Both directions of an optical uplink, as the OCS sees them: frames the
    /// ToR transmits (stamped at transmit start) and frames the OCS delivers
    /// to it (stamped at delivery).
    Uplink(PortId),
}

struct Host {
    mac: [u8; 6],
    tor: TorId,
    ifindex: i32,
    egress: FrameQueue,
    next_free: u64,
}

struct Capture {
    w: PcapWriter<BufWriter<std::fs::File>>,
    unix_off: i64,
}

pub struct Engine<P: Port> {
    port: P,
    pool: FramePool,
    ix: LookupIndex,
    timing: Timing,
    clock: SliceClock,
    /// Per uplink index: its serialisation rate (electrical ports of a
    /// hybrid fabric run at `Timing::electrical_rate`).
    rate: Vec<BitsPerSec>,
    s: usize,
    rotation: bool,
    tors: usize,
    uplinks: usize,
    dark: u64,
    multipath: Multipath,
    thresholds: Vec<u64>,
    /// `[slice][tor * uplinks + port]`: (peer tor, peer port), u32::MAX =
    /// none, [`ELECTRICAL`] = the frame's destination ToR.
    peer: Vec<u32>,
    /// `[slice][tor * uplinks + port]`: circuit differs from previous slice.
    changed: Vec<bool>,
    /// `[(tor * uplinks + port) * S + slice]`.
    cal: Vec<FrameQueue>,
    /// Frames queued per uplink over all its calendar queues.
    pending: Vec<u32>,
    /// Per uplink: ToR-time when the link is free again (pacing).
    next_free: Vec<u64>,
    /// Per uplink: the OCS delay line (frames in flight, in send order).
    line: Vec<FrameQueue>,
    /// Per ToR: the last slot whose end was accounted (carried_over).
    last_slot: Vec<u64>,
    hosts: Vec<Host>,
    by_ip: HashMap<Ipv4Addr, u16>,
    by_ifindex: HashMap<i32, u16>,
    host_queue_bytes: u64,
    pkt_seq: Vec<u32>,
    flow_bytes: Vec<u64>,
    rx: Vec<RxFrame>,
    tx: Vec<(u32, i32)>,
    tx_host: Vec<u16>,
    captures: Vec<Option<Capture>>,
    last_poll: u64,
    host_rr: usize,
    /// Per uplink: until when its circuit is dark after a runtime
    /// reconfiguration (TA topology update). The number is compared with
    /// each side's own clock, like a switch time announced by a controller:
    /// a ToR whose clock runs ahead sends into the OCS's dark time.
    dark_until: Vec<u64>,
    pub c: Counters,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    Full,
    /// The frame fits the buffer but not what the circuit can still carry
    /// in that slice; carries the queue it would have gone to.
    Miss(usize),
    NoPort,
}

/// Tunables of the engine beyond [`Timing`].
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// Frame slots in the pool (2 KiB each).
    pub pool_frames: usize,
    /// Byte limit of each host port's egress queue.
    pub host_queue_bytes: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            pool_frames: 32 * 1024,
            host_queue_bytes: 4 << 20,
        }
    }
}

impl<P: Port> Engine<P> {
    /// Builds an engine. `ifindex[i]` is the ifindex of `spec.hosts[i].ifname`.
    pub fn new(
        spec: &FabricSpec,
        ifindex: &[i32],
        port: P,
        clock: SliceClock,
        opts: EngineOptions,
    ) -> Result<Engine<P>, crate::FabricError> {
        let (schedule, tables, timing, hosts) =
            (&spec.schedule, &spec.tables, spec.timing, &spec.hosts);
        if ifindex.len() != hosts.len() {
            return Err(crate::FabricError::Spec(
                "one ifindex per host is needed".into(),
            ));
        }
        let tors = schedule.tors();
        let uplinks = schedule.uplinks();
        let s = schedule.slices();
        let ix = LookupIndex::build(tables, tors)?;
        let n = tors * uplinks;
        let (peer, changed) = circuit_tables(schedule);
        let mut by_ip = HashMap::new();
        let mut by_ifindex = HashMap::new();
        let mut hs = Vec::new();
        for (i, h) in hosts.iter().enumerate() {
            if h.tor as usize >= tors {
                return Err(crate::FabricError::Spec(format!(
                    "host {} is on ToR {} but the fabric has {tors} ToRs",
                    h.ip, h.tor
                )));
            }
            by_ip.insert(h.ip, i as u16);
            by_ifindex.insert(ifindex[i], i as u16);
            hs.push(Host {
                mac: h.mac,
                tor: h.tor,
                ifindex: ifindex[i],
                egress: FrameQueue::default(),
                next_free: 0,
            });
        }
        let thresholds = tables
            .classes
            .as_ref()
            .map(|c| c.thresholds.clone())
            .unwrap_or_default();
        let flow_slots = if thresholds.len() > 1 { FLOW_SLOTS } else { 0 };
        Ok(Engine {
            port,
            pool: FramePool::new(opts.pool_frames),
            ix,
            dark: timing.dark().0,
            timing,
            clock,
            rate: port_rates(schedule, &timing),
            s,
            rotation: s > 1,
            tors,
            uplinks,
            multipath: tables.multipath,
            thresholds,
            peer,
            changed,
            cal: vec![FrameQueue::default(); n * s],
            pending: vec![0; n],
            next_free: vec![0; n],
            line: vec![FrameQueue::default(); n],
            last_slot: vec![u64::MAX; tors],
            hosts: hs,
            by_ip,
            by_ifindex,
            host_queue_bytes: opts.host_queue_bytes,
            pkt_seq: vec![0; tors],
            flow_bytes: vec![0; flow_slots],
            rx: Vec::with_capacity(crate::afpacket::BATCH),
            tx: Vec::with_capacity(crate::afpacket::BATCH),
            tx_host: Vec::with_capacity(crate::afpacket::BATCH),
            captures: (0..n).map(|_| None).collect(),
            last_poll: 0,
            host_rr: 0,
            dark_until: vec![0; n],
            c: Counters::default(),
        })
    }

    pub fn clock(&self) -> SliceClock {
        self.clock
    }
    pub fn pool(&self) -> &FramePool {
        &self.pool
    }
    pub fn port_mut(&mut self) -> &mut P {
        &mut self.port
    }

    /// One loop iteration at time `now`: OCS deliveries, host receive,
    /// uplink transmit, host transmit. Returns true if anything moved.
    pub fn poll(&mut self, now: u64) -> io::Result<bool> {
        if self.last_poll != 0 {
            let gap = now.saturating_sub(self.last_poll);
            self.c.max_poll_gap_ns = self.c.max_poll_gap_ns.max(gap);
        }
        self.last_poll = now;
        let mut busy = self.deliver_lines(now);
        busy |= self.receive_hosts(now)?;
        busy |= self.transmit_uplinks(now);
        busy |= self.transmit_hosts(now)?;
        Ok(busy)
    }

    /// A snapshot of the counters (also collects the port's kernel drops).
    pub fn counters(&mut self) -> Counters {
        self.c.port_drops += self.port.take_drops();
        self.c.clone()
    }

    /// Bytes per `[uplink][calendar queue]` of a ToR.
    pub fn queues(&self, tor: TorId) -> Vec<Vec<u64>> {
        if tor as usize >= self.tors {
            return Vec::new();
        }
        (0..self.uplinks)
            .map(|p| {
                let tu = tor as usize * self.uplinks + p;
                self.cal[tu * self.s..(tu + 1) * self.s]
                    .iter()
                    .map(|q| q.bytes)
                    .collect()
            })
            .collect()
    }

    /// Replaces the schedule and tables at time `now` (a traffic-aware
    /// topology update). Queued frames stay where they are; every uplink
    /// whose circuit changed is dark for `max(guardband, reconfiguration)`
    /// from `now`, for the ToR and the OCS alike. The shape (ToRs, uplinks,
    /// slices) must not change.
    pub fn reconfigure(
        &mut self,
        schedule: &Schedule,
        tables: &Tables,
        now: u64,
    ) -> Result<(), crate::FabricError> {
        if (schedule.tors(), schedule.uplinks(), schedule.slices())
            != (self.tors, self.uplinks, self.s)
        {
            return Err(crate::FabricError::Spec(format!(
                "reconfiguration must keep {} ToRs x {} uplinks x {} slices",
                self.tors, self.uplinks, self.s
            )));
        }
        if tables.slices > 1 && tables.slices != self.s {
            return Err(crate::FabricError::Spec(
                "tables and schedule disagree on slices".into(),
            ));
        }
        let ix = LookupIndex::build(tables, self.tors)?;
        let (peer, changed) = circuit_tables(schedule);
        let n = self.tors * self.uplinks;
        for tu in 0..n {
            if (0..self.s).any(|ts| peer[ts * n + tu] != self.peer[ts * n + tu]) {
                self.dark_until[tu] = now + self.dark;
            }
        }
        self.ix = ix;
        self.peer = peer;
        self.changed = changed;
        self.rate = port_rates(schedule, &self.timing);
        self.multipath = tables.multipath;
        self.thresholds = tables
            .classes
            .as_ref()
            .map(|c| c.thresholds.clone())
            .unwrap_or_default();
        if self.thresholds.len() > 1 && self.flow_bytes.is_empty() {
            self.flow_bytes = vec![0; FLOW_SLOTS];
        }
        self.c.reconfigurations += 1;
        Ok(())
    }

    pub fn start_capture(
        &mut self,
        tor: TorId,
        at: CapturePoint,
        file: std::fs::File,
    ) -> io::Result<()> {
        let CapturePoint::Uplink(p) = at;
        if tor as usize >= self.tors || p as usize >= self.uplinks {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no such ToR uplink",
            ));
        }
        let w = PcapWriter::new(BufWriter::new(file), true, MAX_FRAME as u32)?;
        self.captures[tor as usize * self.uplinks + p as usize] = Some(Capture {
            w,
            unix_off: crate::pcap::monotonic_to_unix_offset(),
        });
        Ok(())
    }

    pub fn stop_capture(&mut self, tor: TorId, at: CapturePoint) -> io::Result<()> {
        let CapturePoint::Uplink(p) = at;
        let k = tor as usize * self.uplinks + p as usize;
        if let Some(mut c) = self.captures.get_mut(k).and_then(Option::take) {
            c.w.flush()?;
        }
        Ok(())
    }

    pub fn flush_captures(&mut self) {
        for c in self.captures.iter_mut().flatten() {
            let _ = c.w.flush();
        }
    }

    fn tap(&mut self, tu: usize, t: u64, i: u32) {
        if let Some(c) = &mut self.captures[tu] {
            let ts = (t as i64 + c.unix_off).max(0) as u64;
            let f = self.pool.data(i);
            let _ = c.w.write(ts, f, f.len());
        }
    }

    #[inline]
    fn drop_frame(&mut self, i: u32, r: DropReason) {
        self.c.drop_one(r);
        self.pool.release(i);
    }

    // ---------------------------------------------------------------- hosts

    fn receive_hosts(&mut self, now: u64) -> io::Result<bool> {
        let mut rx = std::mem::take(&mut self.rx);
        rx.clear();
        if let Err(e) = self.port.recv_batch(&mut self.pool, &mut rx, now) {
            tracing::warn!("host receive: {e}");
        }
        let any = !rx.is_empty();
        for f in rx.iter().copied() {
            // Process at the port's receive stamp (never before `now`).
            let t = self.pool.meta(f.idx).t.max(now);
            self.host_frame(f, t);
        }
        self.rx = rx;
        Ok(any)
    }

    fn host_frame(&mut self, f: RxFrame, now: u64) {
        let Some(&h) = self.by_ifindex.get(&f.ifindex) else {
            self.c.foreign += 1;
            self.pool.release(f.idx);
            return;
        };
        let data = self.pool.data(f.idx);
        let et = wire::ethertype(data);
        if et == Some(wire::ETH_ARP) {
            self.proxy_arp(h, f.idx);
            return;
        }
        self.c.sent += 1;
        self.c.sent_bytes += data.len() as u64;
        if f.truncated {
            return self.drop_frame(f.idx, DropReason::TooBig);
        }
        match et {
            Some(wire::ETH_IPV4) => {}
            Some(wire::ETH_IPV6) => return self.drop_frame(f.idx, DropReason::Ipv6),
            _ => return self.drop_frame(f.idx, DropReason::NotIpv4),
        }
        if f.csum_not_ready {
            wire::complete_l4_checksum(self.pool.data_mut(f.idx));
        }
        let tor = self.hosts[h as usize].tor;
        self.pool.meta_mut(f.idx).tag = 0;
        self.forward(tor, false, f.idx, now);
    }

    fn proxy_arp(&mut self, h: u16, i: u32) {
        // Never answer for the asking host itself: that would fake an
        // address conflict (duplicate address detection sends spa 0.0.0.0).
        let target = match wire::arp_request(self.pool.data(i)) {
            Some((_, spa, tpa)) if spa != tpa => self.by_ip.get(&tpa).copied().filter(|&t| t != h),
            _ => None,
        };
        let Some(t) = target else {
            self.c.arp_ignored += 1;
            self.pool.release(i);
            return;
        };
        let mac = self.hosts[t as usize].mac;
        wire::make_arp_reply(self.pool.data_mut(i), mac);
        self.pool.meta_mut(i).ctrl = true;
        // Replies jump the pacing but keep FIFO order with data.
        let host = &mut self.hosts[h as usize];
        host.egress.push(&mut self.pool, i);
    }

    fn deliver_local(&mut self, h: u16, i: u32) {
        wire::srh_strip(&mut self.pool, i);
        let len = self.pool.meta(i).len as u64;
        let host = &mut self.hosts[h as usize];
        if host.egress.bytes + len > self.host_queue_bytes {
            return self.drop_frame(i, DropReason::HostQueueFull);
        }
        host.egress.push(&mut self.pool, i);
        self.c.queued += 1;
    }

    fn transmit_hosts(&mut self, now: u64) -> io::Result<bool> {
        self.tx.clear();
        self.tx_host.clear();
        let rate = self.timing.host_rate;
        // Start at a rotating host so one busy port cannot fill every batch.
        let n = self.hosts.len();
        self.host_rr = if n == 0 { 0 } else { (self.host_rr + 1) % n };
        for h in (self.host_rr..n).chain(0..self.host_rr) {
            let host = &mut self.hosts[h];
            let mut cur = host.egress.peek();
            let mut t = host.next_free.max(now.saturating_sub(PACE_SLACK_NS));
            while let Some(i) = cur {
                if self.tx.len() == crate::afpacket::BATCH || t > now {
                    break;
                }
                self.tx.push((i, host.ifindex));
                self.tx_host.push(h as u16);
                t += rate.time_for(self.pool.meta(i).len as u64).0;
                let nx = self.pool.meta(i).next;
                cur = (nx != NIL).then_some(nx);
            }
        }
        if self.tx.is_empty() {
            return Ok(false);
        }
        let (sent, err) = match self.port.send_batch(&self.pool, &self.tx) {
            Ok(n) => (n, None),
            Err(e) => (0, Some(e)),
        };
        for k in 0..sent {
            let h = self.tx_host[k] as usize;
            let host = &mut self.hosts[h];
            let i = host
                .egress
                .pop(&mut self.pool)
                .expect("frame gathered from this queue");
            let m = *self.pool.meta(i);
            host.next_free = host.next_free.max(now.saturating_sub(PACE_SLACK_NS))
                + rate.time_for(m.len as u64).0;
            if m.ctrl {
                self.c.arp_replies += 1;
            } else {
                self.c.delivered += 1;
                self.c.delivered_bytes += m.len as u64;
                self.c.queued -= 1;
            }
            self.pool.release(i);
        }
        if let Some(e) = err {
            // The first frame was refused outright (e.g. interface gone):
            // drop it so one bad port cannot stall the others.
            let h = self.tx_host[0] as usize;
            let i = self.hosts[h].egress.pop(&mut self.pool).expect("gathered");
            if self.pool.meta(i).ctrl {
                self.pool.release(i);
            } else {
                self.c.queued -= 1;
                self.drop_frame(i, DropReason::TxError);
            }
            tracing::debug!("host transmit: {e}");
        }
        Ok(true)
    }

    // ------------------------------------------------------------ forwarding

    /// A frame at ToR `tor` (from a host, or delivered by the OCS).
    fn forward(&mut self, tor: TorId, fabric: bool, i: u32, now: u64) {
        let Some(dst_ip) = wire::ipv4_dst(self.pool.data(i)) else {
            let r = if fabric {
                DropReason::BadHeader
            } else {
                DropReason::NotIpv4
            };
            return self.drop_frame(i, r);
        };
        let Some(&dh) = self.by_ip.get(&dst_ip) else {
            return self.drop_frame(i, DropReason::UnknownHost);
        };
        let dst = self.hosts[dh as usize].tor;
        if dst == tor {
            return self.deliver_local(dh, i);
        }
        let m = self.pool.meta_mut(i);
        m.tag += 1;
        if m.tag > MAX_HOPS as u32 {
            return self.drop_frame(i, DropReason::HopLimit);
        }
        let tnow = offset(now, self.timing.tor_clock_offset);
        let slot = self.clock.slot(tnow);
        let arrival = (slot % self.s as u64) as SliceId;
        let len = self.pool.meta(i).len as u64;

        if fabric && wire::srh_count(self.pool.data(i)).is_some() {
            let Some((port, depart)) = wire::srh_pop(&mut self.pool, i) else {
                return self.drop_frame(i, DropReason::BadHeader);
            };
            let step = Step {
                port,
                depart: (depart != wire::SRH_NOW).then_some(depart),
            };
            let len = self.pool.meta(i).len as u64;
            return match self.admit(tor, step, arrival, slot, tnow, len) {
                Ok(q) => self.enqueue(tor, dst, step.port, q, i, tnow),
                Err(Refusal::Miss(q)) => {
                    self.c.deferred += 1;
                    self.enqueue(tor, dst, step.port, q, i, tnow)
                }
                Err(r) => self.drop_frame(i, refusal_reason(r)),
            };
        }

        let (class, bucket) = self.class_and_bucket(tor, i, len);
        let Some(entry) = self.ix.lookup(tor, dst, arrival, fabric, class, bucket) else {
            return self.drop_frame(i, DropReason::NoRoute);
        };
        let mut first_refusal = None;
        let n_actions = self.ix.actions(entry).len();
        for k in 0..n_actions {
            let a = self.ix.actions(entry)[k];
            let steps = self.ix.steps(&a);
            let step = steps[0];
            let push = a.source && steps.len() > 1;
            let extra = if push {
                (wire::SRH_FIXED + (steps.len() - 1) * wire::SRH_STEP) as u64
            } else {
                0
            };
            match self.admit(tor, step, arrival, slot, tnow, len + extra) {
                Ok(q) => {
                    if push {
                        let ix = &self.ix;
                        let rest = ix.steps(&a)[1..]
                            .iter()
                            .map(|s| (s.port, s.depart.unwrap_or(wire::SRH_NOW)));
                        if !wire::srh_push(&mut self.pool, i, rest) {
                            return self.drop_frame(i, DropReason::TooBig);
                        }
                    }
                    if k > 0 {
                        self.c.rerouted += 1;
                    }
                    return self.enqueue(tor, dst, step.port, q, i, tnow);
                }
                Err(r) => {
                    first_refusal.get_or_insert(r);
                }
            }
        }
        // No action fits its slice. Like a calendar queue without push-back
        // (paper Table 3), the primary queue still takes the frame while its
        // buffer lasts; what its slice cannot carry waits a cycle.
        if let Some(Refusal::Miss(q)) = first_refusal {
            let a = self.ix.actions(entry)[0];
            let steps = self.ix.steps(&a);
            let port = steps[0].port;
            if a.source && steps.len() > 1 {
                let rest = steps[1..]
                    .iter()
                    .map(|s| (s.port, s.depart.unwrap_or(wire::SRH_NOW)));
                if !wire::srh_push(&mut self.pool, i, rest) {
                    return self.drop_frame(i, DropReason::TooBig);
                }
            }
            self.c.deferred += 1;
            return self.enqueue(tor, dst, port, q, i, tnow);
        }
        let r = first_refusal.map_or(DropReason::NoRoute, refusal_reason);
        self.drop_frame(i, r)
    }

    fn class_and_bucket(&mut self, tor: TorId, i: u32, len: u64) -> (u8, u8) {
        let needs_hash = self.multipath == Multipath::Flow || !self.flow_bytes.is_empty();
        let h = if needs_hash {
            wire::flow_hash(self.pool.data(i))
        } else {
            0
        };
        let buckets = self.ix.buckets() as u32;
        let bucket = match self.multipath {
            Multipath::None => 0,
            Multipath::Flow => (h % buckets) as u8,
            Multipath::Packet => {
                let s = &mut self.pkt_seq[tor as usize];
                *s = s.wrapping_add(1);
                (*s % buckets) as u8
            }
        };
        let class = if self.flow_bytes.is_empty() {
            0
        } else {
            let b = &mut self.flow_bytes[h as usize % FLOW_SLOTS];
            *b += len;
            let seen = *b;
            self.thresholds
                .iter()
                .rposition(|&t| t <= seen)
                .unwrap_or(0) as u8
        };
        (class, bucket)
    }

    /// Admission (§6.2): the calendar queue index for `step`, or why the
    /// frame does not fit (byte capacity, or what the circuit can still carry
    /// in the departure slice after the bytes already queued for it).
    fn admit(
        &self,
        tor: TorId,
        step: Step,
        arrival: SliceId,
        slot: u64,
        tnow: u64,
        len: u64,
    ) -> Result<usize, Refusal> {
        if step.port as usize >= self.uplinks {
            return Err(Refusal::NoPort);
        }
        let s = self.s as u64;
        let tu = tor as usize * self.uplinks + step.port as usize;
        let d = step.depart.map_or(arrival as u64, |d| d as u64 % s);
        let rank = (d + s - arrival as u64) % s;
        let q = tu * self.s + d as usize;
        let queued = self.cal[q].bytes;
        if queued + len > self.timing.queue_capacity {
            return Err(Refusal::Full);
        }
        if self.rotation {
            let start = self.clock.start_of_slot(slot + rank);
            let end = start + self.clock.slice;
            let ws = (start + self.dark_of(d as usize, tu)).max(self.dark_until[tu]);
            let from = if rank == 0 {
                ws.max(tnow).max(self.next_free[tu])
            } else {
                ws
            };
            let avail = self.rate[step.port as usize]
                .bytes_in(lh_ctrl::units::Nanos(end.saturating_sub(from)));
            if queued + len > avail {
                return Err(Refusal::Miss(q));
            }
        }
        Ok(q)
    }

    #[inline]
    fn dark_of(&self, slice: usize, tu: usize) -> u64 {
        if self.changed[slice * self.tors * self.uplinks + tu] {
            self.dark
        } else {
            0
        }
    }

    fn enqueue(&mut self, tor: TorId, dst: TorId, port: PortId, q: usize, i: u32, tnow: u64) {
        let tu = tor as usize * self.uplinks + port as usize;
        // A frame cannot leave before it arrived (pacing may trail real time).
        self.pool.meta_mut(i).t = tnow;
        // The electrical fabric needs the destination when the frame leaves.
        let hops = self.pool.meta(i).tag & 0xff;
        self.pool.meta_mut(i).tag = hops | ((dst as u32) << 8);
        self.cal[q].push(&mut self.pool, i);
        self.pending[tu] += 1;
        self.c.queued += 1;
    }

    // -------------------------------------------------------------- uplinks

    /// Queue rotation: in each slice only that slice's calendar queue of an
    /// uplink may send, inside the usable window, paced at the link rate.
    fn transmit_uplinks(&mut self, now: u64) -> bool {
        let tnow = offset(now, self.timing.tor_clock_offset);
        let slot = self.clock.slot(tnow);
        let slice = (slot % self.s as u64) as usize;
        let start = self.clock.start_of_slot(slot);
        let end = start + self.clock.slice;
        let mut busy = false;
        for tor in 0..self.tors {
            if self.rotation && self.last_slot[tor] != slot {
                // Frames left in the queues of slots that ended (one, or
                // several if this thread was descheduled) wait a cycle.
                let last = self.last_slot[tor];
                if last != u64::MAX && last < slot {
                    for k in last..slot.min(last + self.s as u64) {
                        let prev = (k % self.s as u64) as usize;
                        for p in 0..self.uplinks {
                            let tu = tor * self.uplinks + p;
                            self.c.carried_over += self.cal[tu * self.s + prev].frames as u64;
                        }
                    }
                }
                self.last_slot[tor] = slot;
            }
            for p in 0..self.uplinks {
                let tu = tor * self.uplinks + p;
                if self.pending[tu] == 0 {
                    continue;
                }
                let rate = self.rate[p];
                let q = tu * self.s + slice;
                let ws = (start + self.dark_of(slice, tu)).max(self.dark_until[tu]);
                // docs/time-model.md: a frame crosses only if its whole
                // serialisation fits the window, else it waits.
                let must_fit = self.rotation;
                while let Some(i) = self.cal[q].peek() {
                    let tx = self.next_free[tu]
                        .max(tnow.saturating_sub(PACE_SLACK_NS))
                        .max(ws)
                        .max(self.pool.meta(i).t);
                    if tx > tnow {
                        break;
                    }
                    let len = self.pool.meta(i).len as u64;
                    let done = tx + rate.time_for(len).0;
                    if must_fit && done > end {
                        break;
                    }
                    self.cal[q].pop(&mut self.pool);
                    self.pending[tu] -= 1;
                    self.next_free[tu] = done;
                    self.c.uplink_tx += 1;
                    let off = self.timing.tor_clock_offset;
                    self.ocs(tor, p, i, offset(tx, -off), offset(done, -off));
                    busy = true;
                }
            }
        }
        busy
    }

    /// The OCS: checks the frame's transmission [tx, done) (true time)
    /// against the schedule, independently of the ToR.
    fn ocs(&mut self, tor: usize, p: usize, i: u32, tx: u64, done: u64) {
        let tu = tor * self.uplinks + p;
        self.tap(tu, tx, i);
        let slot = self.clock.slot(tx);
        let slice = (slot % self.s as u64) as usize;
        let n = self.tors * self.uplinks;
        let dst_tor = self.pool.meta(i).tag >> 8;
        let peer = match self.peer[slice * n + tu] {
            // The electrical switch forwards by destination, always up.
            ELECTRICAL => (dst_tor << 8) | p as u32,
            x => x,
        };
        if peer == u32::MAX {
            self.c.queued -= 1;
            return self.drop_frame(i, DropReason::NoCircuit);
        }
        let start = self.clock.start_of_slot(slot);
        let in_dark = tx < start + self.dark_of(slice, tu) || tx < self.dark_until[tu];
        let next = (slice + 1) % self.s;
        // Running past the slice end is fine only onto the same circuit.
        let into_dark =
            self.rotation && done > start + self.clock.slice && self.changed[next * n + tu];
        if in_dark || into_dark {
            self.c.queued -= 1;
            return self.drop_frame(i, DropReason::Guardband);
        }
        // Tag on the delay line: peer ToR (bits 16..32), peer port (8..16)
        // and the hop count (0..8).
        let m = self.pool.meta_mut(i);
        m.t = done + self.timing.propagation.0;
        m.tag = (m.tag & 0xff) | (peer << 8);
        self.line[tu].push(&mut self.pool, i);
    }

    fn deliver_lines(&mut self, now: u64) -> bool {
        let mut busy = false;
        for tu in 0..self.line.len() {
            while let Some(i) = self.line[tu].peek() {
                if self.pool.meta(i).t > now {
                    break;
                }
                self.line[tu].pop(&mut self.pool);
                let tag = self.pool.meta(i).tag;
                let peer_tor = (tag >> 16) as TorId;
                let peer_port = ((tag >> 8) & 0xff) as usize;
                self.pool.meta_mut(i).tag = tag & 0xff;
                self.c.queued -= 1;
                self.c.ocs_delivered += 1;
                let at = self.pool.meta(i).t;
                self.tap(peer_tor as usize * self.uplinks + peer_port, at, i);
                // forward() re-counts it as queued if it is enqueued again.
                self.forward(peer_tor, true, i, now);
                busy = true;
            }
        }
        busy
    }
}

/// `[slice][tor * uplinks + port]` peer (tor << 8 | port, u32::MAX: none,
/// [`ELECTRICAL`]: an electrical port) and whether the circuit changed from
/// the previous slice (never for electrical ports).
fn circuit_tables(schedule: &Schedule) -> (Vec<u32>, Vec<bool>) {
    let (tors, uplinks, s) = (schedule.tors(), schedule.uplinks(), schedule.slices());
    let n = tors * uplinks;
    let mut peer = vec![u32::MAX; s * n];
    let mut changed = vec![false; s * n];
    for ts in 0..s {
        for t in 0..tors {
            for p in 0..uplinks {
                let ep = Endpoint::new(t as TorId, p as PortId);
                let k = ts * n + t * uplinks + p;
                if schedule.is_electrical(p as PortId) {
                    peer[k] = ELECTRICAL;
                } else if let Some(e) = schedule.peer(ts as SliceId, ep) {
                    peer[k] = ((e.tor as u32) << 8) | e.port as u32;
                }
                changed[k] = schedule.changed(ts as SliceId, ep);
            }
        }
    }
    (peer, changed)
}

/// Per uplink index: electrical ports of a hybrid fabric run at
/// `electrical_rate`; optical ports and all-electrical fabrics (Clos) at
/// `link_rate`.
fn port_rates(schedule: &Schedule, timing: &Timing) -> Vec<BitsPerSec> {
    let hybrid = schedule.kind() == LinkKind::Optical;
    (0..schedule.uplinks())
        .map(|p| match timing.electrical_rate {
            Some(r) if hybrid && schedule.is_electrical(p as PortId) => r,
            _ => timing.link_rate,
        })
        .collect()
}

fn refusal_reason(r: Refusal) -> DropReason {
    match r {
        Refusal::Full => DropReason::QueueFull,
        Refusal::Miss(_) => DropReason::SliceMiss,
        Refusal::NoPort => DropReason::NoRoute,
    }
}

#[cfg(test)]
mod tests {
    //! Deterministic engine tests: time is passed to `poll` explicitly, so
    //! rotation, pacing and the OCS checks are exercised to the nanosecond.
    use super::*;
    use crate::HostAttach;
    use lh_ctrl::config::Lookup;
    use lh_ctrl::schedule::Schedule;
    use lh_ctrl::tables::{Action, Entry, Ingress, Match, Step as TStep, Tables, TimeFlowTable};
    use lh_ctrl::units::{BitsPerSec, Nanos};
    use std::collections::VecDeque;

    #[derive(Default)]
    struct TestPort {
        inject: VecDeque<Vec<u8>>,
        sent: Vec<(u64, i32, Vec<u8>)>,
        now: u64,
    }
    impl Port for TestPort {
        fn recv_batch(
            &mut self,
            pool: &mut FramePool,
            out: &mut Vec<RxFrame>,
            now: u64,
        ) -> io::Result<usize> {
            self.now = now;
            let mut n = 0;
            while let Some(f) = self.inject.pop_front() {
                let i = pool.alloc_from(&f).unwrap();
                pool.meta_mut(i).t = now;
                out.push(RxFrame {
                    idx: i,
                    ifindex: 1,
                    truncated: false,
                    csum_not_ready: false,
                });
                n += 1;
            }
            Ok(n)
        }
        fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
            for &(i, ifx) in frames {
                self.sent.push((self.now, ifx, pool.data(i).to_vec()));
            }
            Ok(frames.len())
        }
    }

    fn frame(len: usize) -> Vec<u8> {
        let mut f = vec![0u8; len];
        f[12..14].copy_from_slice(&wire::ETH_IPV4.to_be_bytes());
        f[14] = 0x45;
        f[23] = 17;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f
    }

    const EPOCH: u64 = 1_000_000_000;
    const SLICE: u64 = 10_000;
    const DARK: u64 = 1_000;

    /// 2 ToRs, 1 uplink, 4 slices of 10 us; circuit in slices 1 and 3 only
    /// (so both change: 1 us dark); 8 Gb/s = 1 byte/ns; ToR0 sends to ToR1
    /// departing in slice 3, alternate slice 1.
    fn engine(offset: i64, depart: u16) -> Engine<TestPort> {
        let mut s = Schedule::new(2, 1, 4);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 1)
            .unwrap();
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 3)
            .unwrap();
        let hop = |d| {
            Action::Hop(TStep {
                port: 0,
                depart: Some(d),
            })
        };
        let tables = Tables {
            slices: 4,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![Entry {
                    m: Match {
                        dst: 1,
                        arrival: None,
                        ingress: Ingress::Any,
                        class: None,
                        bucket: None,
                    },
                    action: hop(depart),
                    alternates: vec![hop(1)],
                }],
            }],
        };
        let hosts = (1..=2u8)
            .map(|n| HostAttach {
                ip: Ipv4Addr::new(10, 0, 0, n),
                mac: [2, 0, 0, 0, 0, n],
                tor: n as u16 - 1,
                ifname: String::new(),
            })
            .collect();
        let spec = FabricSpec {
            schedule: s,
            tables,
            timing: Timing {
                slice: Nanos(SLICE),
                guardband: Nanos(DARK),
                reconfiguration: Nanos(500),
                propagation: Nanos(300),
                link_rate: BitsPerSec(8_000_000_000),
                electrical_rate: None,
                host_rate: BitsPerSec(800_000_000_000),
                queue_capacity: 100_000,
                tor_clock_offset: offset,
            },
            hosts,
        };
        test_engine(&spec, 4)
    }

    /// An engine on host ifindexes 1 and 2 with the test clock.
    fn test_engine(spec: &FabricSpec, slices: u64) -> Engine<TestPort> {
        let clock = SliceClock {
            epoch: EPOCH,
            slice: SLICE,
            slices,
        };
        Engine::new(
            spec,
            &[1, 2],
            TestPort::default(),
            clock,
            EngineOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn rank_picks_the_departure_slice_queue_and_admission_caps_it() {
        let mut e = engine(0, 3);
        // Arrive in slice 0: rank 3 -> queue 3, which carries 10 us - 1 us
        // dark = 9000 bytes. The tenth 1000-byte frame goes to the
        // alternate (slice 1, also 9000 bytes). The nineteenth fits neither
        // slice: it stays in the primary queue's buffer (deferred a cycle).
        for _ in 0..19 {
            e.port.inject.push_back(frame(1000));
        }
        e.poll(EPOCH + 2_000).unwrap();
        let q = e.queues(0);
        assert_eq!(q[0], vec![0, 9000, 0, 10000]);
        assert_eq!(e.c.rerouted, 9);
        assert_eq!(e.c.deferred, 1);
        assert_eq!(e.c.dropped(DropReason::SliceMiss), 0);
        assert_eq!(e.c.queued, 19);
        assert!(e.c.conservation_holds());
        // Past the buffer (100 000 bytes per queue) frames are dropped.
        for _ in 0..100 {
            e.port.inject.push_back(frame(1000));
        }
        e.poll(EPOCH + 2_100).unwrap();
        assert_eq!(e.queues(0)[0][3], 100_000);
        assert_eq!(e.c.dropped(DropReason::QueueFull), 10);
        assert!(e.c.conservation_holds());
    }

    #[test]
    fn queue_rotation_opens_after_the_dark_time_and_paces_at_link_rate() {
        let mut e = engine(0, 3);
        for _ in 0..9 {
            e.port.inject.push_back(frame(1000));
        }
        e.poll(EPOCH + 2_000).unwrap();
        // Slice 3 starts at +30 us; its window at +31 us.
        let ws = EPOCH + 3 * SLICE + DARK;
        e.poll(ws - 1).unwrap();
        assert_eq!(e.c.uplink_tx, 0, "dark time: nothing leaves");
        e.poll(ws).unwrap();
        assert_eq!(e.c.uplink_tx, 1, "one frame at the window start");
        e.poll(ws + 3_500).unwrap();
        assert_eq!(e.c.uplink_tx, 4, "1000 B per us at 8 Gb/s");
        e.poll(ws + 8_000).unwrap();
        assert_eq!(
            e.c.uplink_tx, 9,
            "the last frame ends exactly at the slice end"
        );
        // Delivered after serialisation + 300 ns propagation.
        e.poll(ws + 1_000 + 299).unwrap();
        e.poll(ws + 9_000 + 300).unwrap();
        e.poll(ws + 9_000 + 301).unwrap();
        assert_eq!(e.c.delivered, 9);
        assert_eq!(e.c.dropped_total(), 0);
        assert!(e.port.sent.iter().all(|s| s.1 == 2));
        assert!(e.c.conservation_holds());
    }

    #[test]
    fn frames_that_do_not_fit_wait_for_the_next_cycle() {
        let mut e = engine(0, 3);
        for _ in 0..3 {
            e.port.inject.push_back(frame(1000));
        }
        // Arrive in slice 3 itself, 8 us in: 2000 bytes of room remain.
        let t = EPOCH + 3 * SLICE + 8_000;
        e.poll(t).unwrap();
        // The first leaves at once (not before it arrived), the second is
        // paced, the third is rerouted to slice 1.
        assert_eq!(e.c.uplink_tx, 1);
        assert_eq!(e.queues(0)[0], vec![0, 1000, 0, 1000]);
        e.poll(t + 1_000).unwrap();
        assert_eq!(e.c.uplink_tx, 2);
        e.poll(t + 2_000).unwrap();
        assert_eq!(e.c.carried_over, 0);
        // A frame left over when the slice ends is carried over a cycle.
        let mut e = engine(0, 3);
        e.port.inject.push_back(frame(1000));
        e.poll(EPOCH + 2_000).unwrap();
        e.poll(EPOCH + 3 * SLICE + 5).unwrap(); // slice 3, still dark
        e.poll(EPOCH + 4 * SLICE + 5).unwrap(); // slice 0 of the next cycle
        assert_eq!(e.c.uplink_tx, 0);
        assert_eq!(e.c.carried_over, 1);
    }

    #[test]
    fn ocs_drops_frames_in_the_dark_and_without_a_circuit() {
        // ToR clock 600 ns ahead: it opens its window inside the OCS's dark time.
        let mut e = engine(600, 3);
        e.port.inject.push_back(frame(100));
        e.port.inject.push_back(frame(100));
        e.poll(EPOCH + 2_000).unwrap();
        let ws_tor = EPOCH + 3 * SLICE + DARK - 600;
        e.poll(ws_tor).unwrap();
        assert_eq!(e.c.dropped(DropReason::Guardband), 1, "{}", e.c);
        // Tables depart in slice 2, where there is no circuit.
        let mut e = engine(0, 2);
        e.port.inject.push_back(frame(100));
        e.poll(EPOCH + 2_000).unwrap();
        e.poll(EPOCH + 2 * SLICE + DARK + 5).unwrap();
        assert_eq!(e.c.dropped(DropReason::NoCircuit), 1);
        assert!(e.c.conservation_holds());
    }

    fn spec_with(schedule: Schedule, tables: Tables, hosts_on: [u16; 2]) -> FabricSpec {
        let hosts = (1..=2u8)
            .map(|n| HostAttach {
                ip: Ipv4Addr::new(10, 0, 0, n),
                mac: [2, 0, 0, 0, 0, n],
                tor: hosts_on[n as usize - 1],
                ifname: String::new(),
            })
            .collect();
        FabricSpec {
            schedule,
            tables,
            timing: Timing {
                slice: Nanos(SLICE),
                guardband: Nanos(DARK),
                reconfiguration: Nanos(0),
                propagation: Nanos(0),
                link_rate: BitsPerSec(8_000_000_000),
                electrical_rate: None,
                host_rate: BitsPerSec(800_000_000_000),
                queue_capacity: 1 << 20,
                tor_clock_offset: 0,
            },
            hosts,
        }
    }

    fn any(dst: u16, class: Option<u8>) -> Match {
        Match {
            dst,
            arrival: None,
            ingress: Ingress::Any,
            class,
            bucket: None,
        }
    }

    #[test]
    fn electrical_fabric_delivers_to_the_destination_tor() {
        let s = Schedule::electrical(3, 2);
        let tables = Tables {
            slices: 1,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![Entry {
                    m: any(2, None),
                    action: Action::Hop(TStep {
                        port: 1,
                        depart: None,
                    }),
                    alternates: vec![],
                }],
            }],
        };
        let mut e = test_engine(&spec_with(s, tables, [0, 2]), 1);
        e.port.inject.push_back(frame(500));
        e.poll(EPOCH + 5).unwrap();
        e.poll(EPOCH + 1_000).unwrap();
        e.poll(EPOCH + 1_001).unwrap();
        assert_eq!(e.c.delivered, 1, "{}", e.c);
        assert_eq!(e.port.sent[0].1, 2);
        assert!(e.c.conservation_holds());
    }

    #[test]
    fn hybrid_electrical_port_is_always_up_and_paced_at_its_rate() {
        // c-Through: 3 ToRs, uplink 0 optical (circuit 0-1), uplink 1
        // electrical at 800 Mb/s = 1000 B per 10 us; optical 8 Gb/s. h1 on
        // ToR0 sends to h2 on ToR2, which has no circuit from ToR0.
        let mut s = Schedule::hybrid(3, 1, 1, 1);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        let table = Tables {
            slices: 1,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![Entry {
                    m: any(2, None),
                    action: Action::Hop(TStep {
                        port: 1,
                        depart: None,
                    }),
                    alternates: vec![],
                }],
            }],
        };
        let mut spec = spec_with(s.clone(), table.clone(), [0, 2]);
        spec.timing.propagation = Nanos(300);
        spec.timing.electrical_rate = Some(BitsPerSec(800_000_000));
        let mut e = test_engine(&spec, 1);
        // Send at the very start of a slice, then mid-slice: no dark time.
        let t0 = EPOCH + 5 * SLICE;
        for _ in 0..3 {
            e.port.inject.push_back(frame(1000));
        }
        e.poll(t0).unwrap();
        assert_eq!(e.c.uplink_tx, 1, "leaves at once, at the slice start");
        e.poll(t0 + 9_999).unwrap();
        assert_eq!(e.c.uplink_tx, 1, "paced: 10 us per 1000 B");
        // Delivered to ToR2 after serialisation + propagation.
        e.poll(t0 + 10_000 + 299).unwrap();
        assert_eq!(e.c.delivered, 0);
        e.poll(t0 + 10_000 + 300).unwrap();
        e.poll(t0 + 10_000 + 301).unwrap();
        assert_eq!(e.c.delivered, 1, "{}", e.c);
        assert_eq!(e.c.uplink_tx, 2);
        // The third frame crosses the slice boundary: fine on electrical.
        e.poll(t0 + 20_000).unwrap();
        assert_eq!(e.c.uplink_tx, 3);
        e.poll(t0 + 30_300).unwrap();
        e.poll(t0 + 30_301).unwrap();
        assert_eq!(e.c.delivered, 3, "{}", e.c);
        assert!(e.port.sent.iter().all(|x| x.1 == 2), "to h2 on ToR2");
        // A topology update darkens the changed circuit, not the electrical
        // port: a frame sent right after it leaves at once.
        let mut b = Schedule::hybrid(3, 1, 1, 1);
        b.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
            .unwrap();
        let t = t0 + 52_000;
        e.reconfigure(&b, &table, t).unwrap();
        e.port.inject.push_back(frame(1000));
        e.poll(t + 1).unwrap();
        assert_eq!(e.c.uplink_tx, 4, "electrical port is not dark");
        e.poll(t + 1 + 10_300).unwrap();
        e.poll(t + 1 + 10_301).unwrap();
        assert_eq!(e.c.delivered, 4, "{}", e.c);
        assert_eq!(e.c.dropped_total(), 0, "{}", e.c);
        assert!(e.c.conservation_holds());
    }

    #[test]
    fn flow_size_classes_move_a_growing_flow_to_its_class_entry() {
        // UCMP-style: class 0 (flows < 1500 B so far) departs in slice 1,
        // class 1 in slice 3.
        let mut s = Schedule::new(2, 1, 4);
        for ts in 0..4 {
            s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), ts)
                .unwrap();
        }
        let hop = |d| {
            Action::Hop(TStep {
                port: 0,
                depart: Some(d),
            })
        };
        let tables = Tables {
            slices: 4,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: Some(lh_ctrl::routing::ClassThresholds {
                thresholds: vec![0, 1500],
            }),
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![
                    Entry {
                        m: any(1, Some(0)),
                        action: hop(1),
                        alternates: vec![],
                    },
                    Entry {
                        m: any(1, Some(1)),
                        action: hop(3),
                        alternates: vec![],
                    },
                ],
            }],
        };
        let mut e = test_engine(&spec_with(s, tables, [0, 1]), 4);
        for _ in 0..3 {
            e.port.inject.push_back(frame(1000));
        }
        e.poll(EPOCH + 5).unwrap();
        // 1000 B seen: class 0; 2000 and 3000 B: class 1.
        assert_eq!(e.queues(0)[0], vec![0, 1000, 0, 2000]);
    }

    #[test]
    fn timing_from_config_uses_the_larger_dark_time_and_a_slice_of_buffer() {
        let cfg = lh_ctrl::config::Config::from_json(
            r#"{"mode": "TO",
                "tors": {"count": 4, "uplinks": 1, "link_rate": "10Gbps",
                         "hosts_per_tor": 1, "host_link_rate": "10Gbps"},
                "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "300ns", "cabling": "auto"},
                "slice": {"duration": "50us", "guardband": "200ns", "propagation": "1us"},
                "topology": {"kind": "round_robin"},
                "routing": {"algorithm": "direct"}}"#,
            "test.json",
        )
        .unwrap();
        let t = Timing::from_config(&cfg);
        assert_eq!(t.slice, Nanos(50_000));
        assert_eq!(t.dark(), Nanos(300));
        assert_eq!(t.propagation, Nanos(1_000));
        // Eight slices' worth of usable bytes: 10 Gb/s x (50 us - 300 ns).
        assert_eq!(t.queue_capacity, 8 * 62_125);
        assert_eq!(t.tor_clock_offset, 0);
        assert_eq!(t.electrical_rate, None);
    }

    #[test]
    fn packet_multipath_spreads_consecutive_packets_over_buckets() {
        let mut s = Schedule::new(2, 1, 4);
        for ts in 0..4 {
            s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), ts)
                .unwrap();
        }
        let hop = |d| {
            Action::Hop(TStep {
                port: 0,
                depart: Some(d),
            })
        };
        let m = |b| Match {
            bucket: Some(b),
            ..any(1, None)
        };
        let tables = Tables {
            slices: 4,
            lookup: Lookup::Hop,
            multipath: Multipath::Packet,
            buckets: 2,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![
                    Entry {
                        m: m(0),
                        action: hop(1),
                        alternates: vec![],
                    },
                    Entry {
                        m: m(1),
                        action: hop(3),
                        alternates: vec![],
                    },
                ],
            }],
        };
        let mut e = test_engine(&spec_with(s, tables, [0, 1]), 4);
        for _ in 0..4 {
            e.port.inject.push_back(frame(100));
        }
        e.poll(EPOCH + 5).unwrap();
        assert_eq!(e.queues(0)[0], vec![0, 200, 0, 200]);
    }

    #[test]
    fn reconfiguration_swaps_circuits_with_a_dark_time() {
        // TA-style: one slice; ToR0's uplink first reaches ToR1, then ToR2.
        let mut a = Schedule::new(3, 1, 1);
        a.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        let mut b = Schedule::new(3, 1, 1);
        b.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
            .unwrap();
        let table = |dst| Tables {
            slices: 1,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![Entry {
                    m: any(dst, None),
                    action: Action::Hop(TStep {
                        port: 0,
                        depart: None,
                    }),
                    alternates: vec![],
                }],
            }],
        };
        // h1 on ToR0, h2 on ToR2: unreachable under `a` (tables say go,
        // but the circuit leads to ToR1, which has no route).
        let mut e = test_engine(&spec_with(a, table(2), [0, 2]), 1);
        e.port.inject.push_back(frame(100));
        e.poll(EPOCH + 5).unwrap();
        e.poll(EPOCH + 200).unwrap();
        assert_eq!(e.c.dropped(DropReason::NoRoute), 1, "{}", e.c);
        let t = EPOCH + 1_000;
        e.reconfigure(&b, &table(2), t).unwrap();
        e.port.inject.push_back(frame(100));
        e.poll(t + 10).unwrap();
        assert_eq!(e.c.uplink_tx, 1, "held during the 1 us dark time");
        e.poll(t + DARK).unwrap();
        e.poll(t + DARK + 200).unwrap();
        e.poll(t + DARK + 201).unwrap();
        assert_eq!(e.c.delivered, 1, "{}", e.c);
        assert_eq!(e.c.reconfigurations, 1);
        assert!(e.c.conservation_holds());
        // A ToR clock ahead of the OCS sends into the dark time.
        let mut e = test_engine(
            &FabricSpec {
                timing: Timing {
                    tor_clock_offset: 600,
                    ..spec_with(b.clone(), table(2), [0, 2]).timing
                },
                ..spec_with(b.clone(), table(2), [0, 2])
            },
            1,
        );
        let mut c = Schedule::new(3, 1, 1);
        c.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        e.reconfigure(&c, &table(2), t).unwrap();
        e.port.inject.push_back(frame(100));
        e.poll(t + DARK - 600).unwrap();
        assert_eq!(e.c.dropped(DropReason::Guardband), 1, "{}", e.c);
        assert!(
            e.reconfigure(&Schedule::new(4, 1, 1), &table(1), t)
                .is_err()
        );
    }
}
