//! Translation of time-flow tables into P4 entries: priorities, choices,
//! source routes, registers, limits; CLI text; bfrt golden file.

mod common;

use lh_ctrl::tables::{Action, Entry, Ingress, Match, Step, Tables};
use lh_ctrl::units::{BitsPerSec, Nanos};
use lh_p4gen::schema::*;
use lh_p4gen::{
    FabricTiming, HostPlan, KeyValue, P4GenError, P4Inputs, TableEntry, Target, TorProgram,
    priority, translate,
};

fn param(e: &TableEntry, name: &str) -> u64 {
    e.params.iter().find(|p| p.name == name).unwrap().value
}

fn entries<'a>(p: &'a TorProgram, table: &str) -> Vec<&'a TableEntry> {
    p.entries.iter().filter(|e| e.table == table).collect()
}

fn reg(p: &TorProgram, name: &str, index: u32) -> u64 {
    p.registers
        .iter()
        .find(|r| r.register == name && r.index == index)
        .unwrap_or_else(|| panic!("no write to {name}[{index}]"))
        .value
}

#[test]
fn fixture_translates_to_the_documented_entries() {
    let p = common::fixture().program(Target::Bmv2).unwrap();
    p.check_schema().unwrap();
    // hosts: local hosts get ports 1 + k, others their ToR
    let hosts = entries(&p, T_HOSTS);
    assert_eq!(hosts.len(), 5);
    assert_eq!((hosts[0].action, param(hosts[0], "port")), (A_TO_HOST, 1));
    assert_eq!((hosts[1].action, param(hosts[1], "port")), (A_TO_HOST, 2));
    assert_eq!((hosts[4].action, param(hosts[4], "tor")), (A_TO_TOR, 3));
    assert_eq!(param(entries(&p, T_ARP)[2], "mac"), 0x0200_0000_0003);
    // time flow: priorities rank specificity, lowest wins
    let tf = entries(&p, T_TIME_FLOW);
    assert_eq!(tf.len(), 4);
    assert_eq!(tf[0].priority, Some(5), "all wildcards");
    assert_eq!(tf[1].priority, Some(4), "arrival only");
    assert_eq!(tf[2].priority, Some(3), "arrival + ingress");
    assert_eq!(
        tf[1].keys[1].value,
        KeyValue::Ternary {
            value: 0,
            mask: 0xFFFF
        }
    );
    assert_eq!(tf[2].keys[2].value, KeyValue::Ternary { value: 1, mask: 3 });
    // source route: first step in the entry, the rest in route 1
    assert_eq!(
        (
            param(tf[2], "n"),
            param(tf[2], "port0"),
            param(tf[2], "depart0"),
            param(tf[2], "route0"),
            param(tf[2], "push0")
        ),
        (1, 1, 0, 1, 2)
    );
    let routes = entries(&p, T_ROUTES);
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0].keys[0].value, KeyValue::Exact(1));
    let v: Vec<u64> = routes[0].params.iter().take(5).map(|p| p.value).collect();
    assert_eq!(v, [2, 0, 1, 1, 0xFFFF]);
    // alternates become choice 1
    assert_eq!(
        (
            param(tf[3], "n"),
            param(tf[3], "port1"),
            param(tf[3], "depart1")
        ),
        (2, 1, 2)
    );
    // registers: BMv2 time in microseconds, rate in bytes per 1024 us
    assert_eq!(reg(&p, R_N_SLICES, 0), 3);
    assert_eq!(reg(&p, R_SLICE_LEN, 0), 60_000_000);
    assert_eq!(reg(&p, R_RATE, 1), 1250 * 1024);
    assert_eq!(reg(&p, R_QUEUE_CAP, 0), 1500);
    assert_eq!(reg(&p, R_SLICE_CHECK, 0), 1);
    assert_eq!(reg(&p, R_DARK, (1 << 8) | 2), 0);
}

