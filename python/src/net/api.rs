//! The user API's state behind the Python methods: the facade (the
//! schedule and the monitoring requests) made on first use, what the
//! script built compiled, the checks of ToR and slice indices, the
//! built-in routings, monitoring requests, and what `entries()` and
//! `_monitor()` say back (uncovered triples, a request for the Python
//! layer).

use super::PyNet;
use crate::CompileError;
use crate::convert::{interval, to_py};
use crate::path::PyRoutes;
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Metric, Monitor};
use lh_ctrl::net::LighthouseNet as Facade;
use lh_ctrl::routing::{RouteSet, RoutingError};
use lh_ctrl::{PortId, SliceId, TorId};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

fn compile_err(e: impl std::fmt::Display) -> PyErr {
    CompileError::new_err(e.to_string())
}

impl PyNet {
    pub(super) fn facade(&mut self) -> PyResult<&mut Facade> {
        if self.facade.is_none() {
            let c = lh_ctrl::compile::compile(&self.config).map_err(compile_err)?;
            self.facade = Some(Facade::from_compiled(&c));
            self.compiled = Some(c);
        }
        Ok(self.facade.as_mut().expect("set above"))
    }

    /// A topology change: what was compiled, routed and solved is out of
    /// date.
    pub(super) fn touched(&mut self) {
        self.compiled = None;
        self.answers.clear();
        self.built = None;
    }

    /// What the script built, compiled: the config's pipeline when nothing
    /// was changed, else the script's schedule with its routes (or the
    /// config's algorithm on it).
    pub(super) fn ensure_compiled(&mut self) -> PyResult<&Compiled> {
        self.facade()?;
        if self.compiled.is_none() {
            let f = self.facade.as_ref().expect("facade");
            let routes = self.built.as_ref().map(|(r, l, m)| (r, *l, *m));
            let c = f.compiled(routes).map_err(compile_err)?;
            self.compiled = Some(c);
        }
        Ok(self.compiled.as_ref().expect("compiled above"))
    }

    pub(super) fn check_tor(&self, tor: TorId) -> PyResult<()> {
        let n = self.config.tors.count;
        if u32::from(tor) >= u32::from(n) {
            return Err(PyIndexError::new_err(format!(
                "ToR {tor} does not exist (ToRs 0..{})",
                n.saturating_sub(1)
            )));
        }
        Ok(())
    }

    pub(super) fn check_slice(&mut self, ts: SliceId) -> PyResult<()> {
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
    pub(super) fn route(
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

    pub(super) fn topology(&mut self, ok: bool) -> PyResult<bool> {
        self.touched();
        Ok(ok)
    }

    pub(super) fn monitor(
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

/// A monitoring request for the Python layer: the request as `_usage`
/// takes it back, and its interval in nanoseconds.
pub(super) fn monitor_py(py: Python<'_>, m: &Monitor) -> PyResult<Py<PyAny>> {
    let spec = serde_json::to_value(m).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_py(
        py,
        &serde_json::json!({"spec": spec, "interval_ns": m.interval.0}),
    )
}

/// How many (src, dst, arrival slice) triples no path serves, and the
/// first of them: packets for them would be dropped as no-entry.
pub(super) fn uncovered(
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
