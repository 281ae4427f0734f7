//! CI cannot go green with the P4 tests skipped: `scripts/check-p4.sh`
//! (run by provisioning and `make test`) and `scripts/test-summary.sh`
//! (the closing lines of `make test`) fail where the toolchain is required
//! and missing, and only there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(name)
}

/// Runs a script under bash with `path` as PATH and LH_REQUIRE_P4 as given.
fn run(name: &str, args: &[&str], path: &Path, require: Option<&str>) -> Output {
    let mut c = Command::new("/bin/bash");
    c.arg(script(name)).args(args).env("PATH", path);
    match require {
        Some(v) => c.env("LH_REQUIRE_P4", v),
        None => c.env_remove("LH_REQUIRE_P4"),
    };
    c.output().expect("run bash")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_required_but_missing_toolchain_fails_provisioning() {
    let empty = tempfile::tempdir().unwrap();
    let o = run("check-p4.sh", &[], empty.path(), Some("1"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("simple_switch p4c-bm2-ss not found")
            && text(&o).contains("required here (LH_REQUIRE_P4=1)"),
        "{}",
        text(&o)
    );
    // Optional: a warning and success.
    let o = run("check-p4.sh", &[], empty.path(), Some("0"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("WARNING"), "{}", text(&o));
}

#[test]
fn a_present_toolchain_passes_the_check() {
    // Stand-in executables named like the tools: the check only looks
    // them up on PATH (the P4 tests then run the real ones).
    let bin = tempfile::tempdir().unwrap();
    for t in ["simple_switch", "p4c-bm2-ss"] {
        let p = bin.path().join(t);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let o = run("check-p4.sh", &[], bin.path(), Some("1"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn the_summary_counts_p4_tests_and_fails_when_none_ran_where_required() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("test.log");
    let results = "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured\n\
                   test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured\n";
    std::fs::write(
        &log,
        format!(
            "P4 RAN: a\ntest b ... P4 RAN: b\nok\ntest x ... SKIP x: needs root\nok\n{results}"
        ),
    )
    .unwrap();
    let path = Path::new("/usr/bin:/bin");
    let o = run("test-summary.sh", &[log.to_str().unwrap()], path, Some("1"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("P4 tests: 2 ran, 0 skipped"), "{t}");
    assert!(t.contains("tests: 7 passed, 0 failed, 1 skipped"), "{t}");
    // Every P4 test skipped: green only where the toolchain is optional.
    std::fs::write(
        &log,
        format!("SKIPPED t: simple_switch and p4c-bm2-ss not found on PATH\n{results}"),
    )
    .unwrap();
    let o = run("test-summary.sh", &[log.to_str().unwrap()], path, Some("1"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("P4 tests: 0 ran, 1 skipped"),
        "{}",
        text(&o)
    );
    let o = run("test-summary.sh", &[log.to_str().unwrap()], path, Some("0"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // cargo's own failure is passed on.
    let o = run(
        "test-summary.sh",
        &[log.to_str().unwrap(), "101"],
        path,
        Some("0"),
    );
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
}
