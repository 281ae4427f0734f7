//! `LighthouseNet`: the paper's user API (Table 1, Table 5, Fig. 6) over
//! [`lh_ctrl::net::LighthouseNet`], and once `start()`ed, the live
//! [`lh_emu::net::Network`] built from what the script made.

use crate::convert::{interruptible, interval, is_root, named, net_err, read_config, to_py};
use crate::path::{PyPath, PyRoutes, collect};
use crate::{CompileError, NetworkError, PathError, TopologyError};
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Config, Lookup, Metric, Monitor, Multipath, Scheduler};
use lh_ctrl::net::LighthouseNet as Facade;
use lh_ctrl::routing::{RouteSet, RoutingError};
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use lh_emu::net::values::SliceView;
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::run::bringup::NetOptions;
use pyo3::exceptions::{PyIndexError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use std::io::Write;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};

/// `LighthouseNet(config)`: a network from a config.json path, a dict or a
/// JSON string. The topology and routing calls change what `start()`
/// brings up; without them it is the config's.
#[pyclass(
    name = "LighthouseNet",
    unsendable,
    subclass,
    weakref,
    module = "lighthouse"
)]
pub struct PyNet {
    config: Config,
    path: Option<PathBuf>,
    /// The user API's state: the schedule (the config's until a topology
    /// call replaces it) and the monitoring requests.
    facade: Option<Facade>,
    /// The last `entries()`: the routes and how to look them up.
    built: Option<(RouteSet, Lookup, Multipath)>,
    /// What the script built, compiled (`compile()`, `start()`).
    compiled: Option<Compiled>,
    /// `earliest_path` answers as Python objects for `max_hop ==
    /// paths_hop`, per destination (index `src * paths_slices + ts`):
    /// Fig. 6c's loop asks for every pair and slice, and one solve of a
    /// destination answers all of its sources.
    paths: Vec<Option<Vec<Option<Py<PyPath>>>>>,
    paths_hop: u8,
    paths_slices: usize,
    /// Answers held in `paths` (bounded).
    paths_held: usize,
    /// Every answer for `paths_hop`, in Fig. 6c's loop order (index
    /// `(ts * tors + src) * tors + dst`), when the fabric is small enough
    /// to solve whole (`ALL_AT_ONCE`): its calls then walk memory in order.
    flat: Vec<Option<Py<PyPath>>>,
    live: Option<Network>,
    /// `start(backend="sim")`: the network in virtual time instead.
    sim: Option<lh_sim::Sim>,
    /// `start(dashboard=...)`: the run's web dashboard.
    dash: Option<lh_dash::Dashboard>,
}

/// A writer whose bytes can be read back: a node command's output.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A Python timeout (seconds, None: 1 s) in virtual ns.
fn sim_timeout(t: Option<f64>) -> u64 {
    (t.unwrap_or(1.0).max(0.0) * 1e9) as u64
}

fn compile_err(e: impl std::fmt::Display) -> PyErr {
    CompileError::new_err(e.to_string())
}

impl PyNet {
    /// Destinations `earliest_path` solves in one go on a large fabric.
    const SOLVE_AHEAD: usize = 16;
    /// Fabrics with at most this many answers (tors x tors x slices) are
    /// solved whole on the first `earliest_path` call (opera-108: 1.25 M).
    const ALL_AT_ONCE: usize = 2_000_000;

    fn facade(&mut self) -> PyResult<&mut Facade> {
        if self.facade.is_none() {
            let c = lh_ctrl::compile::compile(&self.config).map_err(compile_err)?;
            self.facade = Some(Facade::from_compiled(&c));
            self.compiled = Some(c);
        }
        Ok(self.facade.as_mut().expect("set above"))
    }

    /// A topology change: what was compiled, routed and solved is out of
    /// date.
    fn touched(&mut self) {
        self.compiled = None;
        self.paths.clear();
        self.flat.clear();
        self.paths_held = 0;
        self.built = None;
    }

    /// What the script built, compiled: the config's pipeline when nothing
    /// was changed, else the script's schedule with its routes (or the
    /// config's algorithm on it).
    fn ensure_compiled(&mut self) -> PyResult<&Compiled> {
        self.facade()?;
        if self.compiled.is_none() {
            let f = self.facade.as_ref().expect("facade");
            let routes = self.built.as_ref().map(|(r, l, m)| (r, *l, *m));
            let c = f.compiled(routes).map_err(compile_err)?;
            self.compiled = Some(c);
        }
        Ok(self.compiled.as_ref().expect("compiled above"))
    }

    fn live(&mut self) -> PyResult<&mut Network> {
        if self.sim.is_some() {
            return Err(NetworkError::new_err(
                "not in virtual time: a start(backend=\"sim\") network has pingall(), ping(), flows(), drops() and now",
            ));
        }
        self.live
            .as_mut()
            .ok_or_else(|| NetworkError::new_err("the network is not running: call start() first"))
    }

    fn sim_err(e: lh_sim::SimError) -> PyErr {
        NetworkError::new_err(e.to_string())
    }

