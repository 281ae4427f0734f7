//! The figures' one plot style: SVG with `plotters`' SVG backend, PNG by
//! rendering that SVG with `resvg`.
//!
//! A [`Chart`] is a title, a legend shared by its panels and one or more
//! [`Panel`]s in a grid. Every series gets its look (a colour of the
//! Okabe–Ito palette and a marker, so curves stay apart in grey-scale
//! print) from its name, the same in every panel of a chart. Axes carry a
//! [`Unit`]: ticks read `10 KB`, `100 µs`, `1 ms`, `100 Mb/s`; log axes
//! have decade ticks with minor grid lines between; categorical axes name
//! their categories.
//!
//! Text is SVG `<text>` in DejaVu Sans (falling back to the viewer's
//! sans-serif). The PNG needs that font on the machine: Debian's
//! `fonts-dejavu-core`, which `scripts/setup.sh` installs;
//! [`png_of_svg`] says so when it is missing.
//!
//! By concept: `chart` what a figure is (charts, panels, series),
//! `axis` units, SI ticks and axis frames, `canvas` what it is drawn on,
//! `style` the palette, markers, fonts and sizes, `draw` the layout and
//! the SVG, `png` the PNG. Everything public is re-exported here.

mod axis;
mod canvas;
mod chart;
mod draw;
mod png;
mod style;

pub use axis::{Axis, Unit, decade_ticks, linear_ticks, log_ticks, si};
pub use chart::{Chart, Panel, Series, Style, cdf, strip};
pub use draw::{jitter, size, svg};
pub use png::{PNG_SCALE, png_of_svg, png_size, render};
pub use style::{FONT, Look, MARKERS, Marker, PALETTE, look};
