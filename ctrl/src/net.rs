//! `LighthouseNet`: the user API with the paper's names (Table 1, Table 5,
//! Fig. 6). A script reads like the paper's example:
//!
//! ```no_run
//! use lh_ctrl::net::LighthouseNet;
//! use lh_ctrl::config::{Lookup, Multipath};
//! let mut net = LighthouseNet::load("topologies/rotornet-8.json".as_ref()).unwrap();
//! assert!(net.round_robin(), "Invalid Topology.");
//! let paths = net.direct().unwrap();
//! let tables = net.entries(&paths, Lookup::Hop, Multipath::None).unwrap();
//! net.buffer_usage(None, None, "1ms".parse().unwrap());
//! # let _ = tables;
//! ```
//!
//! Every method is a thin call into the module that owns the concept; the
//! facade only keeps the current schedule and the monitoring requests.

use crate::config::{Config, ConfigError, Lookup, Metric, Monitor, Multipath, Scheduler};
use crate::routing::{self, Path, RouteSet, RoutingError, RoutingOptions};
use crate::schedule::{self, Endpoint, OcsSchedule, Schedule, ScheduleError, Topo};
use crate::tables::{self, TableError, Tables};
use crate::units::Nanos;
use crate::{PortId, SliceId, Slot, TorId};

pub struct LighthouseNet {
    pub config: Config,
    schedule: Schedule,
    opts: RoutingOptions,
    monitors: Vec<Monitor>,
    /// Inside `begin_topo` .. `end_topo`: `connect` grows the cycle up to
    /// the highest slice it names (`Some(slices used)`).
    draft: Option<usize>,
    /// Why the last `connect` or topology call returned false.
    refusal: Option<String>,
}

impl LighthouseNet {
    /// A network for `config` with an empty one-slice schedule.
    pub fn new(config: Config) -> Self {
        let opts = crate::routing::RoutingOptions::of(&config);
        let schedule = Schedule::new(config.tors.count as usize, config.tors.uplinks as usize, 1);
        LighthouseNet {
            config,
            schedule,
            opts,
            monitors: Vec::new(),
            draft: None,
            refusal: None,
        }
    }

    /// `LighthouseNet(config)` from a config.json file.
    pub fn load(path: &std::path::Path) -> Result<Self, ConfigError> {
        Ok(LighthouseNet::new(Config::load(path)?))
    }

    /// The network of a compiled config: its config and the schedule the
    /// compile built (the Python binding's read-only views start here).
    pub fn from_compiled(c: &crate::compile::Compiled) -> Self {
        let mut n = LighthouseNet::new(c.config.clone());
        n.schedule = c.schedule.clone();
        n
    }

    fn set_schedule(&mut self, s: Schedule) {
        self.schedule = s;
    }

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Start a fresh schedule of `slices` slices for `connect()` calls.
    pub fn new_schedule(&mut self, slices: usize) {
        let s = Schedule::new(
            self.schedule.tors(),
            self.schedule.optical_uplinks(),
            slices,
        );
        self.set_schedule(s);
    }

    /// Start a script's `topo()`: an empty schedule whose cycle grows with
    /// the slices `connect` names, until [`LighthouseNet::end_topo`].
    pub fn begin_topo(&mut self) {
        self.new_schedule(1);
        self.draft = Some(0);
    }

    /// End a script's `topo()`: the cycle is the slices it connected (or
    /// `slices`, when given); the schedule is checked against the OCS
    /// cabling of the config. On an error the schedule is left empty.
    pub fn end_topo(&mut self, slices: Option<usize>) -> Result<OcsSchedule, ScheduleError> {
        let used = self.draft.take().unwrap_or(self.schedule.slices());
        let want = slices.unwrap_or(used);
        if want == 0 {
            self.new_schedule(1);
            return Err(ScheduleError::Infeasible(
                "topo() connected nothing: the schedule has no circuits".into(),
            ));
        }
        if want < used {
            self.new_schedule(1);
            return Err(ScheduleError::Infeasible(format!(
                "topo() connected slice {} but slices={want}",
                used - 1
            )));
        }
        let s = self.schedule.with_slices(want);
        match s.verify(&self.config) {
            Ok(ocs) => {
                self.set_schedule(s);
                Ok(ocs)
            }
            Err(e) => {
                self.new_schedule(1);
                Err(e)
            }
        }
    }

