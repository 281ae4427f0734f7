//! Drawing a [`Chart`] as SVG with `plotters`: its layout (panels per
//! row, the legend's rows, the size) and its panels' series (lines,
//! points, strips, steps and grouped bars).

use super::axis::{Axis, Ticked, coord, frame, si};
use super::canvas::{DrawResult, Root};
use super::chart::{Chart, Panel, Series, Style};
use super::style::{
    AXIS_PX, CELL, GRID, GRID_MINOR, LEGEND_PX, LEGEND_ROW_H, LINE_W, Look, MARKER_R,
    PANEL_TITLE_PX, SINGLE, TICK_PX, TITLE_H, TITLE_PX, VALUE_PX, font, look, marker, text_width,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Panels per row.
fn columns(c: &Chart) -> usize {
    let n = c.panels.len().max(1);
    match c.columns {
        0 if n == 4 => 2,
        0 => n.min(3),
        k => k.min(n),
    }
}

/// The series names of the legend, in order of first appearance, with the
/// style of their first series: each name's look is its index here.
fn names(c: &Chart) -> Vec<(String, Style)> {
    let mut v: Vec<(String, Style)> = Vec::new();
    for s in c.series() {
        if !v.iter().any(|(n, _)| *n == s.name) {
            v.push((s.name.clone(), s.style));
        }
    }
    v
}

fn look_of(names: &[(String, Style)], name: &str) -> Look {
    look(names.iter().position(|(n, _)| n == name).unwrap_or(0))
}

const LEGEND_SAMPLE: f64 = 34.0;
const LEGEND_GAP: f64 = 22.0;

/// The legend's entries per row (indices into `names`) for a width.
fn legend_rows(names: &[(String, Style)], width: u32) -> Vec<Vec<usize>> {
    let avail = width as f64 - 40.0;
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = f64::INFINITY;
    for (i, (n, _)) in names.iter().enumerate() {
        let w = LEGEND_SAMPLE + 6.0 + text_width(n, LEGEND_PX) + LEGEND_GAP;
        if used + w > avail {
            rows.push(Vec::new());
            used = 0.0;
        }
        rows.last_mut().expect("pushed above").push(i);
        used += w;
    }
    // As many per row as the greedy fill needed rows, spread evenly (4 + 3,
    // not 6 + 1), when that fits.
    if rows.len() > 1 {
        let per = names.len().div_ceil(rows.len());
        let even: Vec<Vec<usize>> = (0..names.len())
            .collect::<Vec<_>>()
            .chunks(per)
            .map(<[usize]>::to_vec)
            .collect();
        let width = |row: &[usize]| -> f64 {
            row.iter()
                .map(|&i| LEGEND_SAMPLE + 6.0 + text_width(&names[i].0, LEGEND_PX) + LEGEND_GAP)
                .sum()
        };
        if even.len() == rows.len() && even.iter().all(|r| width(r) <= avail) {
            return even;
        }
    }
    rows
}

fn show_legend(c: &Chart, names: &[(String, Style)]) -> bool {
    c.legend && names.len() >= 2
}

/// The chart's size in SVG pixels.
pub fn size(c: &Chart) -> (u32, u32) {
    let cols = columns(c) as u32;
    let rows = c.panels.len().max(1).div_ceil(cols as usize) as u32;
    let cell = if c.panels.len() <= 1 { SINGLE } else { CELL };
    let w = cell.0 * cols;
    let names = names(c);
    let legend = if show_legend(c, &names) {
        legend_rows(&names, w).len() as u32 * LEGEND_ROW_H + 6
    } else {
        0
    };
    (w, TITLE_H + legend + cell.1 * rows)
}

/// The chart as an SVG document.
pub fn svg(c: &Chart) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size(c)).into_drawing_area();
        draw(c, &root).map_err(|e| format!("plotting {}: {e}", c.title))?;
    }
    Ok(out)
}

