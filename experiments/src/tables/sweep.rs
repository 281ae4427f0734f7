//! `lighthouse experiment table3-sweep --sim`: the Table 3 claims that fail
//! on the KV-store trace at the paper's setting (`table3 --sim --trace
//! kvstore`), swept over the load, the one parameter their cause names
//! (docs/experiments.md): the KV store's flows are single small frames,
//! as smooth as Poisson frames, so at the paper's 70% core link
//! utilization what slice-miss detection defers always finds room and
//! column 2 loses nothing. Every other setting is `table3 --sim`'s.

use super::{Column, TABLE3_CLAIMS, TABLE3_PAPER_CONFIG, Workload, table3_run, table3_verdicts};
use crate::csv::Csv;
use crate::plot::{Axis, Chart, Panel, Series, Style, Unit};
use crate::{Analysis, Check, Opts, Progress};
use std::collections::BTreeMap;

/// The paper's core link utilization for Table 3 (§9.3).
const PAPER_LOAD: f64 = 0.7;

/// The trace whose claims fail at the paper's load.
const TRACE: &str = "kvstore";

const COLUMNS: [&str; 6] = [
    "load",
    "column",
    "loss_rate",
    "mean_delay_us",
    "p95_delay_us",
    "dropped",
];

fn loads(quick: bool) -> &'static [f64] {
    if quick {
        &[0.7, 1.0]
    } else {
        &[0.7, 0.8, 0.9, 1.0]
    }
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let cfg = lh_ctrl::config::Config::from_json(TABLE3_PAPER_CONFIG, "table3 --sim (built in)")?;
    let c = lh_ctrl::compile::compile(&cfg)?;
    let mut out = Csv::new(&COLUMNS);
    let loads = loads(o.quick);
    pb.set_len(loads.len() as u64);
    for &load in loads {
        pb.message(&format!("load {load}"));
        let mut w = Workload {
            load,
            seed: o.seed,
            trace: Some(TRACE.into()),
            incast_share: 0.0,
            duration_ns: 100_000_000,
            ..Workload::default()
        };
        super::paper_workload(&mut w);
        let (_, cols) = table3_run(&c, &w)?;
        anyhow::ensure!(
            cols.iter().all(|(_, r)| r.counters.conservation_holds()),
            "load {load}: a column does not conserve frames"
        );
        for (i, (_, r)) in cols.iter().enumerate() {
            let k = Column::from(r);
            out.push(vec![
                format!("{load}"),
                (i + 1).to_string(),
                format!("{}", k.loss_rate),
                format!("{:.3}", k.mean_delay_us),
                format!("{:.3}", k.p95_delay_us),
                k.dropped.to_string(),
            ]);
        }
        pb.inc(1);
    }
    Ok(out)
}

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    let mut at: BTreeMap<u64, [Option<Column>; 3]> = BTreeMap::new();
    for r in 0..c.rows.len() {
        let num = |k: &str| -> anyhow::Result<f64> {
            c.num(r, k, col[k])?
                .ok_or_else(|| anyhow::anyhow!("row {}: no {k}", r + 2))
        };
        let load = num("load")?;
        let i = num("column")? as usize;
        anyhow::ensure!((1..=3).contains(&i), "row {}: column {i}", r + 2);
        at.entry(load.to_bits()).or_default()[i - 1] = Some(Column {
            loss_rate: num("loss_rate")?,
            mean_delay_us: num("mean_delay_us")?,
            p95_delay_us: num("p95_delay_us")?,
            dropped: num("dropped")? as u64,
        });
    }
    anyhow::ensure!(!at.is_empty(), "no samples");
    let complete = at.values().all(|c| c.iter().all(Option::is_some));
    let mut checks = vec![Check::sanity(
        "every load has its three columns".into(),
        complete,
    )];
    let mut table = format!(
        "Table 3's claims on the {TRACE} trace over the core link utilization (the paper's: {:.0}%; virtual time)\n{:>6} {:>10} {:>10} {:>12} {:>12}  claims 1-5\n",
        PAPER_LOAD * 100.0,
        "load",
        "loss c1",
        "loss c2",
        "delay c2",
        "delay c3"
    );
    let mut holds_at: [Vec<String>; 5] = Default::default();
    let mut loss2 = Vec::new();
    let mut ratio = Vec::new();
    for (&bits, cols) in &at {
        let load = f64::from_bits(bits);
        let [Some(none), Some(detect), Some(push)] = cols else {
            continue;
        };
        let v = table3_verdicts(none, detect, push);
        table += &format!(
            "{:>5.0}% {:>9.2}% {:>9.2}% {:>9.0} us {:>9.0} us  {}\n",
            load * 100.0,
            none.loss_rate * 100.0,
            detect.loss_rate * 100.0,
            detect.mean_delay_us,
            push.mean_delay_us,
            v.map(|b| if b { "yes" } else { "no" }).join(" ")
        );
        for (k, &b) in v.iter().enumerate() {
            if b {
                holds_at[k].push(format!("{:.0}%", load * 100.0));
            }
        }
        loss2.push((load, detect.loss_rate));
        if detect.mean_delay_us > 0.0 {
            ratio.push((load, push.mean_delay_us / detect.mean_delay_us));
        }
    }
    let paper = at.get(&PAPER_LOAD.to_bits()).and_then(|c| match c {
        [Some(a), Some(b), Some(c)] => Some(table3_verdicts(a, b, c)),
        _ => None,
    });
    for (k, (claim, what)) in TABLE3_CLAIMS.iter().enumerate() {
        checks.push(Check::report(
            *claim,
            format!(
                "{TRACE}: {what}: {} at the paper's {:.0}%; holds at {}",
                match paper.map(|v| v[k]) {
                    Some(true) => "holds",
                    Some(false) => "fails",
                    None => "not run",
                },
                PAPER_LOAD * 100.0,
                if holds_at[k].is_empty() {
                    "none of the loads swept".to_string()
                } else {
                    holds_at[k].join(", ")
                }
            ),
        ));
    }
    let x = || Axis::linear("core link utilization", Unit::Percent);
    let panels = vec![
        Panel {
            title: "column 2 (detection) still loses frames".into(),
            x: x(),
            y: Axis::linear("column 2's loss rate", Unit::Percent),
            series: vec![Series::new("column 2", Style::Line, loss2)],
        },
        Panel {
            title: "column 3 (push-back) below column 2 in delay".into(),
            x: x(),
            y: Axis::linear("average delay, column 3 / column 2", Unit::Plain),
            series: vec![
                Series::new("column 3 / column 2", Style::Line, ratio.clone()),
                Series::new(
                    "bound (below 1)",
                    Style::Line,
                    ratio
                        .first()
                        .zip(ratio.last())
                        .map_or(Vec::new(), |(a, b)| vec![(a.0, 1.0), (b.0, 1.0)]),
                ),
            ],
        },
    ];
    Ok(Analysis {
        table,
        chart: Chart {
            title: format!(
                "Table 3's failing claims on the {TRACE} trace, swept over load (virtual time)"
            ),
            panels,
            columns: 2,
            legend: true,
        },
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(c: &mut Csv, load: f64, col: usize, loss: f64, mean: f64, dropped: u64) {
        c.push(vec![
            format!("{load}"),
            col.to_string(),
            format!("{loss}"),
            format!("{mean}"),
            format!("{}", mean * 1.5),
            dropped.to_string(),
        ]);
    }

    #[test]
    fn each_claim_says_where_it_holds() {
        let mut c = Csv::new(&COLUMNS);
        // 70%: column 2 loses nothing and column 3 is no faster; 100%:
        // every claim holds.
        row(&mut c, 0.7, 1, 0.07, 1460.0, 10);
        row(&mut c, 0.7, 2, 0.0, 494.0, 0);
        row(&mut c, 0.7, 3, 0.0, 494.0, 0);
        row(&mut c, 1.0, 1, 0.4, 2340.0, 100);
        row(&mut c, 1.0, 2, 0.026, 1170.0, 20);
        row(&mut c, 1.0, 3, 0.0, 547.0, 0);
        let a = analyze(&c).unwrap();
        let what: Vec<&str> = a.checks.iter().map(|c| c.what.as_str()).collect();
        assert!(a.checks[0].holds, "{}", what[0]);
        assert!(
            what[1].ends_with("loses frames: holds at the paper's 70%; holds at 70%, 100%"),
            "{}",
            what[1]
        );
        assert!(
            what[3].ends_with("still loses frames: fails at the paper's 70%; holds at 100%"),
            "{}",
            what[3]
        );
        assert!(
            what[5].ends_with("fails at the paper's 70%; holds at 100%"),
            "{}",
            what[5]
        );
        assert!(a.checks.iter().all(|c| !c.fails()), "reports never fail");
        // A load without its three columns fails the run's condition.
        c.rows.pop();
        assert!(analyze(&c).unwrap().checks[0].fails());
    }
}
