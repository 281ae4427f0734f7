//! `flows` through the binary (root): trace-driven flows over the kernel's
//! TCP on a real optical fabric, their FCT summary and CSV, and bad input.

mod common;

use common::*;
use std::process::Command;

#[test]
fn flows_complete_with_an_fct_summary_and_a_csv() {
    if skip_unless_root("flows_complete_with_an_fct_summary_and_a_csv") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("f.csv");
    let script = dir.path().join("s.lh");
    std::fs::write(
        &script,
        format!(
            "flows kvstore all-to-all 0.01 1 flows=60 seed=3 csv={}\nflows bogus permutation 0.1 1\nflows websearch permutation 2 1\nflows websearch permutation 0.1\nflows websearch ring 0.1 1\n",
            csv.display()
        ),
    )
    .unwrap();
    let cfg =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    let out = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .args([
            "run",
            cfg.to_str().unwrap(),
            "--prefix",
            &prefix,
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("*** Flows: 60 kvstore flows"), "{err}");
    assert!(err.contains("60 of 60 flows completed"), "{err}");
    let mice = err
        .lines()
        .find(|l| l.starts_with("mice "))
        .unwrap_or_else(|| panic!("{err}"));
    let cols: Vec<&str> = mice.split_whitespace().collect();
    assert_eq!(cols[1..3], ["60", "60"], "{mice}");
    let p50: f64 = cols[3].parse().unwrap();
    assert!(p50 > 0.0 && p50 < 1000.0, "{mice}");
    // Bad input: one clear line each, and the run goes on.
    assert!(
        err.contains("*** Error: flows: unknown workload \"bogus\""),
        "{err}"
    );
    assert!(
        err.contains("*** Error: flows: bad load 2: a fraction in (0, 1]"),
        "{err}"
    );
    assert!(
        err.contains("*** Error: flows: usage: flows WORKLOAD PATTERN LOAD SECONDS"),
        "{err}"
    );
    assert!(
        err.contains("*** Error: flows: unknown pattern \"ring\""),
        "{err}"
    );
    assert!(err.contains("(conservation OK)"), "{err}");
    // The CSV: a header and one completed row per flow.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 61);
    assert!(rows[0].starts_with("id,src,dst,size_bytes,start_ns,fct_ns"));
    assert!(
        rows[1..]
            .iter()
            .all(|r| r.split(',').nth(5).is_some_and(|f| !f.is_empty()))
    );
    assert!(!lh_namespaces().iter().any(|n| n.starts_with(&prefix)));
}
