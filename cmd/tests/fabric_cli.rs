//! The CLI's optical verbs against the real swtor data plane, fed a small
//! hand-made schedule and table (no compile() needed).

mod common;

use common::*;
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Config, Lookup, Multipath};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{Action, Entry, Ingress, Match, Step, Tables, TimeFlowTable};
use lh_emu::cli::{Cli, Tools};
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::plan::Plan;
use lh_emu::text::sink::TextSink as Buf;

fn small_compiled() -> Compiled {
    let config = Config::from_json(
        r#"{"mode": "TO",
          "tors": {"count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
          "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto"},
          "slice": {"duration": "1ms", "guardband": "10us"},
          "topology": {"kind": "round_robin"}, "routing": {"algorithm": "direct"}}"#,
        "t.json",
    )
    .unwrap();
    let mut schedule = Schedule::new(4, 1, 3);
    let e = |t| Endpoint::new(t, 0);
    schedule.connect(e(0), e(1), 0).unwrap();
    schedule.connect(e(2), e(3), 0).unwrap();
    schedule.connect(e(0), e(2), 1).unwrap();
    schedule.connect(e(1), e(3), 1).unwrap();
    schedule.connect(e(0), e(3), 2).unwrap();
    schedule.connect(e(1), e(2), 2).unwrap();
    // ToR 0 <-> ToR 2 meet in slice 1: whatever the arrival slice, wait
    // for slice 1 and leave on uplink 0.
    let toward = |dst| -> Vec<Entry> {
        (0..3)
            .map(|a| Entry {
                m: Match {
                    dst,
                    arrival: Some(a),
                    ingress: Ingress::Any,
                    class: None,
                    bucket: None,
                },
                action: Action::Hop(Step {
                    port: 0,
                    depart: Some(1),
                }),
                alternates: vec![],
            })
            .collect()
    };
    let tables = Tables {
        slices: 3,
        lookup: Lookup::Hop,
        multipath: Multipath::None,
        buckets: 1,
        classes: None,
        tors: vec![
            TimeFlowTable {
                tor: 0,
                entries: toward(2),
            },
            TimeFlowTable {
                tor: 2,
                entries: toward(0),
            },
        ],
    };
    Compiled {
        config,
        schedule,
        routes: Default::default(),
        tables: tables.into(),
        timings: Vec::new(),
    }
}

#[test]
fn slice_queues_drops_and_uplink_pcap_with_the_data_plane() {
    if skip_unless_root("slice_queues_drops_and_uplink_pcap_with_the_data_plane") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let prefix;
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("up0.pcap");
    {
        let c = small_compiled();
        let plan = Plan::from_config(&c.config);
        let mut net = Network::bring_up(plan, Some(c), NetworkOptions::default()).unwrap();
        prefix = net.prefix.clone();
        net.start().expect("data plane starts");
        let b = Buf::default();
        net.set_output(Box::new(b.clone()));
        net.tools = Tools::none();
        {
            let mut cli = Cli::new(&mut net);
            cli.onecmd("slice");
            let s = b.take();
            assert!(
                s.starts_with("*** Slice ") && s.contains(" of 3, cycle "),
                "{s}"
            );
            cli.onecmd("queues s1");
            let q = b.take();
            assert!(q.starts_with("*** s1 calendar queues"), "{q}");
            assert!(q.contains("\nup0: "), "{q}");
            cli.onecmd(&format!("pcap s1 0 {}", pcap.display()));
            assert_eq!(
                b.take(),
                format!("*** Capturing s1 uplink 0 to {}\n", pcap.display())
            );
            // h1 (ToR 0) <-> h3 (ToR 2) has routes; h1 -> h2 has none.
            let (sent, recv) = cli
                .ping("ping", Some(&[0, 2]), Some(2.0), false)
                .map_or((0, 0), |p| (p.sent, p.received));
            assert_eq!((sent, recv), (2, 2), "{}", b.take());
            let (sent, recv) = cli
                .ping("ping", Some(&[0, 1]), Some(0.3), false)
                .map_or((0, 0), |p| (p.sent, p.received));
            assert_eq!((sent, recv), (2, 0));
            b.take();
            cli.onecmd("pcap stop");
            assert!(b.take().contains("closed"));
            cli.onecmd("drops");
            let d = b.take();
            assert!(d.starts_with("*** sent "), "{d}");
            assert!(d.contains("  no_circuit "), "{d}");
            // The conservation line, then the loss outside the data plane.
            assert!(d.contains(": OK\n*** outside the data plane"), "{d}");
            assert!(d.contains("  port_drops       0 "), "{d}");
            cli.onecmd("schedule");
            assert!(b.take().starts_with("*** Slice "));
        }
        let counters = net.fabric().expect("started").counters();
        assert!(counters.delivered >= 4, "{counters:?}");
        assert!(
            counters.dropped(swtor::DropReason::NoRoute) > 0,
            "{counters:?}"
        );
        assert!(net.stop(), "conservation: {}", b.take());
        assert!(b.take().contains("(conservation OK)"));
    }
    let len = std::fs::metadata(&pcap).map(|m| m.len()).unwrap_or(0);
    assert!(
        len >= 24,
        "a pcap file with at least its header, got {len} bytes"
    );
    assert_eq!(
        namespaces_of(&prefix),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}
