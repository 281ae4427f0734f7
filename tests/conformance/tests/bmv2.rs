//! Every conformance case on the Lighthouse P4 program in stock BMv2.
//! Skips visibly without root or without simple_switch / p4c-bm2-ss.

use lh_conformance::bmv2::{Bmv2Target, compile};
use lh_conformance::case::matches;
use std::path::Path;
use std::time::Duration;

#[test]
fn every_case_passes_on_bmv2() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!("SKIP: every_case_passes_on_bmv2: needs root (network namespaces)\n"),
        );
        return;
    }
    if bmv2_thrift::require::p4_test("every_case_passes_on_bmv2", &[]).is_none() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let work = tempfile::tempdir_in("/run").unwrap();
    let json = compile(&root.join("p4/lighthouse.p4"), work.path()).expect("p4c-bm2-ss");
    let t = Bmv2Target {
        json,
        work: work.path().join("sw"),
        settle: Duration::from_secs(3),
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    let only = std::env::var("LH_CASE").ok();
    for case in lh_conformance::shipped_cases().unwrap() {
        if only
            .as_ref()
            .is_some_and(|o| !case.name.contains(o.as_str()))
        {
            continue;
        }
        ran += 1;
        let got = t
            .run(&case)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for e in &case.expect {
            let o = &got.iter().find(|(id, _)| *id == e.id).unwrap().1;
            eprintln!("{} / {}: {o}", case.name, e.id);
            if !matches(e, o) {
                failures.push(format!("{} / {}: expected {e}, got {o}", case.name, e.id));
            }
        }
    }
    // A filter or an empty cases.json must not pass as "no mismatches".
    assert!(
        ran > 0,
        "no conformance case ran (LH_CASE={:?}, tests/conformance/cases.json)",
        only
    );
    assert!(
        failures.is_empty(),
        "BMv2 mismatches:\n{}",
        failures.join("\n")
    );
}
