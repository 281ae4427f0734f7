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

use crate::afpacket::RxFrame;
use crate::calendar::Calendar;
use crate::capture::Captures;
use crate::clock::{SliceClock, offset};
use crate::counters::{Counters, DelayHist, DropReason};
pub use crate::estimator::Occupancy;
use crate::fastmap::IntMap;
use crate::host::Hosts;
use crate::lookup::LookupIndex;
pub use crate::nic::FlowPausing;
use crate::nic::Nic;
use crate::ocs::Ocs;
use crate::pool::FramePool;
use crate::pushback::Pushback;
pub use crate::pushback::PushbackTrigger;
use crate::switch::Io;
pub use crate::switch::{FatTreeOptions, Scheme, Switches};
use crate::tor::{Ctx, Pipeline};
use crate::{ExternalIfindexes, FabricSpec, Ifindexes, Timing};
use lh_ctrl::schedule::Schedule;
use lh_ctrl::tables::FlatTables;
use lh_ctrl::{PortId, TorId};
use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;

pub use crate::calendar::PACE_SLACK_NS;
pub use crate::capture::CapturePoint;
pub use crate::port::{MemPort, Port, SentFrame};
pub use crate::tor::MAX_HOPS;

/// Tunables of the engine beyond [`Timing`].
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// Frame slots in the pool.
    pub pool_frames: usize,
    /// The pool doubles when it runs out (virtual time only:
    /// [`FramePool::set_growable`]).
    pub pool_grows: bool,
    /// Bytes per slot: [`crate::pool::SLOT`] (2 KiB) for socket ports; a
    /// [`MemPort`] fed padded frames ([`MemPort::inject_padded`]) can use
    /// small ones (`pool::FramePool::with_slot`).
    pub pool_slot: usize,
    /// Byte limit of each host port's egress queue.
    pub host_queue_bytes: u64,
    /// A fixed slice-clock epoch (CLOCK_MONOTONIC ns of slice 0 of cycle
    /// 0) for [`crate::start_with`], e.g. one shared with another process or
    /// chosen by a test; None: the latest aligned cycle boundary.
    pub epoch: Option<u64>,
    /// The ToR and host systems of paper §6–§7 (estimator, slice-miss
    /// detection, push-back, flow pausing).
    pub tor: TorFeatures,
    /// A fat tree of electrical switches above the ToRs (its edge
    /// switches): frames from hosts go to [`crate::switch`] instead of the
    /// ToR pipeline.
    pub fattree: Option<FatTreeOptions>,
    /// Put the external ToRs' interfaces in promiscuous mode for as long
    /// as the engine's socket is open ([`crate::start_with`]): hardware
    /// ToRs behind NICs address the hosts, not this machine
    /// (`lighthouse ocs`). Veths pass every frame anyway.
    pub promiscuous_external: bool,
    /// Pin the data-plane thread to this CPU ([`crate::sched::dataplane_cpu`]
    /// says when and why; `lighthouse run --own-cpu`).
    pub cpu: Option<usize>,
    /// netem's options on every host link (config `hosts.link`;
    /// [`crate::netem`]).
    pub host_link: Option<lh_ctrl::config::HostLinkCfg>,
    /// The loss of every optical circuit and its seed (config
    /// `tors.link_loss`, `hosts.link.seed`).
    pub circuit_loss: Option<(lh_ctrl::config::LossPercent, u64)>,
    /// Every optical circuit's delay spread in ns, and its draws' seed
    /// (config `tors.link_jitter`, `hosts.link.seed`).
    pub circuit_jitter: Option<(u64, u64)>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            pool_frames: 32 * 1024,
            pool_grows: false,
            pool_slot: crate::pool::SLOT,
            host_queue_bytes: 4 << 20,
            epoch: None,
            tor: TorFeatures::default(),
            fattree: None,
            promiscuous_external: false,
            cpu: None,
            host_link: None,
            circuit_loss: None,
            circuit_jitter: None,
        }
    }
}

