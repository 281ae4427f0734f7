//! Host ports: frames from hosts (proxy ARP, admission checks before the ToR
//! pipeline), local delivery into per-host egress queues and paced transmit
//! onto the hosts' veths. Hosts of external ToRs are known (for the
//! destination ToR of an IP and for proxy-ARP MACs) but have no port here.

use crate::active::ActiveSet;
use crate::afpacket::{BATCH, RxFrame};
use crate::calendar::PACE_SLACK_NS;
use crate::counters::{Counters, DropReason};
use crate::fastmap::IntMap;
use crate::netem::{Line, Shape};
use crate::pool::{FramePool, FrameQueue, NIL};
use crate::port::Port;
use crate::wire;
use lh_ctrl::TorId;
use lh_ctrl::units::BitsPerSec;
use std::io;
use std::net::Ipv4Addr;

pub(crate) struct Host {
    pub(crate) mac: [u8; 6],
    pub(crate) tor: TorId,
    /// 0: not attached (a host of an external ToR).
    ifindex: i32,
    egress: FrameQueue,
    /// RotorLB's bulk for this host: sent only when `egress` is empty (the
    /// Opera authors' ToR ports keep RotorLB below everything else).
    bulk: FrameQueue,
    next_free: u64,
    /// netem's options on the link towards the host (`hosts.link`): a
    /// frame leaves no earlier than its due time (`Meta::t`).
    to_host: Option<Shape>,
    /// ... and towards the ToR: frames wait here before the ToR sees them.
    to_tor: Option<Line>,
}

impl Host {
    /// Takes the next frame to leave: `egress` first, then `bulk`.
    #[inline]
    fn pop(&mut self, pool: &mut FramePool) -> Option<u32> {
        self.egress.pop(pool).or_else(|| self.bulk.pop(pool))
    }
    #[inline]
    fn is_idle(&self) -> bool {
        self.egress.is_empty() && self.bulk.is_empty()
    }
}

/// A MAC as a map key.
#[inline]
fn mac_key(m: &[u8; 6]) -> u64 {
    u64::from_be_bytes([0, 0, m[0], m[1], m[2], m[3], m[4], m[5]])
}

pub(crate) struct Hosts {
    hosts: Vec<Host>,
    /// Keyed by the address as a `u32`.
    by_ip: IntMap<u32, u16>,
    /// Keyed by the MAC as a `u64` ([`mac_key`]): a frame sent to a host
    /// port's MAC goes there, whatever its address (a router host).
    by_mac: IntMap<u64, u16>,
    queue_limit: u64,
    rate: BitsPerSec,
    rr: usize,
    /// Hosts whose egress queue holds frames.
    busy: ActiveSet,
    tx: Vec<(u32, i32)>,
    tx_host: Vec<u16>,
    /// netem's options of every host link (`hosts.link`), if any.
    link: Option<lh_ctrl::config::HostLinkCfg>,
    /// Hosts whose link towards the ToR holds frames.
    lines_busy: ActiveSet,
}

impl Hosts {
    /// Bytes of RotorLB's bulk waiting at host `h`'s port.
    pub(crate) fn bulk_bytes(&self, h: u16) -> u64 {
        self.hosts[h as usize].bulk.bytes
    }

    pub(crate) fn new(queue_limit: u64, rate: BitsPerSec) -> Hosts {
        Hosts {
            hosts: Vec::new(),
            by_ip: IntMap::default(),
            by_mac: IntMap::default(),
            queue_limit,
            rate,
            rr: 0,
            busy: ActiveSet::default(),
            tx: Vec::with_capacity(BATCH),
            tx_host: Vec::with_capacity(BATCH),
            link: None,
            lines_busy: ActiveSet::default(),
        }
    }

    /// Gives every host link added after this call netem's options `cfg`
    /// (`hosts.link`), both ways.
    pub(crate) fn set_link(&mut self, cfg: Option<lh_ctrl::config::HostLinkCfg>) {
        self.link = cfg;
    }

