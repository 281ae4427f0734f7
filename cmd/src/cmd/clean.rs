//! `lighthouse clean`: remove the kernel objects, processes and state of
//! lighthouse runs (all, one prefix, or the stale ones).

use crate::{is_root, say};
use lh_emu::kernel::state;
use lh_emu::run::clean;
use std::process::ExitCode;

pub fn clean_cmd(prefix: Option<String>, stale: bool) -> anyhow::Result<ExitCode> {
    if let Some(p) = &prefix
        && !state::valid_prefix(p)
    {
        anyhow::bail!("invalid prefix {p:?}: expected lh + 4 hex digits, e.g. lh3f2a");
    }
    if !is_root() {
        anyhow::bail!("`lighthouse clean` needs root (network namespaces)");
    }
    let scope = match (&prefix, stale) {
        (Some(p), _) => clean::Scope::Prefix(p),
        (None, true) => clean::Scope::Stale,
        (None, false) => clean::Scope::All,
    };
    say!(
        "*** Removing {}lighthouse runs{}",
        if stale { "dead " } else { "" },
        prefix
            .as_ref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default()
    );
    let rep = clean::clean_with(scope, &mut |l| say!("{l}"));
    for l in rep.lines() {
        say!("{l}");
    }
    say!("*** Cleanup complete.");
    Ok(if rep.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