fn draw(c: &Chart, root: &Root) -> DrawResult {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    root.draw(&Text::new(
        c.title.clone(),
        ((w / 2) as i32, 10),
        font(TITLE_PX).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    let names = names(c);
    let mut top = TITLE_H;
    if show_legend(c, &names) {
        let rows = legend_rows(&names, w);
        for (r, row) in rows.iter().enumerate() {
            let width: f64 = row
                .iter()
                .map(|&i| LEGEND_SAMPLE + 6.0 + text_width(&names[i].0, LEGEND_PX) + LEGEND_GAP)
                .sum::<f64>()
                - LEGEND_GAP;
            let mut x = (w as f64 - width) / 2.0;
            let y = (top + r as u32 * LEGEND_ROW_H + LEGEND_ROW_H / 2) as i32;
            for &i in row {
                let (name, style) = &names[i];
                let l = look(i);
                let (x0, x1) = (x as i32, (x + LEGEND_SAMPLE) as i32);
                match style {
                    Style::Bars => root.draw(&Rectangle::new(
                        [(x0 + 4, y - 7), (x1 - 4, y + 7)],
                        l.color.filled(),
                    ))?,
                    Style::Line | Style::Steps => root.draw(&PathElement::new(
                        vec![(x0, y), (x1, y)],
                        l.color.stroke_width(LINE_W),
                    ))?,
                    _ => {}
                }
                let (mc, edge) = match style {
                    Style::Bars => (WHITE.to_rgba(), false),
                    _ => (l.color.to_rgba(), true),
                };
                marker(root, l.marker, ((x0 + x1) / 2, y), MARKER_R, mc, edge)?;
                root.draw(&Text::new(
                    name.clone(),
                    (x1 + 6, y),
                    font(LEGEND_PX).pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
                x += LEGEND_SAMPLE + 6.0 + text_width(name, LEGEND_PX) + LEGEND_GAP;
            }
        }
        top += rows.len() as u32 * LEGEND_ROW_H + 6;
    }
    let (_, body) = root.split_vertically(top);
    let cols = columns(c);
    let rows = c.panels.len().max(1).div_ceil(cols);
    let cells = body.split_evenly((rows, cols));
    for (p, area) in c.panels.iter().zip(cells.iter()) {
        draw_panel(p, area, root, &names)?;
    }
    root.present()?;
    Ok(())
}

/// Deterministic spread in [-0.5, 0.5) for sample `j` (golden ratio).
pub fn jitter(j: usize) -> f64 {
    (j as f64 * 0.618_033_988_75).fract() - 0.5
}

fn draw_panel(p: &Panel, area: &Root, root: &Root, names: &[(String, Style)]) -> DrawResult {
    let bars: Vec<&Series> = p.series.iter().filter(|s| s.style == Style::Bars).collect();
    let xs: Vec<f64> = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| q.0))
        .collect();
    let ys: Vec<f64> = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| q.1))
        .collect();
    let fx = frame(&p.x, &xs, false);
    let fy = frame(&p.y, &ys, !bars.is_empty());
    let ylab = fy
        .labels
        .iter()
        .map(|l| text_width(l, TICK_PX))
        .fold(0.0, f64::max);
    let mut b = ChartBuilder::on(area);
    b.margin_top(6)
        .margin_bottom(6)
        .margin_left(8)
        .margin_right(36)
        .x_label_area_size(if p.x.label.is_empty() { 30 } else { 52 })
        .y_label_area_size((ylab + if p.y.label.is_empty() { 16.0 } else { 40.0 }) as u32);
    if !p.title.is_empty() {
        b.caption(&p.title, font(PANEL_TITLE_PX));
    }
    let mut ch = b.build_cartesian_2d(Ticked::of(&fx), Ticked::of(&fy))?;
    let xf = |v: &f64| fx.label(*v);
    let yf = |v: &f64| fy.label(*v);
    let mut mesh = ch.configure_mesh();
    mesh.x_desc(&p.x.label)
        .y_desc(&p.y.label)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(font(TICK_PX))
        .axis_desc_style(font(AXIS_PX))
        .bold_line_style(GRID)
        .light_line_style(GRID_MINOR)
        .axis_style(BLACK.stroke_width(1));
    if !p.x.categories.is_empty() {
        mesh.disable_x_mesh();
    }
    mesh.draw()?;

    let to = |a: &Axis, v: f64| coord(a, v);
    let px = |ch: &ChartContext<'_, SVGBackend<'_>, _>, x: f64, y: f64| {
        Some(ch.backend_coord(&(to(&p.x, x)?, to(&p.y, y)?)))
    };
    let bottom = fy.range.0;
    let bar_w = 0.86 / bars.len().max(1) as f64;
    let mut bar_i = 0;
    // The value labels drawn: (left, right, top, bottom) in pixels.
    let mut labels: Vec<(i32, i32, i32, i32)> = Vec::new();
    for s in &p.series {
        let l = look_of(names, &s.name);
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter_map(|&(x, y)| Some((to(&p.x, x)?, to(&p.y, y)?)))
            .collect();
        match s.style {
            Style::Line => {
                ch.draw_series(LineSeries::new(pts.clone(), l.color.stroke_width(LINE_W)))?;
                for &(x, y) in &s.points {
                    if let Some(q) = px(&ch, x, y) {
                        marker(root, l.marker, q, MARKER_R, l.color.to_rgba(), true)?;
                    }
                }
            }
            Style::Points => {
                for &(x, y) in &s.points {
                    if let Some(q) = px(&ch, x, y) {
                        marker(root, l.marker, q, 2.5, l.color.mix(0.45), false)?;
                    }
                }
            }
            Style::Strip => {
                for (j, &(x, y)) in s.points.iter().enumerate() {
                    if let Some(q) = px(&ch, x + 0.5 * jitter(j), y) {
                        marker(root, l.marker, q, 3.2, l.color.mix(0.75), true)?;
                    }
                }
                let mut v: Vec<f64> = s.points.iter().map(|q| q.1).collect();
                v.sort_by(f64::total_cmp);
                if let (Some(&med), Some(&(x, _))) =
                    (v.get(v.len().saturating_sub(1) / 2), s.points.first())
                    && let (Some(a), Some(b)) = (px(&ch, x - 0.32, med), px(&ch, x + 0.32, med))
                {
                    root.draw(&PathElement::new(vec![a, b], BLACK.stroke_width(3)))?;
                }
            }
            Style::Steps => {
                let mut v = Vec::with_capacity(pts.len() * 2 + 1);
                if let Some(&(x, _)) = pts.first() {
                    v.push((x, to(&p.y, 0.0).unwrap_or(bottom).max(bottom)));
                }
                let mut prev: Option<f64> = None;
                for &(x, y) in &pts {
                    if let Some(py) = prev {
                        v.push((x, py));
                    }
                    v.push((x, y));
                    prev = Some(y);
                }
                ch.draw_series(LineSeries::new(v, l.color.stroke_width(LINE_W)))?;
                for q in step_markers(&s.points, names.iter().position(|n| n.0 == s.name)) {
                    if let Some(q) = px(&ch, q.0, q.1) {
                        marker(root, l.marker, q, MARKER_R, l.color.to_rgba(), true)?;
                    }
                }
            }
            Style::Bars => {
                for &(x, y) in &s.points {
                    let Some(top) = to(&p.y, y) else { continue };
                    let x0 = x - 0.43 + bar_i as f64 * bar_w;
                    let (a, b) = (x0 + 0.06 * bar_w, x0 + 0.94 * bar_w);
                    let top = top.max(bottom);
                    if top > bottom {
                        ch.draw_series(std::iter::once(Rectangle::new(
                            [(a, bottom), (b, top)],
                            l.color.filled(),
                        )))?;
                    }
                    let (ta, tb) = (ch.backend_coord(&(a, top)), ch.backend_coord(&(b, bottom)));
                    let cx = (ta.0 + tb.0) / 2;
                    // The marker inside a tall bar, above a short one.
                    let tall = tb.1 - ta.1 >= 22;
                    let (my, mc) = if tall {
                        (tb.1 - 11, WHITE.to_rgba())
                    } else {
                        (ta.1 - 9, l.color.to_rgba())
                    };
                    marker(root, l.marker, (cx, my), MARKER_R, mc, !tall)?;
                    // The value above, raised past the labels it would cover.
                    let text = si(y, p.y.unit);
                    let half = (text_width(&text, VALUE_PX) / 2.0).ceil() as i32 + 2;
                    let h = VALUE_PX.ceil() as i32 + 2;
                    let mut ly = if tall { ta.1 - 3 } else { ta.1 - 18 };
                    while labels.iter().any(|&(l0, l1, y0, y1)| {
                        cx - half < l1 && cx + half > l0 && ly - h < y1 && ly > y0
                    }) {
                        ly -= h;
                    }
                    labels.push((cx - half, cx + half, ly - h, ly));
                    root.draw(&Text::new(
                        text,
                        (cx, ly),
                        font(VALUE_PX).pos(Pos::new(HPos::Center, VPos::Bottom)),
                    ))?;
                }
                bar_i += 1;
            }
        }
    }
    Ok(())
}

