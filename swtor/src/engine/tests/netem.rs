//! netem's options on host links (`hosts.link`, [`crate::netem`]) in the
//! engine: h1 and h2 on one ToR, so a frame crosses two host links and no
//! circuit.

use super::*;
use lh_ctrl::config::{HostLinkCfg, LossPercent};

fn link(delay_us: u64, loss_pct: f64, seed: u64) -> HostLinkCfg {
    HostLinkCfg {
        delay: Nanos(delay_us * 1_000),
        jitter: Nanos(0),
        loss: LossPercent((loss_pct * 1e7).round() as u32),
        max_queue_size: None,
        seed: Some(seed),
    }
}

/// h1 and h2 on ToR 0 (ifindexes 1 and 2), 8 Gb/s hosts, every host link
/// with `cfg`.
fn same_tor(cfg: HostLinkCfg) -> Engine<MemPort> {
    let s = Schedule::new(1, 1, 4);
    let t = tables(4, Lookup::Hop, vec![]);
    let sp = spec(s, t, timing(SLICE, DARK, RATE), hosts_on(&[0, 0]));
    let opts = EngineOptions {
        host_link: Some(cfg),
        ..EngineOptions::default()
    };
    mem_engine(&sp, clock(&sp), opts).unwrap()
}

#[test]
fn a_host_link_delays_each_way_and_the_frame_counts_as_queued_meanwhile() {
    let mut e = same_tor(link(50, 0.0, 1));
    e.port.inject(1, EPOCH + 1_000, &frame(1000));
    e.poll(EPOCH + 1_000).unwrap();
    assert_eq!((e.c.sent, e.c.queued), (1, 1));
    assert!(e.c.conservation_holds());
    // Due at the ToR 50 us after it came, at h2 50 us after that.
    assert_eq!(e.next_event_at(), Some(EPOCH + 51_000));
    let mut t = EPOCH + 1_000;
    while e.port.sent.is_empty() && t < EPOCH + 200_000 {
        t += 100;
        e.poll(t).unwrap();
        assert!(e.c.conservation_holds());
    }
    let got = &e.port.sent[0];
    assert_eq!(got.ifindex, 2);
    assert!(
        (EPOCH + 101_000..=EPOCH + 101_100).contains(&got.t),
        "sent at {} ns after the epoch",
        got.t - EPOCH
    );
    assert_eq!((e.c.delivered, e.c.queued), (1, 0));
}

/// h1 sends `n` frames to h2, one a microsecond; the sport of each frame
/// h2 got, in order, and the engine.
fn run(cfg: HostLinkCfg, n: u16) -> (Vec<u16>, Engine<MemPort>) {
    let mut e = same_tor(cfg);
    let got = h1_to_h2(&mut e, n, 1_000);
    (got, e)
}

/// h1 sends `n` frames to h2, one every `gap` ns, conservation checked
/// after each; then 200 gaps more. The sport of each frame h2 got, in
/// order.
fn h1_to_h2(e: &mut Engine<MemPort>, n: u16, gap: u64) -> Vec<u16> {
    let mut t = EPOCH;
    for k in 0..n {
        t += gap;
        e.port.inject(1, t, &udp(1, 2, k, 100));
        e.poll(t).unwrap();
        assert!(e.c.conservation_holds());
    }
    for _ in 0..200 {
        t += gap;
        e.poll(t).unwrap();
    }
    e.port
        .take_sent()
        .iter()
        .map(|f| u16::from_be_bytes([f.data[34], f.data[35]]))
        .collect()
}

#[test]
fn a_host_link_loses_at_its_rate_the_same_frames_for_the_same_seed() {
    let (a, e) = run(link(10, 10.0, 7), 10_000);
    // Lost with 10% on each of two links: 19% (sd 0.4%).
    let lost = e.c.dropped(DropReason::LinkLoss);
    assert!((1_820..=1_980).contains(&lost), "{lost} lost");
    assert_eq!(a.len() as u64 + lost, 10_000);
    assert_eq!((e.c.delivered + lost, e.c.queued), (e.c.sent, 0));
    assert!(e.c.conservation_holds());
    assert!(a.windows(2).all(|w| w[0] < w[1]), "in order");
    assert_eq!(a, run(link(10, 10.0, 7), 10_000).0);
    assert_ne!(a, run(link(10, 10.0, 8), 10_000).0);
    let (all, e) = run(link(10, 0.0, 7), 1_000);
    assert_eq!((all.len(), e.c.dropped(DropReason::LinkLoss)), (1_000, 0));
}

