//! Axes: what an axis measures ([`Unit`]) and its ticks, printed with SI
//! prefixes ([`si`]) and chosen on linear and log axes; then an axis as
//! drawn ([`Frame`]) and as a `plotters` coordinate ([`Ticked`]).

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// What an axis measures; its ticks are printed with SI prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain number (`0.25`, `12`, `10k`).
    Plain,
    /// Bytes: `999 B`, `4.2 KB`, `4 MB` (decimal prefixes).
    Bytes,
    /// Seconds: `100 µs`, `1 ms`, `2.5 s`.
    Seconds,
    /// Bits per second: `100 Mb/s`, `1 Gb/s`.
    BitsPerSecond,
    /// A fraction shown as a percentage: 0.1 is `10%`.
    Percent,
}

/// One axis of a panel. Values are in the unit's base (seconds, bytes,
/// bits per second), or category indices (0, 1, ...) on a categorical axis.
#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub unit: Unit,
    /// Logarithmic (values must be > 0; others are not drawn).
    pub log: bool,
    /// Fixed bounds; `None`: from the data.
    pub range: Option<(f64, f64)>,
    /// Non-empty: a categorical axis, value `i` is `categories[i]`.
    pub categories: Vec<String>,
    /// Non-empty: the ticks (values), instead of ones chosen from the range.
    pub ticks: Vec<f64>,
}

impl Axis {
    pub fn linear(label: impl Into<String>, unit: Unit) -> Axis {
        Axis {
            label: label.into(),
            unit,
            log: false,
            range: None,
            categories: Vec::new(),
            ticks: Vec::new(),
        }
    }
    pub fn log(label: impl Into<String>, unit: Unit) -> Axis {
        Axis {
            log: true,
            ..Axis::linear(label, unit)
        }
    }
    /// A categorical axis of `names`.
    pub fn categories(label: impl Into<String>, names: Vec<String>) -> Axis {
        Axis {
            categories: names,
            ..Axis::linear(label, Unit::Plain)
        }
    }
    /// The fraction-of-flows axis of a CDF: 0 to 1.
    pub fn cdf() -> Axis {
        Axis {
            // A hair above 1, so markers at 1 are not cut.
            range: Some((0.0, 1.02)),
            ..Axis::linear("fraction of flows", Unit::Plain)
        }
    }
    /// Ticks at these values (e.g. the settings measured).
    pub fn with_ticks(self, ticks: Vec<f64>) -> Axis {
        Axis { ticks, ..self }
    }
    pub fn with_label(self, label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            ..self
        }
    }
    pub fn with_range(self, lo: f64, hi: f64) -> Axis {
        Axis {
            range: Some((lo, hi)),
            ..self
        }
    }
}

fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `v` with at most 3 significant digits (`decimals` more if given),
/// trailing zeros dropped.
fn num(v: f64, decimals: Option<usize>) -> String {
    let d = decimals.unwrap_or_else(|| {
        let a = v.abs();
        if a >= 100.0 || a == 0.0 {
            0
        } else if a >= 10.0 {
            1
        } else if a >= 1.0 {
            2
        } else {
            (2.0 - a.log10().floor()) as usize
        }
    });
    let s = trim(format!("{v:.d$}"));
    if s == "-0" { "0".into() } else { s }
}

/// The prefixes of `unit`: (scale, suffix), ascending.
fn prefixes(unit: Unit) -> &'static [(f64, &'static str)] {
    match unit {
        Unit::Bytes => &[
            (1.0, " B"),
            (1e3, " KB"),
            (1e6, " MB"),
            (1e9, " GB"),
            (1e12, " TB"),
        ],
        Unit::Seconds => &[(1e-9, " ns"), (1e-6, " µs"), (1e-3, " ms"), (1.0, " s")],
        Unit::BitsPerSecond => &[
            (1.0, " b/s"),
            (1e3, " kb/s"),
            (1e6, " Mb/s"),
            (1e9, " Gb/s"),
            (1e12, " Tb/s"),
        ],
        Unit::Plain => &[(1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G")],
        Unit::Percent => &[(0.01, "%")],
    }
}

/// The prefix for `v`: the largest scale at most |v| (the smallest for
/// tiny values); plain numbers below 10 000 keep no prefix.
fn prefix_for(v: f64, unit: Unit) -> (f64, &'static str) {
    let p = prefixes(unit);
    let a = v.abs();
    if unit == Unit::Plain && a < 1e4 {
        return p[0];
    }
    let mut best = p[0];
    for &q in p {
        // A hair of slack so that 999.9996 ms reads 1 s.
        if a >= q.0 * 0.9995 {
            best = q;
        }
    }
    best
}

/// `v` in `unit` with an SI prefix: `si(10_000.0, Bytes)` is `10 KB`,
/// `si(1e-3, Seconds)` is `1 ms`.
pub fn si(v: f64, unit: Unit) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        let base = prefixes(unit)
            .iter()
            .find(|p| p.0 == 1.0)
            .or(prefixes(unit).first())
            .map_or("", |p| p.1);
        return format!("0{base}");
    }
    let (scale, suffix) = prefix_for(v, unit);
    format!("{}{suffix}", num(v / scale, None))
}

