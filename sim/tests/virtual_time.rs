//! The simulation's promises on real configs: a pingall gives every reply
//! with the RTTs the schedule implies, the same inputs give byte-identical
//! results, and the fabric's conservation holds.

use lh_sim::{Sim, SimOptions};

fn compiled(name: &str) -> lh_ctrl::compile::Compiled {
    let path = format!("{}/../topologies/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let cfg = lh_ctrl::config::Config::load(path.as_ref()).unwrap();
    lh_ctrl::compile::compile(&cfg).unwrap()
}

fn pingall_json(name: &str) -> String {
    let c = compiled(name);
    let mut sim = Sim::new(&c, SimOptions::default()).unwrap();
    let p = sim.pingall(1_000_000_000).unwrap();
    let mut c = sim.counters();
    assert!(c.conservation_holds(), "{c}");
    c.max_poll_gap_ns = 0;
    serde_json::json!({"pingall": p, "stats": sim.stats(), "counters": c}).to_string()
}

#[test]
fn the_same_config_gives_byte_identical_results() {
    for name in ["rotornet-8", "opera-8"] {
        let a = pingall_json(name);
        let b = pingall_json(name);
        assert_eq!(a, b, "{name}: two runs differ");
        assert!(
            a.contains("\"received\":240"),
            "{name}: {}",
            &a[..200.min(a.len())]
        );
    }
}

#[test]
fn progress_sees_the_run_advance_and_changes_nothing() {
    // opera-108's pingall polls PROGRESS_POLLS times over: the observer
    // is called, with virtual time and frame-hops that never go back, and
    // the result is the one without it.
    let c = compiled("opera-108");
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut sim = Sim::new(&c, SimOptions::default()).unwrap();
    let log = std::rc::Rc::clone(&seen);
    sim.on_progress(move |s| log.borrow_mut().push(s));
    let p = sim.pingall(1_000_000_000).unwrap();
    let mut c = sim.counters();
    c.max_poll_gap_ns = 0;
    let with = serde_json::json!({"pingall": p, "stats": sim.stats(), "counters": c}).to_string();
    assert_eq!(with, pingall_json("opera-108"));
    let seen = seen.borrow();
    let end = sim.stats();
    assert_eq!(
        seen.len() as u64,
        end.polls / lh_sim::PROGRESS_POLLS,
        "{end:?}"
    );
    assert!(seen.len() >= 2, "{end:?}");
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.polls, (i as u64 + 1) * lh_sim::PROGRESS_POLLS);
        assert!(s.simulated_ns <= end.simulated_ns && s.frame_hops <= end.frame_hops);
    }
    for w in seen.windows(2) {
        assert!(w[0].simulated_ns <= w[1].simulated_ns, "{w:?}");
        assert!(w[0].frame_hops <= w[1].frame_hops, "{w:?}");
    }
}

#[test]
fn rotornet_pings_wait_for_their_circuit_as_the_schedule_says() {
    // rotornet-8: 7 slices of 100 us, guardband 10 us, direct routing over
    // one uplink: a ping between ToRs waits for their circuit (up to a
    // cycle), one on the same ToR does not.
    let c = compiled("rotornet-8");
    let cycle_ns = 7 * 100_000;
    let mut sim = Sim::new(&c, SimOptions::default()).unwrap();
    let p = sim.pingall(1_000_000_000).unwrap();
    assert_eq!((p.sent, p.received), (240, 240));
    let rtt = |src: &str, dst: &str| -> f64 {
        let row = p.rows.iter().find(|r| r.src == src).unwrap();
        row.results
            .iter()
            .find(|r| r.dst == dst)
            .unwrap()
            .rtt_ms
            .unwrap()
            * 1e6
    };
    // h1 and h2 share ToR s1: the frame never waits for a slice.
    let same = rtt("h1", "h2");
    assert!(same < 20_000.0, "same-ToR RTT {same} ns");
    // Across ToRs: more than the same-ToR RTT, at most two cycles (there
    // and back) plus a slice.
    for dst in ["h3", "h5", "h7", "h9", "h11", "h13", "h15"] {
        let r = rtt("h1", dst);
        assert!(
            r > same && r <= (2 * cycle_ns + 100_000) as f64,
            "h1->{dst}: {r} ns"
        );
    }
    // Pings at different phases of the cycle see different waits: over 14
    // pings 0.63 cycles apart the RTTs spread over most of the cycle.
    let rtts: Vec<u64> = sim
        .ping(1, 3, 14, cycle_ns * 63 / 100, 1_000_000_000)
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect();
    let (lo, hi) = (rtts.iter().min().unwrap(), rtts.iter().max().unwrap());
    assert!(hi - lo > cycle_ns / 2, "RTTs {rtts:?}");
}

