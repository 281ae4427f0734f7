//! `lighthouse experiment NAME`: the paper's figures (§9) as live runs
//! through [`lh_emu::net::Network`] (real namespaces, the kernel's TCP,
//! the native fabric), and `lighthouse report DIR` re-plotting saved runs.
//!
//! Every experiment is two functions: `run` drives the live networks and
//! returns its raw samples as a CSV table, `analyze` turns such a table
//! into the printed table, the plot and the shape checks. A run writes the
//! CSV, then analyzes it; `report` analyzes a saved CSV the same way, so a
//! re-plot is the plot of the run. docs/experiments.md.

pub mod at_scale;
pub mod csv;
pub mod fig10;
pub mod fig13;
pub mod fig8;
pub mod fig9;
pub mod html;
pub mod otcp;
pub mod plot;
pub mod sopa;
pub mod tables;
pub mod tables_plot;

use anyhow::Context;
use csv::Csv;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options every experiment takes.
#[derive(Clone, Debug)]
pub struct Opts {
    /// The CI setting: fewer samples and settings, under a minute.
    pub quick: bool,
    pub seed: u64,
}

/// A claim of one of the papers, in its own words, and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Paper and section, e.g. `Lighthouse §9.2, case I (Fig. 8)`.
    pub source: &'static str,
    /// The paper's sentence, quoted as printed.
    pub quote: &'static str,
}

/// One check on the measurements: a claim of a paper tested with a
/// statistic and a bound (`what` says which and what was measured), or a
/// condition of the run itself (`claim` None: every sample completed...).
/// A reported check (`asserted` false) is printed with its measurement but
/// never fails the verdict: the claim cannot be shown robustly live on this
/// machine, and no weaker claim is asserted under the paper's name
/// (docs/experiments.md says why, per claim).
#[derive(Clone, Debug)]
pub struct Check {
    pub claim: Option<Claim>,
    pub what: String,
    pub holds: bool,
    pub asserted: bool,
}

impl Check {
    /// A condition of the run (not a claim of the paper), asserted.
    pub fn sanity(what: String, holds: bool) -> Check {
        Check {
            claim: None,
            what,
            holds,
            asserted: true,
        }
    }
    /// `claim`, asserted with the statistic and bound that `what` states.
    pub fn assert(claim: Claim, what: String, holds: bool) -> Check {
        Check {
            claim: Some(claim),
            what,
            holds,
            asserted: true,
        }
    }
    /// `claim`, measured and printed but not asserted; `what` says what was
    /// measured against what the paper has, and why it is not asserted.
    pub fn report(claim: Claim, what: String) -> Check {
        Check {
            claim: Some(claim),
            what,
            holds: true,
            asserted: false,
        }
    }
    /// Whether this check fails the verdict.
    pub fn fails(&self) -> bool {
        self.asserted && !self.holds
    }
    /// How the verdict marks it: `ok`, `FAILED`, or `reported` (not
    /// asserted, whatever it measured).
    pub fn mark(&self) -> &'static str {
        match (self.asserted, self.holds) {
            (false, _) => "reported",
            (true, true) => "ok",
            (true, false) => "FAILED",
        }
    }
}

/// What a table of samples shows.
pub struct Analysis {
    pub table: String,
    pub chart: plot::Chart,
    pub checks: Vec<Check>,
}

impl Analysis {
    /// Each quoted claim's checks in order, and whether each is asserted
    /// (the analyses' unit tests).
    #[cfg(test)]
    pub fn claims(&self) -> Vec<(Claim, bool)> {
        self.checks
            .iter()
            .filter_map(|c| Some((c.claim?, c.asserted)))
            .collect()
    }
    /// What the failing checks say (the analyses' unit tests).
    #[cfg(test)]
    pub fn failing(self) -> Vec<String> {
        self.checks
            .into_iter()
            .filter(|c| c.fails())
            .map(|c| c.what)
            .collect()
    }
}

/// One experiment of the paper.
pub struct Experiment {
    pub name: &'static str,
    pub about: &'static str,
    pub run: fn(&Opts, &Progress) -> anyhow::Result<Csv>,
    pub analyze: fn(&Csv) -> anyhow::Result<Analysis>,
}

