//! Frames from the hosts into the fabric: the port's receive batch (host
//! frames, external ToRs' uplinks, foreign ones), the host links' delay,
//! and the host NICs of paper §7 that hold frames (push-back, paused
//! elephants) and release them to their ToR (or edge switch).

use super::{Engine, Iface};
use crate::clock::offset;
use crate::port::Port;
use crate::switch::Io;
use crate::tor::Ctx;
use lh_ctrl::TorId;
use std::io;

impl<P: Port> Engine<P> {
    pub(super) fn receive(&mut self, now: u64) -> io::Result<bool> {
        let mut rx = std::mem::take(&mut self.rx);
        rx.clear();
        if let Err(e) = self.port.recv_batch(&mut self.pool, &mut rx, now) {
            tracing::warn!("host receive: {e}");
        }
        let any = !rx.is_empty();
        for f in rx.iter().copied() {
            // Process at the port's receive stamp (never before `now`).
            let t = self.pool.meta(f.idx).t.max(now);
            let h = match self.by_ifindex.get(&f.ifindex) {
                Some(&Iface::Host(h)) => h,
                Some(&Iface::Uplink(tu)) => {
                    self.external_ingress(f, tu as usize, t);
                    continue;
                }
                None => {
                    self.c.foreign += 1;
                    self.pool.release(f.idx);
                    continue;
                }
            };
            // A frame the host link holds (or loses) reaches the ToR later
            // (`release_links`), or never.
            if let Some(tor) = self.hosts.receive(&mut self.pool, &mut self.c, h, f)
                && self
                    .hosts
                    .enter_link(&mut self.pool, &mut self.c, h, f.idx, t)
                    .is_none()
            {
                self.enter_tor(h, tor, f.idx, t);
            }
        }
        self.rx = rx;
        Ok(any)
    }

    /// Frames the host links (netem's options) hand their ToRs by `now`,
    /// each at its due time.
    pub(super) fn release_links(&mut self, now: u64) -> bool {
        let mut busy = false;
        while let Some((h, i, due)) = self.hosts.pop_link_due(&mut self.pool, &mut self.c, now) {
            let tor = self.hosts.tor(h);
            self.enter_tor(h, tor, i, due);
            busy = true;
        }
        busy
    }

    /// Host `h`'s frame `i` enters its ToR `tor` (or its edge switch) at
    /// `t`.
    pub(super) fn enter_tor(&mut self, h: u16, tor: TorId, i: u32, t: u64) {
        if let Some(sw) = self.sw.as_mut() {
            self.pool.meta_mut(i).born = t;
            let mut x = Io {
                pool: &mut self.pool,
                c: &mut self.c,
                hosts: &mut self.hosts,
                delay: &mut self.delay,
            };
            sw.ingress(&mut x, tor, h, i, t);
            return;
        }
        if self.nic.is_some() && self.nic_holds(h, tor, i, t) {
            return;
        }
        self.forward_from_host(tor, i, t);
    }

    /// Host frame `i` enters ToR `tor` at `now` (born then: its time in
    /// the fabric counts from here), and push-backs due by then apply.
    pub(super) fn forward_from_host(&mut self, tor: TorId, i: u32, now: u64) {
        self.pool.meta_mut(i).born = now;
        let mut x = Ctx {
            pool: &mut self.pool,
            c: &mut self.c,
            hosts: &mut self.hosts,
            cal: &mut self.cal,
            pb: &mut self.pb,
            delay: &mut self.delay,
        };
        self.tor.forward(&mut x, tor, false, i, now);
        if self.pb.as_ref().is_some_and(|p| p.has_due(now)) {
            self.apply_pushbacks(now);
        }
    }

    /// Host NIC (§7): holds host `h`'s frame `i` (on ToR `tor`) if its
    /// destination ToR is paused for the host. True if held.
    pub(super) fn nic_holds(&mut self, h: u16, tor: TorId, i: u32, now: u64) -> bool {
        let Some(dst) = self
            .hosts
            .dest(self.pool.data(i))
            .map(|d| self.hosts.tor(d))
        else {
            return false;
        };
        let tnow = offset(now, self.timing.tor_clock_offset);
        let Some(nic) = self.nic.as_mut() else {
            return false;
        };
        if dst == tor {
            return false;
        }
        if nic.must_hold(h, dst, tnow) && nic.hold(&mut self.pool, &mut self.c, h, dst, i) {
            return true;
        }
        nic.pause_elephant(&mut self.pool, &mut self.c, h, dst, i, tnow)
    }

    /// Push-back messages that have arrived by `now`: each sender ToR
    /// broadcasts to its hosts' NICs.
    pub(super) fn apply_pushbacks(&mut self, now: u64) {
        let tnow = offset(now, self.timing.tor_clock_offset);
        let (Some(pb), Some(nic)) = (self.pb.as_mut(), self.nic.as_mut()) else {
            return;
        };
        while let Some(m) = pb.pop_due(now) {
            self.c.pushback_notified += nic.pushback(&m, tnow);
        }
    }

    /// A frame a host NIC held (paused or pushed back) enters its ToR now.
    pub(super) fn forward_held(&mut self, h: u16, i: u32, now: u64) {
        let tor = self.hosts.tor(h);
        self.forward_from_host(tor, i, now);
    }

    /// Held frames whose pause is over go to their ToR.
    pub(super) fn release_held(&mut self, now: u64) -> bool {
        let tnow = offset(now, self.timing.tor_clock_offset);
        let mut busy = false;
        if let Some(nic) = self.nic.as_mut() {
            nic.begin_release();
        }
        while let Some((h, i)) = self
            .nic
            .as_mut()
            .and_then(|nic| nic.pop_ready(&mut self.pool, &mut self.c, tnow))
        {
            busy = true;
            self.forward_held(h, i, now);
        }
        // Paused elephants whose direct circuit is up.
        while let Some((h, i)) = self
            .nic
            .as_mut()
            .and_then(|nic| nic.pop_elephant(&mut self.pool, &mut self.c, tnow))
        {
            busy = true;
            self.forward_held(h, i, now);
        }
        busy
    }
}