    /// The config's `hosts.tcp` as virtual time's TCP (a field it cannot
    /// model is a ValueError naming its JSON path).
    fn sim_tcp(&self) -> PyResult<lh_sim::TcpConfig> {
        lh_sim::TcpConfig::from_host_tcp(self.config.hosts.as_ref().and_then(|h| h.tcp.as_ref()))
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Runs `specs` in virtual time: `flows()`'s value, and the per-flow
    /// CSV at `csv` if given.
    fn sim_flows(
        &mut self,
        py: Python<'_>,
        specs: &[lh_emu::traffic::workload::arrivals::FlowSpec],
        head: String,
        grace_ns: u64,
        csv: Option<&std::path::Path>,
    ) -> PyResult<Py<PyAny>> {
        use lh_emu::traffic::workload::fct;
        let tcp = self.sim_tcp()?;
        let s = self.sim.as_mut().expect("called in virtual time");
        let t0 = s.now();
        let records = lh_sim::apps::flows(s, specs, tcp, grace_ns).map_err(Self::sim_err)?;
        if let Some(path) = csv {
            std::fs::write(path, fct::csv(&records))
                .map_err(|e| PyValueError::new_err(format!("csv={}: {e}", path.display())))?;
        }
        let v = lh_emu::traffic::workload::FlowSummary {
            head,
            summary: fct::summarize(&records, fct::Buckets::default()),
            records,
            // Virtual seconds: the simulation's result has no wall time.
            elapsed_s: (s.now() - t0) as f64 / 1e9,
        };
        to_py(py, &v)
    }

    /// `start(backend="sim")`: the compiled network in virtual time.
    fn start_sim(&mut self, tor: &str, dashboard: bool) -> PyResult<()> {
        if dashboard {
            return Err(PyValueError::new_err(
                "start(dashboard=...): the simulation runs in virtual time, faster than a page can follow; use backend=\"live\"",
            ));
        }
        lh_sim::check(&self.config, tor)
            .map_err(|e| PyValueError::new_err(format!("start(backend=\"sim\"): {e}")))?;
        let c = self.ensure_compiled()?.clone();
        self.sim = Some(lh_sim::Sim::new(&c, Default::default()).map_err(Self::sim_err)?);
        Ok(())
    }

    fn check_tor(&self, tor: TorId) -> PyResult<()> {
        let n = self.config.tors.count;
        if u32::from(tor) >= u32::from(n) {
            return Err(PyIndexError::new_err(format!(
                "ToR {tor} does not exist (ToRs 0..{})",
                n.saturating_sub(1)
            )));
        }
        Ok(())
    }

    fn check_slice(&mut self, ts: SliceId) -> PyResult<()> {
        let slices = self.facade()?.schedule().slices();
        if ts as usize >= slices {
            return Err(PyIndexError::new_err(format!(
                "slice {ts} does not exist (the cycle has {slices} slices: 0..{})",
                slices.saturating_sub(1)
            )));
        }
        Ok(())
    }

    /// A built-in routing's paths on the current schedule.
    fn route(
        &mut self,
        name: &str,
        f: impl FnOnce(&Facade) -> Result<RouteSet, RoutingError>,
    ) -> PyResult<PyRoutes> {
        let r = f(self.facade()?).map_err(|e| CompileError::new_err(format!("{name}(): {e}")))?;
        Ok(PyRoutes {
            r,
            algorithm: name.to_string(),
        })
    }

    fn topology(&mut self, ok: bool) -> PyResult<bool> {
        self.touched();
        Ok(ok)
    }

    fn host_index(&mut self, name: &str) -> PyResult<usize> {
        let find = |hosts: &[lh_emu::plan::HostPlan]| {
            hosts
                .iter()
                .position(|h| h.name == name)
                .ok_or_else(|| NetworkError::new_err(format!("no host {name:?}")))
        };
        if self.sim.is_some() {
            // The simulation numbers hosts as the live plan names them.
            return find(&lh_emu::plan::Plan::from_config(&self.config).hosts);
        }
        find(&self.live()?.plan.hosts)
    }

    fn monitor(
        &mut self,
        metric: Metric,
        tor: Option<TorId>,
        port: Option<PortId>,
        every: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Monitor> {
        if let Some(t) = tor {
            self.check_tor(t)?;
        }
        if let Some(p) = port
            && p >= self.config.tors.uplinks
        {
            return Err(PyIndexError::new_err(format!(
                "port {p} does not exist (uplinks 0..{})",
                self.config.tors.uplinks.saturating_sub(1)
            )));
        }
        let iv = match every {
            Some(v) => interval(v)?,
            None => lh_ctrl::units::Nanos(1_000_000),
        };
        let f = self.facade()?;
        // start() adds the requests to what it runs; nothing to recompile.
        match metric {
            Metric::BufferUsage => f.buffer_usage(tor, port, iv),
            Metric::BwUsage => f.bw_usage(tor, port, iv),
        }
        Ok(Monitor {
            metric,
            tor,
            port,
            interval: iv,
        })
    }
}

#[pymethods]
impl PyNet {
    #[new]
    fn new(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (config, path) = read_config(py, config)?;
        Ok(PyNet {
            config,
            path,
            facade: None,
            built: None,
            compiled: None,
            paths: Vec::new(),
            paths_hop: 0,
            paths_slices: 0,
            paths_held: 0,
            flat: Vec::new(),
            live: None,
            sim: None,
            dash: None,
        })
    }

    /// Compile what the script built (the config alone when nothing was
    /// changed); the summary of `lighthouse compile` as a dict.
    fn compile(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let s = self.ensure_compiled()?.summary();
        to_py(py, &s)
    }

    /// The config as a dict, as the Rust side read it (defaults filled in).
    #[getter]
    fn _config(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.config)
    }

    /// Slices in the cycle of the current schedule.
    #[getter]
    fn slices(&mut self) -> PyResult<usize> {
        Ok(self.facade()?.schedule().slices())
    }

    // ---- Topology (Table 1, Table 5) ----

    /// `connect(tor1, port1, tor2, port2, ts)`: a circuit in slice `ts`
    /// (`ts=-1`: every slice). False when refused; `refusal` says why.
    fn connect(
        &mut self,
        tor1: TorId,
        port1: PortId,
        tor2: TorId,
        port2: PortId,
        ts: i32,
    ) -> PyResult<bool> {
        let ok = self.facade()?.connect(tor1, port1, tor2, port2, ts);
        self.topology(ok)
    }

    /// Why the last `connect()` or topology call returned False.
    #[getter]
    fn refusal(&mut self) -> PyResult<Option<String>> {
        Ok(self.facade()?.refusal().map(str::to_string))
    }

    /// Begin a script's `topo()`: an empty schedule that grows with the
    /// slices `connect()` names.
    fn _begin_topo(&mut self) -> PyResult<()> {
        self.facade()?.begin_topo();
        self.touched();
        Ok(())
    }

    /// End a script's `topo()`: check the schedule against the cabling.
    #[pyo3(signature = (slices=None))]
    fn _end_topo(&mut self, slices: Option<usize>) -> PyResult<()> {
        self.facade()?
            .end_topo(slices)
            .map(|_| ())
            .map_err(|e| TopologyError::new_err(format!("topo(): {e}")))
    }

    /// Start an empty schedule of `slices` slices for `connect()` calls.
    fn new_schedule(&mut self, slices: usize) -> PyResult<()> {
        if slices == 0 || slices > u16::MAX as usize {
            return Err(PyValueError::new_err(format!(
                "new_schedule({slices}): 1 to {} slices",
                u16::MAX
            )));
        }
        self.facade()?.new_schedule(slices);
        self.touched();
        Ok(())
    }

    /// `round_robin()`: the RotorNet / Sirius circle method.
    fn round_robin(&mut self) -> PyResult<bool> {
        let ok = self.facade()?.round_robin();
        self.topology(ok)
    }

    /// `topo_opera()`.
    fn topo_opera(&mut self) -> PyResult<bool> {
        let ok = self.facade()?.topo_opera();
        self.topology(ok)
    }

    /// `topo_shale(h)` with `h` dimensions.
    #[pyo3(signature = (h=2))]
    fn topo_shale(&mut self, h: u32) -> PyResult<bool> {
        let ok = self.facade()?.topo_shale(h);
        self.topology(ok)
    }

    /// `topo_aware(tm, scheduler)` (Table 5): `tm` a ToR x ToR matrix of
    /// bytes, `scheduler` one of "bvn", "hotspot", "mip".
    #[pyo3(signature = (tm, scheduler="bvn"))]
    fn topo_aware(&mut self, tm: Vec<Vec<u64>>, scheduler: &str) -> PyResult<bool> {
        let n = self.config.tors.count as usize;
        if tm.len() != n || tm.iter().any(|r| r.len() != n) {
            return Err(PyValueError::new_err(format!(
                "topo_aware(tm): a {n} x {n} matrix (one row and column per ToR)"
            )));
        }
        let s: Scheduler = named("scheduler", scheduler, "\"bvn\", \"hotspot\", \"mip\"")?;
        let ok = self.facade()?.topo_aware(&tm, s);
        self.topology(ok)
    }

    /// `schedule(ts)`: the circuits of slice `ts`; on a live network with
    /// `ts=None`, the current slice.
    #[pyo3(signature = (ts=None))]
    fn schedule(&mut self, py: Python<'_>, ts: Option<SliceId>) -> PyResult<Py<PyAny>> {
        if let Some(t) = ts {
            self.check_slice(t)?;
        }
        if let Some(n) = self.live.as_ref() {
            let ts = ts.map(|t| t.to_string());
            let v = n.schedule(ts.as_deref()).map_err(|e| net_err(py, e))?;
            return to_py(py, &v);
        }
        let s = self.facade()?.schedule().clone();
        to_py(py, &SliceView::on(&self.config, &s, ts.unwrap_or(0)))
    }

    // ---- Routing (Table 1, Table 5) ----

    /// `neighbors(tor, ts)`: the ToRs `tor` has a circuit to in slice `ts`.
    #[pyo3(signature = (tor, ts=0))]
    fn neighbors(&mut self, tor: TorId, ts: SliceId) -> PyResult<Vec<TorId>> {
        self.check_tor(tor)?;
        self.check_slice(ts)?;
        Ok(self.facade()?.neighbors(tor, ts))
    }

    /// `earliest_path(src, dst, ts, max_hop)`: the path that arrives first
    /// for a packet at `src` in slice `ts`, within `max_hop` hops, or None.
    #[pyo3(signature = (src, dst, ts=0, max_hop=2))]
    fn earliest_path(
        &mut self,
        py: Python<'_>,
        src: TorId,
        dst: TorId,
        ts: SliceId,
        max_hop: u8,
    ) -> PyResult<Option<Py<PyPath>>> {
        // A solved destination's answer before anything else: Fig. 6c's
        // loop makes a million of these calls.
        let slices = self.paths_slices;
        let n = self.config.tors.count as usize;
        if max_hop == self.paths_hop
            && !self.flat.is_empty()
            && (ts as usize) < slices
            && (src as usize) < n
            && let Some(p) = self
                .flat
                .get((ts as usize * n + src as usize) * n + dst as usize)
        {
            return Ok(p.as_ref().map(|p| p.clone_ref(py)));
        }
        if max_hop == self.paths_hop
            && (ts as usize) < slices
            && let Some(Some(v)) = self.paths.get(dst as usize)
            && let Some(p) = v.get(src as usize * slices + ts as usize)
        {
            return Ok(p.as_ref().map(|p| p.clone_ref(py)));
        }
        self.check_tor(src)?;
        self.check_tor(dst)?;
        self.check_slice(ts)?;
        let n = self.config.tors.count;
        let slices = self.facade()?.schedule().slices();
        if max_hop != self.paths_hop || self.paths.len() != n as usize {
            self.paths = (0..n).map(|_| None).collect();
            self.flat.clear();
            self.paths_hop = max_hop;
            self.paths_held = 0;
        }
        let (nn, all) = (n as usize, n as usize * n as usize * slices);
        if all <= Self::ALL_AT_ONCE {
            let dsts: Vec<TorId> = (0..n).collect();
            let mut solved = self.facade()?.earliest_paths_to_many(&dsts, max_hop);
            let mut flat = Vec::with_capacity(all);
            for t in 0..slices {
                for a in 0..nn {
                    for d in solved.iter_mut() {
                        let p = d[a * slices + t].take();
                        flat.push(p.map(|p| crate::path::untracked(py, p)).transpose()?);
                    }
                }
            }
            self.flat = flat;
            self.paths_slices = slices;
            let p = &self.flat[(ts as usize * nn + src as usize) * nn + dst as usize];
            return Ok(p.as_ref().map(|p| p.clone_ref(py)));
        }
        // Solve this destination and the next unsolved ones together (one
        // solver's buffers, every core): a loop over every pair asks for
        // them next.
        let dsts: Vec<TorId> = (0..n)
            .map(|k| (dst + k) % n)
            .filter(|&d| self.paths[d as usize].is_none())
            .take(Self::SOLVE_AHEAD)
            .collect();
        let solved = self.facade()?.earliest_paths_to_many(&dsts, max_hop);
        // At most about four million answers held (a few hundred MB).
        let adding: usize = solved.iter().map(Vec::len).sum();
        if self.paths_held + adding > 4_000_000 {
            self.paths.iter_mut().for_each(|v| *v = None);
            self.paths_held = 0;
        }
        for (d, all) in dsts.into_iter().zip(solved) {
            let v = all
                .into_iter()
                .map(|p| p.map(|p| crate::path::untracked(py, p)).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            self.paths[d as usize] = Some(v);
        }
        self.paths_held += adding;
        self.paths_slices = slices;
        let v = self.paths[dst as usize].as_ref().expect("solved above");
        Ok(v[src as usize * slices + ts as usize]
            .as_ref()
            .map(|p| p.clone_ref(py)))
    }

    /// `shortest_path(src, dst)` (Table 5): the equal-cost shortest paths.
    fn shortest_path(&mut self, src: TorId, dst: TorId) -> PyResult<Vec<PyPath>> {
        self.check_tor(src)?;
        self.check_tor(dst)?;
        Ok(self
            .facade()?
            .shortest_path(src, dst)
            .into_iter()
            .map(|p| PyPath { p })
            .collect())
    }

    /// `path(tors, departs, ts)`: a path of the script's own, through
    /// `tors` (source first), hop `i` leaving in slot `departs[i]`
    /// (absolute, from slice `ts`'s cycle). Each hop's uplink is the one
    /// whose circuit is up then; PathError names the hop and the slice when
    /// none is.
    #[pyo3(signature = (tors, departs, ts=0))]
    fn path(&mut self, tors: Vec<TorId>, departs: Vec<Slot>, ts: SliceId) -> PyResult<PyPath> {
        self.facade()?
            .path(&tors, &departs, ts)
            .map(|p| PyPath { p })
            .map_err(PathError::new_err)
    }

    fn direct(&mut self) -> PyResult<PyRoutes> {
        self.route("direct", Facade::direct)
    }
    fn vlb(&mut self) -> PyResult<PyRoutes> {
        self.route("vlb", Facade::vlb)
    }
    fn hoho(&mut self) -> PyResult<PyRoutes> {
        self.route("hoho", Facade::hoho)
    }
    fn opera(&mut self) -> PyResult<PyRoutes> {
        self.route("opera", Facade::opera)
    }
    fn ucmp(&mut self) -> PyResult<PyRoutes> {
        self.route("ucmp", Facade::ucmp)
    }
    fn ecmp(&mut self) -> PyResult<PyRoutes> {
        self.route("ecmp", Facade::ecmp)
    }
    fn ksp(&mut self) -> PyResult<PyRoutes> {
        self.route("ksp", Facade::ksp)
    }

    /// `entries(paths, lookup, multipath)`: the time-flow tables of
    /// `paths` (a `Routes`, `Path`s, or lists of them), each path checked
    /// against the schedule. `start()` then loads them. Returns a summary
    /// (the paper's returns nothing).
    #[pyo3(signature = (paths, lookup="hop", multipath=None))]
    fn entries(
        &mut self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        lookup: &str,
        multipath: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let lookup: Lookup = named("lookup", lookup, "HOP (\"hop\"), SOURCE (\"source\")")?;
        let multipath: Multipath = match multipath {
            None => Multipath::None,
            Some(m) => named("multipath", m, "None, PACKET (\"packet\"), FLOW (\"flow\")")?,
        };
        let routes = collect(py, paths, "paths")?;
        if routes.paths.is_empty() {
            return Err(PathError::new_err("entries(paths): no paths"));
        }
        // The tables are what start() loads: built once, here.
        let c = self
            .facade()?
            .compiled(Some((&routes, lookup, multipath)))
            .map_err(|e| PathError::new_err(format!("entries(): {e}")))?;
        let missing = uncovered(&c.schedule, &c.routes);
        let summary = serde_json::json!({
            "paths": c.routes.paths.len(),
            "entries": c.tables.total_entries(),
            "per_tor": c.tables.tors.iter().map(|t| t.len()).collect::<Vec<_>>(),
            "missing": missing.0,
            "first_missing": missing.1,
        });
        self.built = Some((routes, lookup, multipath));
        self.compiled = Some(c);
        to_py(py, &summary)
    }

    // ---- Monitoring (Table 1) ----

    /// `buffer_usage(tor, port, interval)` and `bw_usage(...)`
    /// (`metric`): a monitoring request (`None`: every ToR / port); the
    /// Python layer iterates its samples.
    #[pyo3(signature = (metric, tor=None, port=None, interval=None))]
    fn _monitor(
        &mut self,
        py: Python<'_>,
        metric: &str,
        tor: Option<TorId>,
        port: Option<PortId>,
        interval: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let metric: Metric = named("metric", metric, "\"buffer_usage\", \"bw_usage\"")?;
        let m = self.monitor(metric, tor, port, interval.as_ref())?;
        monitor_py(py, &m)
    }

    /// One sample of a monitoring request (a `Usage`: one record per
    /// ToR uplink) from the running data plane.
    fn _usage(&mut self, py: Python<'_>, monitor: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let m: Monitor = crate::convert::from_py(py, monitor, "monitor")?;
        let u = self.live()?.usage(&m).map_err(|e| net_err(py, e))?;
        to_py(py, &u)
    }

    /// Monitoring requests: the config's and the script's.
    fn monitors(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let m = self.facade()?.monitors();
        to_py(py, &m)
    }

    // ---- The live network ----

    /// `start(tor="native")`: bring up what the script built (namespaces,
    /// veths, ToRs, OCS) and start it. Needs root; checked before anything
    /// is created. `tor` as `lighthouse run --tor`: "native", "bmv2",
    /// "bmv2:s3", ... `dashboard`: serve the live web dashboard (True:
    /// 127.0.0.1:8001; or "HOST:PORT", or a port number); its URL is
    /// printed and is `dashboard_url`. `watch`: the monitoring requests
    /// the page lists (default: every request made so far).
    /// `backend`: "live" (the default), or "sim": the same ToR and OCS
    /// code in virtual time (docs/virtual-time.md): no root, no
    /// namespaces, the same results on every run; native ToRs only.
    /// `own_cpu`: as `lighthouse run --own-cpu` (live only): the data
    /// plane keeps the last CPU to itself and the hosts' receive work goes
    /// to the others, for bulk TCP (docs/dataplane.md).
    #[pyo3(signature = (tor="native", dashboard=None, watch=None, backend="live", own_cpu=false))]
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        py: Python<'_>,
        tor: &str,
        dashboard: Option<Bound<'_, PyAny>>,
        watch: Option<Bound<'_, PyAny>>,
        backend: &str,
        own_cpu: bool,
    ) -> PyResult<()> {
        if self.live.is_some() || self.sim.is_some() {
            return Err(NetworkError::new_err("the network is already running"));
        }
        if own_cpu && backend == "sim" {
            return Err(PyValueError::new_err(
                "start(own_cpu=True): a live option (CPU placement of the data plane); virtual time has no CPUs to place",
            ));
        }
        match backend {
            "live" => {}
            "sim" => return self.start_sim(tor, dashboard.is_some_and(|d| !d.is_none())),
            b => {
                return Err(PyValueError::new_err(format!(
                    "start(backend={b:?}): \"live\" or \"sim\""
                )));
            }
        }
        if !is_root() {
            return Err(PyPermissionError::new_err(
                "LighthouseNet.start() needs root (network namespaces, veths): run the script as root, e.g. `sudo .venv/bin/python script.py`",
            ));
        }
        let mut c = self.ensure_compiled()?.clone();
        c.config.monitoring = self.facade()?.monitors();
        let mut plan = lh_emu::plan::Plan::from_config(&self.config);
        plan.targets = lh_emu::plan::target::parse_for(tor, plan.tors, &self.config)
            .map_err(|e| PyValueError::new_err(format!("start(tor={tor:?}): {e}")))?;
        if !plan.bmv2_tors().is_empty() {
            bmv2_thrift::toolchain()
                .map_err(|e| NetworkError::new_err(format!("start(tor={tor:?}): {e}")))?;
        }
        let opts = NetworkOptions {
            net: NetOptions {
                config: self
                    .path
                    .as_deref()
                    .and_then(|p: &FsPath| std::fs::canonicalize(p).ok()),
                host_tcp: self.config.hosts.as_ref().and_then(|h| h.tcp.clone()),
                own_cpu,
                ..Default::default()
            },
            ..Default::default()
        };
        let monitors: Option<Vec<Monitor>> = watch
            .map(|w| crate::convert::from_py(py, &w, "start(watch=...)"))
            .transpose()?;
        // Bound before the run: a port in use fails with nothing to clean.
        let bound = dashboard_addr(dashboard)?
            .map(|a| lh_dash::bind(&a))
            .transpose()
            .map_err(|e| PyValueError::new_err(format!("start(dashboard=...): {e}")))?;
        let mut n = Network::bring_up(plan, Some(c), opts).map_err(|e| net_err(py, e))?;
        // On an error `n` is dropped here, which tears the run down.
        n.start().map_err(|e| net_err(py, e))?;
        if let Some(b) = bound {
            let o = lh_dash::Options {
                monitors,
                ..Default::default()
            };
            let d = lh_dash::Dashboard::start(b, &mut n, o)
                .map_err(|e| NetworkError::new_err(e.to_string()))?;
            n.say(&format!("*** Dashboard: {}", d.url()));
            self.dash = Some(d);
        }
        self.live = Some(n);
        Ok(())
    }

    /// The dashboard's URL (with its token, if it needs one), or None.
    #[getter]
    fn dashboard_url(&self) -> Option<String> {
        self.dash.as_ref().map(|d| d.url().to_string())
    }

    /// Whether `start()` brought the network up and `stop()` has not run.
    #[getter]
    fn running(&self) -> bool {
        self.live.is_some() || self.sim.is_some()
    }

    /// The backend running: "live", "sim", or None.
    #[getter]
    fn backend(&self) -> Option<&'static str> {
        match (&self.live, &self.sim) {
            (Some(_), _) => Some("live"),
            (_, Some(_)) => Some("sim"),
            _ => None,
        }
    }