impl EngineOptions {
    /// What a config asks of the engine (its `tor` section, a fat tree's
    /// switches), the rest default: a live run and a simulation start the
    /// engine the same way.
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> EngineOptions {
        EngineOptions {
            tor: TorFeatures::from_config(cfg),
            fattree: FatTreeOptions::from_config(cfg),
            host_link: cfg.hosts.as_ref().and_then(|h| h.link),
            circuit_loss: cfg
                .tors
                .link_loss
                .filter(|l| l.0 > 0)
                .map(|l| (l, link_seed(cfg))),
            circuit_jitter: cfg
                .tors
                .link_jitter
                .filter(|j| j.0 > 0)
                .map(|j| (j.0, link_seed(cfg))),
            ..Default::default()
        }
    }
}

/// The seed of the links' draws: `hosts.link.seed`, else 1.
fn link_seed(cfg: &lh_ctrl::config::Config) -> u64 {
    cfg.hosts.as_ref().and_then(|h| h.link?.seed).unwrap_or(1)
}

/// Optional mechanisms of the ToR and host systems (paper §6.2, §7),
/// from config.json's `tor` section ([`TorFeatures::from_config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TorFeatures {
    /// How admission learns calendar-queue occupancy (§6.2).
    pub occupancy: Occupancy,
    /// Slice-miss detection (§6.2). Off, every frame goes to its primary
    /// calendar queue while the buffer lasts (paper Table 3, column 1).
    pub slice_miss_detection: bool,
    /// A frame that fits no action's slice is dropped (`slice_miss`), as
    /// Opera's capped queues do, instead of waiting a cycle in its primary
    /// calendar queue (config `tor.on_slice_miss`).
    pub drop_on_miss: bool,
    /// Traffic push-back (§7), and when it fires.
    pub pushback: Option<PushbackTrigger>,
    /// Flow pausing at the hosts (§7): elephants wait for their direct
    /// circuit.
    pub flow_pausing: Option<FlowPausing>,
    /// Buffer offloading (§7): calendar queues per uplink kept on the ToR
    /// (the nearest `N` slices); the rest wait at its hosts.
    pub offload_queues: Option<usize>,
    /// RotorLB for Opera's bulk class (config `routing.bulk: rotorlb`;
    /// [`crate::rotorlb`]).
    pub rotorlb: bool,
}

impl Default for TorFeatures {
    fn default() -> Self {
        TorFeatures {
            occupancy: Occupancy::Exact,
            slice_miss_detection: true,
            drop_on_miss: false,
            pushback: None,
            flow_pausing: None,
            offload_queues: None,
            rotorlb: false,
        }
    }
}

