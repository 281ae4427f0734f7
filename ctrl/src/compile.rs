//! The whole controller pipeline for `lighthouse compile`: config →
//! schedule → routes → tables, plus a readable summary.

use crate::config::{Config, FabricKind, Mode};
use crate::routing::RouteSet;
use crate::schedule::Schedule;
use crate::tables::FlatTables;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("topology: {0}")]
    Schedule(#[from] crate::schedule::ScheduleError),
    #[error("traffic-aware topology: {0}")]
    Ta(#[from] crate::ta::TaError),
    #[error("routing: {0}")]
    Routing(#[from] crate::routing::RoutingError),
    /// A pair has no path; says which config fields make it impossible.
    #[error("routing: {0}")]
    NoPath(String),
    #[error("tables: {0}")]
    Tables(#[from] crate::tables::TableError),
}

/// Everything the data plane and the CLI need from the controller.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub config: Config,
    pub schedule: Schedule,
    pub routes: RouteSet,
    /// Flat; shared with the data plane (`swtor::FabricSpec`).
    pub tables: Arc<FlatTables>,
    /// Wall time of each stage, for the summary.
    pub timings: Vec<(&'static str, Duration)>,
}

/// Pipeline stages, reported to a progress callback before each starts.
pub const STAGES: [&str; 3] = ["schedule", "routing", "tables"];

/// Run the pipeline on a validated config.
pub fn compile(cfg: &Config) -> Result<Compiled, CompileError> {
    compile_with_progress(cfg, |_| {})
}

/// [`compile`], calling `stage` with each stage's name before it starts.
pub fn compile_with_progress(
    cfg: &Config,
    mut stage: impl FnMut(&'static str),
) -> Result<Compiled, CompileError> {
    let mut timings = Vec::new();
    let mut t = Instant::now();
    let lap = |name: &'static str, t: &mut Instant, timings: &mut Vec<_>| {
        timings.push((name, t.elapsed()));
        *t = Instant::now();
    };

    stage(STAGES[0]);
    let schedule = if cfg.mode == Mode::TA && cfg.fabric == FabricKind::Optical {
        let s = crate::ta::build(cfg)?;
        s.verify(cfg)?;
        s
    } else {
        crate::schedule::from_config(cfg)?
    };
    lap(STAGES[0], &mut t, &mut timings);
    route_and_build(cfg, schedule, None, stage, timings)
}

/// Compile on a schedule the caller built (a script's `topo()`): routing
/// with the config's algorithm, then the tables.
pub fn compile_schedule(cfg: &Config, schedule: Schedule) -> Result<Compiled, CompileError> {
    route_and_build(cfg, schedule, None, |_| {}, Vec::new())
}

/// Compile a schedule and routes the caller built (a script's `topo()` and
/// `routing()`): only the tables, which check every path against the
/// schedule (`tables::check_path`).
pub fn compile_routes(
    cfg: &Config,
    schedule: Schedule,
    routes: RouteSet,
) -> Result<Compiled, CompileError> {
    route_and_build(cfg, schedule, Some(routes), |_| {}, Vec::new())
}

/// The routing and tables stages; `routes` given: routing is skipped.
fn route_and_build(
    cfg: &Config,
    schedule: Schedule,
    routes: Option<RouteSet>,
    mut stage: impl FnMut(&'static str),
    mut timings: Vec<(&'static str, Duration)>,
) -> Result<Compiled, CompileError> {
    let mut t = Instant::now();
    let lap = |name: &'static str, t: &mut Instant, timings: &mut Vec<_>| {
        timings.push((name, t.elapsed()));
        *t = Instant::now();
    };
    stage(STAGES[1]);
    let routes = match routes {
        Some(r) => r,
        None => route_on(cfg, &schedule)?,
    };
    lap(STAGES[1], &mut t, &mut timings);

    stage(STAGES[2]);
    let opts = crate::routing::RoutingOptions::of(cfg);
    let buckets = match cfg.routing.multipath {
        crate::config::Multipath::None => 1,
        _ => opts.k.max(1),
    };
    let tables = crate::tables::entries_flat(
        &schedule,
        &routes,
        cfg.routing.lookup,
        cfg.routing.multipath,
        buckets,
    )?;
    lap(STAGES[2], &mut t, &mut timings);

    Ok(Compiled {
        config: cfg.clone(),
        schedule,
        routes,
        tables: Arc::new(tables),
        timings,
    })
}

/// The config's routing algorithm on `schedule`.
fn route_on(cfg: &Config, schedule: &Schedule) -> Result<RouteSet, CompileError> {
    let opts = crate::routing::RoutingOptions::of(cfg);
    // Route around circuits too dark to carry a frame; the data plane and
    // the tables' checks use the real schedule.
    let view = crate::schedule::routable(cfg, schedule);
    let routed_on = view.as_ref().map_or(schedule, |(v, _)| v);
    // A fat tree's edge switches keep ToR tables for the Clos view of
    // their uplinks; its scheme (ecmp, rps, sopa) runs in the switches
    // (crate::fattree), so the ToR view is routed with ECMP.
    let algorithm = match cfg.fabric {
        FabricKind::FatTree => crate::config::Algorithm::Ecmp,
        _ => cfg.routing.algorithm,
    };
    crate::routing::route(algorithm, routed_on, &opts)
        .map_err(|e| explain_routing(cfg, e, view.as_ref().map_or(0, |(_, n)| *n)))
}

/// A routing error in terms of the config: which fields make the missing
/// path impossible. `cut` circuits were left out because their usable
/// window is shorter than one frame.
fn explain_routing(cfg: &Config, e: crate::routing::RoutingError, cut: usize) -> CompileError {
    use crate::routing::RoutingError;
    let RoutingError::NoPath {
        src,
        dst,
        ts,
        max_hop,
    } = e
    else {
        return CompileError::Routing(e);
    };
    let budget = match cfg.routing.max_hop {
        Some(h) => format!("within routing.max_hop = {h} hops"),
        None if max_hop == crate::routing::UNLIMITED => "with any number of hops".to_string(),
        None => format!(
            "within the {max_hop} hop(s) routing.algorithm {:?} allows",
            cfg.routing.algorithm
        )
        .to_lowercase(),
    };
    let mut msg = format!(
        "no path from ToR {src} to ToR {dst} for packets arriving in slice {ts} {budget} on the schedule of topology.kind {} with tors.uplinks = {}",
        cfg.topology.kind().name(),
        cfg.tors.uplinks
    );
    if cut > 0 {
        let frame = cfg.max_frame();
        msg.push_str(&format!(
            "; {cut} circuit-slices are unusable because the dark time max(slice.guardband = {}, ocs.reconfiguration_delay = {}) leaves less than tors.max_frame = {frame} bytes at tors.link_rate = {} in slice.duration = {}",
            cfg.slice.guardband,
            cfg.reconfiguration_delay(),
            cfg.tors.link_rate,
            cfg.slice.duration
        ));
    }
    CompileError::NoPath(msg)
}

/// Min / mean / max of a series.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

impl Spread {
    fn of(v: impl IntoIterator<Item = f64>) -> Spread {
        let (mut n, mut sum, mut min, mut max) = (0usize, 0.0, f64::INFINITY, f64::NEG_INFINITY);
        for x in v {
            n += 1;
            sum += x;
            min = min.min(x);
            max = max.max(x);
        }
        if n == 0 {
            return Spread::default();
        }
        Spread {
            min,
            mean: sum / n as f64,
            max,
        }
    }
}

impl fmt::Display for Spread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "min {} / mean {:.2} / max {}",
            self.min, self.mean, self.max
        )
    }
}

/// The readable summary `lighthouse compile` prints and writes.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub name: String,
    pub tors: usize,
    pub uplinks: usize,
    pub slices: usize,
    pub slice_duration: String,
    pub circuits_per_slice: Spread,
    pub entries_per_tor: Spread,
    pub total_entries: usize,
    pub paths: usize,
    pub hops: Spread,
    /// Slots between arrival and the last departure (TO only).
    pub latency_slices: Option<Spread>,
    pub latency_p99_slices: Option<u32>,
    /// The slowest path: (src, dst, arrival slice, latency in slices, hops).
    pub worst: Option<(u16, u16, u16, u32, usize)>,
    pub stage_ms: Vec<(String, f64)>,
}

