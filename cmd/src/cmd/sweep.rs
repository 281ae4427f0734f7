//! `lighthouse sweep`: a parameter sweep in virtual time
//! (docs/virtual-time.md, "Sweeps"): one workload run per point of a grid
//! of config fields and the workload's load and seed, as one CSV table.
//! Locally the points run on a pool of threads; with `--dask ADDRESS` they
//! run on a Dask cluster, through the Python package's `lighthouse.sweep`
//! (Dask's API is Python's), and give the same table.

use anyhow::Context;
use lh_experiments::Progress;
use lh_sim::sweep::{Axis, Spec, Workload};
use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

/// `lighthouse sweep`'s flags.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    pub config: PathBuf,
    /// One axis of the grid: a config field by its JSON path
    /// (`slice.duration=50us,100us`, `routing.algorithm=opera,vlb`), or the
    /// workload's `load=0.1,0.4` or `seed=1,2,3`. Repeat for more axes;
    /// every combination runs.
    #[arg(long = "axis", value_name = "NAME=V1,V2,...", required = true)]
    pub axes: Vec<String>,
    /// The flows' sizes: websearch, hadoop, kvstore, or a CDF file.
    #[arg(long, default_value = "websearch", value_name = "CDF")]
    pub workload: String,
    /// permutation, all-to-all or incast[:N].
    #[arg(long, default_value = "all-to-all")]
    pub pattern: String,
    /// Offered load per host (unless an axis sweeps it).
    #[arg(long, default_value_t = 0.1)]
    pub load: f64,
    /// How long flows arrive (virtual time).
    #[arg(long, default_value = "10ms")]
    pub duration: String,
    /// How long after the last start the flows may take to finish.
    #[arg(long, default_value = "1s")]
    pub drain: String,
    /// The traffic's seed (unless an axis sweeps it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Points run at once (default: the machine's cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Run the points on the Dask cluster whose scheduler is at ADDRESS
    /// (`tcp://host:8786`), through `python3 -m lighthouse.sweep`
    /// (`$LIGHTHOUSE_PYTHON` picks the interpreter; it needs the
    /// lighthouse package and dask.distributed, and so do the workers).
    #[arg(long, value_name = "ADDRESS", conflicts_with = "jobs")]
    pub dask: Option<String>,
    /// Write the table to FILE (default: stdout).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The sweep as plain data, checked: every point's config parses and
/// validates before anything runs.
fn spec(a: &SweepArgs) -> anyhow::Result<Spec> {
    let config = std::fs::read_to_string(&a.config)
        .with_context(|| format!("reading {}", a.config.display()))?;
    let axes = a
        .axes
        .iter()
        .map(|t| Axis::parse(t))
        .collect::<Result<_, _>>()?;
    // A CDF file travels as text, so a remote worker needs no file.
    let cdf_text = if lh_emu::traffic::workload::SHIPPED
        .iter()
        .any(|(n, _)| *n == a.workload)
    {
        None
    } else {
        Some(
            std::fs::read_to_string(&a.workload)
                .with_context(|| format!("--workload {}: not a shipped distribution (websearch, hadoop, kvstore) nor a readable file", a.workload))?,
        )
    };
    let s = Spec {
        config,
        file: a.config.display().to_string(),
        axes,
        workload: Workload {
            cdf: a.workload.clone(),
            cdf_text,
            pattern: a.pattern.clone(),
            load: a.load,
            duration: a.duration.clone(),
            drain: a.drain.clone(),
            seed: a.seed,
        },
    };
    s.check()?;
    Ok(s)
}

/// `--dask`: the Python package runs the points on the cluster and prints
/// the same CSV.
fn on_dask(s: &Spec, address: &str) -> anyhow::Result<String> {
    let python = std::env::var("LIGHTHOUSE_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut child = std::process::Command::new(&python)
        .args(["-m", "lighthouse.sweep", "--dask", address])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("--dask: starting {python} (set LIGHTHOUSE_PYTHON to the interpreter that has the lighthouse package)"))?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(serde_json::to_string(s)?.as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        anyhow::bail!(
            "--dask {address}: {python} -m lighthouse.sweep failed ({}); its error is above",
            out.status
        );
    }
    String::from_utf8(out.stdout).context("--dask: the table is not UTF-8")
}

pub fn sweep(a: SweepArgs) -> anyhow::Result<ExitCode> {
    let s = spec(&a)?;
    let n = s.points().len();
    let t0 = std::time::Instant::now();
    let csv = match &a.dask {
        Some(addr) => on_dask(&s, addr)?,
        None => {
            let jobs = a.jobs.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
            });
            let bar = if a.quiet {
                Progress::hidden()
            } else {
                Progress::new(n as u64, "sweep")
            };
            let rows = s.run_all(jobs, &|_, _| {
                bar.inc(1);
                true
            })?;
            bar.finish();
            if let Some(r) = rows.iter().find(|r| !r.conservation) {
                anyhow::bail!(
                    "a point broke packet conservation (sent != delivered + dropped + queued): {:?}; this is a defect, please report it",
                    r.point
                );
            }
            s.csv(&rows)
        }
    };
    match &a.out {
        Some(p) => std::fs::write(p, &csv).with_context(|| format!("--out {}", p.display()))?,
        None => print!("{csv}"),
    }
    if !a.quiet {
        eprintln!(
            "*** {n} points in {:.1} s{}",
            t0.elapsed().as_secs_f64(),
            a.dask
                .as_deref()
                .map_or_else(String::new, |d| format!(" on {d}"))
        );
    }
    Ok(ExitCode::SUCCESS)
}
