//! Guardband-aware routing end to end (root): with a guardband that leaves
//! less than one frame in the reconfiguring rotor's slice, routing avoids
//! those circuits and `lighthouse run … --test pingall` loses nothing.

mod common;

use common::*;

const OPERA8_DARK: &str = r#"{
  "name": "opera-8, 99us guardband in 100us slices",
  "mode": "TO",
  "tors": { "count": 8, "uplinks": 4, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps" },
  "ocs": { "count": 4, "ports": 8, "reconfiguration_delay": "1us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "99us", "propagation": "1us" },
  "topology": { "kind": "opera", "seed": 1 },
  "routing": { "algorithm": "hoho", "lookup": "hop", "same_slice_hops": true }
}"#;

#[test]
fn pingall_loses_nothing_when_routing_avoids_dark_circuits() {
    if skip_unless_root("pingall_loses_nothing_when_routing_avoids_dark_circuits") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let err = run_config_test(OPERA8_DARK, "pingall");
    assert!(
        err.contains("*** Results: 0% dropped (56/56 received)"),
        "{err}"
    );
    assert!(err.contains("conservation OK"), "{err}");
}
