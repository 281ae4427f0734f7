//! Flow lists in htsim's format, as the Opera authors published theirs
//! (`FigureN_*/opera/traffic_gen/*.htsim` in their simulator's repository):
//! one flow per line, `src dst bytes start_ns`, hosts numbered from 0,
//! whitespace-separated. Replaying the field's own inputs is how a run is
//! put beside the field's own outputs (docs/fidelity.md).

use super::arrivals::FlowSpec;

/// A line that is not a flow, or a flow this network cannot run.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct FlowFileError {
    pub file: String,
    /// From 1; 0 when the file could not be read at all.
    pub line: usize,
    pub msg: String,
}

/// The flows of `text` (read from `file`, named in errors) for a network
/// of `hosts` hosts, in the file's order, numbered from 0. Blank lines and
/// lines starting with `#` are skipped.
pub fn parse(file: &str, text: &str, hosts: usize) -> Result<Vec<FlowSpec>, FlowFileError> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let bad = |msg: String| FlowFileError {
            file: file.to_string(),
            line: n + 1,
            msg,
        };
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 4 {
            return Err(bad(format!(
                "{} fields, expected 4 (src dst bytes start_ns)",
                f.len()
            )));
        }
        let num = |i: usize, name: &str| {
            f[i].parse::<u64>()
                .map_err(|_| bad(format!("{name} {:?} is not a whole number", f[i])))
        };
        let (src, dst, size, start_ns) = (
            num(0, "src")?,
            num(1, "dst")?,
            num(2, "bytes")?,
            num(3, "start_ns")?,
        );
        for (name, h) in [("src", src), ("dst", dst)] {
            if h >= hosts as u64 {
                return Err(bad(format!(
                    "{name} {h}: the network has hosts 0..{} (h1..h{hosts})",
                    hosts.saturating_sub(1)
                )));
            }
        }
        if src == dst {
            return Err(bad(format!("src and dst are both host {src}")));
        }
        if size == 0 {
            return Err(bad("bytes 0: a flow sends at least one byte".into()));
        }
        out.push(FlowSpec {
            id: out.len() as u32,
            src: src as usize,
            dst: dst as usize,
            size,
            start_ns,
        });
    }
    Ok(out)
}

/// [`parse`] on the file at `path`.
pub fn load(path: &std::path::Path, hosts: usize) -> Result<Vec<FlowSpec>, FlowFileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FlowFileError {
        file: name.clone(),
        line: 0,
        msg: e.to_string(),
    })?;
    parse(&name, &text, hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_htsim_lines() {
        let f = parse(
            "f",
            "238 606 27563 58056\n\n# c\n324 93 1933313 113946\n",
            648,
        )
        .unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[1],
            FlowSpec {
                id: 1,
                src: 324,
                dst: 93,
                size: 1933313,
                start_ns: 113946
            }
        );
        assert_eq!(
            (f[0].src, f[0].dst, f[0].size, f[0].start_ns),
            (238, 606, 27563, 58056)
        );
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let e = parse("f", "1 2 3 4\n1 2 x 4\n", 8).unwrap_err();
        assert_eq!(
            (e.line, e.to_string()),
            (2, "f:2: bytes \"x\" is not a whole number".into())
        );
        let e = parse("f", "1 8 3 4\n", 8).unwrap_err();
        assert!(e.to_string().starts_with("f:1: dst 8:"), "{e}");
        assert_eq!(parse("f", "1 2 3\n", 8).unwrap_err().line, 1);
        assert_eq!(parse("f", "3 3 3 3\n", 8).unwrap_err().line, 1);
        assert_eq!(parse("f", "1 2 0 3\n", 8).unwrap_err().line, 1);
        assert!(load("/nonexistent/x.htsim".as_ref(), 8).is_err());
    }
}