#[test]
fn a_host_link_holds_at_most_max_queue_size_frames() {
    let mut cfg = link(50, 0.0, 1);
    cfg.max_queue_size = Some(2);
    let mut e = same_tor(cfg);
    for _ in 0..5 {
        e.port.inject(1, EPOCH + 1_000, &frame(1000));
    }
    e.poll(EPOCH + 1_000).unwrap();
    assert_eq!(e.c.dropped(DropReason::HostQueueFull), 3);
    assert_eq!(e.c.queued, 2);
    let mut t = EPOCH + 1_000;
    while t < EPOCH + 300_000 {
        t += 1_000;
        e.poll(t).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.queued), (2, 0));
}

/// h1 on ToR 0 sends `n` frames to h2 on ToR 1 over the 0-1 circuit, with
/// every circuit losing `loss_pct` percent (config `tors.link_loss`).
fn across_a_circuit(loss_pct: f64, seed: u64, n: u16) -> (Vec<u16>, Engine<MemPort>) {
    let s = connected_every_slice();
    let t = tables(4, Lookup::Hop, vec![(0, vec![to_tor1(|_| {}, 0)])]);
    let sp = spec_with(s, t, [0, 1]);
    let opts = EngineOptions {
        circuit_loss: Some((LossPercent((loss_pct * 1e7).round() as u32), seed)),
        ..EngineOptions::default()
    };
    let mut e = mem_engine(&sp, clock(&sp), opts).unwrap();
    let got = h1_to_h2(&mut e, n, 2_000);
    (got, e)
}

#[test]
fn a_circuit_loses_its_share_counted_as_link_loss_and_the_same_seed_the_same_frames() {
    let (none, e) = across_a_circuit(0.0, 1, 400);
    assert_eq!(none.len(), 400, "{}", e.c);
    let (got, e) = across_a_circuit(25.0, 7, 400);
    let lost = e.c.dropped(DropReason::LinkLoss);
    assert_eq!(got.len() as u64 + lost, 400, "{}", e.c);
    // 25% of 400: 100, sd 8.7.
    assert!((65..=135).contains(&lost), "{lost} lost: {}", e.c);
    assert_eq!((e.c.delivered, e.c.queued), (got.len() as u64, 0));
    assert!(e.c.conservation_holds());
    let (again, _) = across_a_circuit(25.0, 7, 400);
    assert_eq!(got, again);
    let (other, _) = across_a_circuit(25.0, 8, 400);
    assert_ne!(got, other);
}

/// When h2 got the frame h1 sent at `at`, after `at`, in ns.
fn one_way(e: &mut Engine<MemPort>, at: u64) -> u64 {
    e.port.inject(1, at, &frame(1000));
    let mut t = at;
    while e.port.sent.is_empty() && t < at + 1_000_000 {
        e.poll(t).unwrap();
        t += 100;
    }
    assert!(e.c.conservation_holds());
    let got = e.port.take_sent();
    assert_eq!(got.len(), 1, "one frame");
    got[0].t - at
}

#[test]
fn a_running_host_links_options_change_one_direction_at_a_time() {
    let s = Schedule::new(1, 1, 4);
    let t = tables(4, Lookup::Hop, vec![]);
    let sp = spec(s, t, timing(SLICE, DARK, RATE), hosts_on(&[0, 0]));
    let mut e = mem_engine(&sp, clock(&sp), EngineOptions::default()).unwrap();
    let base = one_way(&mut e, EPOCH + 1_000);
    assert!(base < 5_000, "{base} ns without options");
    // h1's link towards the ToR: 200 us (Mininet's h1-eth0 config).
    e.set_host_link(0, true, Some(&link(200, 0.0, 1))).unwrap();
    let d = one_way(&mut e, EPOCH + 2_000_000);
    assert!((200_000..200_000 + 5_000).contains(&d), "{d} ns");
    // And h2's towards the host (s1-eth2's): 300 us more.
    e.set_host_link(1, false, Some(&link(300, 0.0, 1))).unwrap();
    let d = one_way(&mut e, EPOCH + 4_000_000);
    assert!((500_000..500_000 + 5_000).contains(&d), "{d} ns");
    // Loss only: the delays go, as `tc` replaces an interface's options.
    e.set_host_link(0, true, Some(&link(0, 100.0, 1))).unwrap();
    e.port.inject(1, EPOCH + 6_000_000, &frame(1000));
    e.poll(EPOCH + 6_000_000).unwrap();
    assert_eq!(e.c.dropped(DropReason::LinkLoss), 1);
    e.set_host_link(0, true, None).unwrap();
    e.set_host_link(1, false, None).unwrap();
    assert!(one_way(&mut e, EPOCH + 8_000_000) < 5_000);
    assert!(e.set_host_link(2, true, None).is_err(), "no third host");
}

