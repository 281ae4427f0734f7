//! `lighthouse experiment fig8-sweep --sim`: Fig. 8's elephant claims that
//! fail at the testbed's scale (`fig8 --sim`), each swept over the one
//! parameter responsible (docs/experiments.md says why it is that one),
//! to show the value at which the paper's claim would hold. Every other
//! setting is `fig8 --sim`'s (`super::fig8::config`).
//!
//! - c-Through's elephants "similar" to Clos's (within 1.5x): the rate of
//!   its electrical fabric, which carries the half of the ring its
//!   circuit pairing cannot (10 Gb/s in the paper's testbed).
//! - RotorNet-VLB's 0.8 MB allreduce "double" Clos's (1.5x to 3x): the
//!   slice duration, whose cycle a small allreduce's steps wait for, at
//!   the testbed's duty cycle (guardband and reconfiguration 10% of it).
//! - RotorNet-UCMP's elephants below RotorNet-VLB's: the number of rotors
//!   (uplinks), which sets how many slices VLB's indirection waits.
//! - c-Through's mice "similar" to Clos's (median within 2x): the rate of
//!   its electrical fabric, which carries every SET.
//! - RotorNet-UCMP's mice below RotorNet-VLB's tail (p99): the number of
//!   rotors, as for the elephants.

use crate::csv::Csv;
use crate::fig8::{
    ARCHS, Arch, CT_MICE, SET_BYTES, TA_ELEPHANTS, TO_ELEPHANTS, UCMP_ELEPHANTS, UCMP_MICE,
};
use crate::plot::{Axis, Chart, Panel, Series, Style, Unit};
use crate::{Analysis, Check, Claim, Opts, Progress, pct};
use lh_emu::traffic::apps::memcached::SetLoad;
use lh_sim::{Sim, TcpConfig, apps};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a sweep compares: the median allreduce of a size (bytes), or a
/// percentile of the mice (`fig8 --sim`'s memcached SETs).
#[derive(Clone, Copy)]
enum What {
    Allreduce(usize),
    Mice(f64),
}

impl What {
    fn text(self) -> String {
        match self {
            What::Allreduce(b) => format!("{b} B allreduce, median"),
            What::Mice(p) => format!("mice, p{p}"),
        }
    }

    fn percentile(self) -> f64 {
        match self {
            What::Allreduce(_) => 50.0,
            What::Mice(p) => p,
        }
    }
}

/// One sweep: `arch` against `reference` on `what`, with `set` applied to `arch`'s config (and the reference's, when
/// `both`) for each of `values` (x, the JSON value).
struct Sweep {
    name: &'static str,
    arch: &'static str,
    reference: &'static str,
    claim: Claim,
    /// The ratio arch / reference the claim asks for (`fig8 --sim`'s
    /// bound), upper end included unless `strict`, and in words.
    bound: (f64, f64),
    strict: bool,
    bound_text: &'static str,
    what: What,
    x_label: &'static str,
    x_unit: Unit,
    /// The paper's testbed's value (x).
    paper: f64,
    values: &'static [(f64, &'static str)],
    set: fn(&mut Value, &str),
    both: bool,
}

/// c-Through against Clos over the rate of c-Through's electrical fabric
/// (the testbed's 10 Gb/s to twice the hosts' rate), within `bound`.
const fn electrical(
    name: &'static str,
    claim: Claim,
    bound: f64,
    bound_text: &'static str,
    what: What,
) -> Sweep {
    Sweep {
        name,
        arch: "c-Through",
        reference: "Clos",
        claim,
        bound: (0.0, bound),
        strict: false,
        bound_text,
        what,
        x_label: "c-Through's electrical fabric",
        x_unit: Unit::BitsPerSecond,
        paper: 10e9,
        values: &[
            (10e9, "10Gbps"),
            (25e9, "25Gbps"),
            (50e9, "50Gbps"),
            (100e9, "100Gbps"),
            (200e9, "200Gbps"),
        ],
        set: |v, x| v["ta"]["electrical_rate"] = x.into(),
        both: false,
    }
}

