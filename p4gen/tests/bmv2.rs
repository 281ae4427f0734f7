//! The generated entries on a real simple_switch: p4/tests/bmv2_cases.py
//! (direct hop, source push, transit pop, proxy ARP, local delivery,
//! alternate on a full queue, slice-miss deferral, the slice clock (run forward, late rotation), flow and
//! packet buckets, UCMP class, bad header, active-queue drain). Needs root, simple_switch(_CLI), p4c-bm2-ss
//! (or p4/build/lighthouse.json) and python3; skips visibly otherwise.

mod common;

use lh_p4gen::Target;
use std::process::Command;

#[test]
fn fixture_cases_pass_on_simple_switch() {
    if unsafe { libc_geteuid() } != 0 {
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!("SKIPPED fixture_cases_pass_on_simple_switch: needs root (netns, veth)\n"),
        );
        return;
    }
    // Skips visibly, or fails where the toolchain is required (CI).
    let tools = ["simple_switch_CLI", "python3", "ip"];
    if bmv2_thrift::require::p4_test("fixture_cases_pass_on_simple_switch", &tools).is_none() {
        return;
    }
    let tmp = tempfile::Builder::new()
        .prefix("wt-p4-bmv2-")
        .tempdir()
        .unwrap();
    let json = match common::bmv2_json(tmp.path()) {
        Ok(p) => p,
        Err(why) => {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("SKIPPED fixture_cases_pass_on_simple_switch: {why}\n"),
            );
            return;
        }
    };
    let cli = tmp.path().join("tor0.cli");
    std::fs::write(
        &cli,
        common::fixture().program(Target::Bmv2).unwrap().to_cli(),
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(common::repo().join("p4/tests/bmv2_cases.py"))
        .arg("--json")
        .arg(&json)
        .arg("--cli")
        .arg(&cli)
        .arg("--log-dir")
        .arg(tmp.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "BMv2 cases failed (switch log kept in {:?})",
        tmp.keep()
    );
    // Per line: the log directory's random name may itself contain "FAIL".
    assert!(
        text.contains("cases passed") && !text.lines().any(|l| l.starts_with("FAIL")),
        "{text}"
    );
}

unsafe extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}
