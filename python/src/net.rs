//! `LighthouseNet`: the paper's user API (Table 1, Table 5, Fig. 6) over
//! [`lh_ctrl::net::LighthouseNet`], and once `start()`ed, the live
//! [`lh_emu::net::Network`] built from what the script made.
//!
//! This file holds the class and its Python methods (PyO3 takes one
//! `#[pymethods]` block per class); what they stand on is beside it: the
//! user API's state and checks (`api`), `earliest_path`'s answers
//! (`answers`), the live network (`live`) and virtual time (`sim`).

mod answers;
mod api;
mod live;
mod sim;

use answers::{Answers, Ask};
use api::{monitor_py, uncovered};
use live::Captured;
use sim::sim_timeout;

use crate::convert::{interruptible, named, net_err, read_config, to_py};
use crate::path::{PyPath, PyRoutes, collect};
use crate::{NetworkError, PathError, TopologyError};
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Config, Lookup, Metric, Monitor, Multipath, Scheduler};
use lh_ctrl::net::LighthouseNet as Facade;
use lh_ctrl::routing::RouteSet;
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use lh_emu::net::Network;
use lh_emu::net::values::SliceView;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;

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
    /// `earliest_path`'s answers, solved a destination or the fabric at a
    /// time.
    answers: Answers,
    live: Option<Network>,
    /// `start(backend="sim")`: the network in virtual time instead.
    sim: Option<lh_sim::Sim>,
    /// `start(dashboard=...)`: the run's web dashboard.
    dash: Option<lh_dash::Dashboard>,
}

#[pymethods]
impl PyNet {
    #[new]
    fn new(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (config, path) = read_config(py, config)?;
        let answers = Answers::new(config.tors.count);
        Ok(PyNet {
            config,
            path,
            facade: None,
            built: None,
            compiled: None,
            answers,
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
        let q = Ask {
            src,
            dst,
            ts,
            max_hop,
        };
        if let Some(p) = self.answers.held(py, q) {
            return Ok(p);
        }
        self.check_tor(src)?;
        self.check_tor(dst)?;
        self.check_slice(ts)?;
        self.facade()?;
        let f = self.facade.as_ref().expect("made by facade()");
        self.answers.solve(py, f, q)
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
        self.start_live(py, tor, dashboard, watch, own_cpu)
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
        if self.sim.is_some() {
            return self.sim_flows_args(py, args);
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
