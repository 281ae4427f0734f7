//! Paths as Python sees them: `lighthouse.Path` (one path, from
//! `earliest_path()`, `path()` or a routing) and `lighthouse.Routes` (what
//! a built-in routing returns: a sequence of paths kept in Rust, so
//! millions of paths never become Python objects unless asked for).

use crate::convert::{from_py, to_py};
use lh_ctrl::routing::{Path, RouteSet};
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// `Path`: packets arriving at `src` in slice `arrival` leave ToR
/// `hops[i].tor` on uplink `hops[i].port` in slot `hops[i].depart` (slots
/// count from the arrival's cycle; `None`: at once).
#[pyclass(name = "Path", module = "lighthouse", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyPath {
    pub p: Path,
}

#[pymethods]
impl PyPath {
    #[getter]
    fn src(&self) -> TorId {
        self.p.src
    }
    #[getter]
    fn dst(&self) -> TorId {
        self.p.dst
    }
    /// The arrival slice (`None`: any slice; static fabrics).
    #[getter]
    fn arrival(&self) -> Option<SliceId> {
        self.p.arrival
    }
    /// `[(tor, port, depart), ...]`.
    #[getter]
    fn hops(&self) -> Vec<(TorId, PortId, Option<Slot>)> {
        self.p
            .hops
            .iter()
            .map(|h| (h.tor, h.port, h.depart))
            .collect()
    }
    /// The ToRs visited, `src` first and `dst` last.
    #[getter]
    fn tors(&self) -> Vec<TorId> {
        let mut v: Vec<TorId> = self.p.hops.iter().map(|h| h.tor).collect();
        v.push(self.p.dst);
        v
    }
    /// The slot each hop departs in.
    #[getter]
    fn departs(&self) -> Vec<Option<Slot>> {
        self.p.hops.iter().map(|h| h.depart).collect()
    }
    /// Slots from arrival to the last departure (`None` on static fabrics).
    #[getter]
    fn latency(&self) -> Option<Slot> {
        self.p.latency_slots()
    }
    fn __len__(&self) -> usize {
        self.p.hops.len()
    }
    /// The path as plain data (`src`, `dst`, `arrival`, `hops`, `class`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.p)
    }
    fn __repr__(&self) -> String {
        let tors: Vec<String> = self.tors().iter().map(|t| t.to_string()).collect();
        let departs: Vec<String> = self
            .departs()
            .iter()
            .map(|d| d.map_or("*".to_string(), |d| d.to_string()))
            .collect();
        format!(
            "Path({}, arrival {}, departs [{}])",
            tors.join("->"),
            self.p.arrival.map_or("*".to_string(), |a| a.to_string()),
            departs.join(", ")
        )
    }
}

/// A `Path` as a Python object the cyclic GC does not track. It holds no
/// Python references (frozen, no `__dict__`, not subclassable), so it can
/// never be part of a cycle; a loop that keeps a million of them (Fig. 6c
/// over opera-108) would otherwise pay the collector for every one.
pub fn untracked(py: Python<'_>, p: Path) -> PyResult<Py<PyPath>> {
    let obj = Py::new(py, PyPath { p })?;
    // SAFETY: `obj` is a live object we own and hold the GIL for; untracking
    // a GC-type object is allowed at any time (dealloc untracks only if
    // still tracked), and it references no Python objects.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
    Ok(obj)
}

/// `Routes`: the paths of a routing (`direct()`, `hoho()`, ...), a
/// read-only sequence of `Path`. `entries()` takes it as it is.
#[pyclass(name = "Routes", module = "lighthouse", frozen, sequence)]
pub struct PyRoutes {
    pub r: RouteSet,
    pub algorithm: String,
}

#[pymethods]
impl PyRoutes {
    fn __len__(&self) -> usize {
        self.r.paths.len()
    }
    /// `routes[i]` is a `Path`; `routes[a:b]` a list of them.
    fn __getitem__(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(s) = i.cast::<pyo3::types::PySlice>() {
            let ix = s.indices(self.r.paths.len() as isize)?;
            let mut out = Vec::new();
            let mut k = ix.start;
            while (ix.step > 0 && k < ix.stop) || (ix.step < 0 && k > ix.stop) {
                out.push(PyPath {
                    p: self.r.paths.get(k as usize).to_path(),
                });
                k += ix.step;
            }
            return Ok(out.into_pyobject(py)?.into_any().unbind());
        }
        let p = self.get(i.extract()?)?;
        Ok(Py::new(py, p)?.into_any())
    }

    /// The algorithm that made them (`"direct"`, ..., `"script"`).
    #[getter]
    fn algorithm(&self) -> &str {
        &self.algorithm
    }
    /// Every path as a `Path` (a list; large on large fabrics).
    fn to_list(&self) -> Vec<PyPath> {
        self.r
            .paths
            .iter()
            .map(|p| PyPath { p: p.to_path() })
            .collect()
    }
    fn __repr__(&self) -> String {
        format!("Routes({}, {} paths)", self.algorithm, self.r.paths.len())
    }
}

impl PyRoutes {
    fn get(&self, i: isize) -> PyResult<PyPath> {
        let n = self.r.paths.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(PyIndexError::new_err(format!(
                "Routes index {i} out of range ({n} paths)"
            )));
        }
        Ok(PyPath {
            p: self.r.paths.get(j as usize).to_path(),
        })
    }
}

/// What a routing returned, as one route set: `Routes`, `Path`s, dicts of
/// `Path.to_dict()`'s form, and lists or tuples of them (nested as a
/// routing appends them). `what` names the argument in errors.
pub fn collect(py: Python<'_>, v: &Bound<'_, PyAny>, what: &str) -> PyResult<RouteSet> {
    let mut out = RouteSet::default();
    let mut paths: Vec<Path> = Vec::new();
    walk(py, v, what, &mut out, &mut paths)?;
    let mut extra: lh_ctrl::routing::Paths = paths.iter().collect();
    out.paths.append(&mut extra);
    Ok(out)
}

fn walk(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    at: &str,
    out: &mut RouteSet,
    paths: &mut Vec<Path>,
) -> PyResult<()> {
    if let Ok(p) = v.cast::<PyPath>() {
        paths.push(p.get().p.clone());
        return Ok(());
    }
    if let Ok(r) = v.cast::<PyRoutes>() {
        let mut more = r.get().r.paths.clone();
        out.paths.append(&mut more);
        if out.classes.is_none() {
            out.classes = r.get().r.classes.clone();
        }
        return Ok(());
    }
    if v.is_none() {
        return Err(PyValueError::new_err(format!(
            "{at} is None: no path (earliest_path() returns None when no path exists within max_hop)"
        )));
    }
    if v.is_instance_of::<PyDict>() {
        paths.push(from_py(py, v, at)?);
        return Ok(());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        for (i, x) in v.try_iter()?.enumerate() {
            walk(py, &x?, &format!("{at}[{i}]"), out, paths)?;
        }
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "{at}: a Path, a Routes, a dict like Path.to_dict() or a list of them, not {}",
        v.get_type().name()?
    )))
}
