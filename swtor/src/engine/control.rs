//! The engine's control surface between polls: what a handle reads
//! (clock, counters, queues, telemetry, interfaces, NIC room, delay) and
//! what it changes (links, host links, a fat tree's links, a traffic-aware
//! reconfiguration, uplink captures).

use super::{Engine, Iface};
use crate::capture::CapturePoint;
use crate::clock::SliceClock;
use crate::counters::{Counters, DelayHist};
use crate::lookup::LookupIndex;
use crate::ocs::Ocs;
use crate::pool::FramePool;
use crate::port::Port;
use crate::switch::Switches;
use lh_ctrl::schedule::Schedule;
use lh_ctrl::tables::FlatTables;
use lh_ctrl::{PortId, TorId};
use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;

impl<P: Port> Engine<P> {
    pub fn clock(&self) -> SliceClock {
        self.clock
    }
    pub fn pool(&self) -> &FramePool {
        &self.pool
    }
    pub fn port(&self) -> &P {
        &self.port
    }
    pub fn port_mut(&mut self) -> &mut P {
        &mut self.port
    }
    /// The OCS (its circuit tables and verdicts).
    pub fn ocs(&self) -> &Ocs {
        &self.ocs
    }

    /// Fails or restores the OCS circuits between ToRs `a` and `b`
    /// ([`Ocs::set_link`]).
    pub fn set_link(&mut self, a: TorId, b: TorId, up: bool) -> Result<(), String> {
        self.ocs.set_link(a, b, up)
    }

    /// netem's options of one direction of host `h`'s link (index in
    /// `FabricSpec::hosts`), changed while it runs ([`FabricHandle::set_host_link`]).
    pub fn set_host_link(
        &mut self,
        h: u16,
        to_tor: bool,
        cfg: Option<&lh_ctrl::config::HostLinkCfg>,
    ) -> Result<(), String> {
        self.hosts.set_host_link(h, to_tor, cfg)
    }

    /// Every port of every fat-tree switch (empty for other fabrics).
    pub fn switch_ports(&self) -> Vec<crate::SwitchPort> {
        let Some(sw) = self.sw.as_ref() else {
            return Vec::new();
        };
        let mut v = Vec::new();
        for s in 0..sw.tree().switches() as u16 {
            let q = sw.queues(s);
            for (p, &tx) in sw.port_tx(s).iter().enumerate() {
                v.push(crate::SwitchPort {
                    switch: s,
                    port: p as u8,
                    tx_frames: tx,
                    queued_bytes: q[p],
                });
            }
        }
        v
    }

    /// The fat tree's switches (None unless the fabric is one).
    pub fn switches(&self) -> Option<&Switches> {
        self.sw.as_ref()
    }

    /// Fails (restores) the fat-tree link between switches `a` and `b`
    /// at time `now` (see [`crate::switch`]).
    pub fn set_switch_link(&mut self, a: u16, b: u16, up: bool, now: u64) -> Result<(), String> {
        match self.sw.as_mut() {
            Some(sw) => sw.set_link(a, b, up, now),
            None => Err("the fabric has no switches (not a fat tree)".into()),
        }
    }

    /// The port of the attached host with this IP (None: unknown, or a
    /// host of an external ToR).
    pub fn host_ifindex(&self, ip: Ipv4Addr) -> Option<i32> {
        self.hosts
            .by_ip(&ip)
            .map(|h| self.hosts.ifindex(h))
            .filter(|&x| x != 0)
    }

    /// The uplink interface of external ToR `tor`, port `port`.
    pub fn uplink_ifindex(&self, tor: TorId, port: PortId) -> Option<i32> {
        if tor as usize >= self.tors || port as usize >= self.uplinks {
            return None;
        }
        Some(self.ext_uplink[tor as usize * self.uplinks + port as usize]).filter(|&x| x != 0)
    }

    /// The CPU interface (rotation frames) of external ToR `tor`.
    pub fn cpu_ifindex(&self, tor: TorId) -> Option<i32> {
        self.ext_cpu.iter().find(|x| x.0 == tor).map(|x| x.1)
    }

    /// Which external ToR uplink an interface is.
    pub fn uplink_of_ifindex(&self, ifindex: i32) -> Option<(TorId, PortId)> {
        match self.by_ifindex.get(&ifindex)? {
            Iface::Uplink(tu) => Some((
                (*tu as usize / self.uplinks) as TorId,
                (*tu as usize % self.uplinks) as PortId,
            )),
            Iface::Host(_) => None,
        }
    }

