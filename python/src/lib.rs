//! `import lighthouse`: the paper's user API (Table 1) over the Rust crates.
//!
//! `LighthouseNet(config)` wraps [`lh_ctrl::net::LighthouseNet`] (the
//! compiled config's read-only views) and, once `start()`ed, a live
//! [`lh_emu::net::Network`]. Every value crosses into Python through serde
//! (JSON text, then `json.loads`), so Python sees plain dicts and lists with
//! the field names of the Rust values. Reference: docs/python.md.

use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Config, ConfigError as RsConfigError};
use lh_ctrl::net::LighthouseNet as Facade;
use lh_ctrl::{SliceId, TorId};
use lh_emu::kernel::bringup::NetOptions;
use lh_emu::net::values::SliceView;
use lh_emu::net::{Network, NetworkOptions};
use pyo3::exceptions::{PyIndexError, PyPermissionError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::{Path, PathBuf};

mod mininet;

pyo3::create_exception!(
    _native,
    ConfigError,
    PyValueError,
    "A config that does not parse or validate; `json_path` names the field."
);
pyo3::create_exception!(
    _native,
    CompileError,
    PyRuntimeError,
    "The config parses but cannot be compiled (topology, routing, tables)."
);
pyo3::create_exception!(
    _native,
    NetworkError,
    PyRuntimeError,
    "A live-network operation failed."
);

/// A Rust value as Python data: serde_json text through `json.loads`.
fn to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

fn config_err(py: Python<'_>, e: &RsConfigError) -> PyErr {
    let err = ConfigError::new_err(e.to_string());
    // The attribute is a convenience; the message already names the path.
    let _ = err.value(py).setattr("json_path", e.json_path());
    err
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The config argument: a dict, a JSON string, or a path (str or PathLike).
/// Returns the config and, for a file, its path.
fn read_config(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<(Config, Option<PathBuf>)> {
    let cwd = std::env::current_dir().unwrap_or_default();
    if config.is_instance_of::<PyDict>() {
        let text: String = py
            .import("json")?
            .call_method1("dumps", (config,))?
            .extract()?;
        return Config::from_json_in(&text, "<dict>", &cwd)
            .map(|c| (c, None))
            .map_err(|e| config_err(py, &e));
    }
    let text: String = if config.is_instance_of::<PyString>() {
        config.extract()?
    } else {
        // os.PathLike (pathlib.Path): its file-system path.
        py.import("os")?
            .call_method1("fspath", (config,))
            .map_err(|_| {
                PyValueError::new_err(
                    "LighthouseNet(config): config is a path, a dict or a JSON string",
                )
            })?
            .extract()?
    };
    if text.trim_start().starts_with('{') {
        return Config::from_json_in(&text, "<string>", &cwd)
            .map(|c| (c, None))
            .map_err(|e| config_err(py, &e));
    }
    let path = PathBuf::from(&text);
    Config::load(&path)
        .map(|c| (c, Some(path)))
        .map_err(|e| config_err(py, &e))
}

/// `LighthouseNet(config)`: a network from a config.json path, a dict or a
/// JSON string. Compiles on first use (or `compile()`); `start()` runs it.
#[pyclass(
    name = "LighthouseNet",
    unsendable,
    subclass,
    weakref,
    module = "lighthouse"
)]
struct PyNet {
    config: Config,
    path: Option<PathBuf>,
    facade: Option<Facade>,
    compiled: Option<Compiled>,
    live: Option<Network>,
}

impl PyNet {
    fn ensure_compiled(&mut self) -> PyResult<&Compiled> {
        if self.compiled.is_none() {
            let c = lh_ctrl::compile::compile(&self.config)
                .map_err(|e| CompileError::new_err(e.to_string()))?;
            self.facade = Some(Facade::from_compiled(&c));
            self.compiled = Some(c);
        }
        Ok(self.compiled.as_ref().expect("compiled above"))
    }

    fn facade(&mut self) -> PyResult<&Facade> {
        self.ensure_compiled()?;
        Ok(self.facade.as_ref().expect("set by ensure_compiled"))
    }

    fn live(&mut self) -> PyResult<&mut Network> {
        self.live
            .as_mut()
            .ok_or_else(|| NetworkError::new_err("the network is not running: call start() first"))
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
        let slices = self.ensure_compiled()?.schedule.slices();
        if ts as usize >= slices {
            return Err(PyIndexError::new_err(format!(
                "slice {ts} does not exist (the cycle has {slices} slices: 0..{})",
                slices.saturating_sub(1)
            )));
        }
        Ok(())
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
            compiled: None,
            live: None,
        })
    }

    /// Compile the config (schedule, routes, tables); the summary of
    /// `lighthouse compile` as a dict. Implicit in every view and `start()`.
    fn compile(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let s = self.ensure_compiled()?.summary();
        to_py(py, &s)
    }

    /// The config, as the Rust side read it (defaults filled in).
    #[getter]
    fn config(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.config)
    }

    /// Slices in the cycle.
    #[getter]
    fn slices(&mut self) -> PyResult<usize> {
        Ok(self.ensure_compiled()?.schedule.slices())
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
            let v = n
                .schedule(ts.as_deref())
                .map_err(|e| NetworkError::new_err(e.to_string()))?;
            return to_py(py, &v);
        }
        let v = SliceView::of(self.ensure_compiled()?, ts.unwrap_or(0));
        to_py(py, &v)
    }

    /// `neighbors(tor, ts)`: the ToRs `tor` has a circuit to in slice `ts`.
    #[pyo3(signature = (tor, ts=0))]
    fn neighbors(&mut self, tor: TorId, ts: SliceId) -> PyResult<Vec<TorId>> {
        self.check_tor(tor)?;
        self.check_slice(ts)?;
        Ok(self.facade()?.neighbors(tor, ts))
    }

    /// `earliest_path(src, dst, ts, max_hop)`: the path that arrives first
    /// when a packet is at `src` in slice `ts`, or None.
    #[pyo3(signature = (src, dst, ts=0, max_hop=2))]
    fn earliest_path(
        &mut self,
        py: Python<'_>,
        src: TorId,
        dst: TorId,
        ts: SliceId,
        max_hop: u8,
    ) -> PyResult<Py<PyAny>> {
        self.check_tor(src)?;
        self.check_tor(dst)?;
        self.check_slice(ts)?;
        let p = self.facade()?.earliest_path(src, dst, ts, max_hop);
        to_py(py, &p)
    }

    /// `start(tor="native")`: bring the network up (namespaces, veths,
    /// ToRs, OCS) and start it. Needs root; checked before anything exists.
    #[pyo3(signature = (tor="native"))]
    fn start(&mut self, tor: &str) -> PyResult<()> {
        if self.live.is_some() {
            return Err(NetworkError::new_err("the network is already running"));
        }
        if !is_root() {
            return Err(PyPermissionError::new_err(
                "LighthouseNet.start() needs root (network namespaces, veths): run the script as root, e.g. `sudo .venv/bin/python script.py`",
            ));
        }
        let c = self.ensure_compiled()?.clone();
        let mut plan = lh_emu::plan::Plan::from_config(&self.config);
        plan.targets = lh_emu::plan::target::parse(tor, plan.tors)
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
                    .and_then(|p: &Path| std::fs::canonicalize(p).ok()),
                host_tcp: self.config.hosts.as_ref().and_then(|h| h.tcp.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut n = Network::bring_up(plan, Some(c), opts)
            .map_err(|e| NetworkError::new_err(e.to_string()))?;
        // On an error `n` is dropped here, which tears the run down.
        n.start()
            .map_err(|e| NetworkError::new_err(e.to_string()))?;
        self.live = Some(n);
        Ok(())
    }

    /// Whether `start()` brought the network up and `stop()` has not run.
    #[getter]
    fn running(&self) -> bool {
        self.live.is_some()
    }

    /// The run's prefix (`lh` + 4 hex digits: its namespaces' names), or
    /// None when not running.
    #[getter]
    fn prefix(&self) -> Option<String> {
        self.live.as_ref().map(|n| n.prefix.clone())
    }

    /// `pingall(timeout)`: every host pings every other; the `PingAll`
    /// value (`rows`, `sent`, `received`).
    #[pyo3(signature = (timeout=None))]
    fn pingall(&mut self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        let p = self
            .live()?
            .pingall(timeout)
            .map_err(|e| NetworkError::new_err(e.to_string()))?;
        to_py(py, &p)
    }

    /// `stop()`: drain, report conservation, tear everything down. True
    /// when conservation held and teardown had no errors. Idempotent.
    fn stop(&mut self) -> bool {
        match self.live.take() {
            Some(mut n) => n.stop(),
            None => true,
        }
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

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyNet>()?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("NetworkError", py.get_type::<NetworkError>())?;
    mininet::register(m)?;
    Ok(())
}
