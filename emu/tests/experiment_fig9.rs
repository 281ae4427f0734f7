//! `lighthouse experiment fig9 --quick` through the binary, live (real
//! namespaces, kernel TCP with `tcp_reordering` 3 and 5, the native
//! fabric): the paper's shape must hold, every setting must be in the CSV
//! with its TCP_INFO counters, `report` must re-plot it, and none of the
//! run's namespaces may be left.

mod common;

use common::*;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

#[test]
fn fig9_quick_shows_vlb_and_hybrid_slow_and_reordering_against_clos_and_direct() {
    if skip_unless_root(
        "fig9_quick_shows_vlb_and_hybrid_slow_and_reordering_against_clos_and_direct",
    ) {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let o = Command::new(BIN)
        .args(["experiment", "fig9", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // Our own runs only: the prefixes this run printed.
    let mut ps: Vec<&str> = stderr
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| lh_emu::state::valid_prefix(w))
        .collect();
    ps.sort_unstable();
    ps.dedup();
    assert_eq!(ps.len(), 6, "one run per setting expected:\n{stderr}");
    let left: Vec<String> = lh_namespaces()
        .into_iter()
        .filter(|n| ps.iter().any(|p| n.starts_with(&format!("{p}-"))))
        .collect();
    assert!(left.is_empty(), "namespaces left behind: {left:?}");
    assert!(
        o.status.success(),
        "fig9 --quick failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("fig9: the paper's shape holds"), "{stdout}");
    assert!(
        stdout.contains("[ok] hybrid RotorNet lags direct")
            && stdout.contains("[ok] the hybrid reorders"),
        "{stdout}"
    );
    assert!(stdout.contains("took"), "no timing printed:\n{stdout}");
    // Every setting, both knob values, every flow complete with a throughput.
    let csv = std::fs::read_to_string(out.join("fig9.csv")).unwrap();
    for s in [
        "clos,3,",
        "direct,3,",
        "vlb,3,",
        "vlb,5,",
        "hybrid,3,",
        "hybrid,5,",
    ] {
        let rows: Vec<&str> = csv.lines().filter(|l| l.starts_with(s)).collect();
        assert!(rows.len() >= 4, "{s}: {} rows\n{csv}", rows.len());
        assert!(
            rows.iter()
                .all(|r| r.split(',').nth(7).is_some_and(|f| !f.is_empty())),
            "{s}: a flow without FCT\n{csv}"
        );
    }
    // `report` re-plots from the CSV alone.
    let svg = out.join("fig9.svg");
    std::fs::remove_file(&svg).unwrap();
    let r = Command::new(BIN).arg("report").arg(&out).output().unwrap();
    let rs = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "report failed: {rs}");
    assert!(rs.contains("fig9: the paper's shape holds"), "{rs}");
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}