/// Where a step series gets its markers: all its points when it has few,
/// else at 5 levels of y, shifted by the series' index so that curves
/// that run together do not hide each other's markers.
fn step_markers(pts: &[(f64, f64)], index: Option<usize>) -> Vec<(f64, f64)> {
    if pts.len() <= 8 {
        return pts.to_vec();
    }
    let (lo, hi) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
            (l.min(p.1), h.max(p.1))
        });
    let phase = (index.unwrap_or(0) as f64 * 0.618_033_988_75).fract() * 0.8 + 0.1;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for j in 0..5 {
        let level = lo + (hi - lo) * (j as f64 + phase) / 5.0;
        if let Some(&q) = pts.iter().find(|q| q.1 >= level)
            && out.last() != Some(&q)
        {
            out.push(q);
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::plot::{PALETTE, Unit, cdf};
    use std::collections::HashSet;

    pub(in crate::plot) fn two_series() -> Chart {
        Chart::single(
            "RTT per hop",
            Panel {
                title: String::new(),
                x: Axis::linear("slices waited", Unit::Plain),
                y: Axis::linear("RTT", Unit::Seconds),
                series: vec![
                    Series::new(
                        "median",
                        Style::Line,
                        vec![(0.0, 1e-4), (1.0, 1.1e-3), (2.0, 2.1e-3)],
                    ),
                    Series::new(
                        "fastest",
                        Style::Steps,
                        vec![(0.0, 5e-5), (1.0, 1e-3), (2.0, 2e-3)],
                    ),
                ],
            },
        )
    }

    #[test]
    fn renders_text_and_series_without_fonts() {
        let c = two_series();
        let s = svg(&c).unwrap();
        assert!(s.starts_with("<svg"), "{}", &s[..80.min(s.len())]);
        for t in [
            "RTT per hop",
            "slices waited",
            "RTT",
            "median",
            "fastest",
            "1 ms",
        ] {
            assert!(s.contains(t), "{t} missing from the SVG");
        }
        assert!(s.contains("<polyline"), "no line drawn");
        assert!(s.contains("DejaVu Sans"), "not in the one font");
        assert!(!s.contains(".0<"), "a tick reads like 10000.0");
    }

    #[test]
    fn series_get_distinct_colours_and_markers() {
        let first8: Vec<Look> = (0..8).map(look).collect();
        let colours: HashSet<_> = first8.iter().map(|l| l.color).collect();
        let markers: HashSet<_> = first8.iter().map(|l| l.marker).collect();
        assert_eq!((colours.len(), markers.len()), (8, 8));
        // Beyond 8, the (colour, marker) pairs still differ.
        let pairs: HashSet<_> = (0..64).map(|i| (look(i).color, look(i).marker)).collect();
        assert_eq!(pairs.len(), 64);
        // In a chart the look follows the name, the same in every panel.
        let c = Chart {
            title: "t".into(),
            columns: 0,
            legend: true,
            panels: (0..2)
                .map(|k| Panel {
                    title: format!("panel {k}"),
                    x: Axis::log("FCT", Unit::Seconds),
                    y: Axis::cdf(),
                    series: ["a", "b", "c"]
                        .iter()
                        .skip(k)
                        .map(|n| Series::cdf(*n, &[1e-3, 2e-3]))
                        .collect(),
                })
                .collect(),
        };
        let n = names(&c);
        assert_eq!(look_of(&n, "b"), look(1));
        assert_eq!(look_of(&n, "c"), look(2));
        let s = svg(&c).unwrap();
        for col in &PALETTE[..3] {
            let hex = format!("#{:02X}{:02X}{:02X}", col.0, col.1, col.2);
            assert!(s.to_uppercase().contains(&hex), "{hex} not drawn");
        }
    }

    #[test]
    fn cdf_by_hand() {
        assert_eq!(
            cdf(&[3.0, 1.0, 2.0, 2.0, f64::NAN]),
            [(1.0, 0.25), (2.0, 0.75), (3.0, 1.0)]
        );
        assert!(cdf(&[]).is_empty());
        // A few points keep all their markers, many get five.
        let p = cdf(&(1..=100).map(f64::from).collect::<Vec<_>>());
        assert_eq!(step_markers(&p[..5], Some(0)).len(), 5);
        let m = step_markers(&p, Some(3));
        assert_eq!(m.len(), 5);
        assert!(m.windows(2).all(|w| w[0].1 < w[1].1), "{m:?}");
    }

    #[test]
    fn grouped_bars_and_strips_render() {
        let cats = vec!["p99.9".to_string(), "max".to_string()];
        let bar =
            |n: &str, k: f64| Series::new(n, Style::Bars, vec![(0.0, 1e5 * k), (1.0, 2e5 * k)]);
        let c = Chart {
            title: "bars".into(),
            columns: 0,
            legend: true,
            panels: vec![
                Panel {
                    title: "(a)".into(),
                    x: Axis::categories("", cats),
                    y: Axis::log("ToR buffer", Unit::Bytes),
                    series: vec![bar("VLB", 25.0), bar("HOHO", 1.0)],
                },
                Panel {
                    title: "(b)".into(),
                    x: Axis::categories("setting", vec!["clos".into(), "direct".into()]),
                    y: Axis::linear("throughput", Unit::BitsPerSecond),
                    series: vec![
                        Series::new("clos", Style::Strip, vec![(0.0, 9e8), (0.0, 8e8)]),
                        Series::new("direct", Style::Strip, vec![(1.0, 3e8), (1.0, 4e8)]),
                    ],
                },
            ],
        };
        let s = svg(&c).unwrap();
        for t in ["p99.9", "max", "2.5 MB", "100 KB", "direct", "Mb/s"] {
            assert!(s.contains(t), "{t} missing");
        }
        assert_eq!(size(&c).0, 2 * CELL.0);
    }
}