/// The experiments, by name.
pub const ALL: [Experiment; 10] = [
    Experiment {
        name: "fig8",
        about: "mice and elephant FCT: TO vs TA architectures vs Clos (Fig. 8)",
        run: fig8::run,
        analyze: fig8::analyze,
    },
    Experiment {
        name: "fig8-sim",
        about: "Fig. 8 in virtual time at the testbed's scale: 8 ToRs, 100 Gb/s (lighthouse experiment fig8 --sim)",
        run: at_scale::fig8::run,
        analyze: at_scale::fig8::analyze,
    },
    Experiment {
        name: "fig8-sweep-sim",
        about: "Fig. 8's failing claims in virtual time, each swept over its responsible parameter (lighthouse experiment fig8-sweep --sim)",
        run: at_scale::sweep::run,
        analyze: at_scale::sweep::analyze,
    },
    Experiment {
        name: "fig10",
        about: "mice FCT on RotorNet vs slice duration, VLB vs UCMP (Fig. 10)",
        run: fig10::run,
        analyze: fig10::analyze,
    },
    Experiment {
        name: "fig10-sim",
        about: "Fig. 10 in virtual time at the paper's scale: 100 Gb/s, 2-300 us slices (lighthouse experiment fig10 --sim)",
        run: at_scale::fig10::run,
        analyze: at_scale::fig10::analyze,
    },
    Experiment {
        name: "fig13",
        about: "ping RTT steps per slice waited / extra hop on a TO fabric (Fig. 13)",
        run: fig13::run,
        analyze: fig13::analyze,
    },
    Experiment {
        name: "fig9",
        about: "TCP throughput of direct vs VLB vs Clos, tcp_reordering 3 vs 5 (Fig. 9)",
        run: fig9::run,
        analyze: fig9::analyze,
    },
    Experiment {
        name: "otcp",
        about: "incast over persistent connections: FCT and RTOs, default TCP vs OTCP (seed 003)",
        run: otcp::run,
        analyze: otcp::analyze,
    },
    Experiment {
        name: "sopa",
        about: "permutation on a k=4 Fat-Tree: ECMP vs RPS vs SOPA vs Hedera, with a failed link (seed 001)",
        run: sopa::run,
        analyze: sopa::analyze,
    },
    Experiment {
        name: "table3-sweep-sim",
        about: "Table 3's claims that fail on the KV-store trace, swept over the core link utilization (lighthouse experiment table3-sweep --sim)",
        run: tables::sweep::run,
        analyze: tables::sweep::analyze,
    },
];

pub fn find(name: &str) -> anyhow::Result<&'static Experiment> {
    ALL.iter().find(|e| e.name == name).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown experiment {name:?}: one of table2, table3, {}",
            names().join(", ")
        )
    })
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|e| e.name).collect()
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    bar: indicatif::ProgressBar,
}

impl Progress {
    pub fn new(steps: u64, what: &str) -> Progress {
        Progress::styled(
            Some(steps),
            what,
            "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
        )
    }
    /// A spinner with the elapsed time, for work without countable steps.
    pub fn spinner(what: &str) -> Progress {
        Progress::styled(None, what, "{prefix} [{elapsed_precise}] {spinner} {msg}")
    }
    /// Styled before it is first drawn (a spinner never shows a bar).
    fn styled(len: Option<u64>, what: &str, template: &str) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let bar = indicatif::ProgressBar::with_draw_target(len, target);
        if let Ok(s) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(s);
        }
        bar.set_prefix(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar }
    }
    /// A bar that draws nothing (tests, `report`).
    pub fn hidden() -> Progress {
        Progress {
            bar: indicatif::ProgressBar::hidden(),
        }
    }
    /// Counts the elapsed time from `d` ago (work begun before the bar).
    pub fn set_elapsed(&self, d: Duration) {
        self.bar.set_elapsed(d);
    }
    pub fn set_len(&self, n: u64) {
        self.bar.set_length(n);
    }
    pub fn message(&self, m: &str) {
        self.bar.set_message(m.to_string());
    }
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }
    pub fn set_position(&self, n: u64) {
        self.bar.set_position(n);
    }
    /// Runs `f` with the bar cleared, then draws it again: for output
    /// written around the bar, not through [`Progress::line`].
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }
    /// A line above the bar (or on stderr when there is no bar).
    pub fn line(&self, s: &str) {
        if self.bar.is_hidden() {
            let _ = writeln!(std::io::stderr(), "{s}");
        } else {
            self.bar.println(s);
        }
    }
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Where a run's files go by default: `./results/NAME/`.
pub fn default_out(name: &str) -> PathBuf {
    Path::new("results").join(name)
}

