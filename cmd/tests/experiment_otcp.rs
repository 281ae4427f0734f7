//! `lighthouse experiment otcp --quick` through the binary, live (real
//! namespaces, the kernel's TCP with its defaults and with OTCP's route
//! metrics, the native fabric with a shallow ToR queue): under incast over
//! pre-opened connections OTCP must cut the tail FCT and the timeouts,
//! every response must be in the CSV with its TCP_INFO counters, `report`
//! must re-plot it, and none of the run's namespaces may be left.

mod common;

use common::*;

#[test]
fn otcp_quick_cuts_tail_fct_and_timeouts_under_incast() {
    if skip_unless_root("otcp_quick_cuts_tail_fct_and_timeouts_under_incast") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    // One run per setting; the checks (tail FCT and RTO counts) hold.
    let (_, stderr) = experiment_quick("otcp", 2, &out);
    // The OTCP run really had the controller's parameters.
    assert!(
        stderr.contains("(otcp): ") && stderr.contains("RTOmin 1 ms"),
        "{stderr}"
    );
    // Both settings, every response with an FCT.
    let csv = std::fs::read_to_string(out.join("otcp.csv")).unwrap();
    for s in ["default,", "otcp,"] {
        let rows: Vec<&str> = csv.lines().filter(|l| l.starts_with(s)).collect();
        assert_eq!(rows.len(), 40 * 8, "{s}: {} rows", rows.len());
        assert!(
            rows.iter()
                .all(|r| r.split(',').nth(4).is_some_and(|f| !f.is_empty())),
            "{s}: a response without FCT\n{csv}"
        );
    }
    // OTCP's CWNDmax reached the sockets (through the metrics cache the
    // warm-up filled): no OTCP response ended above it, default TCP's did.
    let clamp: u32 = stderr
        .split("CWNDmax ")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no CWNDmax printed:\n{stderr}"));
    let cwnds = |s: &str| -> Vec<u32> {
        csv.lines()
            .filter(|l| l.starts_with(s))
            .map(|l| l.split(',').nth(7).unwrap().parse().unwrap())
            .collect()
    };
    assert!(cwnds("otcp,").iter().all(|&c| c <= clamp), "clamp {clamp}");
    assert!(
        cwnds("default,").iter().any(|&c| c > clamp),
        "clamp {clamp}"
    );
    report_replots("otcp", &out);
}
