//! The plot style: the Okabe–Ito palette and the markers that give each
//! series its [`Look`] (and how a marker is drawn), the font and text
//! sizes, line and marker sizes, grid colours and the panels' sizes.

use super::canvas::{DrawResult, Root};
use plotters::prelude::*;

/// The Okabe–Ito palette (colour-blind safe), yellow last as it is the
/// faintest on white.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(240, 228, 66),  // yellow
];

/// Marker shapes, one per series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
    Star,
}

pub const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
    Marker::Star,
];

/// How series number `i` of a chart is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    pub color: RGBColor,
    pub marker: Marker,
}

/// The look of series `i`: colours and markers both cycle over 8, the
/// markers shifted by one each round, so the first 64 looks all differ.
pub fn look(i: usize) -> Look {
    let n = PALETTE.len();
    Look {
        color: PALETTE[i % n],
        marker: MARKERS[(i + i / n) % MARKERS.len()],
    }
}

/// The font of every text (then the viewer's sans-serif).
pub const FONT: &str = "DejaVu Sans";
const FONT_FAMILY: &str = "DejaVu Sans, Bitstream Vera Sans, Arial, Helvetica, sans-serif";
/// Text sizes in pixels of the SVG.
pub(super) const TITLE_PX: f64 = 19.0;
pub(super) const PANEL_TITLE_PX: f64 = 15.0;
pub(super) const AXIS_PX: f64 = 14.0;
pub(super) const TICK_PX: f64 = 12.5;
pub(super) const LEGEND_PX: f64 = 13.5;
pub(super) const VALUE_PX: f64 = 10.0;
/// Marker radius, line width.
pub(super) const MARKER_R: f64 = 4.5;
pub(super) const LINE_W: u32 = 2;
pub(super) const GRID: RGBColor = RGBColor(215, 215, 215);
pub(super) const GRID_MINOR: RGBColor = RGBColor(238, 238, 238);
/// A panel's size alone in a chart, and in a grid.
pub(super) const SINGLE: (u32, u32) = (780, 470);
pub(super) const CELL: (u32, u32) = (530, 390);
pub(super) const TITLE_H: u32 = 38;
pub(super) const LEGEND_ROW_H: u32 = 24;

/// A text style `px` pixels high (plotters' SVG backend writes size/1.24).
pub(super) fn font(px: f64) -> TextStyle<'static> {
    (FONT_FAMILY, px * 1.24).into_font().color(&BLACK)
}

/// Estimated width of `s` in pixels at `px` (DejaVu Sans' advances:
/// about 0.55 em for lower case, 0.65 for capitals and digits, 0.32 for
/// spaces and punctuation).
pub(super) fn text_width(s: &str, px: f64) -> f64 {
    s.chars()
        .map(|c| match c {
            'a'..='z' => 0.55,
            'A'..='Z' | '0'..='9' | '%' => 0.66,
            _ => 0.34,
        })
        .sum::<f64>()
        * px
}

/// A marker of shape `m` centred on pixel `(x, y)`.
/// A marker of shape `m` centred on pixel `(x, y)`, filled with `color`;
/// with `edge`, outlined in a darker shade of it (which keeps light
/// colours such as yellow visible on white).
pub(super) fn marker(
    root: &Root,
    m: Marker,
    (x, y): (i32, i32),
    r: f64,
    color: RGBAColor,
    edge: bool,
) -> DrawResult {
    let style = color.filled();
    let dark = RGBAColor(
        (f64::from(color.0) * 0.55) as u8,
        (f64::from(color.1) * 0.55) as u8,
        (f64::from(color.2) * 0.55) as u8,
        color.3.max(0.8),
    );
    let p = |dx: f64, dy: f64| (x + dx.round() as i32, y + dy.round() as i32);
    let poly = |pts: Vec<(i32, i32)>| -> DrawResult {
        root.draw(&Polygon::new(pts.clone(), style))?;
        if edge {
            let mut ring = pts;
            ring.push(ring[0]);
            root.draw(&PathElement::new(ring, dark.stroke_width(1)))?;
        }
        Ok(())
    };
    match m {
        Marker::Circle => {
            root.draw(&Circle::new((x, y), r.round() as i32, style))?;
            if edge {
                root.draw(&Circle::new((x, y), r.round() as i32, dark.stroke_width(1)))?;
            }
        }
        Marker::Square => {
            let a = r * 0.85;
            poly(vec![p(-a, -a), p(a, -a), p(a, a), p(-a, a)])?
        }
        Marker::TriangleUp => {
            let a = r * 1.15;
            poly(vec![p(0.0, -a), p(a, a * 0.75), p(-a, a * 0.75)])?
        }
        Marker::TriangleDown => {
            let a = r * 1.15;
            poly(vec![p(0.0, a), p(a, -a * 0.75), p(-a, -a * 0.75)])?
        }
        Marker::Diamond => {
            let a = r * 1.2;
            poly(vec![p(0.0, -a), p(a, 0.0), p(0.0, a), p(-a, 0.0)])?
        }
        Marker::Cross | Marker::Plus => {
            let a = r;
            let s = style.stroke_width(2);
            let (l1, l2) = if m == Marker::Cross {
                ([p(-a, -a), p(a, a)], [p(-a, a), p(a, -a)])
            } else {
                let b = a * 1.2;
                ([p(-b, 0.0), p(b, 0.0)], [p(0.0, -b), p(0.0, b)])
            };
            root.draw(&PathElement::new(l1.to_vec(), s))?;
            root.draw(&PathElement::new(l2.to_vec(), s))?
        }
        Marker::Star => {
            let pts = (0..10)
                .map(|k| {
                    let a = std::f64::consts::PI * (k as f64 / 5.0 - 0.5);
                    let rr = if k % 2 == 0 { r * 1.35 } else { r * 0.6 };
                    p(rr * a.cos(), rr * a.sin())
                })
                .collect();
            poly(pts)?
        }
    }
    Ok(())
}