/// Creates `dir` and its missing parents, each a real directory owned by
/// us (never through a symlink).
fn make_dirs(dir: &Path) -> anyhow::Result<()> {
    let mut missing = Vec::new();
    let mut p = dir;
    loop {
        match std::fs::symlink_metadata(p) {
            Ok(_) => break,
            Err(_) => missing.push(p.to_path_buf()),
        }
        match p.parent() {
            Some(q) if !q.as_os_str().is_empty() => p = q,
            _ => break,
        }
    }
    for d in missing.iter().rev() {
        lh_emu::kernel::securefs::ensure_dir(d, 0o755)?;
    }
    lh_emu::kernel::securefs::check_own_dir(dir)?;
    Ok(())
}

fn write(path: &Path, data: impl AsRef<[u8]>) -> anyhow::Result<()> {
    let mut f = lh_emu::kernel::securefs::create_file(path, 0o644)?;
    f.write_all(data.as_ref())
        .with_context(|| format!("writing {}", path.display()))
}

/// The printed verdict of `checks`: each claim quoted once above its
/// checks, `[ok]`, `[FAILED]` or `[reported]` per check; whether every
/// asserted check holds.
pub fn verdict(name: &str, checks: &[Check]) -> (String, bool) {
    let mut s = String::new();
    let mut last: Option<Claim> = None;
    for c in checks {
        if c.claim != last {
            if let Some(cl) = &c.claim {
                s += &format!("  {}: \"{}\"\n", cl.source, cl.quote);
            }
            last = c.claim;
        }
        let indent = if c.claim.is_some() { "    " } else { "  " };
        s += &format!("{indent}[{}] {}\n", c.mark(), c.what);
    }
    s += &shape_line(name, checks);
    s.push('\n');
    (s, !checks.iter().any(Check::fails))
}

/// The verdict's last line: `NAME: the paper's shape holds (A claims
/// asserted, R reported only)`, or `does NOT hold`.
pub fn shape_line(name: &str, checks: &[Check]) -> String {
    let ok = !checks.iter().any(Check::fails);
    let asserted: std::collections::BTreeSet<&str> = checks
        .iter()
        .filter(|c| c.asserted)
        .filter_map(|c| c.claim.map(|cl| cl.quote))
        .collect();
    let reported: std::collections::BTreeSet<&str> = checks
        .iter()
        .filter_map(|c| c.claim.map(|cl| cl.quote))
        .filter(|q| !asserted.contains(q))
        .collect();
    format!(
        "{name}: the paper's shape {} ({} claims asserted, {} reported only)",
        if ok { "holds" } else { "does NOT hold" },
        asserted.len(),
        reported.len()
    )
}

/// What [`save_and_show`] analysed and drew (`report --html` shows it
/// again).
struct Shown {
    ok: bool,
    analysis: Analysis,
    svg: String,
}

/// Writes `NAME.csv`, `NAME.svg` and `NAME.png` into `dir` and prints the
/// analysis. The CSV and the SVG are written even when the PNG cannot be
/// (no font), and the error says so.
fn save_and_show(e: &Experiment, data: &Csv, dir: &Path, write_csv: bool) -> anyhow::Result<Shown> {
    let a = (e.analyze)(data)?;
    let svg = plot::svg(&a.chart).map_err(anyhow::Error::msg)?;
    make_dirs(dir)?;
    let csv_path = dir.join(format!("{}.csv", e.name));
    if write_csv {
        write(&csv_path, data.to_text())?;
    }
    let svg_path = dir.join(format!("{}.svg", e.name));
    write(&svg_path, &svg)?;
    let png_path = dir.join(format!("{}.png", e.name));
    let png = plot::png_of_svg(&svg);
    if let Ok(p) = &png {
        write(&png_path, p)?;
    }
    let (v, ok) = verdict(e.name, &a.checks);
    print!("{}\n{v}", a.table);
    match png {
        Ok(_) => println!(
            "wrote {}, {} and {}",
            csv_path.display(),
            svg_path.display(),
            png_path.display()
        ),
        Err(err) => anyhow::bail!(
            "wrote {} and {}, but not {}: {err}",
            csv_path.display(),
            svg_path.display(),
            png_path.display()
        ),
    }
    Ok(Shown {
        ok,
        analysis: a,
        svg,
    })
}