impl Compiled {
    /// The time model of this fabric (dark times, windows, port rates):
    /// the one source the data plane's timing comes from.
    pub fn timing(&self) -> crate::schedule::timing::TimeModel {
        crate::schedule::timing::TimeModel::from_config(&self.config)
    }

    pub fn summary(&self) -> Summary {
        let s = &self.schedule;
        let circuits = Spread::of((0..s.slices()).map(|ts| s.circuits(ts as u16).len() as f64));
        let sizes: Vec<usize> = self.tables.tors.iter().map(|t| t.len()).collect();
        let entries = Spread::of(sizes.iter().map(|&n| n as f64));
        let paths = &self.routes.paths;
        let st = PathStats::of(paths);
        let hops = st.hops;
        let (latency, p99) = match st.latency {
            Some((l, p99)) => (Some(l), Some(p99)),
            None => (None, None),
        };
        let worst = st.worst;
        Summary {
            name: self.config.name.clone().unwrap_or_else(|| "unnamed".into()),
            tors: s.tors(),
            uplinks: s.uplinks(),
            slices: s.slices(),
            slice_duration: self.config.slice.duration.to_string(),
            circuits_per_slice: circuits,
            entries_per_tor: entries,
            total_entries: sizes.iter().sum(),
            paths: paths.len(),
            hops,
            latency_slices: latency,
            latency_p99_slices: p99,
            worst,
            stage_ms: self
                .timings
                .iter()
                .map(|(n, d)| (n.to_string(), d.as_secs_f64() * 1e3))
                .collect(),
        }
    }
}

