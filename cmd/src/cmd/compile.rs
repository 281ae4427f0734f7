//! `lighthouse compile` and `lighthouse show`: the controller pipeline from
//! the command line.

use anyhow::{Context, Result, bail};
use lh_ctrl::compile::{Compiled, compile_with_progress};
use lh_ctrl::config::Config;
use lh_ctrl::estimate;
use lh_ctrl::{SliceId, TorId};
use std::path::Path;

/// The memory limit for compiling: `--max-memory` if given, else the
/// machine's available memory (no limit if that is unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryLimit(pub Option<u64>);

impl MemoryLimit {
    /// Refuse `cfg` before compiling when its estimate exceeds the limit.
    pub fn check(self, cfg: &Config, use_: estimate::Use) -> Result<estimate::Estimate> {
        let (limit, from) = match self.0 {
            Some(b) => (b, "--max-memory".to_string()),
            None => match estimate::available_memory() {
                Some(b) => (
                    b,
                    "the memory available on this machine; --max-memory sets another limit"
                        .to_string(),
                ),
                None => (u64::MAX, String::new()),
            },
        };
        Ok(estimate::check(cfg, use_, limit, &from)?)
    }
}

/// Load, check the resource estimate, and compile, with a progress line
/// while it works (on a terminal).
pub fn load_and_compile(config: &Path, limit: MemoryLimit) -> Result<Compiled> {
    let cfg = Config::load(config)?;
    limit.check(&cfg, estimate::Use::Compile)?;
    // A spinner with the stage and the elapsed time, drawn on a terminal
    // only (indicatif's hidden target elsewhere).
    let bar = lh_experiments::Progress::spinner("compile");
    let compiled = compile_with_progress(&cfg, |stage| bar.message(&format!("{stage}...")));
    bar.finish();
    compiled.with_context(|| format!("compiling {}", config.display()))
}

fn write_json(dir: &Path, name: &str, v: &impl serde::Serialize) -> Result<()> {
    let p = dir.join(name);
    // Compile output is meant to be read by others: 0644, but never written
    // through a symlink or into a directory other users can write.
    let f = lh_emu::kernel::securefs::create_file(&p, lh_emu::kernel::securefs::READABLE_MODE)?;
    let mut w = std::io::BufWriter::new(f);
    serde_json::to_writer(&mut w, v).with_context(|| format!("writing {}", p.display()))?;
    std::io::Write::flush(&mut w).with_context(|| format!("writing {}", p.display()))
}

/// `--htsim-topology FILE`: the fabric in the Opera authors' simulator's
/// topology format (`lh_ctrl::htsim`). Written whole or not at all: a
/// fabric with no form in it is refused before the file exists.
fn write_htsim(c: &Compiled, p: &Path) -> Result<()> {
    let mut buf = Vec::new();
    let w = lh_ctrl::htsim::write_topology(c, &mut buf)
        .with_context(|| format!("--htsim-topology {}", p.display()))?;
    let mut f = lh_emu::kernel::securefs::create_file(p, lh_emu::kernel::securefs::READABLE_MODE)?;
    std::io::Write::write_all(&mut f, &buf).with_context(|| format!("writing {}", p.display()))?;
    let [eps, delta, r] = w.eps_delta_r_ps.map(|ps| ps as f64 / 1e6);
    println!(
        "htsim         {}: {} slices x 3 (eps {eps} us, delta {delta} us, r {r} us), {} paths; \
         {} waiting for a later slice and {} pairs without a path left out",
        p.display(),
        w.slices,
        w.paths,
        w.waiting,
        w.missing
    );
    Ok(())
}

/// How `--out` writes the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    /// JSON for small fabrics (up to [`JSON_AUTO_ENTRIES`] entries), else binary.
    Auto,
    /// `tables.json`: the expanded form (docs/tables.md).
    Json,
    /// `tables.lht`: the compact form (docs/compile-format.md).
    Binary,
}

/// Most entries `--format auto` writes as JSON.
pub const JSON_AUTO_ENTRIES: usize = 50_000;

/// `lighthouse compile CONFIG [--out DIR] [--htsim-topology FILE]`: the
/// summary, and with `--out` the schedule, OCS circuits, tables and summary
/// as files.
pub fn compile_cmd(
    config: &Path,
    out: Option<&Path>,
    format: OutFormat,
    limit: MemoryLimit,
    htsim: Option<&Path>,
) -> Result<()> {
    let c = load_and_compile(config, limit)?;
    let summary = c.summary();
    println!("{summary}");
    println!("estimate      {}", estimate::estimate(&c.config));
    if let Some(p) = htsim {
        write_htsim(&c, p)?;
    }
    if let Some(dir) = out {
        // 0755 at most (the umask only clears bits): a directory made
        // under umask 000 must not be one other users can write into.
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o755)
            .create(dir)
            .with_context(|| format!("creating {}", dir.display()))?;
        let ocs = c.schedule.verify(&c.config)?;
        write_json(dir, "schedule.json", &c.schedule)?;
        write_json(dir, "ocs.json", &ocs)?;
        let binary = match format {
            OutFormat::Json => false,
            OutFormat::Binary => true,
            OutFormat::Auto => c.tables.total_entries() > JSON_AUTO_ENTRIES,
        };
        let tables = if binary {
            let p = dir.join("tables.lht");
            let f =
                lh_emu::kernel::securefs::create_file(&p, lh_emu::kernel::securefs::READABLE_MODE)?;
            lh_ctrl::tables::file::write_file(&c.tables, &f)
                .with_context(|| format!("writing {}", p.display()))?;
            "tables.lht"
        } else {
            write_json(dir, "tables.json", &c.tables.to_tables())?;
            "tables.json"
        };
        write_json(dir, "summary.json", &summary)?;
        let p = dir.join("summary.txt");
        let mut f =
            lh_emu::kernel::securefs::create_file(&p, lh_emu::kernel::securefs::READABLE_MODE)?;
        std::io::Write::write_all(&mut f, format!("{summary}\n").as_bytes())
            .with_context(|| format!("writing {}", p.display()))?;
        println!(
            "wrote schedule.json, ocs.json, {tables}, summary.json, summary.txt to {}",
            dir.display()
        );
    }
    // The command ends here and the process with it: handing the pages
    // back one allocation at a time costs more than the kernel's unmapping
    // at exit (opera-108 ucmp: ~3% of the CPU time).
    std::mem::forget(c);
    Ok(())
}

/// `lighthouse show CONFIG --tor N | --slice S`.
pub fn show_cmd(
    config: &Path,
    tor: Option<TorId>,
    slice: Option<SliceId>,
    limit: MemoryLimit,
) -> Result<()> {
    let c = load_and_compile(config, limit)?;
    match (tor, slice) {
        (Some(t), _) => match lh_emu::text::view::table_text(&c, t) {
            Some(text) => print!("{text}"),
            None => bail!(
                "ToR {t} does not exist (ToRs are 0..{})",
                c.tables.tors.len()
            ),
        },
        (None, Some(ts)) => {
            if ts as usize >= c.schedule.slices() {
                bail!(
                    "slice {ts} does not exist (the cycle has {} slices)",
                    c.schedule.slices()
                );
            }
            print!("{}", lh_emu::text::view::slice_text(&c, ts));
        }
        (None, None) => bail!("say what to show: --tor N or --slice S"),
    }
    Ok(())
}
