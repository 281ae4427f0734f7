//! Compiling schedules onto OCSes (cabling checks) and the slice timing
//! helpers.

use lh_ctrl::config::Config;
use lh_ctrl::schedule::{self, Endpoint, ScheduleError, ocs, opera, usable_bytes, usable_window};
use lh_ctrl::units::Nanos;

/// 4 ToRs x 1 uplink on two 4-port OCSes with the given explicit cabling.
fn config(cables: &str, reconf: &str) -> Config {
    let text = format!(
        r#"{{
        "mode": "TO",
        "tors": {{"count": 4, "uplinks": 1, "link_rate": "10Gbps",
                  "hosts_per_tor": 1, "host_link_rate": "10Gbps"}},
        "ocs": {{"count": 2, "ports": 4, "reconfiguration_delay": "{reconf}",
                 "cabling": [{cables}]}},
        "slice": {{"duration": "50us", "guardband": "2us"}},
        "topology": {{"kind": "round_robin"}},
        "routing": {{"algorithm": "direct"}}
    }}"#
    );
    Config::parse_json(&text, "c.json").expect("config parses")
}

fn cable(tor: u16, ocs: u16, port: u16) -> String {
    format!(r#"{{"tor": {tor}, "port": 0, "ocs": {ocs}, "ocs_port": {port}}}"#)
}

fn cables(list: &[(u16, u16, u16)]) -> String {
    list.iter()
        .map(|&(t, o, p)| cable(t, o, p))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn explicit_cabling_on_one_ocs_compiles() {
    let cfg = config(
        &cables(&[(0, 1, 3), (1, 1, 2), (2, 1, 1), (3, 1, 0)]),
        "1us",
    );
    let s = schedule::from_config(&cfg).unwrap();
    let o = ocs::compile_for(&cfg, &s).unwrap();
    assert!(o.ocs[0].iter().all(Vec::is_empty));
    // Round 0 pairs ToR 3 with 0 and 1 with 2: OCS ports 0<->3 and 2<->1.
    assert_eq!(o.ocs[1][0], vec![(0, 3), (1, 2), (2, 1), (3, 0)]);
    assert_eq!(o.out_port(1, 0, 3), Some(0));
    assert_eq!(o.circuit_count(), s.circuit_count());
}

#[test]
fn circuit_across_two_ocses_is_refused() {
    // ToRs 0, 1 on OCS 0 and ToRs 2, 3 on OCS 1: round 0 pairs 3 with 0.
    let cfg = config(
        &cables(&[(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)]),
        "1us",
    );
    let e = schedule::from_config(&cfg).unwrap_err();
    assert_eq!(
        e,
        ScheduleError::CrossOcs {
            ts: 0,
            from: Endpoint::new(0, 0),
            to: Endpoint::new(3, 0),
            from_ocs: 0,
            to_ocs: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "slice 0: circuit ToR 0 port 0 -> ToR 3 port 0 crosses OCS 0 and OCS 1 (both ends of a circuit must be cabled to the same OCS)"
    );
}

#[test]
fn uncabled_port_is_refused() {
    let cfg = config(&cables(&[(0, 0, 0), (1, 0, 1), (3, 0, 3)]), "1us");
    let e = schedule::from_config(&cfg).unwrap_err();
    // Round 0 pairs 1 with 2; ToR 2 has no cable.
    assert_eq!(
        e,
        ScheduleError::Uncabled {
            ts: 0,
            tor: 2,
            port: 0
        }
    );
    assert!(e.to_string().contains("not cabled"), "{e}");
}

#[test]
fn shared_or_missing_ocs_ports_are_refused() {
    let cfg = config(
        &cables(&[(0, 0, 0), (1, 0, 1), (2, 0, 1), (3, 0, 3)]),
        "1us",
    );
    assert!(matches!(
        schedule::from_config(&cfg),
        Err(ScheduleError::SharedOcsPort {
            ocs: 0,
            ocs_port: 1,
            ..
        })
    ));
    let cfg = config(
        &cables(&[(0, 0, 0), (1, 0, 1), (2, 2, 0), (3, 0, 3)]),
        "1us",
    );
    let e = schedule::from_config(&cfg).unwrap_err();
    assert!(
        matches!(e, ScheduleError::NoSuchOcsPort { tor: 2, ocs: 2, .. }),
        "{e}"
    );
    let cfg = config(
        &cables(&[(0, 0, 0), (1, 0, 1), (2, 0, 4), (3, 0, 3)]),
        "1us",
    );
    assert!(matches!(
        schedule::from_config(&cfg),
        Err(ScheduleError::NoSuchOcsPort { ocs_port: 4, .. })
    ));
}

#[test]
fn changed_circuits_are_dark_for_the_larger_delay() {
    let all = cables(&[(0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 0, 3)]);
    let cfg = config(&all, "1us");
    let s = schedule::from_config(&cfg).unwrap();
    let ep = Endpoint::new(0, 0);
    // Round robin with one uplink changes every circuit every slice:
    // dark for max(guardband 2us, reconfiguration 1us).
    assert_eq!(
        usable_window(&cfg, &s, 1, ep),
        (Nanos(2_000), Nanos(50_000))
    );
    // 10 Gb/s x 48 us = 60 000 bytes.
    assert_eq!(usable_bytes(&cfg, &s, 1, ep), 60_000);

    let slow = config(&all, "5us");
    assert_eq!(
        usable_window(&slow, &s, 1, ep),
        (Nanos(5_000), Nanos(50_000))
    );
    let huge = config(&all, "80us");
    assert_eq!(usable_bytes(&huge, &s, 1, ep), 0);

    // Opera: only the reconfiguring rotor is dark.
    let o = opera(8, 2, 3).unwrap();
    // A ToR that is not a fixed point (idle) of either rotor's matching.
    let t = (0..8)
        .find(|&t| (0..2).all(|p| o.peer(1, Endpoint::new(t, p)).is_some()))
        .unwrap();
    let (changed, stable) = (Endpoint::new(t, 1), Endpoint::new(t, 0));
    assert!(o.changed(1, changed) && !o.changed(1, stable));
    assert_eq!(
        usable_window(&cfg, &o, 1, stable),
        (Nanos(0), Nanos(50_000))
    );
    assert_eq!(usable_bytes(&cfg, &o, 1, stable), 62_500);
    assert_eq!(usable_bytes(&cfg, &o, 1, changed), 60_000);

    // A one-slice schedule never changes; an idle port carries nothing.
    let ring = schedule::ring(5, 1).unwrap();
    assert_eq!(usable_bytes(&cfg, &ring, 0, ep), 0);
    let ring = schedule::ring(4, 2).unwrap();
    assert_eq!(usable_window(&cfg, &ring, 0, ep), (Nanos(0), Nanos(50_000)));
}