/// RotorNet-UCMP strictly below RotorNet-VLB over the number of rotors
/// (uplinks per ToR and OCSes, both fabrics), the testbed's 4 and fewer.
const fn rotors(name: &'static str, claim: Claim, bound_text: &'static str, what: What) -> Sweep {
    Sweep {
        name,
        arch: "RotorNet-UCMP",
        reference: "RotorNet-VLB",
        claim,
        bound: (0.0, 1.0),
        strict: true,
        bound_text,
        what,
        x_label: "rotors (uplinks per ToR)",
        x_unit: Unit::Plain,
        paper: 4.0,
        values: &[(1.0, "1"), (2.0, "2"), (4.0, "4")],
        set: |v, x| {
            let n: u64 = x.parse().expect("a count");
            v["tors"]["uplinks"] = n.into();
            v["ocs"]["count"] = n.into();
        },
        both: true,
    }
}

const SWEEPS: [Sweep; 5] = [
    electrical(
        "c-Through: electrical fabric rate",
        TA_ELEPHANTS,
        super::fig8::SIMILAR,
        "within 1.5x of Clos",
        What::Allreduce(4_000_000),
    ),
    Sweep {
        name: "RotorNet-VLB: slice duration",
        arch: "RotorNet-VLB",
        reference: "Clos",
        claim: TO_ELEPHANTS,
        bound: super::fig8::DOUBLE,
        strict: false,
        bound_text: "1.5x to 3x Clos",
        what: What::Allreduce(800_000),
        x_label: "slice duration (guardband 10% of it)",
        x_unit: Unit::Seconds,
        paper: 100e-6,
        // At the testbed's duty cycle (a 10 us guardband and OCS
        // reconfiguration in 100 us slices): a fixed 10 us would leave
        // nothing of a short slice. 2 us is the fabric's shortest (§9.3).
        values: &[
            (2e-6, "2us"),
            (5e-6, "5us"),
            (10e-6, "10us"),
            (25e-6, "25us"),
            (50e-6, "50us"),
            (100e-6, "100us"),
            (200e-6, "200us"),
        ],
        set: |v, x| {
            let d: f64 = x.trim_end_matches("us").parse().expect("a slice in us");
            v["slice"]["duration"] = x.into();
            v["slice"]["guardband"] = format!("{}ns", (d * 100.0) as u64).into();
            v["ocs"]["reconfiguration_delay"] = format!("{}ns", (d * 100.0) as u64).into();
        },
        both: false,
    },
    rotors(
        "RotorNet-UCMP vs VLB: rotors",
        UCMP_ELEPHANTS,
        "below VLB",
        What::Allreduce(4_000_000),
    ),
    electrical(
        "c-Through mice: electrical fabric rate",
        CT_MICE,
        super::fig8::NEAR,
        "median within 2x of Clos",
        What::Mice(50.0),
    ),
    rotors(
        "RotorNet-UCMP vs VLB mice: rotors",
        UCMP_MICE,
        "p99 below VLB's",
        What::Mice(99.0),
    ),
];

const COLUMNS: [&str; 5] = ["sweep", "x", "arch", "sample", "fct_us"];

