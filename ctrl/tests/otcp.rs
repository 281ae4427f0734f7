//! OTCP facts and parameters on shipped fabrics (ctrl/src/otcp.rs).

use lh_ctrl::config::Config;
use lh_ctrl::units::Nanos;
use serde_json::{Value, json};

fn compiled(file: &str, otcp: Value) -> lh_ctrl::compile::Compiled {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../topologies")
        .join(file);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["hosts"] = json!({"tcp": {"otcp": otcp}});
    let cfg = Config::from_json(&v.to_string(), file).expect("valid config");
    lh_ctrl::compile::compile(&cfg).expect("compiles")
}

#[test]
fn electrical_fabric_routes_have_no_circuit_wait() {
    let c = compiled("clos-8.json", json!({"fan_in": 4, "host_overhead": "30us"}));
    let t = lh_ctrl::otcp::table(&c).expect("otcp on");
    // h1 -> h3: ToR s1 -> s2 over one spine hop, 1 Gb/s everywhere, 1 us
    // propagation. Data frame 1514 B: 12.112 us per link, three links;
    // ACK 66 B: 0.528 us per link; 30 us overhead each way.
    let (f, p) = t.for_hosts(0, 2);
    assert_eq!(f.fabric_hops, 1);
    assert_eq!(f.wait_max, Nanos(0));
    assert_eq!(f.rtt_base, f.route_latency);
    let want = 3 * 12_112 + 1_000 + 3 * 528 + 1_000 + 60_000;
    assert_eq!(f.route_latency, Nanos(want));
    // Buffers: the uplink calendar queue (8 slices of 100 us at 1 Gb/s)
    // + the host port (4 MiB).
    assert_eq!(c.config.queue_capacity_bytes(), 100_000);
    assert_eq!(f.buffer_bytes, 100_000 + (4 << 20));
    assert_eq!(p.rto_min_ms, 1);
    assert_eq!(p.rto_max, Nanos(want + 800_000 + 33_554_432));
    // BDP = 1 Gb/s x 99.92 us = 12490 B = 8 segments of 1460 B.
    assert_eq!((p.cwnd_max, p.iw, p.initrwnd), (8, 2, 8));
    // Hosts of one ToR: two host links, no fabric hop.
    let (f, _) = t.for_hosts(0, 1);
    assert_eq!((f.fabric_hops, f.buffer_bytes), (0, 4 << 20));
    assert_eq!(f.route_latency, Nanos(2 * 12_112 + 2 * 528 + 60_000));
    assert_eq!(t.socket_rto_max_ms, 1000, "raised to the kernel's minimum");
}

#[test]
fn rotor_fabric_routes_include_the_circuit_wait() {
    let c = compiled("rotornet-8.json", json!({"fan_in": 8}));
    let t = lh_ctrl::otcp::table(&c).expect("otcp on");
    let cycle = c.config.slice.duration.0 * c.schedule.slices() as u64;
    let (same, _) = t.for_hosts(0, 1);
    assert_eq!(same.wait_max, Nanos(0));
    for dst in (2..16).step_by(2) {
        let (f, p) = t.for_hosts(0, dst);
        // Waiting for the direct circuit: on average some, at worst up to
        // a cycle per direction, and the route latency (worst RTT) above
        // the expected RTT.
        assert!(f.wait_mean.0 > 0 && f.wait_mean < f.wait_max, "{f:?}");
        assert!(f.wait_max.0 <= 2 * cycle, "{f:?}");
        assert!(f.route_latency > f.rtt_base, "{f:?}");
        assert_eq!(
            f.route_latency.0 - f.rtt_base.0,
            f.wait_max.0 - f.wait_mean.0,
            "the two RTTs differ by the wait only"
        );
        assert_eq!(p.rto_min_ms as u64, f.route_latency.0.div_ceil(1_000_000));
        assert!(p.rto_max > f.route_latency && p.iw == p.cwnd_max.div_ceil(8));
    }
}

#[test]
fn socket_rto_max_override_is_used() {
    let c = compiled("clos-8.json", json!({"fan_in": 4, "socket_rto_max": "3s"}));
    assert_eq!(lh_ctrl::otcp::table(&c).unwrap().socket_rto_max_ms, 3000);
    assert!(lh_ctrl::otcp::table(&compiled("clos-8.json", Value::Null)).is_none());
}
