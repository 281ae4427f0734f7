//! `lighthouse experiment fig9 --quick` through the binary, live (real
//! namespaces, kernel TCP with `tcp_reordering` 3 and 5, the native
//! fabric): the paper's shape must hold (with the dupack hybrid's
//! reordering gone at 5, and its throughput at 5 reported), every setting
//! must be in the CSV
//! with its TCP_INFO counters, `report` must re-plot it, and none of the
//! run's namespaces may be left.

mod common;

use common::*;

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
    // One run per setting, none of their namespaces left, the shape holds.
    let (stdout, _) = experiment_quick("fig9", 8, &out);
    assert!(
        stdout.contains("[ok] hybrid RotorNet lags direct")
            && stdout.contains("[ok] the hybrid reorders")
            && stdout.contains("[ok] tcp_reordering 5 almost eliminates")
            && stdout.contains("[reported] the dupack hybrid at tcp_reordering 3 -> 5"),
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
        "dupack,3,",
        "dupack,5,",
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
    report_replots("fig9", &out);
}
