//! `lighthouse.sweep`'s native half (docs/virtual-time.md, "Sweeps"): the
//! points of a [`lh_sim::sweep::Spec`] run here, one at a time (a Dask
//! task) or all on a local pool, with the GIL released. The spec and the
//! rows cross as JSON text, so a Dask task pickles plain strings.

use crate::ConfigError;
use lh_sim::sweep::{Spec, SweepError};
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;

fn sweep_err(e: SweepError) -> PyErr {
    match e {
        SweepError::Spec(_) | SweepError::Config { .. } | SweepError::Value { .. } => {
            ConfigError::new_err(e.to_string())
        }
        SweepError::Run { .. } | SweepError::Stopped { .. } => {
            PyRuntimeError::new_err(e.to_string())
        }
    }
}

fn spec(text: &str) -> PyResult<Spec> {
    serde_json::from_str(text).map_err(|e| ConfigError::new_err(format!("sweep spec: {e}")))
}

fn row_json(r: &lh_sim::sweep::Row) -> String {
    serde_json::to_string(r).expect("a row is plain data")
}

/// Checks a spec (every point's config, before anything runs) and returns
/// its points, as JSON.
#[pyfunction]
fn _sweep_check(text: &str) -> PyResult<String> {
    let s = spec(text)?;
    s.check().map_err(sweep_err)?;
    Ok(serde_json::Value::from(s.points()).to_string())
}

/// Runs point `i` of a spec: its row, as JSON.
#[pyfunction]
fn _sweep_point(py: Python<'_>, text: &str, i: usize) -> PyResult<String> {
    let s = spec(text)?;
    let points = s.points();
    let p = points.get(i).ok_or_else(|| {
        PyIndexError::new_err(format!("point {i}: the sweep has {}", points.len()))
    })?;
    let r = crate::convert::interruptible(py, || s.run(p))?;
    r.map(|r| row_json(&r)).map_err(sweep_err)
}

/// Runs every point on `jobs` threads; the rows in the grid's order. Ctrl-C
/// stops it once the points under way end.
#[pyfunction]
fn _sweep_local(py: Python<'_>, text: &str, jobs: usize) -> PyResult<Vec<String>> {
    let s = spec(text)?;
    s.check().map_err(sweep_err)?;
    let rows = crate::convert::interruptible(py, || {
        s.run_all(jobs, &|_, _| {
            !lh_emu::kernel::signals::INTERRUPT.load(std::sync::atomic::Ordering::Relaxed)
        })
    })?;
    rows.map(|rs| rs.iter().map(row_json).collect())
        .map_err(sweep_err)
}

/// The table as CSV, the same text `lighthouse sweep` writes.
#[pyfunction]
fn _sweep_csv(text: &str, rows: Vec<String>) -> PyResult<String> {
    let s = spec(text)?;
    let rows = rows
        .iter()
        .map(|r| serde_json::from_str(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PyRuntimeError::new_err(format!("a sweep row: {e}")))?;
    Ok(s.csv(&rows))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SWEEP_COLUMNS", lh_sim::sweep::RESULT_COLUMNS.to_vec())?;
    m.add_function(wrap_pyfunction!(_sweep_check, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_point, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_csv, m)?)?;
    Ok(())
}