/// `lighthouse experiment NAME`: runs it, writes its CSV and plot into
/// `out` (default `./results/NAME/`), prints the table, the checks and the
/// time taken. `Ok(false)` when the paper's shape does not hold. Nothing is
/// written if the run fails.
pub fn run(name: &str, opts: &Opts, out: Option<PathBuf>) -> anyhow::Result<bool> {
    let e = find(name)?;
    let out = out.unwrap_or_else(|| default_out(name));
    // Refuse an output path we could not use before spending the run on it.
    if let Ok(m) = std::fs::symlink_metadata(&out)
        && !m.is_dir()
    {
        anyhow::bail!("--out {}: not a directory", out.display());
    }
    let t0 = Instant::now();
    let pb = Progress::new(1, e.name);
    let data = (e.run)(opts, &pb);
    pb.finish();
    let data = data?;
    let ok = save_and_show(e, &data, &out, true)?.ok;
    println!(
        "{} took {:.1} s{}",
        e.name,
        t0.elapsed().as_secs_f64(),
        if opts.quick { " (--quick)" } else { "" }
    );
    Ok(ok)
}

/// `lighthouse report DIR [--html FILE]`: re-plots every saved experiment
/// in `DIR` and in its subdirectories (`results/` holds one per
/// experiment), the figures' CSVs and the tables' JSON reports
/// (`table2.json`, `table3.json`), and with `html` writes them all into
/// that one page (docs/experiments.md, "An HTML report"); whether every
/// figure's shape holds.
pub fn report(dir: &Path, html: Option<&Path>) -> anyhow::Result<bool> {
    let mut dirs = vec![dir.to_path_buf()];
    let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|d| d.ok())
        .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
        .map(|d| d.path())
        .collect();
    subs.sort();
    dirs.extend(subs);
    // Refuse an unusable page before rewriting any plot (after DIR, so a
    // missing DIR is named as such, not as the default page's directory).
    if let Some(f) = html {
        html::check_target(f)?;
    }
    let mut found = Vec::new();
    let mut ok = true;
    for d in &dirs {
        for e in &ALL {
            let p = d.join(format!("{}.csv", e.name));
            if !p.is_file() {
                continue;
            }
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            let data = Csv::parse(&text).with_context(|| format!("{}", p.display()))?;
            println!("== {} ({})", e.name, p.display());
            let s =
                save_and_show(e, &data, d, false).with_context(|| format!("{}", p.display()))?;
            ok &= s.ok;
            found.push(html::Section {
                name: e.name,
                about: e.about,
                path: p,
                svg: s.svg,
                table: s.analysis.table,
                checks: Some(s.analysis.checks),
            });
        }
        // Tables 2 and 3: their JSON report, plotted again.
        for (t, about) in tables_plot::ABOUT {
            let p = d.join(format!("{t}.json"));
            if !p.is_file() {
                continue;
            }
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            let v: serde_json::Value =
                serde_json::from_str(&text).with_context(|| format!("{}", p.display()))?;
            println!("== {t} ({})", p.display());
            let drawn = tables_plot::Drawn::of(&v).with_context(|| format!("{}", p.display()))?;
            let wrote = drawn
                .save_beside(&p)
                .with_context(|| format!("{}", p.display()))?;
            println!("wrote {wrote}");
            found.push(html::Section {
                name: t,
                about,
                path: p,
                table: tables_plot::bars_table(&drawn.chart),
                svg: drawn.svg,
                checks: None,
            });
        }
    }
    if found.is_empty() {
        anyhow::bail!(
            "{}: no saved experiment ({}.csv, table2.json, table3.json) here or in its subdirectories",
            dir.display(),
            names().join(".csv, ")
        );
    }
    if let Some(f) = html {
        html::write_page(f, &html::page(dir, &found))?;
        println!("wrote {}", f.display());
    }
    Ok(ok)
}

