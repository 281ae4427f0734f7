//! Hand-checked examples of `entries()` / `walk()`: the paper's Fig. 4 and
//! Fig. 5, conflicts, and the error paths of `walk()`.

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::routing::{Hop, Path, RouteSet};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{
    Action, Ingress, Match, Step, TableError, Tables, entries, is_plain_flow_table, walk,
    walk_alternate,
};
use lh_ctrl::{PortId, SliceId, Slot, TorId};

fn ep(t: TorId, p: PortId) -> Endpoint {
    Endpoint::new(t, p)
}

/// Fig. 2/4: ts0 {0-1, 2-3}, ts1 {0-2, 1-3}, ts2 {0-3, 1-2}, one uplink.
fn fig4() -> Schedule {
    let mut s = Schedule::new(4, 1, 3);
    for (ts, pairs) in [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
        .iter()
        .enumerate()
    {
        for &(a, b) in pairs {
            s.connect(ep(a, 0), ep(b, 0), ts as SliceId).unwrap();
        }
    }
    s
}

fn hop(tor: TorId, port: PortId, depart: Slot) -> Hop {
    Hop {
        tor,
        port,
        depart: Some(depart),
    }
}

fn path(src: TorId, dst: TorId, arrival: SliceId, hops: Vec<Hop>) -> Path {
    Path {
        src,
        dst,
        arrival: Some(arrival),
        hops,
        class: None,
    }
}

fn routes(paths: Vec<Path>) -> RouteSet {
    RouteSet {
        paths: paths.into(),
        classes: None,
    }
}

fn m(dst: TorId, arrival: SliceId, ingress: Ingress) -> Match {
    Match {
        dst,
        arrival: Some(arrival),
        ingress,
        class: None,
        bucket: None,
    }
}

fn hop_action(port: PortId, depart: SliceId) -> Action {
    Action::Hop(Step {
        port,
        depart: Some(depart),
    })
}

fn only_entry(t: &Tables, tor: TorId) -> (Match, Action) {
    let tab = t.table(tor).unwrap();
    assert_eq!(tab.entries.len(), 1, "ToR {tor}: {:?}", tab.entries);
    (tab.entries[0].m, tab.entries[0].action.clone())
}

#[test]
fn fig4a_direct_path() {
    let s = fig4();
    let p = path(0, 3, 0, vec![hop(0, 0, 2)]);
    let t = entries(
        &s,
        &routes(vec![p.clone()]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    // Only ToR0 has an entry; a key with a single ingress is widened to Any
    // (docs/tables.md).
    assert_eq!(only_entry(&t, 0), (m(3, 0, Ingress::Any), hop_action(0, 2)));
    assert_eq!(t.sizes(), vec![(0, 1), (1, 0), (2, 0), (3, 0)]);
    assert_eq!(t.slices, 3);
    assert_eq!(walk(&t, &s, 0, 3, Some(0), None, None).unwrap(), p);
    assert!(!is_plain_flow_table(&t));
}

#[test]
fn fig4b_two_hop_path_and_fig4d_source_form() {
    let s = fig4();
    let p = path(0, 3, 0, vec![hop(0, 0, 0), hop(1, 0, 1)]);
    let t = entries(
        &s,
        &routes(vec![p.clone()]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    assert_eq!(only_entry(&t, 0), (m(3, 0, Ingress::Any), hop_action(0, 0)));
    // ToR1 sees the packet in slice 0 (it was sent in slot 0) and holds it
    // for slice 1.
    assert_eq!(only_entry(&t, 1), (m(3, 0, Ingress::Any), hop_action(0, 1)));
    assert_eq!(walk(&t, &s, 0, 3, Some(0), None, None).unwrap(), p);

    let t = entries(
        &s,
        &routes(vec![p.clone()]),
        Lookup::Source,
        Multipath::None,
        1,
    )
    .unwrap();
    let src = vec![
        Step {
            port: 0,
            depart: Some(0),
        },
        Step {
            port: 0,
            depart: Some(1),
        },
    ];
    assert_eq!(
        only_entry(&t, 0),
        (m(3, 0, Ingress::Host), Action::Source(src))
    );
    assert_eq!(t.sizes(), vec![(0, 1), (1, 0), (2, 0), (3, 0)]);
    assert_eq!(walk(&t, &s, 0, 3, Some(0), None, None).unwrap(), p);
}

#[test]
fn host_and_fabric_differ_so_both_are_kept() {
    // ToR1 sends its own packets for 3 straight away via ToR0 (ts0, then
    // ToR0 waits for ts2), while transit packets at ToR1 wait for 1-3 (ts1).
    let s = fig4();
    let own = path(1, 3, 0, vec![hop(1, 0, 0), hop(0, 0, 2)]);
    let transit = path(0, 3, 0, vec![hop(0, 0, 0), hop(1, 0, 1)]);
    let t = entries(
        &s,
        &routes(vec![own.clone(), transit.clone()]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    let tab = t.table(1).unwrap();
    let got: Vec<(Match, Action)> = tab
        .entries
        .iter()
        .map(|e| (e.m, e.action.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (m(3, 0, Ingress::Host), hop_action(0, 0)),
            (m(3, 0, Ingress::Fabric), hop_action(0, 1)),
        ]
    );
    // ToR0 likewise: its own packets leave at once (transit's first hop),
    // transit packets from ToR1 wait for ts2.
    let tab0: Vec<(Match, Action)> = t
        .table(0)
        .unwrap()
        .entries
        .iter()
        .map(|e| (e.m, e.action.clone()))
        .collect();
    assert_eq!(
        tab0,
        vec![
            (m(3, 0, Ingress::Host), hop_action(0, 0)),
            (m(3, 0, Ingress::Fabric), hop_action(0, 2)),
        ]
    );
    assert_eq!(walk(&t, &s, 1, 3, Some(0), None, None).unwrap(), own);
    assert_eq!(walk(&t, &s, 0, 3, Some(0), None, None).unwrap(), transit);
}

#[test]
fn identical_host_and_fabric_merge_into_any() {
    let s = fig4();
    // ToR1 own traffic for 3 at ts0 waits for ts1, exactly like transit.
    let own = path(1, 3, 0, vec![hop(1, 0, 1)]);
    let transit = path(0, 3, 0, vec![hop(0, 0, 0), hop(1, 0, 1)]);
    let t = entries(
        &s,
        &routes(vec![own, transit]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    assert_eq!(only_entry(&t, 1), (m(3, 0, Ingress::Any), hop_action(0, 1)));
}

#[test]
fn inconsistent_paths_conflict() {
    // p1 and p2 both reach ToR1 over the fabric in slice 0 heading for 3;
    // p1 continues on port 0 in ts1, p2 on port 1 in ts2. ToR1 cannot tell
    // them apart per hop.
    let mut s2 = Schedule::new(4, 2, 3);
    s2.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s2.connect(ep(2, 1), ep(1, 1), 0).unwrap();
    s2.connect(ep(1, 0), ep(3, 0), 1).unwrap();
    s2.connect(ep(1, 1), ep(3, 1), 2).unwrap();
    let p1 = path(0, 3, 0, vec![hop(0, 0, 0), hop(1, 0, 1)]);
    let p2 = path(2, 3, 0, vec![hop(2, 1, 0), hop(1, 1, 2)]);
    let err = entries(
        &s2,
        &routes(vec![p1.clone(), p2.clone()]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap_err();
    match &err {
        TableError::Conflict { tor, m: mm, a, b } => {
            assert_eq!(*tor, 1);
            assert_eq!(*mm, m(3, 0, Ingress::Fabric));
            assert_eq!(*a, hop_action(0, 1));
            assert_eq!(*b, hop_action(1, 2));
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert!(err.to_string().contains("\"lookup\": \"source\""), "{err}");
    // Source routing expresses both.
    let t = entries(
        &s2,
        &routes(vec![p1.clone(), p2.clone()]),
        Lookup::Source,
        Multipath::None,
        1,
    )
    .unwrap();
    assert_eq!(walk(&t, &s2, 0, 3, Some(0), None, None).unwrap(), p1);
    assert_eq!(walk(&t, &s2, 2, 3, Some(0), None, None).unwrap(), p2);
}

#[test]
fn fig5_alternates_in_one_entry() {
    // ToR0 with two uplinks to ToR3: port 0 in ts0, port 1 in ts2 (S = 4).
    let mut s = Schedule::new(4, 2, 4);
    s.connect(ep(0, 0), ep(3, 0), 0).unwrap();
    s.connect(ep(0, 1), ep(3, 1), 2).unwrap();
    s.connect(ep(0, 0), ep(3, 0), 3).unwrap();
    // Direct paths for every arrival slice.
    let paths = vec![
        path(0, 3, 0, vec![hop(0, 0, 0)]),
        path(0, 3, 1, vec![hop(0, 1, 2)]),
        path(0, 3, 2, vec![hop(0, 1, 2)]),
        path(0, 3, 3, vec![hop(0, 0, 3)]),
    ];
    let t = entries(&s, &routes(paths), Lookup::Hop, Multipath::None, 1).unwrap();
    let tab = t.table(0).unwrap();
    let arr0 = &tab.entries[0];
    assert_eq!(arr0.m, m(3, 0, Ingress::Any));
    assert_eq!(arr0.action, hop_action(0, 0));
    // As if it arrived in ts1 (-> port 1 in ts2) or ts3 (-> port 0 in ts3).
    assert_eq!(arr0.alternates, vec![hop_action(1, 2), hop_action(0, 3)]);
    // Arrival 2 leaves in ts2; ts3 (rank 1) and the next cycle's ts0
    // (rank 2) are later within one cycle.
    assert_eq!(
        tab.entries[2].alternates,
        vec![hop_action(0, 3), hop_action(0, 0)]
    );
    // Arrival 3 leaves at once; then ts0 (rank 1), then ts2 (rank 3).
    assert_eq!(
        tab.entries[3].alternates,
        vec![hop_action(0, 0), hop_action(1, 2)]
    );
    // Arrival 1 leaves in ts2 (rank 1): ts3 (rank 2), ts0 (rank 3).
    assert_eq!(
        tab.entries[1].alternates,
        vec![hop_action(0, 3), hop_action(0, 0)]
    );
    let alt = walk_alternate(&t, &s, 0, 3, Some(0), None, None, 1).unwrap();
    assert_eq!(alt.hops, vec![hop(0, 0, 3)]);
    let alt = walk_alternate(&t, &s, 0, 3, Some(3), None, None, 0).unwrap();
    assert_eq!(alt.hops, vec![hop(0, 0, 4)]);
    assert!(walk_alternate(&t, &s, 0, 3, Some(0), None, None, 2).is_err());
}

#[test]
fn walk_reports_missing_entries_loops_and_dark_ports() {
    let s = fig4();
    let t = entries(
        &s,
        &routes(vec![path(0, 3, 0, vec![hop(0, 0, 2)])]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    assert_eq!(
        walk(&t, &s, 0, 3, Some(1), None, None),
        Err(TableError::NoEntry {
            tor: 0,
            m: m(3, 1, Ingress::Host)
        })
    );
    // Hand-made loop: 0 -> 1 in ts0, 1 -> 0 in ts0, ... for dst 3.
    let mut t2 = t.clone();
    t2.tors[0].entries[0].action = hop_action(0, 0);
    t2.tors[1].entries.push(lh_ctrl::tables::Entry {
        m: m(3, 0, Ingress::Any),
        action: hop_action(0, 0),
        alternates: vec![],
    });
    assert!(matches!(
        walk(&t2, &s, 0, 3, Some(0), None, None),
        Err(TableError::Loop { src: 0, dst: 3, .. })
    ));
    // A port without a circuit in its departure slice.
    let mut s3 = Schedule::new(4, 2, 3);
    s3.connect(ep(0, 0), ep(3, 0), 2).unwrap();
    let mut t3 = entries(
        &s3,
        &routes(vec![path(0, 3, 0, vec![hop(0, 0, 2)])]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    t3.tors[0].entries[0].action = hop_action(1, 2);
    assert_eq!(
        walk(&t3, &s3, 0, 3, Some(0), None, None),
        Err(TableError::NoCircuit {
            tor: 0,
            port: 1,
            slice: 2
        })
    );
}

#[test]
fn inexpressible_paths_are_refused() {
    let s = fig4();
    let bad = |p: Path| {
        let e = entries(&s, &routes(vec![p]), Lookup::Hop, Multipath::None, 1).unwrap_err();
        assert!(matches!(e, TableError::Invalid(_)), "{e:?}");
    };
    // Wrong circuit: 0-3 is up in ts2, not ts0.
    bad(path(0, 3, 0, vec![hop(0, 0, 0)]));
    // Departs before arrival.
    bad(path(0, 3, 2, vec![hop(0, 0, 1)]));
    // Waits a whole cycle (rank would wrap to 0).
    bad(path(0, 3, 2, vec![hop(0, 0, 5)]));
    // Last hop does not land at dst.
    bad(path(0, 2, 0, vec![hop(0, 0, 0)]));
    // First hop not at src.
    bad(path(0, 3, 0, vec![hop(1, 0, 1)]));
    // Multipath without buckets.
    assert!(
        entries(
            &s,
            &routes(vec![path(0, 3, 0, vec![hop(0, 0, 2)])]),
            Lookup::Hop,
            Multipath::Flow,
            0
        )
        .is_err()
    );
}

#[test]
fn electrical_fabric_is_a_plain_table() {
    let s = Schedule::electrical(3, 2);
    let mut paths = Vec::new();
    for a in 0..3u16 {
        for b in 0..3u16 {
            if a != b {
                paths.push(Path {
                    src: a,
                    dst: b,
                    arrival: None,
                    hops: vec![Hop {
                        tor: a,
                        port: (b % 2) as PortId,
                        depart: None,
                    }],
                    class: None,
                });
            }
        }
    }
    let t = entries(&s, &routes(paths.clone()), Lookup::Hop, Multipath::None, 1).unwrap();
    assert!(is_plain_flow_table(&t));
    assert_eq!(t.slices, 1);
    assert_eq!(t.max_size(), 2);
    assert!((t.mean_size() - 2.0).abs() < 1e-9);
    for p in &paths {
        for arr in [None, Some(0)] {
            let w = walk(&t, &s, p.src, p.dst, arr, None, None).unwrap();
            assert_eq!(w.hops, p.hops);
        }
    }
    // Round trip through the JSON file format.
    let json = serde_json::to_string(&t).unwrap();
    let back: Tables = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
}

#[test]
fn lookup_prefers_the_most_specific_entry() {
    use lh_ctrl::tables::Entry;
    let s = fig4();
    let mut t = entries(
        &s,
        &routes(vec![path(0, 3, 0, vec![hop(0, 0, 2)])]),
        Lookup::Hop,
        Multipath::None,
        1,
    )
    .unwrap();
    let e = |m: Match, a: Action| Entry {
        m,
        action: a,
        alternates: vec![],
    };
    let wild = Match {
        arrival: None,
        ..m(3, 0, Ingress::Host)
    };
    // Two equally specific, different entries for host packets...
    t.tors[0].entries = vec![
        e(wild, hop_action(0, 1)),
        e(
            Match {
                ingress: Ingress::Any,
                arrival: Some(0),
                ..wild
            },
            hop_action(0, 0),
        ),
        // ... and a more specific one, which wins.
        e(m(3, 0, Ingress::Host), hop_action(0, 2)),
    ];
    let key = m(3, 0, Ingress::Host);
    assert_eq!(t.lookup(0, &key).unwrap().unwrap().action, hop_action(0, 2));
    t.tors[0].entries.pop();
    assert!(matches!(t.lookup(0, &key), Err(TableError::Invalid(_))));
    // Fabric packets only match the Any entry.
    let fab = m(3, 0, Ingress::Fabric);
    assert_eq!(t.lookup(0, &fab).unwrap().unwrap().action, hop_action(0, 0));
    // An unknown arrival only matches wildcard-arrival entries.
    let unknown = Match {
        arrival: None,
        ..key
    };
    assert_eq!(
        t.lookup(0, &unknown).unwrap().unwrap().action,
        hop_action(0, 1)
    );
}