#[test]
fn cli_text_is_simple_switch_syntax() {
    let cli = common::fixture().program(Target::Bmv2).unwrap().to_cli();
    let lines: Vec<&str> = cli.lines().collect();
    assert_eq!(
        lines[0],
        "table_add LhIngress.hosts LhIngress.to_host 10.0.0.1 => 1"
    );
    assert!(lines.contains(
        &"table_add LhIngress.arp_proxy LhIngress.arp_answer 10.0.0.3 => 02:00:00:00:00:03"
    ));
    assert!(lines.contains(
        &"table_add LhIngress.time_flow LhIngress.set_choices 1 0&&&65535 0&&&0 0&&&0 0&&&0 => 1 0 2 0 0 0 0 0 0 0 0 0 0 4"
    ));
    assert!(lines.contains(&"register_write LhIngress.slice_len 0 60000000"));
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("table_add ") || l.starts_with("register_write "))
    );
}

fn small(entries: Vec<Entry>, slices: usize) -> Tables {
    serde_json::from_value(serde_json::json!({
        "slices": slices, "lookup": "hop", "multipath": "none", "buckets": 1,
        "tors": [{"tor": 0, "entries": []}, {"tor": 1, "entries": []}]
    }))
    .map(|mut t: Tables| {
        t.tors[0].entries = entries;
        t
    })
    .unwrap()
}

fn m(dst: u16) -> Match {
    Match {
        dst,
        arrival: Some(0),
        ingress: Ingress::Any,
        class: None,
        bucket: None,
    }
}

fn hop(port: u8, depart: u16) -> Action {
    Action::Hop(Step {
        port,
        depart: Some(depart),
    })
}

fn program_of(t: &Tables) -> Result<TorProgram, P4GenError> {
    let timing = FabricTiming::uniform(
        2,
        2,
        t.slices,
        Nanos(50_000),
        BitsPerSec(10_000_000_000),
        60_000,
    );
    let hosts = [HostPlan {
        ip: "10.0.0.1".parse().unwrap(),
        mac: [2, 0, 0, 0, 0, 1],
        tor: 1,
    }];
    translate(
        &P4Inputs {
            tables: t,
            hosts: &hosts,
            timing: &timing,
            target: Target::Bmv2,
        },
        0,
    )
}