/// Nearest-rank percentile of unsorted values (the workload's rule).
pub fn pct(v: &[f64], p: f64) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return None;
    }
    let n = s.len();
    let rank = ((p / 100.0) * n as f64).ceil().clamp(1.0, n as f64) as usize;
    Some(s[rank - 1])
}

/// Brings up and starts `cfg` as a live network with static ARP (no ARP
/// traffic waiting for circuits), its output kept off the terminal.
pub(crate) fn live_network(cfg: &lh_ctrl::config::Config) -> anyhow::Result<lh_emu::net::Network> {
    use lh_emu::net::{Network, NetworkOptions};
    let compiled = lh_ctrl::compile::compile(cfg).context("compiling the experiment's config")?;
    let mut opts = NetworkOptions::default();
    opts.net.arp = true;
    let mut net = Network::bring_up(lh_emu::plan::Plan::from_config(cfg), Some(compiled), opts)?;
    net.set_output(Box::new(std::io::sink()));
    net.start()?;
    Ok(net)
}

/// Stops `net`; an error if conservation was violated or teardown failed.
pub(crate) fn stop_network(net: &mut lh_emu::net::Network, pb: &Progress) -> anyhow::Result<()> {
    let prefix = net.prefix.clone();
    let counters = net.fabric().map(|f| f.counters());
    if !net.stop() {
        anyhow::bail!("run {prefix}: packet conservation violated or teardown failed");
    }
    if let Some(c) = counters {
        let late = |q| {
            c.boundary_lateness_quantile_ns(q).map_or("-".into(), |n| {
                if n == u64::MAX {
                    "inf".into()
                } else {
                    (n / 1000).to_string()
                }
            })
        };
        pb.line(&format!(
            "  run {prefix}: before the drain sent {} delivered {} dropped {} deferred {} carried over {}; conservation OK after it; slice boundaries polled late by p50 {} p90 {} p99 {} max {} us",
            c.sent,
            c.delivered,
            c.dropped_total(),
            c.deferred,
            c.carried_over,
            late(0.5),
            late(0.9),
            late(0.99),
            late(1.0)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        let e = find("fig99").err().unwrap().to_string();
        assert!(
            e.contains("fig99") && e.contains("fig10") && e.contains("fig13"),
            "{e}"
        );
    }

    #[test]
    fn the_verdict_quotes_each_claim_once_and_only_asserted_checks_fail_it() {
        const A: Claim = Claim {
            source: "P §1",
            quote: "a holds",
        };
        const B: Claim = Claim {
            source: "P §2",
            quote: "b holds",
        };
        let mut checks = vec![
            Check::sanity("ran".into(), true),
            Check::assert(A, "a1".into(), true),
            Check::report(A, "a2".into()),
            Check::report(B, "b1".into()),
        ];
        let (text, ok) = verdict("x", &checks);
        assert!(ok, "{text}");
        assert_eq!(text.matches("\"a holds\"").count(), 1, "{text}");
        assert!(text.contains("  [ok] ran\n  P §1: \"a holds\"\n    [ok] a1\n    [reported] a2\n  P §2: \"b holds\"\n    [reported] b1"), "{text}");
        assert!(
            text.ends_with("x: the paper's shape holds (1 claims asserted, 1 reported only)\n"),
            "{text}"
        );
        checks[1].holds = false;
        let (text, ok) = verdict("x", &checks);
        assert!(
            !ok && text.contains("[FAILED] a1") && text.contains("does NOT hold"),
            "{text}"
        );
        // A reported check that does not hold still does not fail.
        checks[1].holds = true;
        checks[3].holds = false;
        assert!(verdict("x", &checks).1);
    }

    #[test]
    fn nearest_rank_by_hand() {
        let v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        assert_eq!(pct(&v, 50.0), Some(5.0));
        assert_eq!(pct(&v, 99.0), Some(10.0));
        assert_eq!(pct(&v, 90.0), Some(9.0));
        assert_eq!(pct(&[], 50.0), None);
    }

    #[test]
    fn report_refuses_a_directory_without_results() {
        let d = tempfile::tempdir().unwrap();
        let e = report(d.path(), None).err().unwrap().to_string();
        assert!(e.contains("no saved experiment"), "{e}");
    }
}