#[test]
fn configs_it_cannot_model_are_refused_naming_the_field() {
    let path = format!(
        "{}/../topologies/rotornet-8.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let cfg = lh_ctrl::config::Config::load(path.as_ref()).unwrap();
    let e = lh_sim::check(&cfg, "bmv2:s3").unwrap_err().to_string();
    assert!(
        e.starts_with("--tor: \"bmv2:s3\": the simulation runs the native ToRs only"),
        "{e}"
    );
    for t in ["bmv2", "bmv2:s1,s2"] {
        let e = lh_sim::check(&cfg, t).unwrap_err().to_string();
        assert!(e.starts_with(&format!("--tor: {t:?}: ")), "{e}");
    }
    lh_sim::check(&compiled("rotornet-8").config, "native").unwrap();
}

/// Every RTT (ns) of a pingall and of 14 pings h1 -> h3 across the cycle.
fn rtts(name: &str, opts: SimOptions) -> (Vec<u64>, lh_sim::Stats) {
    let c = compiled(name);
    let mut sim = Sim::new(&c, opts).unwrap();
    let p = sim.pingall(1_000_000_000).unwrap();
    let mut v: Vec<u64> = p
        .rows
        .iter()
        .flat_map(|r| &r.results)
        .map(|r| (r.rtt_ms.expect("every reply") * 1e6).round() as u64)
        .collect();
    // Every host pings every other at once: calendar queues and host
    // ports then hold frames behind others (pacing).
    let n = sim.hosts();
    let pairs: Vec<(usize, usize)> = (1..=n)
        .flat_map(|s| (1..=n).filter(move |&d| d != s).map(move |d| (s, d)))
        .collect();
    v.extend(
        sim.ping_set(&pairs, 1_000_000_000)
            .unwrap()
            .into_iter()
            .map(|r| r.expect("every reply")),
    );
    v.extend(
        sim.ping(1, 3, 14, 441_000, 1_000_000_000)
            .unwrap()
            .into_iter()
            .map(Option::unwrap),
    );
    assert!(sim.counters().conservation_holds());
    (v, sim.stats())
}

#[test]
fn polling_at_the_engines_next_event_gives_the_fixed_step_results() {
    // The reference polls every 2 ns while frames are in the fabric, so it
    // sees each of an RTT's four host-side instants (request and reply in
    // and out) at most 2 ns late. The event-driven loop must give the same
    // RTTs within those 8 ns, with far fewer polls; a wake-up later than
    // the engine's next event would be off by a pacing gap or a slice.
    // (A 10 ns reference is off by up to 0.1 us on opera-8: frames of a
    // source-routed path then meet in another order.)
    for name in ["rotornet-8", "opera-8"] {
        let reference = SimOptions {
            step_ns: Some(2),
            fixed_step: true,
            ..Default::default()
        };
        let (want, slow) = rtts(name, reference);
        let (got, fast) = rtts(name, SimOptions::default());
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.abs_diff(*w) <= 8,
                "{name}: RTT {k}: {g} ns event-driven, {w} ns fixed-step"
            );
        }
        // Woken only for the engine's events: at most one poll per frame
        // hop (each hop is several events: arrival, admission, departure),
        // and far fewer than the fixed step's. The ratio to the fixed step
        // is how long frames sit in the fabric per hop, a property of the
        // routes (opera-8's paths on lasting circuits: about 96x; rotornet-8,
        // whose frames wait for circuits: about 4700x), so it is no bound
        // on the loop.
        assert!(
            fast.polls <= fast.frame_hops && fast.polls * 10 < slow.polls,
            "{name}: {} polls event-driven for {} frame-hops, {} fixed-step",
            fast.polls,
            fast.frame_hops,
            slow.polls
        );
    }
}

