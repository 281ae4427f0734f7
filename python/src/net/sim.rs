//! `start(backend="sim")`: the network in virtual time (`lh_sim`): starting
//! it, its TCP from the config, its errors and timeouts, and running
//! flows (a `flows()` request or a flow list) to `flows()`'s value.

use super::PyNet;
use crate::NetworkError;
use crate::convert::to_py;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A Python timeout (seconds, None: 1 s) in virtual ns.
pub(super) fn sim_timeout(t: Option<f64>) -> u64 {
    (t.unwrap_or(1.0).max(0.0) * 1e9) as u64
}

impl PyNet {
    pub(super) fn sim_err(e: lh_sim::SimError) -> PyErr {
        NetworkError::new_err(e.to_string())
    }

    /// The config's `hosts.tcp` as virtual time's TCP (a field it cannot
    /// model is a ValueError naming its JSON path).
    pub(super) fn sim_tcp(&self) -> PyResult<lh_sim::TcpConfig> {
        lh_sim::TcpConfig::from_host_tcp(self.config.hosts.as_ref().and_then(|h| h.tcp.as_ref()))
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Runs `specs` in virtual time: `flows()`'s value, and the per-flow
    /// CSV at `csv` if given.
    pub(super) fn sim_flows(
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
    pub(super) fn start_sim(&mut self, tor: &str, dashboard: bool) -> PyResult<()> {
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

    /// `flows(args)` in virtual time: the request as the CLI's `flows`
    /// reads it, NewReno only.
    pub(super) fn sim_flows_args(&mut self, py: Python<'_>, args: &str) -> PyResult<Py<PyAny>> {
        let s = self.sim.as_ref().expect("called in virtual time");
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
        self.sim_flows(py, &specs, head, grace, req.csv.as_deref())
    }
}
