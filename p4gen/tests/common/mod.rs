//! Shared test helpers: paths and tool lookup.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

pub fn fixture() -> lh_p4gen::fixture::Fixture {
    let s = std::fs::read_to_string(repo().join("p4/tests/fixture.json")).unwrap();
    lh_p4gen::fixture::Fixture::from_json(&s).unwrap()
}

/// `p4/build/lighthouse.json`, compiled into a temp dir when p4c-bm2-ss is on
/// PATH (so the test sees the current source), else the committed build
/// output if present; `None` (with the reason) when neither is possible.
pub fn bmv2_json(tmp: &Path) -> Result<PathBuf, String> {
    if on_path("p4c-bm2-ss") {
        let out = tmp.join("lighthouse.json");
        let r = std::process::Command::new("p4c-bm2-ss")
            .args(["--std", "p4-16", "--Werror", "-o"])
            .arg(&out)
            .arg(repo().join("p4/lighthouse.p4"))
            .output()
            .map_err(|e| format!("p4c-bm2-ss: {e}"))?;
        assert!(
            r.status.success() && r.stderr.is_empty(),
            "p4c-bm2-ss failed or warned:\n{}",
            String::from_utf8_lossy(&r.stderr)
        );
        return Ok(out);
    }
    let built = repo().join("p4/build/lighthouse.json");
    if built.is_file() {
        return Ok(built);
    }
    Err("p4c-bm2-ss not on PATH and no p4/build/lighthouse.json".into())
}