fn arch(name: &str) -> &'static Arch {
    ARCHS
        .iter()
        .find(|a| a.name == name)
        .expect("an arch of Fig. 8")
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let iters = if o.quick { 2 } else { 5 };
    let mut out = Csv::new(&COLUMNS);
    let points: usize = SWEEPS.iter().map(|s| s.values.len()).sum();
    pb.set_len(points as u64);
    for s in &SWEEPS {
        for &(x, json) in s.values {
            pb.message(&format!("{} = {json}", s.name));
            for name in [s.arch, s.reference] {
                let a = arch(name);
                let (_, base) = super::fig8::config(a)?;
                let text = serde_json::to_string(&base.config)?;
                let what = format!("fig8-sweep: {name}, {} = {json}", s.x_label);
                let (_, c) = super::edited(&text, &what, |v| {
                    if name == s.arch || s.both {
                        (s.set)(v, json)
                    }
                })?;
                let mut sim = Sim::new(&c, Default::default())?;
                let ring: Vec<usize> = (0..sim.hosts()).collect();
                let tcp = TcpConfig::default();
                let t: Vec<Option<u64>> = match s.what {
                    What::Allreduce(size) => {
                        apps::allreduce(&mut sim, &ring, size as u64, iters, tcp, 60_000_000_000)?
                    }
                    // fig8 --sim's SETs: one client per other ToR to a
                    // server on ToR 0, Poisson at a millisecond mean.
                    What::Mice(_) => {
                        let set = SetLoad {
                            count: if o.quick { 100 } else { 500 },
                            size: SET_BYTES,
                            interval: std::time::Duration::from_millis(1),
                            poisson: Some(o.seed),
                        };
                        apps::memcached(&mut sim, ring[0], &ring[1..], &set, tcp, 60_000_000_000)?
                            .iter()
                            .map(|r| r.fct_ns)
                            .collect()
                    }
                };
                for (i, t) in t.iter().enumerate() {
                    out.push(vec![
                        s.name.to_string(),
                        format!("{x}"),
                        name.to_string(),
                        i.to_string(),
                        t.map_or(String::new(), |v| format!("{:.3}", v as f64 / 1e3)),
                    ]);
                }
            }
            pb.inc(1);
        }
    }
    Ok(out)
}

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    // (sweep, x bits, arch) -> FCTs (ms), samples.
    let mut cells: BTreeMap<(String, u64, String), (Vec<f64>, usize)> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let row = &c.rows[r];
        let x = c.num(r, "x", col["x"])?.unwrap_or(f64::NAN);
        let e = cells
            .entry((
                row[col["sweep"]].clone(),
                x.to_bits(),
                row[col["arch"]].clone(),
            ))
            .or_default();
        e.1 += 1;
        if let Some(us) = c.num(r, "fct_us", col["fct_us"])? {
            e.0.push(us / 1e3);
        }
    }
    anyhow::ensure!(!cells.is_empty(), "no samples");
    let complete = cells.values().all(|(v, n)| v.len() == *n);
    let mut checks = vec![Check::sanity(
        "every allreduce and SET of every sweep completed".into(),
        complete,
    )];
    let mut table = String::from(
        "Fig. 8's failing claims, each swept over its responsible parameter (virtual time; ms)\n",
    );
    let mut panels = Vec::new();
    for s in &SWEEPS {
        let med = |x: f64, a: &str| {
            cells
                .get(&(s.name.to_string(), x.to_bits(), a.to_string()))
                .and_then(|(v, _)| pct(v, s.what.percentile()))
        };
        table += &format!(
            "{}: {} / {} ({})\n{:>12} {:>12} {:>12} {:>8} {:>6}\n",
            s.name,
            s.arch,
            s.reference,
            s.what.text(),
            "x",
            s.arch,
            s.reference,
            "ratio",
            "holds"
        );
        let mut pts = Vec::new();
        let mut holds_at = Vec::new();
        for &(x, json) in s.values {
            let (a, r) = (med(x, s.arch), med(x, s.reference));
            let ratio = a.zip(r).map(|(a, r)| a / r);
            let holds = ratio.is_some_and(|q| {
                q >= s.bound.0
                    && if s.strict {
                        q < s.bound.1
                    } else {
                        q <= s.bound.1
                    }
            });
            let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.4}"));
            table += &format!(
                "{json:>12} {:>12} {:>12} {:>8} {:>6}\n",
                f(a),
                f(r),
                ratio.map_or("-".into(), |q| format!("{q:.2}x")),
                if holds { "yes" } else { "no" }
            );
            if let Some(q) = ratio {
                pts.push((x, q));
            }
            if holds {
                holds_at.push(json);
            }
        }
        let at_paper = pts
            .iter()
            .find(|(x, _)| *x == s.paper)
            .map_or("-".into(), |(_, q)| format!("{q:.2}x"));
        checks.push(Check::report(
            s.claim,
            format!(
                "{}: {} / {} ({}) is {at_paper} at the testbed's value; the claim's bound ({}) holds at {}",
                s.name,
                s.arch,
                s.reference,
                s.what.text(),
                s.bound_text,
                if holds_at.is_empty() {
                    "none of the values swept".to_string()
                } else {
                    holds_at.join(", ")
                }
            ),
        ));
        let (lo, hi) = (
            s.values.first().map_or(0.0, |v| v.0),
            s.values.last().map_or(1.0, |v| v.0),
        );
        let mut series = vec![Series::new(
            format!("{} / {}", s.arch, s.reference),
            Style::Line,
            pts,
        )];
        for (i, b) in [s.bound.0, s.bound.1].into_iter().enumerate() {
            if b > 0.0 {
                let name = if i == 0 {
                    "bound (low)"
                } else {
                    "bound (high)"
                };
                series.push(Series::new(name, Style::Line, vec![(lo, b), (hi, b)]));
            }
        }
        let x = if s.x_unit == Unit::Plain {
            Axis::linear(s.x_label, s.x_unit)
        } else {
            Axis::log(s.x_label, s.x_unit)
        };
        panels.push(Panel {
            title: s.name.to_string(),
            x,
            y: Axis::log("ratio of FCTs", Unit::Plain),
            series,
        });
    }
    Ok(Analysis {
        table,
        chart: Chart {
            title: "Fig. 8's failing claims, swept (virtual time)".into(),
            panels,
            columns: 3,
            legend: true,
        },
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CSV with `ratio(sweep, x)` as arch / reference (reference 1 ms).
    fn synthetic(ratio: impl Fn(&Sweep, f64) -> f64) -> Csv {
        let mut c = Csv::new(&COLUMNS);
        for s in &SWEEPS {
            for &(x, _) in s.values {
                for (a, ms) in [(s.arch, ratio(s, x)), (s.reference, 1.0)] {
                    c.push(vec![
                        s.name.into(),
                        format!("{x}"),
                        a.into(),
                        "0".into(),
                        format!("{}", ms * 1e3),
                    ]);
                }
            }
        }
        c
    }

    #[test]
    fn each_sweep_reports_where_its_claims_bound_holds() {
        // c-Through within 1.5x from 100 Gb/s; VLB 2x everywhere; UCMP equal
        // to VLB (not below: the claim is strict).
        let a = analyze(&synthetic(|s, x| match s.arch {
            "c-Through" => 100e9 / x,
            "RotorNet-VLB" => 2.0,
            _ => 1.0,
        }))
        .unwrap();
        let what: Vec<&str> = a.checks.iter().map(|c| c.what.as_str()).collect();
        assert!(
            what[1].ends_with("holds at 100Gbps, 200Gbps"),
            "{}",
            what[1]
        );
        assert!(
            what[2].ends_with("holds at 2us, 5us, 10us, 25us, 50us, 100us, 200us"),
            "{}",
            what[2]
        );
        assert!(
            what[3].ends_with("holds at none of the values swept"),
            "{}",
            what[3]
        );
        // The mice: c-Through's median bound is 2x (50 Gb/s: exactly 2x).
        assert!(
            what[4].ends_with("holds at 50Gbps, 100Gbps, 200Gbps"),
            "{}",
            what[4]
        );
        assert!(what[4].contains("(mice, p50) is 10.00x"), "{}", what[4]);
        assert!(
            what[5].ends_with("holds at none of the values swept"),
            "{}",
            what[5]
        );
        assert!(a.checks.iter().all(|c| !c.fails()), "reports never fail");
        assert_eq!(a.chart.panels.len(), SWEEPS.len());
        // An allreduce that did not complete fails the run's condition.
        let mut c = synthetic(|_, _| 1.0);
        c.rows[0][4] = String::new();
        assert!(analyze(&c).unwrap().checks[0].fails());
    }
}