impl TorFeatures {
    /// The `tor` section of a config (defaults when absent).
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> TorFeatures {
        use lh_ctrl::config::{OccupancyMode, PushbackWhen};
        let rotorlb = cfg.routing.bulk == lh_ctrl::config::BulkTransport::Rotorlb;
        let Some(t) = &cfg.tor else {
            return TorFeatures {
                rotorlb,
                ..TorFeatures::default()
            };
        };
        TorFeatures {
            rotorlb,
            occupancy: match t.occupancy {
                OccupancyMode::Exact => Occupancy::Exact,
                OccupancyMode::Estimated { update_interval } => Occupancy::Estimated {
                    update_interval: update_interval.0,
                },
            },
            slice_miss_detection: t.slice_miss_detection,
            drop_on_miss: t.on_slice_miss == lh_ctrl::config::SliceMissAction::Drop,
            pushback: t.pushback.map(|p| match p {
                PushbackWhen::FirstRejection => PushbackTrigger::FirstRejection,
                PushbackWhen::AfterReroutes(n) => PushbackTrigger::AfterReroutes(n),
            }),
            offload_queues: t.offload.map(|o| o.queues as usize),
            flow_pausing: t.flow_pausing.map(|f| FlowPausing {
                elephant_bytes: f.elephant_bytes,
                aging: f.aging.0.max(1),
            }),
        }
    }
}

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
    /// Builds an engine. `ifindex[i]` is the ifindex of `spec.hosts[i].ifname`;
    /// external ToRs' interfaces get the next free numbers as in
    /// [`Ifindexes::sequential`].
    pub fn new(
        spec: &FabricSpec,
        ifindex: &[i32],
        port: P,
        clock: SliceClock,
        opts: EngineOptions,
    ) -> Result<Engine<P>, crate::FabricError> {
        let mut ix = Ifindexes::sequential(spec);
        let base = ifindex
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(spec.hosts.len() as i32)
            - spec.hosts.len() as i32;
        for x in &mut ix.external {
            x.uplinks.iter_mut().for_each(|u| *u += base);
            x.cpu += base;
        }
        ix.hosts = ifindex.to_vec();
        Engine::with_ports(spec, &ix, port, clock, opts)
    }

    /// Builds an engine on `port` with every interface's index given, and
    /// the slice clock given (a fixed, test-chosen epoch makes arrival
    /// slices deterministic: time is passed to [`Engine::poll`]).
    pub fn with_ports(
        spec: &FabricSpec,
        ifindex: &Ifindexes,
        port: P,
        clock: SliceClock,
        opts: EngineOptions,
    ) -> Result<Engine<P>, crate::FabricError> {
        let (schedule, tables, timing, hosts) =
            (&spec.schedule, &spec.tables, spec.timing, &spec.hosts);
        if ifindex.hosts.len() != hosts.len() || ifindex.external.len() != spec.external.len() {
            return Err(crate::FabricError::Spec(
                "one ifindex per host and one set per external ToR are needed".into(),
            ));
        }
        let tors = schedule.tors();
        let uplinks = schedule.uplinks();
        let s = schedule.slices();
        let mut hs = Hosts::new(opts.host_queue_bytes, timing.model.host_rate);
        hs.set_link(opts.host_link);
        let mut by_ifindex = IntMap::default();
        for (i, h) in hosts.iter().enumerate() {
            if h.tor as usize >= tors {
                return Err(crate::FabricError::Spec(format!(
                    "host {} is on ToR {} but the fabric has {tors} ToRs",
                    h.ip, h.tor
                )));
            }
            if spec.is_external(h.tor) {
                hs.add(h.ip, h.mac, h.tor, 0);
            } else {
                let k = hs.add(h.ip, h.mac, h.tor, ifindex.hosts[i]);
                by_ifindex.insert(ifindex.hosts[i], Iface::Host(k));
            }
        }
        let mut ext_uplink = vec![0; tors * uplinks];
        let mut ext_cpu = Vec::new();
        for (x, ExternalIfindexes { uplinks: ups, cpu }) in
            spec.external.iter().zip(&ifindex.external)
        {
            if x.tor as usize >= tors || ups.len() != uplinks {
                return Err(crate::FabricError::Spec(format!(
                    "external ToR {} needs one interface per uplink ({uplinks})",
                    x.tor
                )));
            }
            for (p, &ifx) in ups.iter().enumerate() {
                let tu = x.tor as usize * uplinks + p;
                ext_uplink[tu] = ifx;
                by_ifindex.insert(ifx, Iface::Uplink(tu as u32));
            }
            ext_cpu.push((x.tor, *cpu));
        }
        let paced: Vec<(usize, crate::pacer::TakenIn)> = spec
            .external
            .iter()
            .filter_map(|x| x.taken_in.clone().map(|t| (x.tor as usize, t)))
            .collect();
        let pacer = crate::pacer::Pacer::new(tors, &paced);
        let mut cal = Calendar::new(schedule, &timing, clock);
        cal.set_admission(opts.tor.slice_miss_detection, opts.tor.occupancy);
        cal.set_drop_on_miss(opts.tor.drop_on_miss);
        cal.set_offload(opts.tor.offload_queues);
        let pb = opts
            .tor
            .pushback
            .map(|t| Pushback::new(t, tors, timing.model.propagation.0));
        let nic = (pb.is_some() || opts.tor.flow_pausing.is_some()).then(|| {
            let mut n = Nic::new(
                hosts.iter().map(|h| h.tor).collect(),
                tors,
                clock,
                opts.host_queue_bytes,
                timing.model.host_rate,
            );
            if let Some(f) = opts.tor.flow_pausing {
                n.enable_flow_pausing(f, schedule, timing.dark().0);
            }
            n
        });
        if !spec.external.is_empty() && timing.model.buffer_capacity != u64::MAX {
            // The P4 program limits each queue only (`parse_for` says so
            // with the field's name first, where a front end can).
            return Err(crate::FabricError::Spec(
                "tors.buffer_capacity (a buffer a ToR's calendar queues share) is modelled by native ToRs only, not by external (P4) ToRs".into(),
            ));
        }
        if !spec.external.is_empty() && opts.tor.rotorlb {
            return Err(crate::FabricError::Spec(
                "routing.bulk \"rotorlb\" is modelled by native ToRs only: an external (P4) ToR sends bulk on its direct circuit".into(),
            ));
        }
        if !spec.external.is_empty() && opts.tor.drop_on_miss {
            return Err(crate::FabricError::Spec(
                "tor.on_slice_miss \"drop\" is modelled by native ToRs only: an external (P4) ToR defers a frame that fits no slice".into(),
            ));
        }
        let sw = match opts.fattree {
            Some(o) => {
                let sw = Switches::new(
                    o,
                    timing.model.link_rate,
                    timing.model.host_rate,
                    timing.model.propagation.0,
                    hosts.len(),
                )
                .map_err(crate::FabricError::Spec)?;
                if !spec.external.is_empty() {
                    return Err(crate::FabricError::Spec(
                        "a fat tree's edge switches run in swtor: no external (P4) ToRs".into(),
                    ));
                }
                if sw.tree().edges() != tors {
                    return Err(crate::FabricError::Spec(format!(
                        "a fat tree with k = {} has {} edge switches, the schedule {tors} ToRs",
                        o.k,
                        sw.tree().edges()
                    )));
                }
                Some(sw)
            }
            None => None,
        };
        let mut tor = Pipeline::new(tables, tors, clock, s, timing.tor_clock_offset)?;
        if opts.tor.rotorlb {
            let host_tor = (0..hs.len()).map(|h| hs.tor(h as u16)).collect();
            tor.rlb = Some(crate::rotorlb::RotorLb::new(schedule, &timing, host_tor));
            cal.set_bulk();
        }
        Ok(Engine {
            sw,
            port,
            pool: {
                let mut p = FramePool::with_slot(opts.pool_frames, opts.pool_slot);
                p.set_growable(opts.pool_grows);
                p
            },
            timing,
            clock,
            tors,
            uplinks,
            s,
            hosts: hs,
            tor,
            cal,
            ocs: {
                let mut o = Ocs::new(schedule, &timing, clock);
                if let Some((j, seed)) = opts.circuit_jitter {
                    o.set_jitter(j, seed);
                }
                o
            },
            cap: Captures::new(tors * uplinks),
            by_ifindex,
            ext_uplink,
            ext_cpu,
            rotation_slot: u64::MAX,
            ext_tx: Vec::with_capacity(crate::afpacket::BATCH),
            pacer,
            rx: Vec::with_capacity(crate::afpacket::BATCH),
            last_poll: 0,
            slept: false,
            pb,
            nic,
            delay: DelayHist::default(),
            circuit_loss: opts
                .circuit_loss
                .map(|(l, seed)| crate::netem::Shape::circuits(l, seed)),
            c: Counters::default(),
        })
    }

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

    /// The port of the attached host with this IP (None: unknown, or a
    /// host of an external ToR).
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
        [
            self.cal.next_at(now),
            self.tor.bulk_next_at(now),
            self.ocs.next_due(),
            self.hosts.next_at(&self.pool),
        ]
        .into_iter()
        .flatten()
        .min()
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

    fn receive(&mut self, now: u64) -> io::Result<bool> {
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
    fn release_links(&mut self, now: u64) -> bool {
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
    fn enter_tor(&mut self, h: u16, tor: TorId, i: u32, t: u64) {
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
    fn forward_from_host(&mut self, tor: TorId, i: u32, now: u64) {
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
    fn nic_holds(&mut self, h: u16, tor: TorId, i: u32, now: u64) -> bool {
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
    fn apply_pushbacks(&mut self, now: u64) {
        let tnow = offset(now, self.timing.tor_clock_offset);
        let (Some(pb), Some(nic)) = (self.pb.as_mut(), self.nic.as_mut()) else {
            return;
        };
        while let Some(m) = pb.pop_due(now) {
            self.c.pushback_notified += nic.pushback(&m, tnow);
        }
    }

    /// A frame a host NIC held (paused or pushed back) enters its ToR now.
    fn forward_held(&mut self, h: u16, i: u32, now: u64) {
        let tor = self.hosts.tor(h);
        self.forward_from_host(tor, i, now);
    }

    /// Held frames whose pause is over go to their ToR.
    fn release_held(&mut self, now: u64) -> bool {
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

mod external;
#[cfg(test)]
mod tests;
