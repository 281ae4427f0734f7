//! Property tests for cabling, and the warnings validation logs.

mod config_support;

use config_support::*;
use lh_ctrl::config::Config;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Opera-8 (8 ToRs x 4 uplinks on 4 OCSes of 8 ports) with an explicit
/// cabling: uplink i = tor * 4 + port goes to the OCS port `perm[i]`, where
/// OCS port k means OCS k / 8, port k % 8.
fn cabled(perm: &[usize]) -> Value {
    let mut v = doc("opera-8.json");
    v["ocs"]["cabling"] = Value::Array(
        perm.iter()
            .enumerate()
            .map(|(i, &k)| json!({"tor": i / 4, "port": i % 4, "ocs": k / 8, "ocs_port": k % 8}))
            .collect(),
    );
    v
}

fn permutation() -> impl Strategy<Value = Vec<usize>> {
    Just((0..32).collect::<Vec<usize>>()).prop_shuffle()
}

proptest! {
    /// Any bijection of uplinks onto OCS ports is a valid cabling, and
    /// `cabling()` reports exactly it.
    #[test]
    fn any_bijective_cabling_is_accepted(perm in permutation()) {
        let v = cabled(&perm);
        prop_assert!(schema_errors(&v).is_empty());
        let cfg = Config::from_json(&v.to_string(), "t.json").unwrap();
        let want: Vec<(u16, u16)> = perm.iter().map(|&k| ((k / 8) as u16, (k % 8) as u16)).collect();
        prop_assert_eq!(cfg.cabling(), want);
    }

    /// Pointing one cable at another cable's OCS port is caught at that
    /// cable, naming the first user of the port.
    #[test]
    fn a_shared_ocs_port_is_caught(perm in permutation(), a in 0usize..32, b in 0usize..32) {
        prop_assume!(a != b);
        let mut perm = perm;
        perm[b] = perm[a];
        let v = cabled(&perm);
        let (first, second) = (a.min(b), a.max(b));
        let e = rejects(&v, &format!("$.ocs.cabling[{second}].ocs_port"), &["expected each OCS port used once"]);
        let first_at = format!("$.ocs.cabling[{first}]");
        prop_assert!(e.to_string().contains(&first_at), "{}", e);
    }

    /// Dropping any one cable names that uplink as uncabled.
    #[test]
    fn a_missing_cable_is_caught(perm in permutation(), drop in 0usize..32) {
        let mut v = cabled(&perm);
        v["ocs"]["cabling"].as_array_mut().unwrap().remove(drop);
        let want = format!("(tor {}, port {})", drop / 4, drop % 4);
        rejects(&v, "$.ocs.cabling", &["expected a cable for every ToR uplink", &want]);
    }
}

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Warnings logged while loading `v` (which must be valid).
fn warnings(v: &Value) -> String {
    warnings_of(v, |_| {})
}

/// Warnings logged while loading `v` and then doing `then` with it.
fn warnings_of(v: &Value, then: impl FnOnce(&Config)) -> String {
    let buf = Buf::default();
    let w = buf.clone();
    let sub = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .with_writer(move || w.clone())
        .finish();
    tracing::subscriber::with_default(sub, || {
        let c = Config::from_json(&v.to_string(), "t.json").expect("valid config");
        then(&c);
    });
    let out = buf.0.lock().unwrap().clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn duty_cycle_below_90_percent_warns() {
    // 100 us slices with 10 us dark time: exactly 90%, no warning.
    let v = doc("rotornet-8.json");
    assert_eq!(warnings(&v), "");
    // 11 us of reconfiguration: under 90%.
    let mut v = doc("rotornet-8.json");
    v["ocs"]["reconfiguration_delay"] = json!("11us");
    let w = warnings(&v);
    assert!(w.contains("WARN"), "{w}");
    assert!(
        w.contains("$.slice.duration") && w.contains("under 10 x"),
        "{w}"
    );
}

/// Said when the schedule is built: a frame sent at a slice's end may
/// reach the next circuit, if there is one.
#[test]
fn propagation_beyond_the_dark_time_warns_when_circuits_change() {
    let build = |c: &Config| {
        lh_ctrl::schedule::from_config(c).expect("a schedule");
    };
    let mut v = doc("rotornet-8.json");
    v["slice"]["propagation"] = json!("20us");
    let w = warnings_of(&v, build);
    assert!(w.contains("$.slice.propagation"), "{w}");
    // The same with one slice whose circuits never change (a Mininet
    // topology's): no next circuit, no warning.
    let dir = tempfile::tempdir().unwrap();
    let sched = dir.path().join("s.json");
    std::fs::write(
        &sched,
        r#"{"tors": 2, "uplinks": 1, "slices": 1, "circuits": [{"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0}]}"#,
    )
    .unwrap();
    let mut v = doc("rotornet-8.json");
    v["tors"]["count"] = json!(2);
    v["tors"]["uplinks"] = json!(1);
    v["ocs"] = json!({"count": 1, "ports": 2, "reconfiguration_delay": "0ns", "cabling": "auto"});
    v["slice"] = json!({"duration": "100us", "guardband": "0ns", "propagation": "5ms"});
    v["topology"] = json!({"kind": "file", "path": sched.to_str().unwrap()});
    v["routing"] = json!({"algorithm": "hoho", "lookup": "hop", "max_hop": 1});
    let w = warnings_of(&v, build);
    assert!(!w.contains("$.slice.propagation"), "{w}");
}