    /// [`LighthouseNet::connect`] with the reason of a refusal.
    pub fn try_connect(
        &mut self,
        a: Endpoint,
        b: Endpoint,
        ts: SliceId,
    ) -> Result<(), ScheduleError> {
        if let Some(used) = self.draft
            && ts as usize >= self.schedule.slices()
        {
            // Grow geometrically: a topo() connecting slice after slice
            // copies the schedule O(log S) times, not S times.
            let grown = (ts as usize + 1).max(2 * self.schedule.slices());
            self.schedule = self.schedule.with_slices(grown);
            self.draft = Some(used);
        }
        self.schedule.connect(a, b, ts)?;
        if let Some(used) = self.draft.as_mut() {
            *used = (*used).max(ts as usize + 1);
        }
        Ok(())
    }

    /// `connect(ToR1, port1, ToR2, port2, ts)`. `ts = -1` (TA) connects the
    /// ports in every slice of the current schedule. False when the circuit
    /// is refused (port used twice, self-loop, out of range).
    pub fn connect(
        &mut self,
        tor1: TorId,
        port1: PortId,
        tor2: TorId,
        port2: PortId,
        ts: i32,
    ) -> bool {
        let (a, b) = (Endpoint::new(tor1, port1), Endpoint::new(tor2, port2));
        let slices: Vec<SliceId> = if ts < 0 {
            (0..self.schedule.slices() as SliceId).collect()
        } else {
            vec![ts as SliceId]
        };
        for t in slices {
            if let Err(e) = self.try_connect(a, b, t) {
                self.refusal = Some(e.to_string());
                return false;
            }
        }
        true
    }

    /// Why the last `connect()` or topology call (`round_robin()`, ...)
    /// returned false.
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// `topo()`: fill the schedule with any generator, then check it against
    /// the OCS cabling of the config.
    pub fn topo(&mut self, t: &dyn Topo) -> Result<OcsSchedule, ScheduleError> {
        let s = Schedule::from_topo(t, self.schedule.tors(), self.schedule.optical_uplinks())?;
        let ocs = s.verify(&self.config)?;
        self.set_schedule(s);
        Ok(ocs)
    }

    fn set(&mut self, s: Result<Schedule, ScheduleError>) -> bool {
        match s.and_then(|s| s.verify(&self.config).map(|_| s)) {
            Ok(s) => {
                self.set_schedule(s);
                true
            }
            Err(e) => {
                tracing::warn!("topology refused: {e}");
                self.refusal = Some(e.to_string());
                false
            }
        }
    }

    /// `round_robin()`: RotorNet / Sirius circle-method schedule.
    pub fn round_robin(&mut self) -> bool {
        let (n, u) = (self.schedule.tors(), self.schedule.optical_uplinks());
        self.set(schedule::round_robin(n, u))
    }

    /// `topo_opera()`.
    pub fn topo_opera(&mut self) -> bool {
        let (n, u) = (self.schedule.tors(), self.schedule.optical_uplinks());
        self.set(schedule::opera(n, u, schedule::opera::DEFAULT_SEED))
    }

    /// `topo_shale()` with `h` dimensions.
    pub fn topo_shale(&mut self, h: u32) -> bool {
        let (n, u) = (self.schedule.tors(), self.schedule.optical_uplinks());
        self.set(schedule::shale(n, u, h))
    }

    /// `topo_aware(TM)` with `bvn`, `hotspot` or `mip` (Table 5).
    pub fn topo_aware(&mut self, tm: &[Vec<u64>], scheduler: Scheduler) -> bool {
        let s = crate::ta::schedule(scheduler, tm, self.schedule.optical_uplinks())
            .map(|s| crate::schedule::with_electrical(&self.config, s))
            .map_err(|e| ScheduleError::Infeasible(e.to_string()));
        self.set(s)
    }

    /// `neighbors(ToR, ts)`.
    pub fn neighbors(&self, tor: TorId, ts: SliceId) -> Vec<TorId> {
        routing::neighbors(&self.schedule, tor, ts)
    }

