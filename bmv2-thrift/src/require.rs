//! Whether the P4 toolchain must be present, and what a P4 test does when
//! it is not: skip visibly where the toolchain is optional (a laptop
//! without p4lang's packages), fail where it should be there (CI on the
//! build machine, or `LH_REQUIRE_P4=1`), so P4 coverage can never drop to
//! zero while a run stays green. Every P4 test prints one `P4 RAN: NAME`
//! or `SKIPPED NAME: why` line straight to stderr (the harness captures
//! `eprintln!`), which `scripts/test-summary.sh` counts for `make test`.

use crate::toolchain::{Toolchain, ToolchainError, find_on_path, toolchain};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that forces the requirement on (`1`) or off
/// (`0`).
pub const ENV: &str = "LH_REQUIRE_P4";

/// The workplace's prebuilt toolchain beside the checkout
/// (`../shared/toolchains`); when it exists, CI installs from it, so a
/// missing tool is a provisioning failure, not a reason to skip.
pub fn shared_toolchains() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/toolchains")
}

/// Why the toolchain is required, if it is: `env` is the value of
/// [`ENV`], `shared` whether [`shared_toolchains`] exists.
pub fn why_required(env: Option<&str>, shared: bool) -> Option<String> {
    match env.map(str::trim) {
        Some("1") => Some(format!("{ENV}=1")),
        Some("0") => None,
        _ if shared => Some(format!(
            "{} exists, so provisioning installs it",
            shared_toolchains().display()
        )),
        _ => None,
    }
}

/// [`why_required`] for this process.
pub fn required() -> Option<String> {
    why_required(
        std::env::var(ENV).ok().as_deref(),
        shared_toolchains().is_dir(),
    )
}

/// What a test that needs tools does: run, skip, or fail.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    Run,
    Skip(String),
    Fail(String),
}

/// The decision for `test` when its tools are `missing` (empty: all
/// there), given why they are required (None: optional).
pub fn decide(test: &str, missing: &[&str], required: Option<&str>) -> Decision {
    if missing.is_empty() {
        return Decision::Run;
    }
    let what = format!("{} not found on PATH", missing.join(" and "));
    match required {
        Some(why) => Decision::Fail(format!(
            "{test}: {what}, but the P4 toolchain is required here ({why}); \
             run `bash scripts/setup-p4.sh` as root, or set {ENV}=0 to allow skipping"
        )),
        None => Decision::Skip(format!("SKIPPED {test}: {what}")),
    }
}

fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// For a P4 test named `test` that needs simple_switch and p4c-bm2-ss plus
/// the `extra` programs: `Some(toolchain)` after printing `P4 RAN: test`;
/// `None` after printing `SKIPPED test: why` where the toolchain is
/// optional. Panics where it is required and missing.
pub fn p4_test(test: &str, extra: &[&str]) -> Option<Toolchain> {
    let found = toolchain();
    let mut missing: Vec<&str> = match &found {
        Ok(_) => Vec::new(),
        Err(ToolchainError::Missing { missing }) => missing.clone(),
    };
    missing.extend(extra.iter().filter(|t| find_on_path(t).is_none()));
    match decide(test, &missing, required().as_deref()) {
        Decision::Run => {
            say(&format!("P4 RAN: {test}"));
            found.ok()
        }
        Decision::Skip(line) => {
            say(&line);
            None
        }
        Decision::Fail(msg) => panic!("{msg}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_requirement_follows_the_variable_then_the_shared_folder() {
        assert!(
            why_required(Some("1"), false)
                .unwrap()
                .contains("LH_REQUIRE_P4=1")
        );
        assert!(why_required(Some("1"), true).is_some());
        assert_eq!(why_required(Some("0"), true), None);
        assert!(
            why_required(None, true)
                .unwrap()
                .contains("shared/toolchains")
        );
        assert!(why_required(Some(""), true).is_some());
        assert_eq!(why_required(None, false), None);
        assert_eq!(why_required(Some("yes"), false), None);
    }

    /// Through the process's own environment: with the toolchain on PATH
    /// (CI) the test runs; a missing tool fails it where the toolchain is
    /// required and skips it elsewhere.
    #[test]
    fn p4_test_runs_skips_or_fails_by_this_machine() {
        if toolchain().is_ok() {
            assert!(p4_test("require_unit", &[]).is_some());
        }
        let missing = || p4_test("require_unit", &["lh-no-such-tool"]);
        match required() {
            Some(_) => assert!(std::panic::catch_unwind(missing).is_err()),
            None => assert!(missing().is_none()),
        }
    }

    #[test]
    fn a_missing_tool_skips_when_optional_and_fails_when_required() {
        assert_eq!(decide("t", &[], Some("CI")), Decision::Run);
        assert_eq!(decide("t", &[], None), Decision::Run);
        assert_eq!(
            decide("t", &["p4c-bm2-ss"], None),
            Decision::Skip("SKIPPED t: p4c-bm2-ss not found on PATH".into())
        );
        match decide(
            "t",
            &["simple_switch", "p4c-bm2-ss"],
            Some("LH_REQUIRE_P4=1"),
        ) {
            Decision::Fail(m) => assert!(
                m.contains("simple_switch and p4c-bm2-ss not found")
                    && m.contains("required here (LH_REQUIRE_P4=1)"),
                "{m}"
            ),
            d => panic!("{d:?}"),
        }
    }
}
