//! Every conformance case on the native ToR (swtor), always.

use lh_conformance::case::matches;

#[test]
fn every_case_passes_on_the_native_tor() {
    let only = std::env::var("LH_CASE").ok();
    let mut failures = Vec::new();
    let mut n = 0;
    for case in lh_conformance::shipped_cases().unwrap() {
        if only
            .as_ref()
            .is_some_and(|o| !case.name.contains(o.as_str()))
        {
            continue;
        }
        let got =
            lh_conformance::native::run(&case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for e in &case.expect {
            let o = &got.iter().find(|(id, _)| *id == e.id).unwrap().1;
            n += 1;
            if !matches(e, o) {
                failures.push(format!("{} / {}: expected {e}, got {o}", case.name, e.id));
            }
        }
    }
    assert!(n > 0);
    assert!(
        failures.is_empty(),
        "native mismatches:\n{}",
        failures.join("\n")
    );
}
