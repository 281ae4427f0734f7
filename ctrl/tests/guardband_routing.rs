//! Guardband-aware routing: a circuit whose usable window cannot carry one
//! `tors.max_frame` frame is not used by any path (docs/time-model.md,
//! "Which circuits routing uses").

use lh_ctrl::compile::{CompileError, compile};
use lh_ctrl::config::Config;
use lh_ctrl::schedule::{Endpoint, carries_frame, short_windows};
use lh_ctrl::{SliceId, TorId};

fn opera8(guardband: &str, max_frame: Option<u32>, algorithm: &str, lookup: &str) -> Config {
    let frame = max_frame.map_or(String::new(), |f| format!(r#", "max_frame": {f}"#));
    let text = format!(
        r#"{{"mode": "TO",
  "tors": {{"count": 8, "uplinks": 4, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"{frame}}},
  "ocs": {{"count": 4, "ports": 8, "reconfiguration_delay": "1us", "cabling": "auto"}},
  "slice": {{"duration": "100us", "guardband": "{guardband}"}},
  "topology": {{"kind": "opera", "seed": 1}},
  "routing": {{"algorithm": "{algorithm}", "lookup": "{lookup}"}}}}"#
    );
    Config::from_json(&text, "opera8.json").unwrap()
}

/// Number of hops that leave on a circuit unable to carry one frame.
fn short_hops(cfg: &Config) -> (usize, usize) {
    let c = compile(cfg).unwrap();
    let s = &c.schedule;
    let mut short = 0;
    let mut total = 0;
    for p in &c.routes.paths {
        for h in p.hops {
            let ts = (h.depart.unwrap() as usize % s.slices()) as SliceId;
            total += 1;
            if !carries_frame(cfg, s, ts, Endpoint::new(h.tor, h.port)) {
                short += 1;
            }
        }
    }
    (short, total)
}

#[test]
fn a_guardband_near_the_slice_length_keeps_paths_off_the_changed_circuits() {
    for (alg, lookup) in [
        ("hoho", "hop"),
        ("opera", "source"),
        ("ucmp", "source"),
        ("vlb", "hop"),
    ] {
        // 99 us of 100 us dark at 1 Gb/s leaves 125 bytes: no frame fits.
        let cfg = opera8("99us", None, alg, lookup);
        let c = compile(&cfg).unwrap();
        let short = short_windows(&cfg, &c.schedule);
        // Opera: exactly one rotor reconfigures per slice, so the short
        // windows of a slice are all on one uplink.
        assert!(!short.is_empty(), "{alg}");
        for &(ts, ep) in &short {
            assert_eq!(ep.port as usize, ts as usize % 4, "{alg}: slice {ts}");
        }
        let (bad, total) = short_hops(&cfg);
        assert!(total > 0);
        assert_eq!(bad, 0, "{alg}: {bad} of {total} hops use a dark circuit");
    }
}

#[test]
fn the_same_schedule_with_a_short_guardband_uses_the_changed_circuits() {
    // The control: a 10 us guardband leaves 11 250 bytes, so the
    // reconfiguring rotor's circuits carry frames and routing uses them.
    let cfg = opera8("10us", None, "hoho", "hop");
    let c = compile(&cfg).unwrap();
    assert!(short_windows(&cfg, &c.schedule).is_empty());
    let s = &c.schedule;
    let on_changed = c
        .routes
        .paths
        .iter()
        .flat_map(|p| p.hops)
        .filter(|h| {
            let ts = (h.depart.unwrap() as usize % s.slices()) as SliceId;
            s.changed(ts, Endpoint::new(h.tor, h.port))
        })
        .count();
    assert!(on_changed > 0, "control must use changed circuits");
}

#[test]
fn max_frame_sets_the_threshold() {
    // 125 usable bytes: a 100-byte max frame fits, so nothing is avoided.
    let cfg = opera8("99us", Some(100), "hoho", "hop");
    let c = compile(&cfg).unwrap();
    assert!(short_windows(&cfg, &c.schedule).is_empty());
    // 126 bytes does not.
    let cfg = opera8("99us", Some(126), "hoho", "hop");
    let c = compile(&cfg).unwrap();
    assert!(!short_windows(&cfg, &c.schedule).is_empty());
    // Exactly the window: 125 bytes fit.
    let cfg = opera8("99us", Some(125), "hoho", "hop");
    let c = compile(&cfg).unwrap();
    assert!(short_windows(&cfg, &c.schedule).is_empty());
}

#[test]
fn no_usable_circuit_is_a_routing_error_naming_the_timing_fields() {
    // Round robin: every circuit changes every slice, so none carries a
    // frame.
    let text = r#"{"mode": "TO",
  "tors": {"count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
  "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "1us", "cabling": "auto"},
  "slice": {"duration": "100us", "guardband": "99us"},
  "topology": {"kind": "round_robin"},
  "routing": {"algorithm": "direct"}}"#;
    let cfg = Config::from_json(text, "rr4.json").unwrap();
    let err = compile(&cfg).unwrap_err();
    assert!(matches!(err, CompileError::NoPath(_)), "{err:?}");
    let msg = err.to_string();
    for f in [
        "ToR 1 to ToR 0",
        "slice.guardband = 99us",
        "ocs.reconfiguration_delay = 1us",
        "tors.max_frame = 1514",
        "tors.link_rate = 1Gbps",
        "slice.duration = 100us",
        "topology.kind round_robin",
        "tors.uplinks = 1",
        "12 circuit-slices",
    ] {
        assert!(msg.contains(f), "{f} missing: {msg}");
    }
    let _: TorId = 0;
}

#[test]
fn a_missing_path_within_the_hop_budget_names_routing_max_hop() {
    let text = r#"{"mode": "TO",
  "tors": {"count": 8, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
  "ocs": {"count": 1, "ports": 8, "reconfiguration_delay": "1us", "cabling": "auto"},
  "slice": {"duration": "100us", "guardband": "1us"},
  "topology": {"kind": "shale", "h": 3},
  "routing": {"algorithm": "hoho", "max_hop": 1}}"#;
    let cfg = Config::from_json(text, "shale8.json").unwrap();
    let msg = compile(&cfg).unwrap_err().to_string();
    assert!(msg.contains("routing.max_hop = 1"), "{msg}");
    assert!(msg.contains("topology.kind shale"), "{msg}");
    assert!(!msg.contains("circuit-slices"), "{msg}");
}
