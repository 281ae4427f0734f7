//! SVG line and point charts with `plotters`' SVG backend. Text is written
//! as SVG `<text>` elements (the crate's font features are off), so no
//! system font or fontconfig is needed; viewers pick the font.

use plotters::prelude::*;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// Points joined by a line, with a marker at each point.
    Line,
    /// Markers only (raw samples).
    Points,
    /// A step function (CDFs).
    Steps,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub style: Style,
    pub points: Vec<(f64, f64)>,
}

/// A chart: axes, labels and series.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// A logarithmic x axis (values must be > 0).
    pub log_x: bool,
    pub series: Vec<Series>,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn bounds(c: &Chart) -> ((f64, f64), (f64, f64)) {
    let pts = || c.series.iter().flat_map(|s| s.points.iter());
    let fold = |f: &dyn Fn(&(f64, f64)) -> f64| {
        pts()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            })
    };
    let (mut x0, mut x1) = fold(&|p| p.0);
    let (_, y1) = fold(&|p| p.1);
    if !x0.is_finite() {
        (x0, x1) = (1.0, 2.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y1 = if y1.is_finite() && y1 > 0.0 { y1 } else { 1.0 };
    if c.log_x {
        ((x0 / 1.5, x1 * 1.5), (0.0, y1 * 1.1))
    } else {
        let pad = (x1 - x0) * 0.05;
        ((x0 - pad, x1 + pad), (0.0, y1 * 1.1))
    }
}

/// The chart as an SVG document.
pub fn svg(c: &Chart) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (800, 500)).into_drawing_area();
        draw(c, root).map_err(|e| format!("plotting {}: {e}", c.title))?;
    }
    Ok(out)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(c: &Chart, root: DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult {
    root.fill(&WHITE)?;
    let ((x0, x1), (y0, y1)) = bounds(c);
    let mut b = ChartBuilder::on(&root);
    b.caption(&c.title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70);
    if c.log_x {
        let mut ch = b.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?;
        ch.configure_mesh()
            .x_desc(&c.x_label)
            .y_desc(&c.y_label)
            .draw()?;
        series(c, &mut ch)?;
    } else {
        let mut ch = b.build_cartesian_2d(x0..x1, y0..y1)?;
        ch.configure_mesh()
            .x_desc(&c.x_label)
            .y_desc(&c.y_label)
            .draw()?;
        series(c, &mut ch)?;
    }
    root.present()?;
    Ok(())
}

fn series<'a, X>(
    c: &Chart,
    ch: &mut ChartContext<
        'a,
        SVGBackend<'a>,
        Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
) -> DrawResult
where
    X: Ranged<ValueType = f64>,
{
    for (i, s) in c.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts = s.points.clone();
        let anno = match s.style {
            Style::Line => {
                ch.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                ch.draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            }
            Style::Points => ch.draw_series(
                pts.iter()
                    .map(|&p| Circle::new(p, 2, color.mix(0.4).filled())),
            )?,
            Style::Steps => {
                let mut v = Vec::with_capacity(pts.len() * 2);
                for w in pts.windows(2) {
                    v.push(w[0]);
                    v.push((w[1].0, w[0].1));
                }
                v.extend(pts.last());
                ch.draw_series(LineSeries::new(v, color.stroke_width(2)))?
            }
        };
        anno.label(s.name.clone()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
        });
    }
    ch.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_text_and_series_without_fonts() {
        let c = Chart {
            title: "RTT per hop".into(),
            x_label: "slices waited".into(),
            y_label: "RTT (ms)".into(),
            log_x: false,
            series: vec![
                Series {
                    name: "median".into(),
                    style: Style::Line,
                    points: vec![(0.0, 0.1), (1.0, 1.1), (2.0, 2.1)],
                },
                Series {
                    name: "CDF".into(),
                    style: Style::Steps,
                    points: vec![(0.0, 0.0), (1.0, 0.5), (2.0, 1.0)],
                },
            ],
        };
        let s = svg(&c).unwrap();
        assert!(s.starts_with("<svg"), "{}", &s[..80.min(s.len())]);
        for t in ["RTT per hop", "slices waited", "RTT (ms)", "median", "CDF"] {
            assert!(s.contains(t), "{t} missing from the SVG");
        }
        assert!(s.contains("<polyline"), "no line drawn");
        let log = Chart { log_x: true, ..c };
        assert!(svg(&log).unwrap().contains("<text"));
    }
}
