//! `pingall` at a scale where the old one failed (root): 48 hosts, each
//! row's pings in flight together. Before, the kernel's shared ARP table
//! (1024 entries by default for all namespaces) overflowed after about 12
//! rows and later pings were lost before they reached the fabric; the run
//! now raises the limits like Mininet's `fixLimits`.

mod common;

use common::*;

const OPERA48: &str = r#"{
  "name": "opera-48",
  "mode": "TO",
  "tors": { "count": 48, "uplinks": 6, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps" },
  "ocs": { "count": 6, "ports": 48, "reconfiguration_delay": "10us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "10us", "propagation": "1us" },
  "topology": { "kind": "opera", "seed": 1 },
  "routing": { "algorithm": "opera", "lookup": "source", "same_slice_hops": true }
}"#;

const THRESH: &str = "/proc/sys/net/ipv4/neigh/default/gc_thresh";

#[test]
fn pingall_of_48_hosts_loses_nothing_and_prints_mininets_rows() {
    if skip_unless_root("pingall_of_48_hosts_loses_nothing_and_prints_mininets_rows") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // The kernel's defaults, as on a fresh machine (an earlier run may have
    // raised them; lowering is safe: live entries are kept).
    for (k, v) in [(1, 128), (2, 512), (3, 1024)] {
        std::fs::write(format!("{THRESH}{k}"), v.to_string()).unwrap();
    }
    let err = run_config_test(OPERA48, "pingall");
    assert!(
        err.contains("*** Results: 0% dropped (2256/2256 received)"),
        "{err}"
    );
    assert!(err.contains("conservation OK"), "{err}");
    // Mininet's rows: one per source in order, destinations in order.
    let rows: Vec<&str> = err.lines().filter(|l| l.contains(" -> ")).collect();
    assert_eq!(rows.len(), 48, "{err}");
    for (i, row) in rows.iter().enumerate() {
        let want: Vec<String> = (1..=48)
            .filter(|&j| j != i + 1)
            .map(|j| format!("h{j}"))
            .collect();
        assert_eq!(row.trim_end(), format!("h{} -> {}", i + 1, want.join(" ")));
    }
    let t3: u64 = std::fs::read_to_string(format!("{THRESH}3"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(t3 >= 2 * 48 * 48, "gc_thresh3 {t3} not raised");
}

/// A bar for the bring-up and the pingall on a terminal (the library
/// reports steps, the binary draws them), the rows intact above it; none
/// when stderr is not a terminal.
#[test]
fn bring_up_and_pingall_draw_a_bar_on_a_terminal_only() {
    if skip_unless_root("bring_up_and_pingall_draw_a_bar_on_a_terminal_only") {
        return;
    }
    let (ok, tty) = on_terminal("run topologies/rotornet-8.json --test pingall");
    assert!(ok, "{tty}");
    assert!(tty.contains("bring-up ["), "{tty}");
    assert!(tty.contains("pingall ["), "{tty}");
    // Each row is whole after the bar's line is cleared.
    for k in 1..=16 {
        let row = format!("h{k} -> ");
        let line = tty
            .lines()
            .find(|l| l.contains(&row))
            .unwrap_or_else(|| panic!("{row}: {tty}"));
        let rest = &line[line.find(&row).unwrap() + row.len()..];
        assert_eq!(rest.split_whitespace().count(), 15, "{line:?}");
    }
    assert!(
        tty.contains("*** Results: 0% dropped (240/240 received)"),
        "{tty}"
    );
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["run", "topologies/rotornet-8.json", "--test", "pingall"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success() && err.contains("h1 -> "), "{err}");
    assert!(
        !err.contains("pingall [") && !err.contains("bring-up ["),
        "{err}"
    );
}
