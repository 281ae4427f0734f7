//! Flow-size distributions: `bytes cumulative-probability` per line, sizes
//! between points interpolated linearly (`workloads/README.md`).

use std::path::Path;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CdfError {
    #[error("{file}:{line}: {msg}")]
    Line {
        file: String,
        line: usize,
        msg: String,
    },
    #[error("{file}: {msg}")]
    File { file: String, msg: String },
}

/// A piecewise-linear CDF of flow sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeCdf {
    /// (bytes, cumulative probability), both non-decreasing, first
    /// probability 0 and last 1.
    points: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// Parses the text of a `.cdf` file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<SizeCdf, CdfError> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let err = |msg: String| CdfError::Line {
                file: file.to_string(),
                line,
                msg,
            };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let cols: Vec<&str> = body
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|s| !s.is_empty())
                .collect();
            let [size, prob] = cols[..] else {
                return Err(err(format!(
                    "expected `bytes probability`, found {} column(s)",
                    cols.len()
                )));
            };
            let size: f64 = size
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| err(format!("size {size:?} is not a number of bytes >= 0")))?;
            let prob: f64 = prob
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=1.0).contains(p))
                .ok_or_else(|| err(format!("probability {prob:?} is not in [0, 1]")))?;
            if let Some(&(s0, p0)) = points.last() {
                if size < s0 {
                    return Err(err(format!("size {size} is below the previous {s0}")));
                }
                if prob < p0 {
                    return Err(err(format!(
                        "probability {prob} is below the previous {p0}"
                    )));
                }
            }
            points.push((size, prob));
        }
        let ferr = |msg: &str| CdfError::File {
            file: file.to_string(),
            msg: msg.to_string(),
        };
        match (points.first(), points.last()) {
            (None, _) | (_, None) => Err(ferr("no points")),
            (Some(f), _) if f.1 != 0.0 => Err(ferr("the first probability must be 0")),
            (_, Some(l)) if l.1 != 1.0 => Err(ferr("the last probability must be 1")),
            _ => Ok(SizeCdf { points }),
        }
    }

    /// Reads a `.cdf` file.
    pub fn load(path: &Path) -> Result<SizeCdf, CdfError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| CdfError::File {
            file: name.clone(),
            msg: e.to_string(),
        })?;
        SizeCdf::parse(&name, &text)
    }

    /// The size at cumulative probability `u` in [0, 1] (inverse CDF),
    /// at least 1 byte.
    pub fn quantile(&self, u: f64) -> u64 {
        let u = u.clamp(0.0, 1.0);
        let i = self.points.partition_point(|&(_, p)| p < u);
        let s = if i == 0 {
            self.points[0].0
        } else {
            let (s0, p0) = self.points[i - 1];
            let (s1, p1) = self.points[i.min(self.points.len() - 1)];
            if p1 > p0 {
                s0 + (s1 - s0) * (u - p0) / (p1 - p0)
            } else {
                s1
            }
        };
        (s.round() as u64).max(1)
    }

    /// Mean size in bytes (exact for the piecewise-linear CDF).
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
            .sum()
    }

    /// The same distribution with sizes above `max` moved to `max`.
    pub fn capped(&self, max: u64) -> SizeCdf {
        let max = max as f64;
        let mut points: Vec<(f64, f64)> = Vec::new();
        for w in self.points.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            if points.is_empty() {
                points.push((s0.min(max), p0));
            }
            if s1 <= max {
                points.push((s1, p1));
            } else if s0 < max {
                let p = p0 + (p1 - p0) * (max - s0) / (s1 - s0);
                points.push((max, p));
                break;
            } else {
                break;
            }
        }
        points.push((max.min(self.points.last().map_or(max, |l| l.0)), 1.0));
        SizeCdf { points }
    }

    /// Probability mass above `max` bytes.
    pub fn mass_above(&self, max: u64) -> f64 {
        1.0 - self
            .capped(max)
            .points
            .iter()
            .rev()
            .nth(1)
            .map_or(1.0, |p| p.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "# comment\n0 0\n100 0.5\n300 1 # tail\n";

    #[test]
    fn quantiles_interpolate_between_points() {
        let c = SizeCdf::parse("t", TWO).unwrap();
        assert_eq!(c.quantile(0.0), 1);
        assert_eq!(c.quantile(0.25), 50);
        assert_eq!(c.quantile(0.5), 100);
        assert_eq!(c.quantile(0.75), 200);
        assert_eq!(c.quantile(1.0), 300);
        // Mean: half the mass uniform on [0,100], half on [100,300].
        assert!((c.mean() - (0.5 * 50.0 + 0.5 * 200.0)).abs() < 1e-9);
    }

    #[test]
    fn a_flat_step_is_a_point_mass() {
        let c = SizeCdf::parse("t", "10 0\n10 0.4\n20 0.4\n20 1\n").unwrap();
        assert_eq!(c.quantile(0.2), 10);
        assert_eq!(c.quantile(0.4), 10);
        assert_eq!(c.quantile(0.7), 20);
        assert!((c.mean() - (0.4 * 10.0 + 0.6 * 20.0)).abs() < 1e-9);
    }

    #[test]
    fn capping_moves_the_tail_to_the_cap() {
        let c = SizeCdf::parse("t", TWO).unwrap().capped(200);
        assert_eq!(c.quantile(0.5), 100);
        assert_eq!(c.quantile(0.75), 200);
        assert_eq!(c.quantile(0.99), 200);
        let m = SizeCdf::parse("t", TWO).unwrap().mass_above(200);
        assert!((m - 0.25).abs() < 1e-9, "{m}");
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = |t: &str| SizeCdf::parse("w.cdf", t).unwrap_err().to_string();
        assert_eq!(
            e("0 0\n5 x\n"),
            "w.cdf:2: probability \"x\" is not in [0, 1]"
        );
        assert_eq!(
            e("0 0\n5\n"),
            "w.cdf:2: expected `bytes probability`, found 1 column(s)"
        );
        assert_eq!(
            e("0 0\n9 0.5\n5 1\n"),
            "w.cdf:3: size 5 is below the previous 9"
        );
        assert_eq!(
            e("0 0\n9 0.5\n10 0.4\n"),
            "w.cdf:3: probability 0.4 is below the previous 0.5"
        );
        assert_eq!(e("0 0.1\n9 1\n"), "w.cdf: the first probability must be 0");
        assert_eq!(e("0 0\n9 0.9\n"), "w.cdf: the last probability must be 1");
        assert_eq!(e("# empty\n"), "w.cdf: no points");
        assert_eq!(
            e("-1 0\n"),
            "w.cdf:1: size \"-1\" is not a number of bytes >= 0"
        );
    }

    #[test]
    fn shipped_distributions_load_with_their_published_means() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads");
        let mean = |f: &str| SizeCdf::load(&dir.join(f)).unwrap().mean();
        // Web search: ~1.6 MB (DCTCP/pFabric); KV: hundreds of bytes.
        let ws = mean("websearch.cdf");
        assert!((1.4e6..1.8e6).contains(&ws), "{ws}");
        let kv = mean("kvstore.cdf");
        assert!((200.0..800.0).contains(&kv), "{kv}");
        let hd = mean("hadoop.cdf");
        assert!(hd > 1e6, "{hd}");
    }
}
