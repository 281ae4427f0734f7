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
use crate::{PortId, SliceId, TorId};

pub struct LighthouseNet {
    pub config: Config,
    schedule: Schedule,
    opts: RoutingOptions,
    monitors: Vec<Monitor>,
}

impl LighthouseNet {
    /// A network for `config` with an empty one-slice schedule.
    pub fn new(config: Config) -> Self {
        let opts = config.routing_options();
        let schedule = Schedule::new(config.tors.count as usize, config.tors.uplinks as usize, 1);
        LighthouseNet {
            config,
            schedule,
            opts,
            monitors: Vec::new(),
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

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Start a fresh schedule of `slices` slices for `connect()` calls.
    pub fn new_schedule(&mut self, slices: usize) {
        self.schedule = Schedule::new(
            self.schedule.tors(),
            self.schedule.optical_uplinks(),
            slices,
        );
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
        slices
            .into_iter()
            .all(|t| self.schedule.connect(a, b, t).is_ok())
    }

    /// `topo()`: fill the schedule with any generator, then check it against
    /// the OCS cabling of the config.
    pub fn topo(&mut self, t: &dyn Topo) -> Result<OcsSchedule, ScheduleError> {
        let s = Schedule::from_topo(t, self.schedule.tors(), self.schedule.optical_uplinks())?;
        let ocs = s.verify(&self.config)?;
        self.schedule = s;
        Ok(ocs)
    }

    fn set(&mut self, s: Result<Schedule, ScheduleError>) -> bool {
        match s.and_then(|s| s.verify(&self.config).map(|_| s)) {
            Ok(s) => {
                self.schedule = s;
                true
            }
            Err(e) => {
                tracing::warn!("topology refused: {e}");
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
            .map(|s| crate::ta::with_electrical(&self.config, s))
            .map_err(|e| ScheduleError::Infeasible(e.to_string()));
        self.set(s)
    }

    /// `neighbors(ToR, ts)`.
    pub fn neighbors(&self, tor: TorId, ts: SliceId) -> Vec<TorId> {
        routing::neighbors(&self.schedule, tor, ts)
    }

    /// `earliest_path(src, dst, ts, max_hop)`.
    pub fn earliest_path(&self, src: TorId, dst: TorId, ts: SliceId, max_hop: u8) -> Option<Path> {
        routing::earliest_path(&self.schedule, src, dst, ts, max_hop, &self.opts)
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
