//! Parameter sweeps (docs/virtual-time.md, "Sweeps"): one workload run in
//! virtual time for every point of a grid of config fields (JSON paths
//! such as `slice.duration` or `routing.algorithm`) and the workload's own
//! `load` and `seed`, one row of results a point.
//!
//! A [`Spec`] is plain data (serde): the base config's text, the axes and
//! the workload. So the same point can run anywhere: in `lighthouse
//! sweep`'s local pool, or in a Dask worker through the Python module
//! (`lighthouse.sweep`), and give the same row, because a run in virtual
//! time is deterministic. The table's order is the grid's, never the order
//! in which points finished.

use crate::{Sim, SimError, SimOptions, TcpConfig};
use lh_ctrl::config::Config;
use lh_emu::traffic::workload::{arrivals, cdf::SizeCdf, fct, load_cdf};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A sweep that cannot run: which axis, value or field, and why.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    Spec(String),
    /// A point's config, naming the point and the field (JSON path).
    #[error("point {point}: {source}")]
    Config {
        point: String,
        #[source]
        source: lh_ctrl::config::ConfigError,
    },
    /// A point's value that the workload or the config's shape refuses.
    #[error("point {point}: {why}")]
    Value { point: String, why: String },
    /// A point that failed while it ran.
    #[error("point {point}: {why}")]
    Run { point: String, why: String },
    /// `run_all`'s caller asked it to stop (Ctrl-C) with points not run.
    #[error("stopped with {left} of {points} points not run")]
    Stopped { left: usize, points: usize },
}

/// One axis of the grid: `load`, `seed`, or a config field by its JSON
/// path (`slice.duration`), with the values it takes, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub name: String,
    pub values: Vec<Value>,
}

impl Axis {
    /// `name=v1,v2,...` (the CLI's `--axis`): each value JSON where it
    /// parses as JSON (`0.4`, `true`), a string otherwise (`50us`, `vlb`).
    pub fn parse(text: &str) -> Result<Axis, SweepError> {
        let (name, values) = text.split_once('=').ok_or_else(|| {
            SweepError::Spec(format!(
                "--axis {text:?}: NAME=V1,V2,... (a config field such as slice.duration, or load, or seed)"
            ))
        })?;
        let values = values
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned())))
            .collect();
        Ok(Axis {
            name: name.trim().to_owned(),
            values,
        })
    }
}

/// The workload every point runs (as `lighthouse sim --workload`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// A shipped size distribution's name (websearch, hadoop, kvstore, ...)
    /// or a CDF file's name.
    pub cdf: String,
    /// A CDF file's text, carried so that a remote worker needs no file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdf_text: Option<String>,
    pub pattern: String,
    pub load: f64,
    /// How long flows arrive, and how long after the last start they may
    /// take to finish (virtual time: `10ms`).
    pub duration: String,
    pub drain: String,
    pub seed: u64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            cdf: "websearch".into(),
            cdf_text: None,
            pattern: "all-to-all".into(),
            load: 0.1,
            duration: "10ms".into(),
            drain: "1s".into(),
            seed: 1,
        }
    }
}

/// A whole sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// The base config's JSON text.
    pub config: String,
    /// Its file name, for errors and for files it names relative to it.
    pub file: String,
    pub axes: Vec<Axis>,
    pub workload: Workload,
}

/// The columns of a row after the axes', in order.
pub const RESULT_COLUMNS: [&str; 12] = [
    "flows",
    "completed",
    "fct_p50_us",
    "fct_p99_us",
    "mice_p99_us",
    "goodput_gbps",
    "retransmits",
    "timeouts",
    "dropped",
    "conservation",
    "frame_hops",
    "simulated_ms",
];

/// One point's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The point: each axis's value, in the axes' order.
    pub point: Vec<Value>,
    pub flows: usize,
    pub completed: usize,
    pub fct_p50_us: Option<f64>,
    pub fct_p99_us: Option<f64>,
    pub mice_p99_us: Option<f64>,
    pub goodput_gbps: f64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub dropped: u64,
    pub conservation: bool,
    pub frame_hops: u64,
    pub simulated_ms: f64,
}

fn nanos(what: &str, v: &str) -> Result<u64, String> {
    v.parse::<lh_ctrl::units::Nanos>()
        .map(|n| n.0)
        .map_err(|e| format!("{what} {v:?}: {e}"))
}

