//! Bar charts of Tables 2 and 3 (`lighthouse experiment table2|table3`),
//! drawn from the JSON report the experiment writes (so `lighthouse report`
//! re-plots a saved one the same way), in the figures' style.

use super::plot::{Axis, Chart, Panel, Series, Style, Unit};
use anyhow::Context;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn num(v: &Value, what: &str) -> anyhow::Result<f64> {
    v.as_f64()
        .with_context(|| format!("{what}: not a number ({v})"))
}

/// A routing's name in the chart, e.g. `VLB offloaded (1 queue)`.
fn routing(algo: &str, offload: Option<u64>) -> String {
    let a = algo.to_uppercase();
    match offload {
        Some(1) => format!("{a} offloaded (1 queue)"),
        Some(n) => format!("{a} offloaded ({n} queues)"),
        None => a,
    }
}

/// Table 2 (a `table2` report): the 99.9th-percentile and the largest ToR
/// buffer, grouped by statistic, one bar per routing (VLB, VLB offloaded,
/// HOHO, UCMP), on a log axis (VLB is tens of times the others).
pub fn table2_chart(report: &Value) -> anyhow::Result<Chart> {
    let rows = report["rows"]
        .as_array()
        .context("table2 report: no rows")?;
    let mut series = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let algo = r[0]
            .as_str()
            .with_context(|| format!("row {i}: no routing"))?;
        let res = &r[3];
        let p999 = num(&res["tor_buffer_p999_bytes"], "tor_buffer_p999_bytes")?;
        let max = num(&res["tor_buffer_max_bytes"], "tor_buffer_max_bytes")?;
        series.push(Series::new(
            routing(algo, r[1].as_u64()),
            Style::Bars,
            vec![(0.0, p999), (1.0, max)],
        ));
    }
    let cfg = &report["config"];
    let fabric = cfg["name"].as_str().unwrap_or("fabric");
    let rate = cfg["tors"]["link_rate"].as_str().unwrap_or("?");
    let load = report["workload"]["load"].as_f64().unwrap_or(0.0);
    Ok(Chart::single(
        "Table 2: ToR buffer usage per routing",
        Panel {
            title: format!(
                "{fabric} at {rate} links, {:.0}% core link utilization",
                load * 100.0
            ),
            x: Axis::categories("", vec!["99.9th percentile".into(), "maximum".into()]),
            y: Axis::log("buffer of one ToR (log scale)", Unit::Bytes),
            series,
        },
    ))
}

/// Table 3 (a `table3` report): per protection column, the loss rate, the
/// fabric delay (mean, 95th and 99th percentile) and the throughput.
pub fn table3_chart(report: &Value) -> anyhow::Result<Chart> {
    let cols = report["columns"]
        .as_array()
        .context("table3 report: no columns")?;
    let mut loss = Vec::new();
    let mut delay = Vec::new();
    let mut tput = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        let name = c[0]
            .as_str()
            .with_context(|| format!("column {i}: no name"))?;
        let r = &c[1];
        let f = |k: &str| num(&r[k], k);
        loss.push(Series::new(name, Style::Bars, vec![(0.0, f("loss_rate")?)]));
        delay.push(Series::new(
            name,
            Style::Bars,
            vec![
                (0.0, f("mean_delay_us")? * 1e-6),
                (1.0, f("p95_delay_us")? * 1e-6),
                (2.0, f("p99_delay_us")? * 1e-6),
            ],
        ));
        tput.push(Series::new(
            name,
            Style::Bars,
            vec![(0.0, f("throughput_gbps")? * 1e9)],
        ));
    }
    let one = |s: &str| vec![s.to_string()];
    Ok(Chart {
        title: format!(
            "Table 3: slice-miss prevention ({})",
            report["config"]["name"].as_str().unwrap_or("fabric")
        ),
        panels: vec![
            Panel {
                title: "(a) loss rate".into(),
                x: Axis::categories("", one("frames lost")),
                y: Axis::linear("lost / sent", Unit::Percent),
                series: loss,
            },
            Panel {
                title: "(b) fabric delay".into(),
                x: Axis::categories(
                    "",
                    vec!["mean".into(), "95th pct.".into(), "99th pct.".into()],
                ),
                y: Axis::linear("first ToR to destination host", Unit::Seconds),
                series: delay,
            },
            Panel {
                title: "(c) throughput".into(),
                x: Axis::categories("", one("while traffic is offered")),
                y: Axis::linear("delivered", Unit::BitsPerSecond),
                series: tput,
            },
        ],
        columns: 3,
        legend: true,
    })
}

/// The chart of a table report (`experiment` is `table2` or `table3`).
pub fn chart(report: &Value) -> anyhow::Result<Chart> {
    match report["experiment"].as_str() {
        Some("table2") => table2_chart(report),
        Some("table3") => table3_chart(report),
        e => anyhow::bail!("not a table2 or table3 report (experiment {e:?})"),
    }
}