/// h1 on ToR 0 sends 200 frames to h2 on ToR 1, one every 60 us, over a
/// circuit with 30 us propagation, its delay spread by `jitter` (config
/// `tors.link_jitter`):
/// (sport, when it left for h2) of each frame h2 got, in order.
fn circuit_times(jitter: Option<(u64, u64)>) -> Vec<(u16, u64)> {
    let s = connected_every_slice();
    let t = tables(4, Lookup::Hop, vec![(0, vec![to_tor1(|_| {}, 0)])]);
    let mut sp = spec_with(s, t, [0, 1]);
    sp.timing.model.propagation = Nanos(30_000);
    let opts = EngineOptions {
        circuit_jitter: jitter,
        ..EngineOptions::default()
    };
    let mut e = mem_engine(&sp, clock(&sp), opts).unwrap();
    // 60 us apart, beyond the 40 us the delay spreads over: no frame waits
    // behind the one ahead. Polled every microsecond.
    let mut t = EPOCH;
    for k in 0..200u16 {
        e.port.inject(1, t + 1, &udp(1, 2, k, 100));
        for _ in 0..60 {
            t += 1_000;
            e.poll(t).unwrap();
        }
        assert!(e.c.conservation_holds());
    }
    for _ in 0..100 {
        t += 1_000;
        e.poll(t).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.queued), (200, 0), "{}", e.c);
    e.port
        .take_sent()
        .iter()
        .map(|f| (u16::from_be_bytes([f.data[34], f.data[35]]), f.t))
        .collect()
}

#[test]
fn a_circuits_jitter_spreads_its_delay_in_order_and_the_same_seed_the_same_times() {
    let plain = circuit_times(None);
    let spread = circuit_times(Some((20_000, 7)));
    let sports: Vec<u16> = spread.iter().map(|x| x.0).collect();
    assert_eq!(sports, (0..200).collect::<Vec<u16>>(), "in order");
    // Each frame's circuit delay is 30 us + U(-20, 20) us: against the
    // fixed 30 us, -20 to +20 us (and the 1 us polls).
    let extra: Vec<i64> = plain
        .iter()
        .zip(&spread)
        .map(|(a, b)| b.1 as i64 - a.1 as i64)
        .collect();
    assert!(
        extra.iter().all(|&d| (-21_000..=21_000).contains(&d)),
        "{extra:?}"
    );
    assert!(
        extra.iter().filter(|&&d| d < -5_000).count() > 20,
        "{extra:?}"
    );
    assert!(
        extra.iter().filter(|&&d| d > 5_000).count() > 20,
        "{extra:?}"
    );
    assert_eq!(spread, circuit_times(Some((20_000, 7))));
    assert_ne!(spread, circuit_times(Some((20_000, 8))));
}

#[test]
fn options_set_while_running_draw_as_the_same_options_set_at_start() {
    // 30% loss each way, seed 7, from the start (config hosts.link).
    let (at_start, _) = run(link(0, 30.0, 7), 2_000);
    // The same options given to all four directions of a running fabric
    // whose hosts.link has seed 7: each direction's draws are the same
    // stream, so the same frames are lost.
    let mut e = same_tor(link(0, 0.0, 7));
    let mut lossy = link(0, 30.0, 0);
    lossy.seed = None;
    for h in 0..2 {
        for to_tor in [true, false] {
            e.set_host_link(h, to_tor, Some(&lossy)).unwrap();
        }
    }
    assert_eq!(h1_to_h2(&mut e, 2_000, 1_000), at_start);
}