    /// `earliest_path(src, dst, ts, max_hop)`: one solve of `dst` (a loop
    /// over every pair should use [`LighthouseNet::earliest_paths_to`], or
    /// the Python binding, which keeps each solved destination).
    pub fn earliest_path(&self, src: TorId, dst: TorId, ts: SliceId, max_hop: u8) -> Option<Path> {
        routing::earliest_path(&self.schedule, src, dst, ts, max_hop, &self.opts)
    }

    /// `earliest_path(src, dst, ts, max_hop)` for every source and arrival
    /// slice at once (one solve of `dst`), indexed `src * slices + ts`.
    pub fn earliest_paths_to(&self, dst: TorId, max_hop: u8) -> Vec<Option<Path>> {
        self.earliest_paths_to_many(&[dst], max_hop)
            .pop()
            .expect("one destination")
    }

    /// [`LighthouseNet::earliest_paths_to`] for several destinations, on
    /// the routing worker threads, each reusing one solver's buffers.
    pub fn earliest_paths_to_many(&self, dsts: &[TorId], max_hop: u8) -> Vec<Vec<Option<Path>>> {
        let (n, slices) = (self.schedule.tors(), self.schedule.slices());
        let adj = routing::earliest::Adjacency::new(&self.schedule);
        let solve = |part: &[TorId]| -> Vec<Vec<Option<Path>>> {
            let mut dp = routing::earliest::Dp::new(
                &self.schedule,
                &adj,
                max_hop,
                self.opts.same_slice_hops,
            );
            part.iter()
                .map(|&dst| {
                    if dst as usize >= n || max_hop == 0 {
                        return vec![None; n * slices];
                    }
                    dp.solve(dst);
                    (0..n * slices)
                        .map(|i| {
                            let s = (i / slices) as TorId;
                            (s != dst)
                                .then(|| dp.path(s, (i % slices) as SliceId, max_hop as usize))
                                .flatten()
                        })
                        .collect()
                })
                .collect()
        };
        let threads = routing::worker_threads().min(dsts.len()).max(1);
        if threads == 1 {
            return solve(dsts);
        }
        let chunk = dsts.len().div_ceil(threads);
        std::thread::scope(|sc| {
            let solve = &solve;
            let handles: Vec<_> = dsts
                .chunks(chunk)
                .map(|part| sc.spawn(move || solve(part)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("earliest_path worker panicked"))
                .collect()
        })
    }

    /// A path given as the ToRs it visits and the slot each hop departs
    /// in (absolute, counted from the arrival slice's cycle), for packets
    /// arriving at `tors[0]` in slice `arrival`. The uplink of each hop is
    /// the one whose circuit reaches the next ToR in that slot's slice;
    /// the error names the hop and the slice when no circuit does.
    pub fn path(&self, tors: &[TorId], departs: &[Slot], arrival: SliceId) -> Result<Path, String> {
        let s = &self.schedule;
        let name = || {
            let v: Vec<String> = tors.iter().map(|t| t.to_string()).collect();
            format!("path {} arriving in slice {arrival}", v.join("->"))
        };
        if tors.len() < 2 {
            return Err(format!("{}: a path visits at least two ToRs", name()));
        }
        if departs.len() != tors.len() - 1 {
            return Err(format!(
                "{}: {} hops need {} departure slots, got {}",
                name(),
                tors.len() - 1,
                tors.len() - 1,
                departs.len()
            ));
        }
        if let Some(t) = tors.iter().find(|&&t| t as usize >= s.tors()) {
            return Err(format!(
                "{}: ToR {t} does not exist ({} ToRs)",
                name(),
                s.tors()
            ));
        }
        if arrival as usize >= s.slices() {
            return Err(format!(
                "{}: slice {arrival} does not exist ({} slices)",
                name(),
                s.slices()
            ));
        }
        let mut hops = Vec::with_capacity(departs.len());
        for (i, (w, &d)) in tors.windows(2).zip(departs).enumerate() {
            let slice = (d as usize % s.slices()) as SliceId;
            let port = (0..s.uplinks() as PortId).find(|&p| {
                if s.is_electrical(p) {
                    return w[0] != w[1];
                }
                s.peer(slice, Endpoint::new(w[0], p))
                    .is_some_and(|e| e.tor == w[1])
            });
            let Some(port) = port else {
                return Err(format!(
                    "{}: hop {i} (ToR {} -> ToR {}) departs in slot {d} = slice {slice}, but no circuit ToR {}-ToR {} is up in slice {slice} (its neighbours then: {:?})",
                    name(),
                    w[0],
                    w[1],
                    w[0],
                    w[1],
                    s.neighbors(w[0], slice)
                ));
            };
            hops.push(routing::Hop {
                tor: w[0],
                port,
                depart: Some(d),
            });
        }
        let p = Path {
            src: tors[0],
            dst: *tors.last().expect("two ToRs"),
            arrival: Some(arrival),
            hops,
            class: None,
        };
        tables::check_path(s, &p).map_err(|e| e.to_string())?;
        Ok(p)
    }

    /// `shortest_path(src, dst)` (Table 5): all equal-cost shortest paths.
    pub fn shortest_path(&self, src: TorId, dst: TorId) -> Vec<Path> {
        routing::static_routes::shortest_paths(&self.schedule, src, dst)
    }

    pub fn direct(&self) -> Result<RouteSet, RoutingError> {
        routing::direct::direct(&self.schedule, &self.opts)
    }
    pub fn vlb(&self) -> Result<RouteSet, RoutingError> {
        routing::vlb::vlb(&self.schedule, &self.opts)
    }
    pub fn opera(&self) -> Result<RouteSet, RoutingError> {
        routing::opera::opera(&self.schedule, &self.opts)
    }
    pub fn ucmp(&self) -> Result<RouteSet, RoutingError> {
        routing::ucmp::ucmp(&self.schedule, &self.opts)
    }
    pub fn hoho(&self) -> Result<RouteSet, RoutingError> {
        routing::hoho::hoho(&self.schedule, &self.opts)
    }
    pub fn ecmp(&self) -> Result<RouteSet, RoutingError> {
        routing::static_routes::ecmp(&self.schedule, &self.opts)
    }
    pub fn ksp(&self) -> Result<RouteSet, RoutingError> {
        routing::static_routes::ksp(&self.schedule, &self.opts)
    }

    /// `entries([path], LOOKUP, MULTIPATH)`.
    pub fn entries(
        &self,
        routes: &RouteSet,
        lookup: Lookup,
        multipath: Multipath,
    ) -> Result<Tables, TableError> {
        let buckets = if multipath == Multipath::None {
            1
        } else {
            self.opts.k.max(1)
        };
        tables::entries(&self.schedule, routes, lookup, multipath, buckets)
    }

    /// `buffer_usage(ToR, port, interval)`: a monitoring request (every ToR
    /// or port when `None`), served by the data plane while it runs.
    pub fn buffer_usage(&mut self, tor: Option<TorId>, port: Option<PortId>, interval: Nanos) {
        self.monitors.push(Monitor {
            metric: Metric::BufferUsage,
            tor,
            port,
            interval,
        });
    }

    /// `bw_usage(ToR, port, interval)`.
    pub fn bw_usage(&mut self, tor: Option<TorId>, port: Option<PortId>, interval: Nanos) {
        self.monitors.push(Monitor {
            metric: Metric::BwUsage,
            tor,
            port,
            interval,
        });
    }

    /// The compiled network of what the script built: this schedule and
    /// either `routes` (a script's routing, with the lookup and multipath of
    /// its `entries()` call) or, when `None`, the config's algorithm on
    /// this schedule. What `start()` brings up.
    pub fn compiled(
        &self,
        routes: Option<(&RouteSet, Lookup, Multipath)>,
    ) -> Result<crate::compile::Compiled, crate::compile::CompileError> {
        let mut cfg = self.config.clone();
        cfg.monitoring = self.monitors();
        match routes {
            None => crate::compile::compile_schedule(&cfg, self.schedule.clone()),
            Some((r, lookup, multipath)) => {
                cfg.routing.lookup = lookup;
                cfg.routing.multipath = multipath;
                crate::compile::compile_routes(&cfg, self.schedule.clone(), r.clone())
            }
        }
    }

    /// Monitoring requests from the config and from calls above.
    pub fn monitors(&self) -> Vec<Monitor> {
        self.config
            .monitoring
            .iter()
            .cloned()
            .chain(self.monitors.iter().cloned())
            .collect()
    }
}