    /// Changes netem's options of one direction of host `h`'s link while
    /// it runs (Mininet's `intf.config(delay=..., loss=...)`): towards the
    /// ToR (`to_tor`) or towards the host; None: none. As netem's `tc
    /// qdisc change`, frames already on the link keep their due times,
    /// and later frames never leave before them.
    pub(crate) fn set_host_link(
        &mut self,
        h: u16,
        to_tor: bool,
        cfg: Option<&lh_ctrl::config::HostLinkCfg>,
    ) -> Result<(), String> {
        let seed = self.link.and_then(|l| l.seed);
        let host = self
            .hosts
            .get_mut(h as usize)
            .ok_or_else(|| format!("no host port {h}"))?;
        let stream = 2 * h as u64 + u64::from(!to_tor);
        let c = cfg.copied().map(|c| lh_ctrl::config::HostLinkCfg {
            seed: c.seed.or(seed),
            ..c
        });
        let shape = Shape::new(&c.unwrap_or_default(), stream);
        // Both directions are FIFO queues that send their head no earlier
        // than its due time: frames already there keep theirs, and later
        // ones wait behind them. A direction that had options keeps a
        // (zero) shape, so that its queued frames still wait.
        if to_tor {
            match host.to_tor.as_mut() {
                Some(line) => line.shape = shape,
                None if cfg.is_some() => host.to_tor = Some(Line::new(shape)),
                None => {}
            }
        } else if cfg.is_some() || host.to_host.is_some() {
            host.to_host = Some(shape);
        }
        Ok(())
    }

    /// Host `h`'s frame `i`, received at `now`, enters its link towards
    /// the ToR, if that link has netem's options: `Some(Ok)` it waits
    /// there (counted as queued), `Some(Err)` it is dropped (released);
    /// None: the link adds nothing, the ToR takes it now.
    #[inline]
    pub(crate) fn enter_link(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        i: u32,
        now: u64,
    ) -> Option<()> {
        let line = self.hosts[h as usize].to_tor.as_mut()?;
        match line.push(pool, i, now) {
            Ok(()) => {
                c.queued += 1;
                self.lines_busy.insert(h as usize);
            }
            Err(r) => {
                c.drop_one(r);
                pool.release(i);
            }
        }
        Some(())
    }

    /// The next frame due at its ToR by `now` from any host link: (host,
    /// frame, due time), no longer counted as queued.
    pub(crate) fn pop_link_due(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        now: u64,
    ) -> Option<(u16, u32, u64)> {
        let lines = &self.lines_busy;
        for h in std::iter::successors(lines.next_from(0), |&h| lines.next_from(h + 1)) {
            let line = self.hosts[h]
                .to_tor
                .as_mut()
                .expect("a busy link has a line");
            if let Some(i) = line.pop_due(pool, now) {
                if line.next_due(pool).is_none() {
                    self.lines_busy.remove(h);
                }
                c.queued -= 1;
                return Some((h as u16, i, pool.meta(i).t));
            }
        }
        None
    }

    /// When the next frame is due at its ToR from a host link.
    fn links_next_at(&self, pool: &FramePool) -> Option<u64> {
        self.lines_busy
            .iter()
            .filter_map(|h| self.hosts[h].to_tor.as_ref()?.next_due(pool))
            .min()
    }

    /// Adds a host; `ifindex` 0 means it has no port here.
    pub(crate) fn add(&mut self, ip: Ipv4Addr, mac: [u8; 6], tor: TorId, ifindex: i32) -> u16 {
        let h = self.hosts.len() as u16;
        // A host's interface without an address (Mininet's second link of
        // a host) is reached by its MAC only.
        if !ip.is_unspecified() {
            self.by_ip.insert(u32::from(ip), h);
        }
        if mac != [0; 6] {
            self.by_mac.insert(mac_key(&mac), h);
        }
        self.busy.grow(self.hosts.len() + 1);
        self.lines_busy.grow(self.hosts.len() + 1);
        let shape = |k: u64| self.link.as_ref().map(|l| Shape::new(l, 2 * h as u64 + k));
        let (to_tor, to_host) = (shape(0).map(Line::new), shape(1));
        self.hosts.push(Host {
            mac,
            tor,
            ifindex,
            egress: FrameQueue::default(),
            bulk: FrameQueue::default(),
            next_free: 0,
            to_host,
            to_tor,
        });
        h
    }

    #[inline]
    pub(crate) fn by_ip(&self, ip: &Ipv4Addr) -> Option<u16> {
        self.by_ip.get(&u32::from(*ip)).copied()
    }

    /// The host port frame `f` goes to: the one whose MAC it is sent to,
    /// as a switch delivers, else the owner of its destination address.
    /// They differ only for a frame sent through a gateway (a host with
    /// several links that routes, such as Mininet's `linuxrouter`); the
    /// usual frame costs one comparison more than the address lookup.
    #[inline]
    pub(crate) fn dest(&self, f: &[u8]) -> Option<u16> {
        let by_ip = wire::ipv4_dst(f).and_then(|ip| self.by_ip(&ip));
        let dst_mac = f.get(..6)?;
        match by_ip {
            Some(h) if self.hosts[h as usize].mac == dst_mac => Some(h),
            _ => {
                let mac: [u8; 6] = dst_mac.try_into().ok()?;
                self.by_mac.get(&mac_key(&mac)).copied().or(by_ip)
            }
        }
    }