/// `a.b.c` in `v`, made (as objects) where missing.
fn field<'a>(v: &'a mut Value, path: &str) -> Result<&'a mut Value, String> {
    let mut at = v;
    for (i, key) in path.split('.').enumerate() {
        if key.is_empty() {
            return Err(format!("{path:?} is not a JSON path (a.b.c)"));
        }
        let obj = at.as_object_mut().ok_or_else(|| {
            let parent = path.split('.').take(i).collect::<Vec<_>>().join(".");
            format!("{path}: {parent} is not an object")
        })?;
        at = obj
            .entry(key.to_owned())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    Ok(at)
}

/// A point's name in errors and logs: `slice.duration=50us load=0.4`.
fn point_name(axes: &[Axis], point: &[Value]) -> String {
    axes.iter()
        .zip(point)
        .map(|(a, v)| match v {
            Value::String(s) => format!("{}={s}", a.name),
            v => format!("{}={v}", a.name),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Spec {
    /// Every point of the grid, the last axis fastest.
    pub fn points(&self) -> Vec<Vec<Value>> {
        let mut out = vec![Vec::new()];
        for a in &self.axes {
            out = out
                .into_iter()
                .flat_map(|p| {
                    a.values.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push(v.clone());
                        q
                    })
                })
                .collect();
        }
        out
    }

    /// Refuses a spec that cannot run, before anything runs: an axis with
    /// no values or named twice, a load or seed that is not one, a
    /// workload that does not parse, and every point's config (each
    /// parsed and validated, so a bad field or value is named with its
    /// JSON path and the point).
    pub fn check(&self) -> Result<(), SweepError> {
        if self.axes.is_empty() {
            return Err(SweepError::Spec(
                "no axis: give at least one (--axis NAME=V1,V2)".into(),
            ));
        }
        for (i, a) in self.axes.iter().enumerate() {
            if a.values.is_empty() {
                return Err(SweepError::Spec(format!("axis {}: no values", a.name)));
            }
            if self.axes[..i].iter().any(|b| b.name == a.name) {
                return Err(SweepError::Spec(format!("axis {}: named twice", a.name)));
            }
        }
        self.cdf().map_err(SweepError::Spec)?;
        self.workload
            .pattern
            .parse::<arrivals::Pattern>()
            .map_err(|e| SweepError::Spec(format!("pattern: {e}")))?;
        nanos("duration", &self.workload.duration).map_err(SweepError::Spec)?;
        nanos("drain", &self.workload.drain).map_err(SweepError::Spec)?;
        for p in self.points() {
            self.prepare(&p)?;
        }
        Ok(())
    }

    fn cdf(&self) -> Result<SizeCdf, String> {
        let w = &self.workload;
        match &w.cdf_text {
            Some(t) => SizeCdf::parse(&w.cdf, t).map_err(|e| format!("workload {}: {e}", w.cdf)),
            None => load_cdf(&w.cdf).map_err(|e| format!("workload {}: {e}", w.cdf)),
        }
    }

    /// A point's config and workload.
    fn prepare(&self, point: &[Value]) -> Result<(Config, Workload), SweepError> {
        let name = point_name(&self.axes, point);
        let mut cfg: Value = serde_json::from_str(&self.config)
            .map_err(|e| SweepError::Spec(format!("{}: not JSON: {e}", self.file)))?;
        let mut w = self.workload.clone();
        let bad = |why: String| SweepError::Value {
            point: name.clone(),
            why,
        };
        for (a, v) in self.axes.iter().zip(point) {
            match a.name.as_str() {
                "load" => {
                    w.load = v
                        .as_f64()
                        .ok_or_else(|| bad(format!("load {v}: not a number")))?
                }
                "seed" => {
                    w.seed = v
                        .as_u64()
                        .ok_or_else(|| bad(format!("seed {v}: a non-negative integer")))?
                }
                path => *field(&mut cfg, path).map_err(bad)? = v.clone(),
            }
        }
        if !(w.load > 0.0 && w.load <= 1.0) {
            return Err(bad(format!(
                "load {}: a fraction of the link rate in (0, 1]",
                w.load
            )));
        }
        let base = std::path::Path::new(&self.file)
            .parent()
            .unwrap_or(std::path::Path::new("."));
        let cfg = Config::from_json_in(&cfg.to_string(), &self.file, base).map_err(|source| {
            SweepError::Config {
                point: name.clone(),
                source: without_position(source),
            }
        })?;
        crate::check(&cfg, "native").map_err(|e| bad(e.to_string()))?;
        Ok((cfg, w))
    }

    /// Runs one point (deterministic: the same row wherever it runs).
    pub fn run(&self, point: &[Value]) -> Result<Row, SweepError> {
        let name = point_name(&self.axes, point);
        let fail = |why: String| SweepError::Run {
            point: name.clone(),
            why,
        };
        let (cfg, w) = self.prepare(point)?;
        let cdf = self.cdf().map_err(fail)?;
        let c = lh_ctrl::compile::compile(&cfg).map_err(|e| fail(format!("compiling: {e}")))?;
        let tcp = TcpConfig::from_host_tcp(cfg.hosts.as_ref().and_then(|h| h.tcp.as_ref()))
            .map_err(|e| fail(e.to_string()))?;
        let mut sim = Sim::new(&c, SimOptions::default()).map_err(|e| fail(e.to_string()))?;
        let spec = arrivals::Spec {
            hosts: sim.hosts(),
            pattern: w
                .pattern
                .parse()
                .map_err(|e| fail(format!("pattern: {e}")))?,
            load: w.load,
            host_bps: cfg.tors.host_link_rate.0 as f64,
            duration_ns: nanos("duration", &w.duration).map_err(fail)?,
            max_flows: usize::MAX,
            seed: w.seed,
        };
        let flows = arrivals::generate(&cdf, &spec);
        let drain = nanos("drain", &w.drain).map_err(fail)?;
        let recs = crate::apps::flows(&mut sim, &flows, tcp, drain)
            .map_err(|e: SimError| fail(e.to_string()))?;
        Ok(row(point, &recs, &sim.counters(), sim.stats()))
    }

    /// Runs every point on `jobs` threads (at least 1), and returns the
    /// rows in the grid's order. `go_on(i, n)` is called as the i-th of n
    /// points ends (from the worker threads); false stops the points not
    /// yet started (Ctrl-C). The first error in the grid's order is
    /// returned; a failed point also stops those not yet started.
    pub fn run_all(
        &self,
        jobs: usize,
        go_on: &(dyn Fn(usize, usize) -> bool + Sync),
    ) -> Result<Vec<Row>, SweepError> {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let points = self.points();
        let next = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let rows: Mutex<Vec<Option<Result<Row, SweepError>>>> =
            Mutex::new((0..points.len()).map(|_| None).collect());
        std::thread::scope(|s| {
            for _ in 0..jobs.clamp(1, points.len().max(1)) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= points.len() || failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let r = self.run(&points[i]);
                        failed.fetch_or(r.is_err(), Ordering::Relaxed);
                        rows.lock().expect("no worker panics holding it")[i] = Some(r);
                        if !go_on(finished.fetch_add(1, Ordering::Relaxed) + 1, points.len()) {
                            failed.store(true, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let rows = rows.into_inner().expect("no worker panicked");
        // The first failure in grid order, so the error does not depend on
        // timing; otherwise every point ran.
        if let Some(i) = rows.iter().position(|r| matches!(r, Some(Err(_)))) {
            if let Some(Some(Err(e))) = rows.into_iter().nth(i) {
                return Err(e);
            }
            unreachable!("position found an error there");
        }
        let left = rows.iter().filter(|r| r.is_none()).count();
        if left > 0 {
            return Err(SweepError::Stopped {
                left,
                points: rows.len(),
            });
        }
        Ok(rows
            .into_iter()
            .map(|r| r.expect("all ran").expect("no error"))
            .collect())
    }

    /// The table: a header (the axes, then [`RESULT_COLUMNS`]) and a line
    /// a row, CSV (RFC 4180 quoting; an empty field for no value).
    pub fn csv(&self, rows: &[Row]) -> String {
        let mut out = String::new();
        let header: Vec<&str> = self
            .axes
            .iter()
            .map(|a| a.name.as_str())
            .chain(RESULT_COLUMNS)
            .collect();
        out.push_str(
            &header
                .iter()
                .map(|h| quote(h))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
        let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
        for r in rows {
            let mut f: Vec<String> = r
                .point
                .iter()
                .map(|v| match v {
                    Value::String(s) => quote(s),
                    v => quote(&v.to_string()),
                })
                .collect();
            f.extend([
                r.flows.to_string(),
                r.completed.to_string(),
                opt(r.fct_p50_us),
                opt(r.fct_p99_us),
                opt(r.mice_p99_us),
                r.goodput_gbps.to_string(),
                r.retransmits.to_string(),
                r.timeouts.to_string(),
                r.dropped.to_string(),
                r.conservation.to_string(),
                r.frame_hops.to_string(),
                r.simulated_ms.to_string(),
            ]);
            out.push_str(&f.join(","));
            out.push('\n');
        }
        out
    }
}

/// A point's row from its flows, the engine's counters and the loop's
/// stats.
fn row(point: &[Value], recs: &[fct::FlowRecord], c: &swtor::Counters, stats: crate::Stats) -> Row {
    let sum = fct::summarize(recs, fct::Buckets::default());
    let bucket = |n: &str| sum.buckets.iter().find(|b| b.name == n);
    let us = |ns: Option<u64>| ns.map(|n| n as f64 / 1e3);
    Row {
        point: point.to_vec(),
        flows: sum.flows,
        completed: sum.completed,
        fct_p50_us: us(bucket("all").and_then(|b| b.p50)),
        fct_p99_us: us(bucket("all").and_then(|b| b.p99)),
        mice_p99_us: us(bucket("mice").and_then(|b| b.p99)),
        goodput_gbps: sum.goodput_bps / 1e9,
        retransmits: sum.retrans,
        timeouts: sum.timeouts,
        dropped: c.dropped_total(),
        conservation: c.conservation_holds(),
        frame_hops: stats.frame_hops,
        simulated_ms: stats.simulated_ns as f64 / 1e6,
    }
}

/// A parse error of a point's config without serde's "at line 1 column
/// 323": the position is in the point's regenerated text, not in the
/// file, and the JSON path already names the field.
fn without_position(e: lh_ctrl::config::ConfigError) -> lh_ctrl::config::ConfigError {
    use lh_ctrl::config::ConfigError::Parse;
    match e {
        Parse { file, path, msg } => {
            let msg = match msg.rfind(" at line ") {
                Some(i) if msg[i..].contains(" column ") => msg[..i].to_owned(),
                _ => msg,
            };
            Parse { file, path, msg }
        }
        e => e,
    }
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(axes: &[&str]) -> Spec {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../topologies/rotornet-8.json");
        Spec {
            config: std::fs::read_to_string(file).unwrap(),
            file: file.into(),
            axes: axes.iter().map(|a| Axis::parse(a).unwrap()).collect(),
            // Small flows, so that every one ends within the drain.
            workload: Workload {
                cdf: "kvstore".into(),
                load: 0.3,
                duration: "2ms".into(),
                drain: "200ms".into(),
                ..Default::default()
            },
        }
    }

    #[test]
    fn axis_values_are_json_where_they_parse_and_strings_otherwise() {
        let a = Axis::parse("slice.duration=50us, 100us,0.5,true").unwrap();
        assert_eq!(a.name, "slice.duration");
        assert_eq!(
            a.values,
            vec![Value::from("50us"), "100us".into(), 0.5.into(), true.into()]
        );
        assert!(
            Axis::parse("load")
                .unwrap_err()
                .to_string()
                .contains("NAME=V1")
        );
    }

    #[test]
    fn the_grid_is_the_product_with_the_last_axis_fastest() {
        let s = spec(&["routing.algorithm=direct,vlb", "load=0.1,0.2,0.3"]);
        let p = s.points();
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], vec![Value::from("direct"), Value::from(0.1)]);
        assert_eq!(p[1], vec![Value::from("direct"), Value::from(0.2)]);
        assert_eq!(p[5], vec![Value::from("vlb"), Value::from(0.3)]);
    }

    #[test]
    fn bad_input_is_refused_naming_the_axis_the_point_or_the_field() {
        let e = |axes: &[&str]| spec(axes).check().unwrap_err().to_string();
        assert!(e(&[]).contains("no axis"));
        assert!(e(&["load="]).contains("axis load: no values"));
        assert!(e(&["load=0.1", "load=0.2"]).contains("named twice"));
        assert!(
            e(&["load=0.1,1.5"]).contains("point load=1.5: load 1.5"),
            "{}",
            e(&["load=0.1,1.5"])
        );
        assert!(e(&["seed=-1"]).contains("seed -1"));
        assert!(e(&["load=0"]).contains("point load=0: load 0: a fraction"));
        assert!(e(&["load=fast"]).contains("load \"fast\": not a number"));
        spec(&["load=1.0"]).check().unwrap();
        // A config field: the point and the JSON path.
        let m = e(&["slice.duration=100us,soon"]);
        assert!(m.starts_with("point slice.duration=soon: "), "{m}");
        assert!(
            m.contains("at $.slice.duration: ") && !m.contains("column"),
            "{m}"
        );
        let m = e(&["routing.nonsense=1"]);
        assert!(m.contains("nonsense"), "{m}");
        let m = e(&["name.x=1"]);
        assert!(m.contains("name.x: name is not an object"), "{m}");
        let mut s = spec(&["load=0.1"]);
        s.workload.cdf = "no-such-cdf".into();
        assert!(s.check().unwrap_err().to_string().contains("no-such-cdf"));
    }

    #[test]
    fn a_sweep_gives_the_same_table_on_one_thread_and_on_two() {
        let s = spec(&["routing.algorithm=direct,vlb", "seed=1,2"]);
        s.check().unwrap();
        let one = s.run_all(1, &|_, _| true).unwrap();
        let two = s.run_all(2, &|_, _| true).unwrap();
        assert_eq!(one, two);
        assert_eq!(one.len(), 4);
        // Each row is its point's own run.
        assert_eq!(one[3], s.run(&s.points()[3]).unwrap());
        for r in &one {
            assert!(
                r.flows > 0 && r.completed == r.flows && r.conservation,
                "{r:?}"
            );
        }
        // The seed changes the flows; the routing changes the FCTs.
        assert_ne!(one[0].flows, one[1].flows);
        assert_ne!(one[0].fct_p50_us, one[2].fct_p50_us);
        let csv = s.csv(&one);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            format!("routing.algorithm,seed,{}", RESULT_COLUMNS.join(","))
        );
        assert!(lines.next().unwrap().starts_with("direct,1,"));
        assert_eq!(csv.lines().count(), 5);
    }

    #[test]
    fn a_point_that_fails_to_run_stops_the_sweep_naming_it() {
        let s = spec(&["load=0.1", "tors.count=8,1"]);
        let e = s.run_all(2, &|_, _| true).unwrap_err().to_string();
        assert!(e.contains("tors.count=1"), "{e}");
    }

    #[test]
    fn a_row_is_its_flows_fcts_in_us_and_the_counters_and_stats() {
        use lh_emu::traffic::workload::arrivals::FlowSpec;
        let rec = |size: u64, fct_us: Option<u64>| fct::FlowRecord {
            flow: FlowSpec {
                id: 0,
                src: 0,
                dst: 1,
                size,
                start_ns: 0,
            },
            fct_ns: fct_us.map(|u| u * 1000),
            data_fct_ns: None,
            retrans: 2,
            reord_seen: 0,
            ooo_pkts: 0,
            timeouts: 1,
        };
        // Two mice (100 B: 10 and 30 us), one elephant (100 MB: 2000 us),
        // one unfinished.
        let recs = [
            rec(100, Some(10)),
            rec(100, Some(30)),
            rec(100_000_000, Some(2000)),
            rec(100, None),
        ];
        let mut c = swtor::Counters {
            sent: 10,
            delivered: 7,
            ..Default::default()
        };
        c.drop_one(swtor::DropReason::Guardband);
        c.drop_one(swtor::DropReason::Guardband);
        let stats = crate::Stats {
            polls: 5,
            frame_hops: 40,
            simulated_ns: 2_500_000,
        };
        let r = row(&[Value::from(1)], &recs, &c, stats);
        assert_eq!((r.flows, r.completed), (4, 3));
        assert_eq!(r.fct_p50_us, Some(30.0));
        assert_eq!(r.fct_p99_us, Some(2000.0));
        assert_eq!(r.mice_p99_us, Some(30.0));
        assert_eq!((r.retransmits, r.timeouts), (8, 4));
        assert_eq!(r.dropped, 2);
        assert!(!r.conservation, "10 sent, 7 delivered, 2 dropped");
        assert_eq!((r.frame_hops, r.simulated_ms), (40, 2.5));
        // Bytes of completed flows over first start to last end, in Gb/s.
        let bits = (100 + 100 + 100_000_000) as f64 * 8.0;
        assert!(
            (r.goodput_gbps - bits / 2000e-6 / 1e9).abs() < 1e-9,
            "{}",
            r.goodput_gbps
        );
    }

    #[test]
    fn a_points_parse_error_loses_only_serdes_position() {
        use lh_ctrl::config::ConfigError::Parse;
        let e = |msg: &str| Parse {
            file: "f.json".into(),
            path: "$.a".into(),
            msg: msg.into(),
        };
        let msg = |e: lh_ctrl::config::ConfigError| match e {
            Parse { msg, .. } => msg,
            _ => unreachable!(),
        };
        assert_eq!(msg(without_position(e("bad at line 1 column 323"))), "bad");
        assert_eq!(msg(without_position(e("stop at line 4"))), "stop at line 4");
        assert_eq!(msg(without_position(e("plain"))), "plain");
    }

    #[test]
    fn a_sweep_asked_to_stop_runs_no_more_points_and_says_how_many_it_left() {
        let s = spec(&["seed=1,2,3"]);
        let e = s.run_all(1, &|i, _| i < 1).unwrap_err().to_string();
        assert_eq!(e, "stopped with 2 of 3 points not run");
    }
}