    /// A snapshot of the counters (also collects the port's kernel drops).
    pub fn counters(&mut self) -> Counters {
        self.c.port_drops += self.port.take_drops();
        self.c.clone()
    }

    /// Bytes ToR `tor` holds of its own hosts' bulk for host `h` (plan
    /// order, from 0) in RotorLB's queue (0 without RotorLB): a host's
    /// RotorLB sender keeps the rest of its flow in its own memory, as the
    /// Opera authors' hosts do (`lh_sim`'s bulk flows).
    pub fn bulk_backlog(&self, tor: TorId, h: usize) -> u64 {
        self.tor
            .rlb
            .as_ref()
            .map_or(0, |r| r.backlog(tor, h as u16))
    }

    /// Bytes per `[uplink][calendar queue]` of a ToR.
    pub fn queues(&self, tor: TorId) -> Vec<Vec<u64>> {
        self.cal.queues(tor)
    }

    /// Bytes host `h` (plan order, from 0) can still hold at its NIC when
    /// paused (its memory, `EngineOptions::host_queue_bytes`, less what it
    /// holds); `u64::MAX` when hosts never hold (no push-back, no flow
    /// pausing). An application whose host has no room waits, as a full
    /// socket blocks its writer.
    pub fn host_hold_room(&self, h: usize) -> u64 {
        self.nic.as_ref().map_or(u64::MAX, |n| n.room(h))
    }

    /// Bytes hosts of each ToR sent towards each other ToR since the start
    /// (`[src][dst]`): the live traffic matrix for TA updates (§8).
    pub fn traffic_matrix(&self) -> Vec<Vec<u64>> {
        self.tor.traffic_matrix()
    }

    /// Telemetry (`buffer_usage`, `bw_usage`) of every uplink:
    /// `[tor][uplink]`.
    pub fn usage(&self) -> Vec<Vec<crate::PortUsage>> {
        self.cal.usage()
    }

    /// Bytes per `[uplink][calendar queue]` of a ToR held at its hosts by
    /// buffer offloading (empty without it).
    pub fn offloaded(&self, tor: TorId) -> Vec<Vec<u64>> {
        self.cal.offloaded(tor)
    }

    /// Replaces the schedule and tables at time `now` (a traffic-aware
    /// topology update). Queued frames stay where they are; every uplink
    /// whose circuit changed is dark for `max(guardband, reconfiguration)`
    /// from `now`, for the ToR and the OCS alike. The shape (ToRs, uplinks,
    /// slices) must not change.
    pub fn reconfigure(
        &mut self,
        schedule: &Schedule,
        tables: impl Into<Arc<FlatTables>>,
        now: u64,
    ) -> Result<(), crate::FabricError> {
        let tables: Arc<FlatTables> = tables.into();
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
        let ix = LookupIndex::build(tables.clone(), self.tors)?;
        let moved = self.ocs.reconfigure(schedule, now);
        self.cal.reconfigure(schedule, &self.timing, &moved, now);
        self.tor.reconfigure(ix, &tables);
        if let Some(r) = self.tor.rlb.as_mut() {
            r.set_schedule(schedule, &self.timing);
        }
        if let Some(n) = self.nic.as_mut() {
            n.set_circuits(schedule);
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
        self.cap
            .start(tor as usize * self.uplinks + p as usize, file)
    }

    pub fn stop_capture(&mut self, tor: TorId, at: CapturePoint) -> io::Result<()> {
        let CapturePoint::Uplink(p) = at;
        self.cap.stop(tor as usize * self.uplinks + p as usize)
    }

    pub fn flush_captures(&mut self) {
        self.cap.flush();
    }

    /// Fabric delay (first ToR to host egress) of delivered frames.
    pub fn fabric_delay(&self) -> &DelayHist {
        &self.delay
    }

    /// Bytes held at host `ip`'s NIC (0 without a host system).
    pub fn held_at(&self, ip: Ipv4Addr) -> u64 {
        match (&self.nic, self.hosts.by_ip(&ip)) {
            (Some(n), Some(h)) => n.held_bytes(h as usize),
            _ => 0,
        }
    }
}
