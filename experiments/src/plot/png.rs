//! PNG: the chart's SVG rendered with `resvg`, its text in the system's
//! DejaVu Sans.

use super::chart::Chart;
use super::draw::svg;
use super::style::FONT;
use resvg::{tiny_skia, usvg};
use std::sync::{Arc, OnceLock};

/// The PNG's pixels per SVG pixel.
pub const PNG_SCALE: f32 = 2.0;

/// The system's fonts, loaded once; an error when DejaVu Sans is not
/// among them.
fn fonts() -> Result<Arc<usvg::fontdb::Database>, String> {
    static DB: OnceLock<Result<Arc<usvg::fontdb::Database>, String>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        db.set_sans_serif_family(FONT);
        if !db.faces().any(|f| f.families.iter().any(|(n, _)| n == FONT)) {
            return Err(format!(
                "no {FONT} font for the PNG plots ({} fonts found): install Debian's fonts-dejavu-core (scripts/setup.sh does)",
                db.len()
            ));
        }
        Ok(Arc::new(db))
    })
    .clone()
}

/// `svg` rendered as a PNG, [`PNG_SCALE`] pixels per SVG pixel.
pub fn png_of_svg(svg: &str) -> Result<Vec<u8>, String> {
    let opt = usvg::Options {
        fontdb: fonts()?,
        font_family: FONT.into(),
        ..Default::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("reading the SVG: {e}"))?;
    let s = tree.size();
    let (w, h) = (
        (s.width() * PNG_SCALE).round() as u32,
        (s.height() * PNG_SCALE).round() as u32,
    );
    let mut pix = tiny_skia::Pixmap::new(w, h).ok_or_else(|| format!("no {w}x{h} pixmap"))?;
    pix.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE),
        &mut pix.as_mut(),
    );
    pix.encode_png()
        .map_err(|e| format!("encoding the PNG: {e}"))
}

/// The chart as an SVG document and as a PNG of it.
pub fn render(c: &Chart) -> Result<(String, Vec<u8>), String> {
    let s = svg(c)?;
    let p = png_of_svg(&s).map_err(|e| format!("{}: {e}", c.title))?;
    Ok((s, p))
}

/// The width and height a PNG's header gives (None: not a PNG).
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const MAGIC: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    if png.len() < 24 || png[..8] != MAGIC || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

#[cfg(test)]
mod tests {
    use super::super::draw::size;
    use super::super::draw::tests::two_series;
    use super::*;

    #[test]
    fn png_is_a_png_of_the_charts_size() {
        let c = two_series();
        let (s, p) = render(&c).unwrap();
        assert!(s.starts_with("<svg"));
        let (w, h) = size(&c);
        assert_eq!(
            png_size(&p),
            Some(((w as f32 * PNG_SCALE) as u32, (h as f32 * PNG_SCALE) as u32))
        );
        assert_eq!(png_size(b"GIF89a not a png at all"), None);
        // Text was rendered: the PNG is far from blank white.
        assert!(p.len() > 10_000, "{} bytes", p.len());
    }
}