    /// Virtual seconds since `start(backend="sim")`, or None.
    #[getter]
    fn now(&self) -> Option<f64> {
        self.sim.as_ref().map(|s| s.now() as f64 / 1e9)
    }

    /// The run's prefix (`lh` + 4 hex digits: its namespaces' names), or
    /// None when not running.
    #[getter]
    fn prefix(&self) -> Option<String> {
        self.live.as_ref().map(|n| n.prefix.clone())
    }

    /// `stop()`: drain, report conservation, tear everything down. True
    /// when conservation held and teardown had no errors. Idempotent.
    fn stop(&mut self) -> bool {
        if let Some(mut s) = self.sim.take() {
            return s.counters().conservation_holds();
        }
        let ok = match self.live.take() {
            Some(mut n) => n.stop(),
            None => true,
        };
        if let Some(d) = self.dash.take() {
            d.stop(Some(ok));
        }
        ok
    }

    /// `pingall(timeout)`: every host pings every other; the `PingAll`
    /// value (`rows`, `sent`, `received`).
    #[pyo3(signature = (timeout=None))]
    fn pingall(&mut self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        if let Some(s) = self.sim.as_mut() {
            let p = s.pingall(sim_timeout(timeout)).map_err(Self::sim_err)?;
            return to_py(py, &p);
        }
        let n = self.live()?;
        let p = interruptible(py, || n.pingall(timeout))?.map_err(|e| net_err(py, e))?;
        to_py(py, &p)
    }

