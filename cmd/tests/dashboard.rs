//! `lighthouse run --dashboard` at the edges: a port already in use and a
//! bad address are clear errors at start, and the run leaves nothing
//! behind (the page itself: python/tests/test_dashboard.py).

mod common;

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn run_with(addr: &str, prefix: &str) -> std::process::Output {
    Command::new(BIN)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["run", "topologies/rotornet-8.json", "--test", "build"])
        .args(["--prefix", prefix, "--dashboard", addr])
        .output()
        .expect("run lighthouse")
}

#[test]
fn a_port_in_use_is_a_clear_error_and_leaves_nothing() {
    if common::skip_unless_root("a_port_in_use_is_a_clear_error_and_leaves_nothing") {
        return;
    }
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let prefix = common::free_prefix();
    let out = run_with(&addr, &prefix);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!("--dashboard {addr}: address already in use")),
        "{err}"
    );
    // Refused before the network existed.
    assert!(!err.contains("*** Run "), "{err}");
    assert!(common::namespaces_of(&prefix).is_empty());
    assert!(!lh_emu::kernel::state::run_dir(&prefix).exists());

    // Free, the same address serves the run and prints its URL.
    drop(taken);
    let out = run_with(&addr, &prefix);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("*** Dashboard: http://{addr}/")),
        "{err}"
    );
    assert!(common::namespaces_of(&prefix).is_empty());
}

#[test]
fn a_bad_address_is_a_clear_error_and_leaves_nothing() {
    if common::skip_unless_root("a_bad_address_is_a_clear_error_and_leaves_nothing") {
        return;
    }
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let prefix = common::free_prefix();
    // Not an address, a port out of range, an address not on this machine.
    for bad in ["nonsense", "127.0.0.1:99999", "203.0.113.9:8001"] {
        let out = run_with(bad, &prefix);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad}: {err}");
        assert!(
            err.contains(&format!("lighthouse: error: --dashboard {bad}: ")),
            "{bad}: {err}"
        );
        assert!(!err.contains("*** Run "), "{bad}: {err}");
        assert!(common::namespaces_of(&prefix).is_empty());
    }
}