#[test]
fn too_many_alternates_names_tor_and_entry() {
    let e = Entry {
        m: m(1),
        action: hop(0, 0),
        alternates: vec![hop(0, 1), hop(1, 1), hop(0, 2)],
    };
    let err = program_of(&small(vec![e], 3)).unwrap_err();
    assert!(
        matches!(
            err,
            P4GenError::TooManyAlternates {
                tor: 0,
                index: 0,
                n: 3,
                max: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("ToR 0, entry 0"));
}

#[test]
fn too_long_source_route_is_refused() {
    let steps = (0..9)
        .map(|i| Step {
            port: 0,
            depart: Some(i % 3),
        })
        .collect();
    let e = Entry {
        m: m(1),
        action: Action::Source(steps),
        alternates: vec![],
    };
    let err = program_of(&small(vec![e], 3)).unwrap_err();
    assert!(
        matches!(
            err,
            P4GenError::TooManySteps {
                tor: 0,
                n: 9,
                max: 8,
                ..
            }
        ),
        "{err}"
    );
    // eight steps fit: seven are pushed
    let steps = (0..8)
        .map(|i| Step {
            port: 1,
            depart: Some(i % 3),
        })
        .collect();
    let e = Entry {
        m: m(1),
        action: Action::Source(steps),
        alternates: vec![],
    };
    let p = program_of(&small(vec![e], 3)).unwrap();
    p.check_schema().unwrap();
    assert_eq!(param(entries(&p, T_ROUTES)[0], "n"), 7);
}

#[test]
fn shared_route_tails_share_a_route_id() {
    let a = Action::Source(vec![
        Step {
            port: 0,
            depart: Some(0),
        },
        Step {
            port: 1,
            depart: None,
        },
    ]);
    let b = Action::Source(vec![
        Step {
            port: 1,
            depart: Some(1),
        },
        Step {
            port: 1,
            depart: None,
        },
    ]);
    let mut m2 = m(1);
    m2.arrival = Some(1);
    let p = program_of(&small(
        vec![
            Entry {
                m: m(1),
                action: a,
                alternates: vec![],
            },
            Entry {
                m: m2,
                action: b,
                alternates: vec![],
            },
        ],
        3,
    ))
    .unwrap();
    assert_eq!(entries(&p, T_ROUTES).len(), 1);
    let tf = entries(&p, T_TIME_FLOW);
    assert_eq!(param(tf[0], "route0"), param(tf[1], "route0"));
}

#[test]
fn too_many_slices_is_refused() {
    let err = program_of(&small(vec![], 300)).unwrap_err();
    assert!(
        matches!(
            err,
            P4GenError::Limit {
                what: "slices per cycle",
                n: 300,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn priority_counts_wildcards() {
    let full = Match {
        dst: 0,
        arrival: Some(1),
        ingress: Ingress::Fabric,
        class: Some(0),
        bucket: Some(1),
    };
    assert_eq!(priority(&full), 1);
    let none = Match {
        dst: 0,
        arrival: None,
        ingress: Ingress::Any,
        class: None,
        bucket: None,
    };
    assert_eq!(priority(&none), 5);
}

#[test]
fn ucmp_classes_become_ranges() {
    let mut t = small(vec![], 1);
    t.classes = Some(lh_ctrl::routing::ClassThresholds {
        thresholds: vec![0, 10_000, 1_000_000],
    });
    let p = program_of(&t).unwrap();
    p.check_schema().unwrap();
    let c: Vec<(KeyValue, u64)> = entries(&p, T_CLASS)
        .iter()
        .map(|e| (e.keys[0].value, param(e, "class")))
        .collect();
    assert_eq!(
        c,
        [
            (KeyValue::Range { lo: 0, hi: 9_999 }, 0),
            (
                KeyValue::Range {
                    lo: 10_000,
                    hi: 999_999
                },
                1
            ),
            (
                KeyValue::Range {
                    lo: 1_000_000,
                    hi: u32::MAX as u64
                },
                2
            ),
        ]
    );
    assert_eq!(reg(&p, R_CLASSES, 0), 1);
    assert_eq!(
        reg(&p, R_SLICE_CHECK, 0),
        0,
        "one slice: no slice-miss check, like swtor"
    );
}

#[test]
fn tofino_registers_count_nanoseconds() {
    let mut fx = common::fixture();
    let err = fx.program(Target::Tofino2).unwrap_err();
    assert!(
        err.to_string().contains("slice length"),
        "60 s in ns does not fit 32 bits: {err}"
    );
    fx.slice_ns = 50_000;
    let p = fx.program(Target::Tofino2).unwrap();
    assert_eq!(reg(&p, R_SLICE_LEN, 0), 50_000);
    assert_eq!(reg(&p, R_RATE, 0), 1280, "1.25 bytes/ns x 1024");
}

/// bfrt JSON of the fixture, compared with the committed golden file
/// (`UPDATE_GOLDEN=1` rewrites it).
#[test]
fn bfrt_json_matches_golden() {
    let mut fx = common::fixture();
    fx.slice_ns = 50_000; // a Tofino-sized slice: 50 us in ns fits 32 bits
    let p = fx.program(Target::Tofino2).unwrap();
    let got = serde_json::to_string_pretty(&lh_p4gen::bfrt::to_bfrt_json(&p)).unwrap() + "\n";
    let path = common::repo().join("p4gen/tests/golden/fixture_tor0.bfrt.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).expect("golden file (run with UPDATE_GOLDEN=1)");
    assert_eq!(
        got, want,
        "bfrt JSON changed; rerun with UPDATE_GOLDEN=1 if intended"
    );
}

/// S comes from the schedule (the rotation packets count its slices);
/// wildcard-arrival tables (S = 1) fit any schedule, others must agree.
#[test]
fn slices_come_from_the_schedule() {
    let hosts: [HostPlan; 0] = [];
    let t = small(vec![], 1);
    let timing = FabricTiming::uniform(2, 2, 4, Nanos(50_000), BitsPerSec(10_000_000_000), 60_000);
    let inp = P4Inputs {
        tables: &t,
        hosts: &hosts,
        timing: &timing,
        target: Target::Bmv2,
    };
    let p = translate(&inp, 0).unwrap();
    assert_eq!(reg(&p, R_N_SLICES, 0), 4);
    assert_eq!(reg(&p, R_SLICE_CHECK, 0), 1);
    assert_eq!(reg(&p, R_DARK, (1 << 8) | 3), 0);
    let t3 = small(vec![], 3);
    let inp = P4Inputs { tables: &t3, ..inp };
    assert!(matches!(translate(&inp, 0), Err(P4GenError::Timing { .. })));
}