/// The path statistics of a [`Summary`], in one pass over the paths.
struct PathStats {
    hops: Spread,
    /// Latency spread and p99 of the timed paths, if any.
    latency: Option<(Spread, u32)>,
    worst: Option<(u16, u16, u16, u32, usize)>,
}

/// [`PathStats`] of a range of paths, before the percentiles.
struct PathTally {
    hop_sum: u64,
    hop_min: usize,
    hop_max: usize,
    /// Latency histogram (exact: the sums are of integers), and the
    /// latencies too large for it.
    counts: Vec<u64>,
    far: Vec<u32>,
    lat_n: u64,
    lat_sum: u64,
    /// (latency, hops, index) of the last of the slowest (then longest).
    worst: Option<(u32, usize, usize)>,
}

impl PathTally {
    /// Latencies beyond this are sorted instead of counted.
    const COUNTED: usize = 1 << 20;

    fn of(paths: &crate::routing::Paths, range: std::ops::Range<usize>) -> PathTally {
        let mut t = PathTally {
            hop_sum: 0,
            hop_min: usize::MAX,
            hop_max: 0,
            counts: Vec::new(),
            far: Vec::new(),
            lat_n: 0,
            lat_sum: 0,
            worst: None,
        };
        for i in range {
            let p = paths.get(i);
            let h = p.hops.len();
            t.hop_sum += h as u64;
            t.hop_min = t.hop_min.min(h);
            t.hop_max = t.hop_max.max(h);
            let Some(l) = p.latency_slots() else {
                continue;
            };
            t.lat_n += 1;
            t.lat_sum += l as u64;
            if (l as usize) < Self::COUNTED {
                if l as usize >= t.counts.len() {
                    t.counts.resize(l as usize + 1, 0);
                }
                t.counts[l as usize] += 1;
            } else {
                t.far.push(l);
            }
            // The last of the slowest (then longest), like `max_by_key`.
            if t.worst.is_none_or(|(wl, wh, _)| (l, h) >= (wl, wh)) {
                t.worst = Some((l, h, i));
            }
        }
        t
    }

