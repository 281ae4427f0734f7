//! `lighthouse report DIR --html [FILE]`: every saved experiment `report`
//! found, on one self-contained page: the charts inline as the plot
//! module's SVG, the tables as text, every check with its claim, and a
//! summary of the verdicts on top. Nothing is referenced by URL (no CDN,
//! font or image), so the page reads the same offline and attached to a
//! mail. docs/experiments.md, "An HTML report".

use crate::{Check, Claim, shape_line};
use std::fmt::Write;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why the page could not be written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error("--html {file}: directory {dir} does not exist")]
    NoDir { file: PathBuf, dir: PathBuf },
    #[error("--html {0}: is a directory")]
    IsDir(PathBuf),
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One saved experiment on the page.
pub struct Section {
    pub name: &'static str,
    pub about: &'static str,
    /// The CSV or JSON report it was analysed from.
    pub path: PathBuf,
    pub svg: String,
    pub table: String,
    /// The figures' checks; `None` for a table's JSON report, which holds
    /// the measurements but not the checks (`lighthouse experiment
    /// table2|table3` prints those).
    pub checks: Option<Vec<Check>>,
}

/// `s` safe as HTML text and as a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The directory `file` goes in (`.` for a bare name).
fn dir_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `file` can be written as the page: its directory exists and it
/// is not itself a directory.
pub fn check_target(file: &Path) -> Result<(), HtmlError> {
    let dir = dir_of(file);
    if !dir.is_dir() {
        return Err(HtmlError::NoDir {
            file: file.to_path_buf(),
            dir,
        });
    }
    if file.is_dir() {
        return Err(HtmlError::IsDir(file.to_path_buf()));
    }
    Ok(())
}

