//! What a figure is: a [`Chart`] of [`Panel`]s of named [`Series`], each
//! drawn in a [`Style`]; strip plots and empirical CDFs from samples.

use super::axis::Axis;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// Points joined by a line, with a marker at each point.
    Line,
    /// Markers only (raw samples), translucent.
    Points,
    /// A step function (CDFs, from [`cdf`]) with a few markers on it.
    Steps,
    /// Raw samples spread around their category of a categorical x axis,
    /// with a bar at their median (a strip plot).
    Strip,
    /// Bars at the categories of a categorical x axis; several bar series
    /// in a panel stand side by side (grouped bars), labelled with their
    /// value.
    Bars,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub style: Style,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(name: impl Into<String>, style: Style, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            style,
            points,
        }
    }
    /// The empirical CDF of `values` as a step series.
    pub fn cdf(name: impl Into<String>, values: &[f64]) -> Series {
        Series::new(name, Style::Steps, cdf(values))
    }
}

/// One plot of a chart.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Above the panel, e.g. `(a) mice`; may be empty.
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
}

/// A figure: a title, a legend and panels in a grid.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub panels: Vec<Panel>,
    /// Panels per row; 0 picks (1, 2, 3, 2x2, 3 per row beyond).
    pub columns: usize,
    /// A legend of the series' names above the panels (drawn when there
    /// are at least two names).
    pub legend: bool,
}

impl Chart {
    /// A chart of one panel, with a legend.
    pub fn single(title: impl Into<String>, panel: Panel) -> Chart {
        Chart {
            title: title.into(),
            panels: vec![panel],
            columns: 0,
            legend: true,
        }
    }
    /// Every series of every panel.
    pub fn series(&self) -> impl Iterator<Item = &Series> {
        self.panels.iter().flat_map(|p| p.series.iter())
    }
}

/// A strip plot: per named setting, its samples (in `y`'s unit) around
/// its category, with a bar at their median; the settings name the x axis,
/// so there is no legend. `what` says so above the plot (e.g. "one marker
/// per flow, the bar at the median").
pub fn strip(
    title: impl Into<String>,
    what: &str,
    x_label: &str,
    y: Axis,
    samples: Vec<(String, Vec<f64>)>,
) -> Chart {
    let names = samples.iter().map(|(n, _)| n.clone()).collect();
    let series = samples
        .into_iter()
        .enumerate()
        .map(|(i, (n, v))| {
            Series::new(
                n,
                Style::Strip,
                v.into_iter().map(|y| (i as f64, y)).collect(),
            )
        })
        .collect();
    Chart {
        title: title.into(),
        panels: vec![Panel {
            title: what.to_string(),
            x: Axis::categories(x_label, names),
            y,
            series,
        }],
        columns: 0,
        legend: false,
    }
}

/// The empirical CDF of `values`: (value, fraction of values at most it)
/// at each distinct finite value, ascending.
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        let f = (i + 1) as f64 / n;
        match out.last_mut() {
            Some(last) if last.0 == x => last.1 = f,
            _ => out.push((x, f)),
        }
    }
    out
}