/// The tables as `report` finds them: the name of each one's JSON report
/// (`NAME.json`) and what it shows.
pub const ABOUT: [(&str, &str); 2] = [
    (
        "table2",
        "ToR buffer usage of VLB (and offloaded), HOHO, UCMP, in virtual time (Table 2)",
    ),
    (
        "table3",
        "slice-miss prevention in HOHO: detection, push-back, in virtual time (Table 3)",
    ),
];

/// A table report's chart and its SVG.
pub struct Drawn {
    /// `table2` or `table3`: the files' names.
    pub name: String,
    pub chart: Chart,
    pub svg: String,
}

impl Drawn {
    pub fn of(report: &Value) -> anyhow::Result<Drawn> {
        let chart = chart(report)?;
        let svg = super::plot::svg(&chart).map_err(anyhow::Error::msg)?;
        Ok(Drawn {
            name: report["experiment"].as_str().unwrap_or("table").into(),
            chart,
            svg,
        })
    }

    /// Writes `NAME.svg` and `NAME.png` in the directory of `json` (the
    /// report's `--out` file); the two paths as "A and B". The SVG is
    /// written even when the PNG cannot be (no font), and the error says so.
    pub fn save_beside(&self, json: &Path) -> anyhow::Result<String> {
        let path = |ext: &str| -> PathBuf { json.with_file_name(format!("{}.{ext}", self.name)) };
        let (svg_path, png_path) = (path("svg"), path("png"));
        std::fs::write(&svg_path, &self.svg)
            .with_context(|| format!("writing {}", svg_path.display()))?;
        let png = super::plot::png_of_svg(&self.svg).map_err(|e| {
            anyhow::anyhow!(
                "wrote {}, but not {}: {e}",
                svg_path.display(),
                png_path.display()
            )
        })?;
        std::fs::write(&png_path, png)
            .with_context(|| format!("writing {}", png_path.display()))?;
        Ok(format!("{} and {}", svg_path.display(), png_path.display()))
    }
}

/// Writes the report's chart as `NAME.svg` and `NAME.png` beside `json`
/// ([`Drawn::save_beside`]).
pub fn save_beside(json: &Path, report: &Value) -> anyhow::Result<String> {
    Drawn::of(report)?.save_beside(json)
}

/// The bars of `c` as text, one line per panel and series: what the chart
/// shows, for a reader without it (the JSON report has no printed table).
pub fn bars_table(c: &Chart) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for p in &c.panels {
        let _ = writeln!(
            s,
            "{}",
            if p.title.is_empty() {
                &c.title
            } else {
                &p.title
            }
        );
        for ser in &p.series {
            let vals: Vec<String> = ser
                .points
                .iter()
                .map(|&(x, y)| {
                    let cat = p.x.categories.get(x as usize).map_or("", String::as_str);
                    format!("{cat} {}", super::plot::si(y, p.y.unit))
                })
                .collect();
            let _ = writeln!(s, "  {:<32} {}", ser.name, vals.join(", "));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(p999: u64, loss: f64) -> Value {
        json!({"tor_buffer_p999_bytes": p999, "tor_buffer_max_bytes": p999 + 1000,
               "loss_rate": loss, "mean_delay_us": 170.0, "p95_delay_us": 459.0,
               "p99_delay_us": 900.0, "throughput_gbps": 49.0})
    }

    #[test]
    fn table_reports_become_grouped_bars_and_files() {
        let t2 = json!({"experiment": "table2",
            "config": {"name": "Opera-108", "tors": {"link_rate": "1Gbps"}},
            "workload": {"load": 0.4},
            "rows": [["vlb", null, {}, result(2_374_500, 0.0)],
                     ["vlb", 1, {}, result(91_500, 0.0)],
                     ["hoho", null, {}, result(91_500, 0.0)],
                     ["ucmp", null, {}, result(91_700, 0.0)]]});
        let c = table2_chart(&t2).unwrap();
        let names: Vec<&str> = c.series().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["VLB", "VLB offloaded (1 queue)", "HOHO", "UCMP"]);
        assert!(
            c.series()
                .all(|s| s.style == Style::Bars && s.points.len() == 2)
        );
        assert_eq!(c.series().next().unwrap().points[0].1, 2_374_500.0);
        let t3 = json!({"experiment": "table3", "config": {"name": "HOHO"},
            "columns": [["no protection", result(0, 0.1094)],
                        ["detection+rerouting+push-back", result(0, 0.0)]]});
        let c3 = table3_chart(&t3).unwrap();
        assert_eq!(c3.panels.len(), 3);
        assert_eq!(c3.panels[0].series[0].points, [(0.0, 0.1094)]);
        let s = super::super::plot::svg(&c3).unwrap();
        assert!(s.contains("10.9%") && s.contains("459 µs"), "bar labels");
        let d = tempfile::tempdir().unwrap();
        let wrote = save_beside(&d.path().join("t.json"), &t2).unwrap();
        assert!(wrote.ends_with("table2.png"), "{wrote}");
        let png = std::fs::read(d.path().join("table2.png")).unwrap();
        assert!(super::super::plot::png_size(&png).is_some());
        assert!(d.path().join("table2.svg").is_file());
        assert!(chart(&json!({"experiment": "fig8"})).is_err());
    }
}
