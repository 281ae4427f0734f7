//! The simulated hosts' TCP and the applications on it: line rate, loss
//! recovery, the knobs, and determinism.

use lh_emu::traffic::apps::memcached::SetLoad;
use lh_emu::traffic::workload::arrivals::FlowSpec;
use lh_sim::{Sim, TcpConfig, apps};
use std::time::Duration;

fn sim(name: &str, rate: &str) -> Sim {
    let text = std::fs::read_to_string(format!("../topologies/{name}.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["tors"]["link_rate"] = rate.into();
    v["tors"]["host_link_rate"] = rate.into();
    let cfg = lh_ctrl::config::Config::from_json(&v.to_string(), name).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    Sim::new(&c, Default::default()).unwrap()
}

fn flow(src: usize, dst: usize, size: u64) -> FlowSpec {
    FlowSpec {
        id: 0,
        src,
        dst,
        size,
        start_ns: 0,
    }
}

#[test]
fn a_flow_on_clos_runs_at_the_line_rate_after_slow_start() {
    let mut s = sim("clos-8", "100Gbps");
    let r = apps::flows(
        &mut s,
        &[flow(0, 4, 10_000_000)],
        TcpConfig::default(),
        1_000_000_000,
    )
    .unwrap();
    let fct = r[0].fct_ns.expect("completes");
    // 10 MB at 100 Gb/s with 1514-byte frames for 1460 bytes: 0.829 ms.
    let wire = 10_000_000.0 * 1514.0 / 1460.0 * 8.0 / 100e9 * 1e9;
    assert!(
        fct as f64 > wire && (fct as f64) < wire * 1.1,
        "{fct} ns vs {wire:.0}"
    );
    assert_eq!((r[0].retrans, r[0].timeouts), (0, 0));
    // A 4.2 KB flow: handshake, one window, the last ACK: a few us.
    let r = apps::flows(
        &mut s,
        &[flow(0, 4, 4200)],
        TcpConfig::default(),
        1_000_000_000,
    )
    .unwrap();
    assert!(r[0].fct_ns.unwrap() < 10_000, "{:?}", r[0]);
}

#[test]
fn losses_in_the_calendar_queues_are_recovered_and_counted() {
    // RotorNet-8 at 1 Gb/s, direct routing: a 1 MB flow overruns its
    // slice's queue and loses frames (queue_full), which TCP resends.
    let mut s = sim("rotornet-8", "1Gbps");
    let r = apps::flows(
        &mut s,
        &[flow(0, 4, 1_000_000)],
        TcpConfig::default(),
        20_000_000_000,
    )
    .unwrap();
    assert!(r[0].fct_ns.is_some(), "{:?}", r[0]);
    let c = s.counters();
    assert!(
        c.dropped(swtor::DropReason::QueueFull) > 0,
        "the setting must lose frames"
    );
    assert!(r[0].retrans > 0, "{:?}", r[0]);
    let k = lh_emu::net::values::Conservation::of(&c, None);
    assert!(k.holds, "{k:?}");
    assert_eq!(c.sent, c.delivered + c.dropped_total() + c.queued + c.held);
}

#[test]
fn the_knobs_change_what_tcp_does() {
    // VLB reorders (a frame may wait a cycle at its intermediate): the
    // duplicate ACKs reach the threshold and the sender retransmits what
    // was only late; with the threshold out of reach it never does.
    let run = |t: TcpConfig| {
        let mut s = sim("rotornet-8-vlb", "100Gbps");
        let conn = s.connect(1, 5, 5001, t);
        s.idle(100_000).unwrap();
        s.write(conn, 0, 10_000_000, 0);
        s.idle(100_000_000).unwrap();
        s.tcp_stats(conn)[0]
    };
    let d3 = run(TcpConfig::default());
    let never = run(TcpConfig {
        dupthresh: u32::MAX,
        ..Default::default()
    });
    assert!(d3.fast_retrans > 0 && d3.retrans > 100, "{d3:?}");
    assert_eq!((never.fast_retrans, never.retrans), (0, 0), "{never:?}");
    // A window cap bounds the rate: 10 segments per ~RTT on Clos.
    let mut s = sim("clos-8", "100Gbps");
    let capped = apps::flows(
        &mut s,
        &[flow(0, 4, 10_000_000)],
        TcpConfig {
            max_cwnd: Some(2),
            ..Default::default()
        },
        10_000_000_000,
    )
    .unwrap()[0];
    let free = apps::flows(
        &mut s,
        &[flow(0, 4, 10_000_000)],
        TcpConfig::default(),
        10_000_000_000,
    )
    .unwrap()[0];
    assert!(
        capped.fct_ns.unwrap() > 2 * free.fct_ns.unwrap(),
        "{capped:?} {free:?}"
    );
}

#[test]
fn a_lost_syn_waits_for_the_initial_rto() {
    // Every host link down but the fabric answering nothing: a connection
    // to a host that is not in the plan gets no SYN-ACK; the SYN is
    // resent after rto_init, then after twice that.
    let mut s = sim("clos-8", "100Gbps");
    let t = TcpConfig {
        rto_init_ns: 1_000_000,
        ..Default::default()
    };
    let r = apps::flows(&mut s, &[flow(0, 100, 4200)], t, 3_500_000).unwrap();
    assert_eq!(r[0].fct_ns, None);
    assert_eq!(r[0].timeouts, 2, "1 ms and 2 ms later: {:?}", r[0]);
}

/// Everything the applications measure, as text.
fn apps_run(name: &str) -> String {
    let mut s = sim(name, "100Gbps");
    let n = s.hosts();
    let per = n / 8;
    let ring: Vec<usize> = (0..8).map(|t| t * per).collect();
    let load = SetLoad {
        count: 30,
        size: 4200,
        interval: Duration::from_micros(300),
        poisson: Some(3),
    };
    let m = apps::memcached(
        &mut s,
        ring[0],
        &ring[1..],
        &load,
        TcpConfig::default(),
        10_000_000_000,
    )
    .unwrap();
    let a = apps::allreduce(
        &mut s,
        &ring,
        2_000_000,
        2,
        TcpConfig::default(),
        10_000_000_000,
    )
    .unwrap();
    let spec = lh_emu::traffic::workload::arrivals::Spec {
        hosts: n,
        pattern: lh_emu::traffic::workload::arrivals::Pattern::AllToAll,
        load: 0.05,
        host_bps: 100e9,
        duration_ns: 2_000_000,
        max_flows: 300,
        seed: 5,
    };
    let cdf = lh_emu::traffic::workload::load_cdf("websearch").unwrap();
    let specs = lh_emu::traffic::workload::arrivals::generate(&cdf.capped(2_000_000), &spec);
    let f = apps::flows(&mut s, &specs, TcpConfig::default(), 1_000_000_000).unwrap();
    assert!(m.iter().all(|r| r.fct_ns.is_some()) && a.iter().all(Option::is_some));
    assert!(
        f.iter().filter(|r| r.fct_ns.is_some()).count() * 10 >= f.len() * 9,
        "{name}"
    );
    format!(
        "{m:?}\n{a:?}\n{f:?}\n{}\n{:?}",
        serde_json::to_string(&s.counters()).unwrap(),
        s.stats()
    )
}

#[test]
fn tcp_runs_are_deterministic() {
    for name in ["opera-8", "rotornet-8-vlb"] {
        assert_eq!(apps_run(name), apps_run(name), "{name}");
    }
}

#[test]
fn the_configs_host_tcp_maps_onto_the_knobs_or_is_refused_by_field() {
    let tcp =
        |j: serde_json::Value| -> lh_ctrl::config::HostTcp { serde_json::from_value(j).unwrap() };
    assert_eq!(
        TcpConfig::from_host_tcp(None).unwrap(),
        TcpConfig::default()
    );
    let c = TcpConfig::from_host_tcp(Some(&tcp(serde_json::json!({
        "reordering": 96, "initial_window": 20, "max_window": 20,
        "rto_min": "1ms", "rto_max": "2s", "rto_initial": "10ms",
        "sack": false, "congestion_control": "reno", "max_reordering": 96
    }))))
    .unwrap();
    assert_eq!(
        c,
        TcpConfig {
            dupthresh: 96,
            init_cwnd: 20,
            max_cwnd: Some(20),
            rto_min_ns: 1_000_000,
            rto_max_ns: 2_000_000_000,
            rto_init_ns: 10_000_000,
            ..TcpConfig::default()
        }
    );
    for (j, field) in [
        (serde_json::json!({"sack": true}), "$.hosts.tcp.sack"),
        (
            serde_json::json!({"congestion_control": "cubic"}),
            "$.hosts.tcp.congestion_control",
        ),
        (
            serde_json::json!({"max_reordering": 300}),
            "$.hosts.tcp.max_reordering",
        ),
        (
            serde_json::json!({"receive_buffer": 65536}),
            "$.hosts.tcp.receive_buffer",
        ),
        (
            serde_json::json!({"otcp": {"fan_in": 4}}),
            "$.hosts.tcp.otcp",
        ),
    ] {
        let e = TcpConfig::from_host_tcp(Some(&tcp(j.clone()))).unwrap_err();
        assert!(e.to_string().starts_with(field), "{j}: {e}");
    }
}
