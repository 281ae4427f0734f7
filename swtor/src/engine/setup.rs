//! Building an engine from a `FabricSpec`: which interface is which
//! (hosts, external ToRs' uplinks and CPU ports), the checks of what
//! external (P4) ToRs and fat trees can model, and its parts (calendar,
//! OCS, pipeline, host NICs, push-back, switches) set up from the options.

use super::{Engine, EngineOptions, Iface};
use crate::calendar::Calendar;
use crate::capture::Captures;
use crate::clock::SliceClock;
use crate::counters::{Counters, DelayHist};
use crate::fastmap::IntMap;
use crate::host::Hosts;
use crate::nic::Nic;
use crate::ocs::Ocs;
use crate::pool::FramePool;
use crate::port::Port;
use crate::pushback::Pushback;
use crate::switch::Switches;
use crate::tor::Pipeline;
use crate::{ExternalIfindexes, FabricSpec, Ifindexes};

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
}
