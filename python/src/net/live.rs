//! The live network behind `start()`: bringing it up (plan, targets,
//! options, the dashboard's address), reaching it (`live()`, hosts by
//! name), capturing a node command's output, and lending it to the CLI.

use super::PyNet;
use crate::NetworkError;
use crate::convert::{is_root, net_err};
use lh_ctrl::config::Monitor;
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::run::bringup::NetOptions;
use pyo3::exceptions::{PyPermissionError, PyValueError};
use pyo3::prelude::*;
use std::io::Write;
use std::path::Path as FsPath;
use std::sync::{Arc, Mutex};

/// A writer whose bytes can be read back: a node command's output.
#[derive(Clone, Default)]
pub(super) struct Captured(pub(super) Arc<Mutex<Vec<u8>>>);

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

impl PyNet {
    pub(super) fn live(&mut self) -> PyResult<&mut Network> {
        if self.sim.is_some() {
            return Err(NetworkError::new_err(
                "not in virtual time: a start(backend=\"sim\") network has pingall(), ping(), flows(), drops() and now",
            ));
        }
        self.live
            .as_mut()
            .ok_or_else(|| NetworkError::new_err("the network is not running: call start() first"))
    }

    pub(super) fn host_index(&mut self, name: &str) -> PyResult<usize> {
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

    /// `start(backend="live")`: bring the network up (root only) with
    /// its dashboard if asked, and start it.
    pub(super) fn start_live(
        &mut self,
        py: Python<'_>,
        tor: &str,
        dashboard: Option<Bound<'_, PyAny>>,
        watch: Option<Bound<'_, PyAny>>,
        own_cpu: bool,
    ) -> PyResult<()> {
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