/// Ticks of a linear axis, all with one prefix (that of the largest), as
/// many decimals as the step needs.
fn linear_labels(ticks: &[f64], unit: Unit) -> Vec<String> {
    let big = ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let (scale, suffix) = prefix_for(big, unit);
    let step = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(f64::INFINITY, f64::min);
    let decimals = if step.is_finite() && step > 0.0 {
        (-(step / scale).log10().floor()).max(0.0) as usize
    } else {
        2
    };
    ticks
        .iter()
        .map(|&v| {
            if v == 0.0 {
                format!("0{suffix}")
            } else {
                format!("{}{suffix}", num(v / scale, Some(decimals)))
            }
        })
        .collect()
}

/// A "nice" step (1, 2 or 5 times a power of ten) near `raw`.
fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    p * if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// About `n` nice ticks covering [lo, hi] (the smallest nice step that
/// gives at most n + 1 intervals), and the range they span.
pub fn linear_ticks(lo: f64, hi: f64, n: usize) -> (Vec<f64>, (f64, f64)) {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
    let n = n.max(1) as f64;
    let mut step = nice_step((hi - lo) / (n + 1.0));
    while (hi - lo) / step > n + 1.0 + 1e-9 {
        step = nice_step(step * 1.01);
    }
    let a = (lo / step + 1e-9).floor() as i64;
    let b = (hi / step - 1e-9).ceil() as i64;
    let ticks = (a..=b).map(|k| k as f64 * step).collect();
    (ticks, (a as f64 * step, b as f64 * step))
}

/// Ticks of a log axis over [lo, hi]: the decades when there are at least
/// three, else 1-3, 1-2-5 or 1-2-3-5 times them, else nice linear ones.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |m: &[f64]| -> Vec<f64> {
        decade_ticks(lo / 10.0, hi * 10.0)
            .into_iter()
            .flat_map(|d| m.iter().map(move |k| k * d))
            .filter(|&t| t >= lo * (1.0 - 1e-9) && t <= hi * (1.0 + 1e-9))
            .collect()
    };
    for m in [
        &[1.0][..],
        &[1.0, 3.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 5.0],
    ] {
        let t = within(m);
        if t.len() >= 3 {
            return t;
        }
    }
    let (t, _) = linear_ticks(lo, hi, 4);
    t.into_iter().filter(|&t| t >= lo && t <= hi).collect()
}

/// Every power of ten in [lo, hi] (lo > 0).
pub fn decade_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let a = (lo.log10() - 1e-9).ceil() as i32;
    let b = (hi.log10() + 1e-9).floor() as i32;
    (a..=b).map(|e| 10f64.powi(e)).collect()
}

/// An axis as drawn: the range, ticks and minor grid lines in drawing
/// coordinates (log10 of the value on a log axis) and the tick labels.
pub(super) struct Frame {
    pub(super) range: (f64, f64),
    ticks: Vec<f64>,
    minor: Vec<f64>,
    pub(super) labels: Vec<String>,
}

impl Frame {
    pub(super) fn label(&self, v: f64) -> String {
        self.ticks
            .iter()
            .position(|t| (t - v).abs() <= 1e-9 * (1.0 + t.abs()))
            .map_or(String::new(), |i| self.labels[i].clone())
    }
}

