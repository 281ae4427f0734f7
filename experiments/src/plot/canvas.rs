//! What a chart is drawn on: `plotters`' SVG drawing area, and the result
//! of a drawing step. `draw` lays charts out on it, `style` draws its
//! markers on it.

use plotters::coord::Shift;
use plotters::prelude::*;

pub(super) type DrawResult = Result<(), Box<dyn std::error::Error>>;
pub(super) type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;