    /// `self` then `later` (paths after `self`'s).
    fn merge(mut self, later: PathTally) -> PathTally {
        self.hop_sum += later.hop_sum;
        self.hop_min = self.hop_min.min(later.hop_min);
        self.hop_max = self.hop_max.max(later.hop_max);
        if later.counts.len() > self.counts.len() {
            self.counts.resize(later.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&later.counts) {
            *a += b;
        }
        self.far.extend(later.far);
        self.lat_n += later.lat_n;
        self.lat_sum += later.lat_sum;
        // Ties go to the later path (higher index).
        self.worst = self.worst.max(later.worst);
        self
    }
}

impl PathStats {
    fn of(paths: &crate::routing::Paths) -> PathStats {
        // Two halves at once above a million paths (the summary runs after
        // the compile, alone).
        let mid = if paths.len() > 1 << 20 {
            paths.len() / 2
        } else {
            paths.len()
        };
        let (a, b) = std::thread::scope(|sc| {
            let b = sc.spawn(|| PathTally::of(paths, mid..paths.len()));
            (
                PathTally::of(paths, 0..mid),
                b.join().expect("summary worker"),
            )
        });
        let PathTally {
            hop_sum,
            hop_min,
            hop_max,
            counts,
            mut far,
            lat_n,
            lat_sum,
            worst,
        } = a.merge(b);
        let hops = if paths.is_empty() {
            Spread::default()
        } else {
            Spread {
                min: hop_min as f64,
                mean: hop_sum as f64 / paths.len() as f64,
                max: hop_max as f64,
            }
        };
        let latency = (lat_n > 0).then(|| {
            far.sort_unstable();
            // The `k`-th smallest latency.
            let nth = |mut k: u64| -> u32 {
                for (l, &c) in counts.iter().enumerate() {
                    if k < c {
                        return l as u32;
                    }
                    k -= c;
                }
                far[k as usize]
            };
            let p99 = nth(((lat_n - 1) as f64 * 0.99).round() as u64);
            let spread = Spread {
                min: nth(0) as f64,
                mean: lat_sum as f64 / lat_n as f64,
                max: nth(lat_n - 1) as f64,
            };
            (spread, p99)
        });
        let worst = worst.map(|(l, h, i)| {
            let p = paths.get(i);
            (p.src, p.dst, p.arrival.unwrap_or(0), l, h)
        });
        PathStats {
            hops,
            latency,
            worst,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "network       {}: {} ToRs x {} uplinks",
            self.name, self.tors, self.uplinks
        )?;
        writeln!(
            f,
            "cycle         {} slices of {}",
            self.slices, self.slice_duration
        )?;
        writeln!(f, "circuits      per slice: {}", self.circuits_per_slice)?;
        writeln!(
            f,
            "entries       per ToR: {} (total {})",
            self.entries_per_tor, self.total_entries
        )?;
        writeln!(f, "paths         {}; hops: {}", self.paths, self.hops)?;
        if let (Some(l), Some(p99)) = (&self.latency_slices, self.latency_p99_slices) {
            writeln!(f, "latency       in slices: {l}, p99 {p99}")?;
        }
        if let Some((src, dst, ts, l, h)) = self.worst {
            writeln!(
                f,
                "worst case    ToR {src} -> ToR {dst} arriving in slice {ts}: {l} slices, {h} hops"
            )?;
        }
        let stages: Vec<String> = self
            .stage_ms
            .iter()
            .map(|(n, ms)| format!("{n} {ms:.1} ms"))
            .collect();
        write!(f, "compile time  {}", stages.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{Hop, Path, Paths};

    /// Records sharing a path's hops (UCMP's classes) each count: the
    /// statistics equal a plain record-by-record tally, and the worst path
    /// is the last of the slowest, then longest.
    #[test]
    fn path_stats_count_every_record_of_a_shared_run() {
        let path = |src, dst, a, hops: &[(u16, u8, u32)]| Path {
            src,
            dst,
            arrival: Some(a),
            hops: hops
                .iter()
                .map(|&(tor, port, d)| Hop {
                    tor,
                    port,
                    depart: Some(d),
                })
                .collect(),
            class: None,
        };
        let cands: Paths = vec![
            path(0, 1, 0, &[(0, 0, 3)]),
            path(0, 1, 1, &[(0, 0, 3), (2, 1, 5)]),
            path(1, 0, 0, &[(1, 0, 9)]),
            path(1, 0, 2, &[(1, 1, 4)]),
            path(1, 2, 0, &[(1, 0, 1), (3, 0, 4), (2, 1, 9)]),
        ]
        .into();
        let picks = [
            (0, 0),
            (0, 1),
            (0, 2),
            (1, 0),
            (2, 0),
            (2, 1),
            (3, 0),
            (4, 0),
            (4, 1),
            (3, 1),
        ];
        let picked = cands.pick_with(picks.len(), |p| {
            for (i, c) in picks {
                p.push(i, Some(c));
            }
        });
        let paths = cands.keep(picked);
        let st = PathStats::of(&paths);
        let hops: Vec<f64> = paths.iter().map(|p| p.hops.len() as f64).collect();
        let lat: Vec<u32> = paths.iter().map(|p| p.latency_slots().unwrap()).collect();
        assert_eq!(st.hops, Spread::of(hops.iter().copied()));
        let (spread, p99) = st.latency.unwrap();
        assert_eq!(spread, Spread::of(lat.iter().map(|&l| l as f64)));
        assert_eq!(p99, 9);
        // Latency 9 twice at 1 hop (records 4 and 5), and 9 at 3 hops
        // (records 7 and 8): the last of those is the worst.
        assert_eq!(st.worst, Some((1, 2, 0, 9, 3)));
        let sum: f64 = hops.iter().sum();
        assert_eq!(st.hops.mean, sum / 10.0);
    }
}