/// A linear coordinate with the frame's ticks as its key points: labelled
/// grid lines at the ticks, light ones at the minor ticks.
pub(super) struct Ticked {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ticked {
    pub(super) fn of(f: &Frame) -> Ticked {
        Ticked {
            lo: f.range.0,
            hi: f.range.1,
            bold: f.ticks.clone(),
            light: f.minor.clone(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let t = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }
    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// The drawing coordinate of `v` on `a` (None: not drawable).
pub(super) fn coord(a: &Axis, v: f64) -> Option<f64> {
    match (a.log, v.is_finite()) {
        (_, false) => None,
        (true, _) if v <= 0.0 => None,
        (true, _) => Some(v.log10()),
        (false, _) => Some(v),
    }
}

pub(super) fn frame(a: &Axis, values: &[f64], bars: bool) -> Frame {
    if !a.categories.is_empty() {
        let n = a.categories.len();
        return Frame {
            range: (-0.5, n as f64 - 0.5),
            ticks: (0..n).map(|i| i as f64).collect(),
            minor: Vec::new(),
            labels: a.categories.clone(),
        };
    }
    let vals: Vec<f64> = values
        .iter()
        .copied()
        .filter(|&v| coord(a, v).is_some())
        .collect();
    let (mut lo, mut hi) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    if let Some(r) = a.range {
        (lo, hi) = r;
    }
    if !lo.is_finite() {
        (lo, hi) = if a.log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if a.log {
        if hi <= lo {
            (lo, hi) = (lo / 2.0, hi * 2.0);
        }
        let (mut l, mut h) = (lo.log10(), hi.log10());
        if bars && a.range.is_none() {
            // Bars grow from a decade, not from just under the smallest.
            l = (l - 1e-9).floor();
        }
        if bars {
            // Room for the value labels above the bars.
            h += 0.12 * (h - l).max(0.5);
        }
        let pad = if a.range.is_some() || bars {
            0.0
        } else {
            0.04 * (h - l).max(0.3)
        };
        let range = (l - pad, h + pad);
        let (vlo, vhi) = (10f64.powf(range.0), 10f64.powf(range.1));
        let ticks = if a.ticks.is_empty() {
            log_ticks(vlo, vhi)
        } else {
            a.ticks.clone()
        };
        let minor = decade_ticks(vlo / 10.0, vhi)
            .into_iter()
            .flat_map(|d| (2..10).map(move |k| k as f64 * d))
            .filter(|&t| t >= vlo && t <= vhi)
            .map(f64::log10)
            .collect();
        return Frame {
            range,
            labels: ticks.iter().map(|&t| si(t, a.unit)).collect(),
            ticks: ticks.iter().map(|t| t.log10()).collect(),
            minor,
        };
    }
    // Positive data start at 0 when 0 is not far off (bars always).
    let zero = a.range.is_none() && lo >= 0.0 && (bars || lo < 0.5 * hi);
    if zero {
        lo = 0.0;
    }
    if hi <= lo {
        hi = lo + if lo == 0.0 { 1.0 } else { lo.abs() };
    }
    let (mut ticks, span) = linear_ticks(lo, hi, 6);
    if !a.ticks.is_empty() {
        ticks = a.ticks.clone();
    }
    let pad = 0.04 * (hi - lo);
    let range = match a.range {
        Some(r) => r,
        // Room for the value labels above the bars.
        None if bars => (lo, span.1.max(hi + 0.12 * (hi - lo))),
        // Markers at 0 are not cut in half.
        None => (if zero { -0.02 * hi } else { lo - pad }, hi + pad),
    };
    let eps = 1e-9 * (range.1 - range.0);
    let ticks: Vec<f64> = ticks
        .into_iter()
        .filter(|&t| t >= range.0 - eps && t <= range.1 + eps)
        .collect();
    Frame {
        labels: linear_labels(&ticks, a.unit),
        ticks,
        minor: Vec::new(),
        range,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_ticks() {
        use Unit::*;
        for (v, u, want) in [
            (10_000.0, Bytes, "10 KB"),
            (4_000_000.0, Bytes, "4 MB"),
            (4_200.0, Bytes, "4.2 KB"),
            (999.0, Bytes, "999 B"),
            (0.0, Bytes, "0 B"),
            (1e-3, Seconds, "1 ms"),
            (1e-4, Seconds, "100 µs"),
            (2.5, Seconds, "2.5 s"),
            (1.5e-3, Seconds, "1.5 ms"),
            (0.9999996, Seconds, "1 s"),
            (1e8, BitsPerSecond, "100 Mb/s"),
            (1e9, BitsPerSecond, "1 Gb/s"),
            (0.1, Percent, "10%"),
            (0.0005, Percent, "0.05%"),
            (0.25, Plain, "0.25"),
            (12.0, Plain, "12"),
            (20_000.0, Plain, "20k"),
        ] {
            assert_eq!(si(v, u), want, "{v} {u:?}");
        }
        // A linear axis: one prefix, as many decimals as the step needs.
        let (t, r) = linear_ticks(0.0, 2.2e-3, 5);
        assert_eq!(r, (0.0, 2.5e-3));
        assert_eq!(
            linear_labels(&t, Seconds),
            ["0 ms", "0.5 ms", "1 ms", "1.5 ms", "2 ms", "2.5 ms"]
        );
        // A log axis: decades, in SI, when there are three.
        assert_eq!(decade_ticks(3e-5, 2e-2), [1e-4, 1e-3, 1e-2]);
        assert_eq!(log_ticks(3e-5, 2e-2), [1e-4, 1e-3, 1e-2]);
        let f = frame(&Axis::log("FCT", Seconds), &[2e-5, 3e-1], false);
        assert_eq!(f.labels, ["100 µs", "1 ms", "10 ms", "100 ms"]);
        assert!(f.minor.len() >= 8 * 4, "{:?}", f.minor);
        // Fewer decades: 1-3 (then 1-2-5, 1-2-3-5) times them.
        let f = frame(&Axis::log("FCT", Seconds), &[2e-4, 3e-2], false);
        assert_eq!(f.labels, ["300 µs", "1 ms", "3 ms", "10 ms", "30 ms"]);
        assert_eq!(log_ticks(1.5e6, 2.5e7), [2e6, 5e6, 1e7, 2e7]);
        // Within a decade: nice linear ticks.
        let f = frame(&Axis::log("FCT", Seconds), &[1.1e-3, 4e-3], false);
        assert_eq!(f.labels, ["2 ms", "3 ms", "4 ms"]);
        // Given ticks win.
        let f = frame(
            &Axis::log("slice", Seconds).with_ticks(vec![1e-4, 4e-4, 1.6e-3]),
            &[1e-4, 1.6e-3],
            false,
        );
        assert_eq!(f.labels, ["100 µs", "400 µs", "1.6 ms"]);
    }
}