    /// Hosts known (attached here or not).
    pub(crate) fn len(&self) -> usize {
        self.hosts.len()
    }

    #[inline]
    pub(crate) fn tor(&self, h: u16) -> TorId {
        self.hosts[h as usize].tor
    }

    pub(crate) fn ifindex(&self, h: u16) -> i32 {
        self.hosts[h as usize].ifindex
    }

    /// A frame received on host `h`'s port: answers ARP, counts `sent`,
    /// drops what the fabric does not route. Returns the ToR to forward
    /// the frame at if it continues.
    #[inline]
    pub(crate) fn receive(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        f: RxFrame,
    ) -> Option<TorId> {
        let data = pool.data(f.idx);
        let et = wire::ethertype(data);
        if et == Some(wire::ETH_ARP) {
            self.proxy_arp(pool, c, h, f.idx);
            return None;
        }
        c.sent += 1;
        c.sent_bytes += pool.meta(f.idx).wire_len();
        let drop = if f.truncated {
            Some(DropReason::TooBig)
        } else {
            match et {
                Some(wire::ETH_IPV4) => None,
                Some(wire::ETH_IPV6) => Some(DropReason::Ipv6),
                _ => Some(DropReason::NotIpv4),
            }
        };
        if let Some(r) = drop {
            c.drop_one(r);
            pool.release(f.idx);
            return None;
        }
        if f.csum_not_ready {
            wire::complete_l4_checksum(pool.data_mut(f.idx));
        }
        pool.meta_mut(f.idx).tag = 0;
        Some(self.hosts[h as usize].tor)
    }

    fn proxy_arp(&mut self, pool: &mut FramePool, c: &mut Counters, h: u16, i: u32) {
        // Never answer for the asking host itself: that would fake an
        // address conflict (duplicate address detection sends spa 0.0.0.0).
        let target = match wire::arp_request(pool.data(i)) {
            Some((_, spa, tpa)) if spa != tpa => self.by_ip(&tpa).filter(|&t| t != h),
            _ => None,
        };
        let Some(t) = target else {
            c.arp_ignored += 1;
            pool.release(i);
            return;
        };
        let mac = self.hosts[t as usize].mac;
        wire::make_arp_reply(pool.data_mut(i), mac);
        pool.meta_mut(i).ctrl = true;
        // Replies jump the pacing but keep FIFO order with data.
        self.hosts[h as usize].egress.push(pool, i);
        self.busy.insert(h as usize);
    }

    /// Frame `i` reached host `h`'s ToR at `now`: records its fabric delay
    /// (from `Meta::born`) in `delay` and queues it for the host.
    #[inline]
    pub(crate) fn arrive(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        delay: &mut crate::counters::DelayHist,
        h: u16,
        i: u32,
        now: u64,
    ) {
        let born = pool.meta(i).born;
        if born != 0 {
            delay.record(now.saturating_sub(born));
        }
        self.deliver(pool, c, h, i, now);
    }

    /// Queues frame `i`, come at `now`, for host `h` (any source-route
    /// header stripped), through the link's netem options if it has them.
    #[inline]
    pub(crate) fn deliver(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        i: u32,
        now: u64,
    ) {
        wire::srh_strip(pool, i);
        let len = pool.meta(i).wire_len();
        let host = &mut self.hosts[h as usize];
        // Bulk counts what waits above it; other frames do not count bulk.
        let bulk = pool.meta(i).bulk.is_some();
        let held = host.egress.bytes + if bulk { host.bulk.bytes } else { 0 };
        if held + len > self.queue_limit {
            c.drop_one(DropReason::HostQueueFull);
            pool.release(i);
            return;
        }
        if let Some(shape) = host.to_host.as_mut() {
            let frames = host.egress.frames + host.bulk.frames;
            if let Err(r) = shape.admit(pool, i, frames, now) {
                c.drop_one(r);
                pool.release(i);
                return;
            }
        }
        if bulk {
            host.bulk.push(pool, i);
        } else {
            host.egress.push(pool, i);
        }
        self.busy.insert(h as usize);
        c.queued += 1;
    }

    /// When the next frame of a host egress queue may leave, or one of a
    /// host link reach its ToR; None if every queue and link is empty.
    pub(crate) fn next_at(&self, pool: &FramePool) -> Option<u64> {
        let egress = self.busy.iter().map(|h| {
            let host = &self.hosts[h];
            let due = match (&host.to_host, host.egress.peek().or(host.bulk.peek())) {
                (Some(_), Some(i)) => pool.meta(i).t,
                _ => 0,
            };
            host.next_free.max(due)
        });
        egress.chain(self.links_next_at(pool)).min()
    }

