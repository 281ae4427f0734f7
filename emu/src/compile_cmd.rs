//! `lighthouse compile` / `lighthouse show`: left to the integrator.

use std::path::Path;

/// Compile a config and print/write what `lighthouse compile` promises.
pub fn compile_cmd(config: &Path, out: Option<&Path>, show: bool) -> anyhow::Result<()> {
    let cfg = lh_ctrl::config::Config::load(config)?;
    let c = lh_ctrl::compile::compile(&cfg)?;
    let _ = (out, show, c);
    anyhow::bail!("`compile`/`show` output is not implemented yet")
}