/// Writes `text` to `file` through a temporary file in its directory,
/// renamed over it: a failed write leaves no partial page, and a reader
/// never sees one.
pub fn write_page(file: &Path, text: &str) -> Result<(), HtmlError> {
    check_target(file)?;
    let io = |source| HtmlError::Io {
        path: file.to_path_buf(),
        source,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".report-")
        .suffix(".html.tmp")
        .tempfile_in(dir_of(file))
        .map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    // The temporary file is private (0600); the page is for reading.
    tmp.as_file()
        .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .map_err(io)?;
    tmp.persist(file).map_err(|e| io(e.error))?;
    Ok(())
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;color:#222;background:#fff;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2.5em;border-bottom:1px solid #ccc;padding-bottom:.2em}h2 small{font-weight:normal;color:#555;font-size:.65em}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.8em;overflow-x:auto}
.chart svg{max-width:100%;height:auto;border:1px solid #eee}
.summary{border:2px solid;padding:.6em 1em;border-radius:4px}.summary.ok{border-color:#2a7d2a;background:#f0f8f0}.summary.fail{border-color:#b22;background:#fcf0f0}
.verdict{font-weight:bold}.ok .verdict,.verdict.ok{color:#2a7d2a}.fail .verdict,.verdict.fail{color:#b22}
table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#f6f8fa}
blockquote{margin:.3em 0;padding:.2em .8em;border-left:4px solid #ccc;color:#444;font-style:italic}
.mark{font-family:ui-monospace,monospace;white-space:nowrap}.m-ok{color:#2a7d2a}.m-FAILED{color:#b22;font-weight:bold}.m-reported{color:#666}
.source{margin:1em 0 0;font-weight:bold}.note{color:#555}";

/// The page of `sections`, found in `dir`.
pub fn page(dir: &Path, sections: &[Section]) -> String {
    let mut h = String::new();
    let dir = esc(&dir.display().to_string());
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Lighthouse report: {dir}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n\
         <h1>Lighthouse report: <code>{dir}</code></h1>\n"
    );
    summary(&mut h, sections);
    for (i, s) in sections.iter().enumerate() {
        section(&mut h, i, s);
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// The verdict over every figure and the checks' counts, then one line
/// per section linking to it.
fn summary(h: &mut String, sections: &[Section]) {
    let checks: Vec<&Check> = sections
        .iter()
        .flat_map(|s| s.checks.iter().flatten())
        .collect();
    let hold = checks.iter().filter(|c| c.asserted && c.holds).count();
    let fail = checks.iter().filter(|c| c.fails()).count();
    let reported = checks.iter().filter(|c| !c.asserted).count();
    let failing: Vec<&str> = sections
        .iter()
        .filter(|s| {
            s.checks
                .as_ref()
                .is_some_and(|c| c.iter().any(Check::fails))
        })
        .map(|s| s.name)
        .collect();
    let figures = sections.iter().filter(|s| s.checks.is_some()).count();
    let (class, verdict) = if failing.is_empty() {
        (
            "ok",
            format!("the paper's shape holds in every figure ({figures})"),
        )
    } else {
        (
            "fail",
            format!("the paper's shape does NOT hold in {}", failing.join(", ")),
        )
    };
    let _ = write!(
        h,
        "<div class=\"summary {class}\">\n<p class=\"verdict\">Verdict: {}</p>\n\
         <p>{} checks of {figures} figures: {hold} asserted and hold, {fail} asserted and fail, \
         {reported} reported only (measured, never failing the verdict). {} saved experiments in all.</p>\n</div>\n<ul>\n",
        esc(&verdict),
        checks.len(),
        sections.len()
    );
    for (i, s) in sections.iter().enumerate() {
        let state = match &s.checks {
            Some(c) => shape_line(s.name, c),
            None => format!(
                "{}: measurements and chart (no checks in its JSON report)",
                s.name
            ),
        };
        let _ = writeln!(
            h,
            "<li><a href=\"#s{i}\">{}</a> <span class=\"note\">({})</span></li>",
            esc(&state),
            esc(&s.path.display().to_string())
        );
    }
    h.push_str("</ul>\n");
}

fn section(h: &mut String, i: usize, s: &Section) {
    let _ = write!(
        h,
        "<section id=\"s{i}\">\n<h2>{} <small>{}</small></h2>\n<p>From <code>{}</code>.</p>\n",
        esc(s.name),
        esc(s.about),
        esc(&s.path.display().to_string())
    );
    if let Some(c) = &s.checks {
        let class = if c.iter().any(Check::fails) {
            "fail"
        } else {
            "ok"
        };
        let _ = writeln!(
            h,
            "<p class=\"verdict {class}\">{}</p>",
            esc(&shape_line(s.name, c))
        );
    }
    // The plot module's own SVG (its text escaped by plotters), inline.
    let _ = write!(
        h,
        "<div class=\"chart\">\n{}\n</div>\n<h3>Table</h3>\n<pre>{}</pre>\n",
        s.svg.trim(),
        esc(s.table.trim_end())
    );
    match &s.checks {
        Some(c) => checks(h, c),
        None => {
            let _ = writeln!(
                h,
                "<p class=\"note\">The JSON report holds the measurements; its checks are printed by \
                 <code>lighthouse experiment {}</code>.</p>",
                esc(s.name)
            );
        }
    }
    h.push_str("</section>\n");
}

/// The checks as the terminal verdict lists them: each claim (source and
/// quote) once above its checks, then per check what was measured, its
/// mark, and whether it is asserted or only reported.
fn checks(h: &mut String, checks: &[Check]) {
    h.push_str("<h3>Checks</h3>\n");
    let mut last: Option<Option<Claim>> = None;
    for c in checks {
        if last != Some(c.claim) {
            if last.is_some() {
                h.push_str("</table>\n");
            }
            match &c.claim {
                Some(cl) => {
                    let _ = write!(
                        h,
                        "<p class=\"source\">{}</p>\n<blockquote>\u{201c}{}\u{201d}</blockquote>\n",
                        esc(cl.source),
                        esc(cl.quote)
                    );
                }
                None => h.push_str("<p class=\"source\">Conditions of the run</p>\n"),
            }
            h.push_str("<table>\n<tr><th>result</th><th>measured</th><th>status</th></tr>\n");
            last = Some(c.claim);
        }
        let status = match (c.asserted, c.holds) {
            (true, true) => "asserted, holds",
            (true, false) => "asserted, does NOT hold",
            (false, _) => "reported only, not asserted",
        };
        let _ = writeln!(
            h,
            "<tr><td class=\"mark m-{m}\">[{m}]</td><td>{}</td><td>{status}</td></tr>",
            esc(&c.what),
            m = c.mark()
        );
    }
    if last.is_some() {
        h.push_str("</table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ALL, csv::Csv, report};

    /// Copies the committed full runs (`docs/figures/`: every figure's CSV,
    /// both tables' JSON) into `dir`, which `report` then rewrites plots in.
    fn saved_results(dir: &Path) {
        let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/figures");
        std::fs::create_dir_all(dir).unwrap();
        for e in std::fs::read_dir(&figures).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "csv" || x == "json") {
                std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
            }
        }
    }

    /// What is in `dir`, by name.
    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_page_holds_every_saved_experiment_inline_and_escaped() {
        let d = tempfile::tempdir().unwrap();
        // A run directory whose name needs escaping in every place the
        // page names a path.
        let run = d.path().join("run <1> & \"x\"");
        saved_results(&run);
        let file = d.path().join("out.html");
        assert!(report(d.path(), Some(&file)).unwrap(), "saved runs hold");
        let h = std::fs::read_to_string(&file).unwrap();
        assert!(h.starts_with("<!DOCTYPE html>") && h.ends_with("</html>\n"));
        let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/figures");
        let saved: Vec<_> = ALL
            .iter()
            .filter(|e| figures.join(format!("{}.csv", e.name)).is_file())
            .collect();
        for e in &saved {
            assert!(
                h.contains(&format!(
                    "<h2>{} <small>{}</small></h2>",
                    e.name,
                    esc(e.about)
                )),
                "no section for {}",
                e.name
            );
            // Every check of the figure's own analysis, claim and measurement.
            let csv = run.join(format!("{}.csv", e.name));
            let a =
                (e.analyze)(&Csv::parse(&std::fs::read_to_string(&csv).unwrap()).unwrap()).unwrap();
            assert!(!a.checks.is_empty(), "{}", e.name);
            for c in &a.checks {
                let row = format!(
                    "[{}]</td><td>{}</td><td>{}",
                    c.mark(),
                    esc(&c.what),
                    if c.asserted {
                        "asserted, holds"
                    } else {
                        "reported only, not asserted"
                    }
                );
                assert!(h.contains(&row), "{}: no {row}", e.name);
                if let Some(cl) = c.claim {
                    assert!(h.contains(&esc(cl.quote)) && h.contains(&esc(cl.source)));
                }
            }
            assert!(h.contains(&esc(a.table.trim_end())), "{}: no table", e.name);
            assert!(h.contains(&esc(&crate::shape_line(e.name, &a.checks))));
        }
        for (t, about) in crate::tables_plot::ABOUT {
            assert!(h.contains(&format!("<h2>{t} <small>{}</small></h2>", esc(about))));
        }
        assert!(
            h.contains("99.9th percentile 2.37 MB"),
            "table2's bars as text"
        );
        assert_eq!(
            h.matches("<svg").count(),
            saved.len() + 2,
            "one inline chart each"
        );
        assert!(h.contains(&format!(
            "Verdict: the paper&#39;s shape holds in every figure ({})",
            saved.len()
        )));
        assert!(h.contains("0 asserted and fail"));
        // Self-contained: the SVG namespace is the only URL, and nothing is
        // loaded from anywhere (no src=, no stylesheet link).
        let urls = h.matches("http://").count() + h.matches("https://").count();
        assert_eq!(
            urls,
            h.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        assert!(!h.contains("src=") && !h.contains("<link") && !h.contains("url("));
        assert!(h.contains("run &lt;1&gt; &amp; &quot;x&quot;/fig8.csv"));
        assert!(!h.contains("run <1>"), "a path unescaped");
        // Only the page was added beside DIR's run directory, no temporary.
        assert_eq!(listing(d.path()), ["out.html", "run <1> & \"x\""]);
    }

    #[test]
    fn checks_text_is_escaped_and_a_failing_check_fails_the_summary() {
        const C: Claim = Claim {
            source: "P <§1>",
            quote: "a & b hold",
        };
        let s = Section {
            name: "fig8",
            about: "about <it>",
            path: PathBuf::from("r/fig8.csv"),
            svg: "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".into(),
            table: "x < y\n".into(),
            checks: Some(vec![
                Check::sanity("<script>alert('x')</script>".into(), true),
                Check::assert(C, "p50 > 2 & \"more\"".into(), false),
                Check::report(C, "p95 'n/a'".into()),
            ]),
        };
        let h = page(Path::new("r"), &[s]);
        assert!(
            !h.contains("<script>")
                && h.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        );
        assert!(h.contains(
            "[FAILED]</td><td>p50 &gt; 2 &amp; &quot;more&quot;</td><td>asserted, does NOT hold"
        ));
        assert!(
            h.contains("[reported]</td><td>p95 &#39;n/a&#39;</td><td>reported only, not asserted")
        );
        assert!(h.contains("<p class=\"source\">P &lt;§1&gt;</p>"));
        assert_eq!(
            h.matches("a &amp; b hold").count(),
            1,
            "the claim quoted once"
        );
        assert!(h.contains("<pre>x &lt; y</pre>") && h.contains("about &lt;it&gt;"));
        assert!(h.contains("Verdict: the paper&#39;s shape does NOT hold in fig8"));
        assert!(h.contains(
            "3 checks of 1 figures: 1 asserted and hold, 1 asserted and fail, 1 reported only"
        ));
        assert!(h.contains(
            "fig8: the paper&#39;s shape does NOT hold (1 claims asserted, 0 reported only)"
        ));
    }

    #[test]
    fn bad_input_is_refused_naming_it_and_writes_no_page() {
        let d = tempfile::tempdir().unwrap();
        let page = d.path().join("page.html");
        // DIR missing: today's error.
        let e = format!(
            "{:#}",
            report(&d.path().join("nope"), Some(&page)).unwrap_err()
        );
        assert!(e.contains("reading") && e.contains("nope"), "{e}");
        // DIR without a saved experiment: today's error, no default page.
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let e = report(&empty, Some(&empty.join("report.html")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no saved experiment"), "{e}");
        assert!(listing(&empty).is_empty());
        assert!(!page.exists());
        // FILE in a directory that does not exist, or a directory: named,
        // and refused before any plot is rewritten.
        let runs = d.path().join("runs");
        saved_results(&runs);
        let before = listing(&runs);
        let e = report(&runs, Some(&d.path().join("gone/r.html")))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gone/r.html") && e.contains("does not exist"),
            "{e}"
        );
        let e = report(&runs, Some(&empty)).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        assert_eq!(listing(&runs), before, "plots rewritten before the refusal");
        // A corrupt CSV: named, and no page, not even a partial one.
        std::fs::write(runs.join("sopa.csv"), "a,b\n1\n").unwrap();
        let e = format!(
            "{:#}",
            report(&runs, Some(&runs.join("report.html"))).unwrap_err()
        );
        assert!(e.contains("sopa.csv") && e.contains("line 2"), "{e}");
        assert!(
            !listing(&runs)
                .iter()
                .any(|f| f.ends_with(".html") || f.ends_with(".tmp")),
            "{:?}",
            listing(&runs)
        );
    }
}