    /// `ping(hosts, timeout)`: the given hosts (names) ping each other.
    #[pyo3(signature = (hosts=None, timeout=None))]
    fn ping(
        &mut self,
        py: Python<'_>,
        hosts: Option<Vec<String>>,
        timeout: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let idx = match hosts {
            Some(h) => Some(
                h.iter()
                    .map(|n| self.host_index(n))
                    .collect::<PyResult<Vec<_>>>()?,
            ),
            None => None,
        };
        if let Some(s) = self.sim.as_mut() {
            let all: Vec<usize> = (1..=s.hosts()).collect();
            let among: Vec<usize> = idx.map_or(all, |v| v.iter().map(|&h| h + 1).collect());
            let p = s
                .ping_among(&among, sim_timeout(timeout))
                .map_err(Self::sim_err)?;
            return to_py(py, &p);
        }
        let n = self.live()?;
        let p = interruptible(py, || n.ping(idx.as_deref(), timeout, false, &mut |_| {}))?
            .map_err(|e| net_err(py, e))?;
        to_py(py, &p)
    }

    /// `iperf(client, server, seconds)`: a TCP flow's rates (bit/s).
    #[pyo3(signature = (client, server, seconds=None))]
    fn iperf(
        &mut self,
        py: Python<'_>,
        client: &str,
        server: &str,
        seconds: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let (c, s) = (self.host_index(client)?, self.host_index(server)?);
        let secs = seconds.unwrap_or(lh_emu::net::IPERF_SECONDS);
        let n = self.live()?;
        let v = interruptible(py, || n.iperf(c, s, secs))?.map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// `flows("websearch permutation 0.3 2")`: the CLI's `flows` arguments.
    fn flows(&mut self, py: Python<'_>, args: &str) -> PyResult<Py<PyAny>> {
        if let Some(s) = self.sim.as_ref() {
            let a: Vec<&str> = args.split_whitespace().collect();
            let bps = self.config.tors.host_link_rate.0 as f64;
            let req = lh_emu::traffic::workload::parse_request(
                &a,
                s.hosts(),
                bps,
                &lh_emu::text::format::parse_bw,
            )
            .map_err(|e| PyValueError::new_err(format!("flows({args:?}): {e}")))?;
            if let Some(cc) = req.cc.as_deref().filter(|cc| *cc != "reno") {
                return Err(PyValueError::new_err(format!(
                    "flows({args:?}): cc={cc}: virtual time's TCP is NewReno only (docs/virtual-time.md)"
                )));
            }
            let specs = lh_emu::traffic::workload::arrivals::generate(&req.cdf, &req.spec);
            let head = format!(
                "*** Flows: {} {} flows ({:?}, load {}, in virtual time)\n",
                specs.len(),
                req.cdf_name,
                req.spec.pattern,
                req.spec.load
            );
            let grace = (req.grace_s * 1e9) as u64;
            return self.sim_flows(py, &specs, head, grace, req.csv.as_deref());
        }
        let n = self.live()?;
        let a: Vec<&str> = args.split_whitespace().collect();
        let req = lh_emu::traffic::workload::parse_request(
            &a,
            n.plan.hosts.len(),
            n.host_bps(),
            &lh_emu::text::format::parse_bw,
        )
        .map_err(|e| PyValueError::new_err(format!("flows({args:?}): {e}")))?;
        let v = interruptible(py, || n.flows(&req))?.map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// `flow_list(path, csv=None, grace=1.0)`: replays a flow list in
    /// htsim's format (`src dst bytes start_ns` per line, hosts from 0: the
    /// Opera authors' published lists, docs/fidelity.md) in virtual time,
    /// each flow on its own connection with the config's `hosts.tcp`;
    /// `flows()`'s value, and one CSV line per flow at `csv`.
    #[pyo3(signature = (path, csv=None, grace=None))]
    fn flow_list(
        &mut self,
        py: Python<'_>,
        path: &str,
        csv: Option<&str>,
        grace: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        let Some(s) = self.sim.as_ref() else {
            return Err(NetworkError::new_err(
                "flow_list(): flow lists replay in virtual time: start(backend=\"sim\")",
            ));
        };
        let specs = lh_emu::traffic::workload::flowfile::load(path.as_ref(), s.hosts())
            .map_err(|e| PyValueError::new_err(format!("flow_list(): {e}")))?;
        let grace = grace.unwrap_or(1.0);
        if !(grace > 0.0 && grace <= 3600.0) {
            return Err(PyValueError::new_err(format!(
                "flow_list(grace={grace}): seconds in (0, 3600]"
            )));
        }
        let head = format!(
            "*** Flows: {} flows from {path} (in virtual time)\n",
            specs.len()
        );
        self.sim_flows(
            py,
            &specs,
            head,
            (grace * 1e9) as u64,
            csv.map(std::path::Path::new),
        )
    }

    /// `queues(tor)`: bytes in each calendar queue of each uplink.
    fn queues(&mut self, py: Python<'_>, tor: TorId) -> PyResult<Py<PyAny>> {
        self.check_tor(tor)?;
        let v = self.live()?.queues(tor).map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// `drops()`: every drop counter, by reason.
    fn drops(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(s) = self.sim.as_mut() {
            let c = s.counters();
            let v = lh_emu::net::values::Drops {
                conservation: lh_emu::net::values::Conservation::of(&c, None),
                counters: c,
                p4: None,
                port_drops: 0,
                kernel: Vec::new(),
            };
            return to_py(py, &v);
        }
        let v = self.live()?.drops().map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// `table(tor)`: the ToR's time-flow table (live: as loaded).
    fn table(&mut self, py: Python<'_>, tor: TorId) -> PyResult<Py<PyAny>> {
        self.check_tor(tor)?;
        if let Some(n) = self.live.as_ref() {
            let v = n.table(tor).map_err(|e| net_err(py, e))?;
            return to_py(py, &v);
        }
        let c = self.ensure_compiled()?;
        let v = lh_emu::net::values::TableView::of(c, tor)
            .ok_or_else(|| PyIndexError::new_err(format!("ToR {tor} has no table")))?;
        to_py(py, &v)
    }

    /// `slice()`: where the data plane is in the cycle.
    fn slice(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.live()?.slice().map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// `link(x, y, up)`: a host's link to its ToR down or up.
    #[pyo3(signature = (x, y, up=true))]
    fn link(&mut self, py: Python<'_>, x: &str, y: &str, up: bool) -> PyResult<()> {
        self.live()?.link(x, y, up).map_err(|e| net_err(py, e))
    }

    /// `pcap(node, port, file)`: capture a host interface or a ToR uplink
    /// (`port` as the CLI's: `"h1-eth0"`, `"up0"`) into `file` until stop().
    fn pcap(
        &mut self,
        py: Python<'_>,
        node: &str,
        port: &str,
        file: PathBuf,
    ) -> PyResult<Py<PyAny>> {
        let n = self.live()?;
        let t = n.pcap_target(node, port).map_err(|e| net_err(py, e))?;
        let v = n.pcap(t, &file, 0o644).map_err(|e| net_err(py, e))?;
        to_py(py, &v)
    }

    /// Every node's name (hosts, then ToRs and switches).
    fn _node_names(&mut self) -> PyResult<Vec<String>> {
        Ok(self.live()?.node_names())
    }

    /// A host's plan (`name`, `ip`, `prefix_len`, `tor`, `host_if`, ...),
    /// or None for a ToR.
    fn _host(&mut self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let n = self.live()?;
        match n.plan.hosts.iter().find(|h| h.name == name) {
            Some(h) => to_py(
                py,
                &serde_json::json!({
                    "name": h.name, "ip": h.ip.to_string(), "prefix_len": h.prefix_len,
                    "tor": h.tor, "host_if": h.host_if, "tor_if": h.tor_if,
                }),
            ),
            None => Ok(py.None()),
        }
    }

    /// A node's interfaces and their far ends.
    fn _intfs(&mut self, name: &str) -> PyResult<Vec<(String, Option<String>)>> {
        let n = self.live()?;
        if !n.is_node(name) {
            return Err(NetworkError::new_err(format!("no node {name:?}")));
        }
        Ok(n.intf_list(name))
    }

    /// The network namespace a node's commands run in.
    fn _ns(&mut self, name: &str) -> PyResult<PathBuf> {
        self.live()?
            .node_ns(name)
            .ok_or_else(|| NetworkError::new_err(format!("{name:?} has no shell")))
    }

    /// Run `line` in `node`'s shell; its output as a string.
    fn _cmd(&mut self, py: Python<'_>, node: &str, line: &str) -> PyResult<String> {
        let n = self.live()?;
        let buf = Captured::default();
        let old = n.take_output();
        n.set_output(Box::new(buf.clone()));
        let r = interruptible(py, || n.node_cmd(node, line));
        n.set_output(old);
        let r = r?;
        r.map_err(|e| net_err(py, e))?;
        let bytes = buf.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `cli(script, py)`: the CLI of `lighthouse run` on this network;
    /// with `script`, its lines instead of the terminal; `py(line, is_px)`
    /// evaluates `py`/`px` lines (the Python layer's hook).
    #[pyo3(signature = (script=None, py=None))]
    fn _cli(slf: &Bound<'_, Self>, script: Option<String>, py: Option<Py<PyAny>>) -> PyResult<()> {
        crate::cli::run(slf, script, py, "start() before cli()", lh_emu::cli::PROMPT)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// `with net:` tears down on every way out of the block, also on an
    /// exception (which propagates).
    fn __exit__(
        &mut self,
        _ty: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        self.stop();
        false
    }

    fn __repr__(&self) -> String {
        let name = self.config.name.clone().unwrap_or_default();
        let state = match &self.live {
            Some(n) => format!("running as {}", n.prefix),
            None => "stopped".to_string(),
        };
        format!(
            "LighthouseNet({name:?}, {} ToRs, {state})",
            self.config.tors.count
        )
    }
}

/// A monitoring request for the Python layer: the request as `_usage`
/// takes it back, and its interval in nanoseconds.
fn monitor_py(py: Python<'_>, m: &Monitor) -> PyResult<Py<PyAny>> {
    let spec = serde_json::to_value(m).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(
        py,
        &serde_json::json!({"spec": spec, "interval_ns": m.interval.0}),
    )
}

/// How many (src, dst, arrival slice) triples no path serves, and the
/// first of them: packets for them would be dropped as no-entry.
fn uncovered(
    s: &lh_ctrl::schedule::Schedule,
    r: &RouteSet,
) -> (usize, Option<(TorId, TorId, SliceId)>) {
    let (n, slices) = (s.tors(), s.slices());
    let mut seen = vec![false; n * n * slices];
    for p in r.paths.iter() {
        let (a, b) = (p.src as usize, p.dst as usize);
        if a >= n || b >= n {
            continue;
        }
        match p.arrival {
            Some(t) if (t as usize) < slices => seen[(a * n + b) * slices + t as usize] = true,
            Some(_) => {}
            None => (0..slices).for_each(|t| seen[(a * n + b) * slices + t] = true),
        }
    }
    let mut count = 0;
    let mut first = None;
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            for t in 0..slices {
                if !seen[(a * n + b) * slices + t] {
                    count += 1;
                    first.get_or_insert((a as TorId, b as TorId, t as SliceId));
                }
            }
        }
    }
    (count, first)
}

impl crate::cli::HoldsNetwork for PyNet {
    fn slot(&mut self) -> &mut Option<Network> {
        &mut self.live
    }
}

/// `start(dashboard=...)`'s address: None/False (off), True (the default
/// address), a port number or "HOST:PORT".
fn dashboard_addr(v: Option<Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(v) = v else { return Ok(None) };
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(b.is_true().then(|| lh_dash::DEFAULT_ADDR.to_string()));
    }
    if let Ok(p) = v.extract::<u16>() {
        return Ok(Some(p.to_string()));
    }
    v.extract::<String>().map(Some).map_err(|_| {
        PyValueError::new_err(format!(
            "start(dashboard={}): True, a port number or \"HOST:PORT\"",
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}
