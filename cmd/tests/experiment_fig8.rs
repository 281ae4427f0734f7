//! `lighthouse experiment fig8 --quick` through the binary, with real runs
//! (namespaces, the kernel's TCP, a real memcached, the ring allreduce, the
//! native fabric): the paper's shape must hold, the CSV and SVG must be
//! written, `report` must re-plot them, and none of the run's namespaces
//! or memcached servers may be left.

mod common;

use common::*;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

#[test]
fn fig8_quick_asserts_the_claims_it_can_show_live_and_reports_the_rest() {
    if skip_unless_root("fig8_quick_asserts_the_claims_it_can_show_live_and_reports_the_rest") {
        return;
    }
    if !lh_emu::net::on_path("memcached") {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"SKIPPED fig8_quick: memcached is not installed (scripts/setup.sh)\n",
        );
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let o = Command::new(BIN)
        .args(["experiment", "fig8", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // Every run's prefix, from its own "fig8: run lhXXXX" lines.
    let ps: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("fig8: run "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ps.len(), 7, "one run per architecture:\n{stderr}");
    assert_no_namespaces_of(&ps);
    for p in &ps {
        let live = live_with_cmdline(&format!("{p}-"));
        assert!(live.is_empty(), "processes of {p} left: {live:?}");
    }
    assert!(
        o.status.success(),
        "fig8 --quick failed ({:?}):\n{stdout}\n{stderr}",
        o.status
    );
    for w in [
        "fig8: the paper's shape holds (2 claims asserted, 5 reported only)",
        "Lighthouse §9.2, case I (Fig. 8): \"RotorNet employs VLB",
        "[ok] Opera's mice below RotorNet-VLB's at the lower quartile",
        "[ok] RotorNet-UCMP's elephants (2 MB) below RotorNet-VLB's",
        "[reported] 2 MB: RotorNet-VLB",
        "[reported] 2 MB: c-Through",
        "[reported] c-Through's mice median",
        "took",
    ] {
        assert!(stdout.contains(w), "{w:?} not in:\n{stdout}");
    }
    let csv = std::fs::read_to_string(out.join("fig8.csv")).unwrap();
    for arch in [
        "RotorNet-VLB",
        "Opera",
        "c-Through",
        "Jupiter",
        "Mordia",
        "Clos",
    ] {
        assert!(
            csv.lines()
                .any(|l| l.starts_with(&format!("{arch},")) && l.contains(",mice,")),
            "no mice rows for {arch}"
        );
        assert!(
            csv.lines()
                .any(|l| l.starts_with(&format!("{arch},")) && l.contains(",elephant,")),
            "no elephant rows for {arch}"
        );
    }
    let svg_path = out.join("fig8.svg");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("Clos"),
        "not the chart"
    );
    report_replots("fig8", &out);
}
