//! `lighthouse experiment sopa --quick` through the binary, live (real
//! namespaces, the kernel's TCP with fast-retransmit threshold 3 and 10,
//! host NICs paced by tbf, the fat tree's switches): on a permutation SOPA
//! must reorder and retransmit less than RPS, and ECMP must be the slowest,
//! losing throughput to hash collisions (the rest is reported); every flow
//! of every setting must be in the CSV, the failed-link runs must have lost
//! the link, `report` must re-plot it, and no namespace of the runs may be
//! left.

mod common;

use common::*;

#[test]
fn sopa_quick_reorders_less_than_rps_and_beats_ecmp() {
    if skip_unless_root("sopa_quick_reorders_less_than_rps_and_beats_ecmp") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let (stdout, stderr) = experiment_quick("sopa", 6, &out);
    assert!(stdout.contains("took"), "no timing printed:\n{stdout}");
    // Every setting with its 16 flows, each with an FCT.
    let csv = std::fs::read_to_string(out.join("sopa.csv")).unwrap();
    for s in [
        "ecmp,3,0,",
        "hedera,3,0,",
        "rps,3,0,",
        "sopa,10,0,",
        "rps,3,1,",
        "sopa,10,1,",
    ] {
        let rows: Vec<&str> = csv.lines().filter(|l| l.starts_with(s)).collect();
        assert_eq!(rows.len(), 16, "{s}: {} rows\n{csv}", rows.len());
        assert!(
            rows.iter()
                .all(|r| r.split(',').nth(8).is_some_and(|f| !f.is_empty())),
            "{s}: a flow without FCT\n{csv}"
        );
    }
    // The failure runs lost a1-c1 before their traffic.
    assert_eq!(
        stderr.matches("sopa: link a1-c1 down").count(),
        2,
        "{stderr}"
    );
    // Every run kept exact packet conservation.
    assert_eq!(stderr.matches("conservation OK").count(), 6, "{stderr}");
    report_replots("sopa", &out);
}
