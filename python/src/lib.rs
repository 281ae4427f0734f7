//! `import lighthouse`: the paper's user API (Table 1, Table 5) over the
//! Rust crates.
//!
//! `LighthouseNet(config)` (net.rs) wraps [`lh_ctrl::net::LighthouseNet`]
//! (topology, routing, tables, monitoring requests) and, once `start()`ed,
//! a live [`lh_emu::net::Network`] built from what the script made. Paths
//! are `lighthouse.Path` / `lighthouse.Routes` (path.rs); every other value
//! crosses through serde (convert.rs), so Python sees plain dicts and lists
//! with the field names of the Rust values. The Python layer
//! (python/lighthouse/) adds what is easier in Python: a script's `topo()`
//! and routing functions, monitoring iterators, node objects, signals.
//! Reference: docs/python.md.

mod cli;
mod convert;
mod mininet;
mod net;
mod path;
mod sweep;

use convert::is_root;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

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
    TopologyError,
    PyValueError,
    "A script's topo() built a schedule the fabric cannot realise."
);
pyo3::create_exception!(
    _native,
    PathError,
    PyValueError,
    "A path that the schedule cannot carry (names the path, the hop and the slice)."
);
pyo3::create_exception!(
    _native,
    NetworkError,
    PyRuntimeError,
    "A live-network operation failed; `kind` names the error."
);

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<net::PyNet>()?;
    m.add_class::<path::PyPath>()?;
    m.add_class::<path::PyRoutes>()?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("TopologyError", py.get_type::<TopologyError>())?;
    m.add("PathError", py.get_type::<PathError>())?;
    m.add("NetworkError", py.get_type::<NetworkError>())?;
    mininet::register(m)?;
    sweep::register(m)?;
    Ok(())
}