/// The FCTs (ns) of `count` memcached SETs of 4.2 KB h2 -> h1 (one ToR of
/// rotornet-8, no circuit), 1 ms apart, with `delays` as the hosts'
/// receive path drawn with `seed`.
fn same_tor_sets(delays: Vec<u64>, seed: u64, count: usize) -> Vec<u64> {
    let opts = SimOptions {
        host_rx_ns: delays,
        host_rx_seed: seed,
        ..Default::default()
    };
    let mut sim = Sim::new(&compiled("rotornet-8"), opts).unwrap();
    let load = lh_emu::traffic::apps::memcached::SetLoad {
        count,
        size: 4200,
        interval: std::time::Duration::from_millis(1),
        poisson: None,
    };
    let tcp = lh_sim::TcpConfig::default();
    let recs = lh_sim::apps::memcached(&mut sim, 0, &[1], &load, tcp, 10_000_000_000).unwrap();
    recs.iter().map(|r| r.fct_ns.expect("every SET")).collect()
}

#[test]
fn a_hosts_receive_path_wakes_once_per_batch() {
    // A SET is three frames, 12 us apart at 1 Gb/s. With a 40 us delay the
    // second and third arrive while the first waits and go up with it:
    // the SET grows by more than one delay (server, then client) and less
    // than two (which it would if each frame waited its own).
    let ideal = same_tor_sets(vec![], 1, 5);
    assert_eq!(ideal, same_tor_sets(vec![0], 1, 5), "0 is the ideal host");
    let slow = same_tor_sets(vec![40_000], 1, 5);
    for (i, s) in ideal.iter().zip(&slow) {
        let grew = s - i;
        assert!((40_000..80_000).contains(&grew), "{i} -> {s} ns");
    }
}

#[test]
fn drawn_receive_delays_are_seeded_and_come_from_the_list() {
    let list = vec![0, 30_000, 300_000];
    let a = same_tor_sets(list.clone(), 1, 40);
    assert_eq!(a, same_tor_sets(list.clone(), 1, 40), "same seed");
    assert_ne!(a, same_tor_sets(list, 2, 40), "another seed");
    // Delays only add; some SETs drew only short ones, some a 300 us one.
    let ideal = same_tor_sets(vec![], 1, 1)[0];
    let min = *a.iter().min().unwrap();
    assert!(min >= ideal && min < ideal + 100_000, "{ideal}: {a:?}");
    assert!(*a.iter().max().unwrap() >= ideal + 300_000, "{a:?}");
}

#[test]
fn an_allreduce_sends_its_bulk_steps_over_rotorlb() {
    // opera-8 with RotorLB and a 100 KB threshold: the 1.6 MB ring's
    // 100 KB steps (16 hosts) go as RotorLB bulk, every one arrives (a
    // bulk frame is never resent), and nothing is lost or left behind.
    let path = format!("{}/../topologies/opera-8.json", env!("CARGO_MANIFEST_DIR"));
    let mut cfg = lh_ctrl::config::Config::load(path.as_ref()).unwrap();
    cfg.routing.bulk = lh_ctrl::config::BulkTransport::Rotorlb;
    cfg.routing.bulk_threshold = Some(100_000);
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let mut sim = Sim::new(&c, SimOptions::default()).unwrap();
    assert_eq!(sim.bulk_threshold(), Some(100_000));
    let ring: Vec<usize> = (0..sim.hosts()).collect();
    let t = lh_sim::apps::allreduce(
        &mut sim,
        &ring,
        100_000 * ring.len() as u64,
        1,
        lh_sim::TcpConfig::default(),
        2_000_000_000,
    )
    .unwrap();
    assert!(t[0].is_some(), "the allreduce completes");
    let c = sim.counters();
    assert!(c.bulk_direct > 0 && c.bulk_indirect > 0, "{c}");
    assert_eq!((c.dropped_total(), c.queued), (0, 0), "{c}");
    assert!(c.conservation_holds(), "{c}");
}