    /// Paced transmit of the egress queues at `host_rate`.
    pub(crate) fn transmit<P: Port>(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        port: &mut P,
        now: u64,
    ) -> io::Result<bool> {
        self.tx.clear();
        self.tx_host.clear();
        let rate = self.rate;
        // Start at a rotating host so one busy port cannot fill every batch.
        let n = self.hosts.len();
        self.rr = if n == 0 { 0 } else { (self.rr + 1) % n };
        let busy = &self.busy;
        let from_rr = std::iter::successors(busy.next_from(self.rr), |&h| busy.next_from(h + 1));
        let to_rr = std::iter::successors(busy.next_from(0), |&h| busy.next_from(h + 1))
            .take_while(|&h| h < self.rr);
        for h in from_rr.chain(to_rr) {
            let host = &mut self.hosts[h];
            let mut t = host.next_free.max(now.saturating_sub(PACE_SLACK_NS));
            // Egress first, then bulk: the order `Host::pop` takes them, so
            // a frame not due yet holds back both.
            let mut held = false;
            for q in [&host.egress, &host.bulk] {
                let mut cur = q.peek();
                while let Some(i) = cur {
                    if self.tx.len() == BATCH || t > now {
                        break;
                    }
                    // A link with netem's options holds it until due.
                    if host.to_host.is_some() && pool.meta(i).t > now {
                        held = true;
                        break;
                    }
                    self.tx.push((i, host.ifindex));
                    self.tx_host.push(h as u16);
                    t += rate.time_for(pool.meta(i).wire_len()).0;
                    let nx = pool.meta(i).next;
                    cur = (nx != NIL).then_some(nx);
                }
                if held {
                    break;
                }
            }
        }
        if self.tx.is_empty() {
            return Ok(false);
        }
        let (sent, err) = match port.send_batch(pool, &self.tx) {
            Ok(n) => (n, None),
            Err(e) => (0, Some(e)),
        };
        for k in 0..sent {
            let h = self.tx_host[k] as usize;
            let host = &mut self.hosts[h];
            let i = host.pop(pool).expect("frame gathered from this queue");
            let m = *pool.meta(i);
            host.next_free = host.next_free.max(now.saturating_sub(PACE_SLACK_NS))
                + rate.time_for(m.wire_len()).0;
            if host.is_idle() {
                self.busy.remove(h);
            }
            if m.ctrl {
                c.arp_replies += 1;
            } else {
                c.delivered += 1;
                c.delivered_bytes += m.wire_len();
                c.queued -= 1;
            }
            pool.release(i);
        }
        if let Some(e) = err {
            // The first frame was refused outright (e.g. interface gone):
            // drop it so one bad port cannot stall the others.
            let h = self.tx_host[0] as usize;
            let i = self.hosts[h].pop(pool).expect("gathered");
            if self.hosts[h].is_idle() {
                self.busy.remove(h);
            }
            if !pool.meta(i).ctrl {
                c.queued -= 1;
                c.drop_one(DropReason::TxError);
            }
            pool.release(i);
            tracing::debug!("host transmit: {e}");
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Bulk;
    use crate::port::MemPort;

    #[test]
    fn rotorlb_bulk_leaves_a_host_port_only_when_nothing_else_waits() {
        // A 1 Gb/s port (8 us a 1000-byte frame) busy with the first of
        // three bulk frames when a low-latency frame comes: that one is
        // next, then the other two bulk frames.
        let mut hosts = Hosts::new(1 << 20, lh_ctrl::units::BitsPerSec(1_000_000_000));
        let h = hosts.add(
            std::net::Ipv4Addr::new(10, 0, 0, 1),
            [2, 0, 0, 0, 0, 1],
            0,
            1,
        );
        let (mut pool, mut c, mut port) = (FramePool::new(16), Counters::default(), MemPort::new());
        let frame = |pool: &mut FramePool, tag: u8, bulk: bool| {
            let i = pool.alloc_from(&[tag; 1000]).unwrap();
            pool.meta_mut(i).bulk = bulk.then_some(Bulk {
                host: h,
                relayed: false,
            });
            i
        };
        for tag in 1..=3 {
            let i = frame(&mut pool, tag, true);
            hosts.deliver(&mut pool, &mut c, h, i, 0);
        }
        assert!(hosts.transmit(&mut pool, &mut c, &mut port, 0).unwrap());
        let i = frame(&mut pool, 9, false);
        hosts.deliver(&mut pool, &mut c, h, i, 0);
        for now in [8_000, 16_000, 24_000] {
            hosts.transmit(&mut pool, &mut c, &mut port, now).unwrap();
        }
        let order: Vec<u8> = port.take_sent().iter().map(|f| f.data[0]).collect();
        assert_eq!(order, vec![1, 9, 2, 3]);
        assert_eq!((c.delivered, c.queued), (4, 0));
    }
}
