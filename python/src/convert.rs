//! Crossing into Python: values through serde, the config argument, the
//! names of lookups and intervals, and errors.

use crate::{ConfigError, NetworkError as PyNetworkError};
use lh_ctrl::config::{Config, ConfigError as RsConfigError};
use lh_ctrl::units::Nanos;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;

/// A Rust value as Python data: serde_json text through `json.loads`.
pub fn to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// Python data as a Rust value: `json.dumps`, then serde. `what` names the
/// argument in the error.
pub fn from_py<T: serde::de::DeserializeOwned>(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<T> {
    let text: String = py
        .import("json")?
        .call_method1("dumps", (v,))
        .map_err(|e| PyValueError::new_err(format!("{what}: not JSON data: {e}")))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

pub fn config_err(py: Python<'_>, e: &RsConfigError) -> PyErr {
    let err = ConfigError::new_err(e.to_string());
    // The attribute is a convenience; the message already names the path.
    let _ = err.value(py).setattr("json_path", e.json_path());
    err
}

/// Runs `f`, a long operation of a live network, with the GIL released
/// (other Python threads run meanwhile) and Ctrl-C as its interrupt: a
/// SIGINT stops it where it polls (`lh_emu::kernel::signals`) and raises
/// KeyboardInterrupt here, as Python would have between its bytecodes.
/// The caller's `with` block or `stop()` then tears the network down.
pub fn interruptible<R: Send>(py: Python<'_>, f: impl FnOnce() -> R + Send) -> PyResult<R> {
    let guard = lh_emu::kernel::signals::SigintInterrupts::take();
    let r = py.detach(f);
    let hit = guard.interrupted();
    drop(guard);
    if hit {
        return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(()));
    }
    Ok(r)
}

/// A live operation's error, with its kind (`e.kind`, as `--json` has it).
pub fn net_err(py: Python<'_>, e: lh_emu::net::NetworkError) -> PyErr {
    let err = PyNetworkError::new_err(e.to_string());
    if let Ok(v) = serde_json::to_value(&e)
        && let Some(k) = v.get("kind").and_then(|k| k.as_str())
    {
        let _ = err.value(py).setattr("kind", k);
    }
    err
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The config argument: a dict, a JSON string, or a path (str or PathLike).
/// Returns the config and, for a file, its path.
pub fn read_config(
    py: Python<'_>,
    config: &Bound<'_, PyAny>,
) -> PyResult<(Config, Option<PathBuf>)> {
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

/// A config enum from its JSON name (`"hop"`, `"packet"`, `"bvn"`), the
/// error naming the argument and the choices.
pub fn named<T: serde::de::DeserializeOwned>(what: &str, v: &str, choices: &str) -> PyResult<T> {
    serde_json::from_value(serde_json::Value::String(v.to_ascii_lowercase()))
        .map_err(|_| PyValueError::new_err(format!("{what}={v:?}: one of {choices}")))
}

/// An interval: `"1ms"`, `"100us"` or seconds as a number.
pub fn interval(v: &Bound<'_, PyAny>) -> PyResult<Nanos> {
    if let Ok(s) = v.extract::<String>() {
        return s
            .parse()
            .map_err(|e| PyValueError::new_err(format!("interval={s:?}: {e}")));
    }
    let secs: f64 = v.extract().map_err(|_| {
        PyValueError::new_err("interval: a duration such as \"1ms\" or seconds as a number")
    })?;
    if !(secs.is_finite() && secs > 0.0 && secs < 1e6) {
        return Err(PyValueError::new_err(format!(
            "interval={secs}: seconds above 0 and below 1e6"
        )));
    }
    Ok(Nanos((secs * 1e9).round() as u64))
}
