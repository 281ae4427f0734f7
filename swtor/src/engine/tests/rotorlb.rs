//! RotorLB in the engine (`crate::rotorlb`, `crate::calendar::bulk`), with
//! time passed to `poll` as in the other engine tests.

use super::*;

/// Engine options with RotorLB on (`routing.bulk: rotorlb`).
fn rotorlb_opts() -> EngineOptions {
    EngineOptions {
        tor: TorFeatures {
            rotorlb: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// 4 ToRs of one uplink, 3 slices of 10 us (1 us dark, 1 byte/ns): the
/// round-robin matchings {0-1, 2-3}, {0-2, 1-3}, {0-3, 1-2}, and RotorLB
/// on (`routing.bulk: rotorlb`); hosts h1, h2, ... on ToRs `hosts`. No
/// table entry: bulk never looks one up.
fn rotorlb_engine(hosts: &[TorId]) -> Engine<MemPort> {
    rotorlb_engine_at(hosts, timing(SLICE, DARK, RATE))
}

/// [`rotorlb_engine`] with timing `tm`.
fn rotorlb_engine_at(hosts: &[TorId], tm: Timing) -> Engine<MemPort> {
    rotorlb_engine_with(hosts, tm, tables(3, Lookup::Hop, vec![]))
}

/// [`rotorlb_engine_at`] with tables `t` for what is not bulk.
fn rotorlb_engine_with(hosts: &[TorId], tm: Timing, t: Tables) -> Engine<MemPort> {
    let mut s = Schedule::new(4, 1, 3);
    for (ts, pairs) in [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
        .into_iter()
        .enumerate()
    {
        for (a, b) in pairs {
            s.connect(Endpoint::new(a, 0), Endpoint::new(b, 0), ts as u16)
                .unwrap();
        }
    }
    let opts = rotorlb_opts();
    let sp = spec(s, t, tm, hosts_on(hosts));
    mem_engine(&sp, clock(&sp), opts).unwrap()
}

/// A 1000-byte frame from host `src` to h2 marked bulk (DSCP CS1).
fn bulk_frame(src: usize) -> Vec<u8> {
    let mut f = udp(src, 2, 0, 1000);
    f[15] = crate::wire::DSCP_BULK << 2;
    f
}

#[test]
fn rotorlb_relays_through_spare_circuits_and_sends_direct_when_its_circuit_is_up() {
    let mut e = rotorlb_engine(&[0, 3]);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    // Slot 0 (0-1 up): the 9 frames a slice window carries go to ToR 1,
    // which reaches ToR 3 directly in slice 1; the rest wait at ToR 0.
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.queues(0)[0], vec![9000, 0, 0]);
    assert_eq!((e.c.bulk_indirect, e.c.bulk_direct), (9, 0), "{}", e.c);
    assert_eq!(e.bulk_backlog(0, 1), 21_000);
    assert!(e.c.conservation_holds(), "{}", e.c);
    let mut delivered_at = Vec::new();
    for k in 1..=120 {
        e.poll(EPOCH + k * 500).unwrap();
        while delivered_at.len() < e.c.delivered as usize {
            delivered_at.push(k * 500);
        }
        assert!(e.c.conservation_holds(), "{}", e.c);
    }
    // Slot 1: ToR 1 sends the 9 relayed frames on (direct), ToR 0 nine more
    // via ToR 2; slot 2: nine direct from ToR 0; slot 3: ToR 2 delivers
    // its nine (2-3 up) and ToR 0 the last three via ToR 1, which delivers
    // them in slot 4. Never relayed twice, nothing lost.
    assert_eq!(e.c.delivered, 30, "{}", e.c);
    assert_eq!((e.c.bulk_indirect, e.c.bulk_direct), (21, 30), "{}", e.c);
    assert_eq!(e.c.dropped_total(), 0, "{}", e.c);
    assert!(
        (10_000..20_000).contains(&delivered_at[0]),
        "{delivered_at:?}"
    );
    assert!(
        (40_000..50_000).contains(&delivered_at[29]),
        "{delivered_at:?}"
    );
    assert_eq!(e.bulk_backlog(0, 1), 0);
}

#[test]
fn rotorlb_offers_a_relay_only_the_room_its_direct_circuit_has_in_a_cycle() {
    // h3 on ToR 1 holds 5 KB for ToR 3 of its own when h1 sends 30 KB:
    // in slot 0 ToR 1 can take only 4 KB more for ToR 3 (its one 9 KB
    // window to ToR 3 a cycle), and ToR 0, holding 26 KB for ToR 3 itself,
    // takes none of ToR 1's.
    let mut e = rotorlb_engine(&[0, 3, 1]);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    for _ in 0..5 {
        e.port.inject(3, 0, &bulk_frame(3));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.c.bulk_indirect, 4, "{}", e.c);
    assert_eq!(e.queues(0)[0], vec![4000, 0, 0]);
    assert_eq!(e.queues(1)[0], vec![0, 0, 0]);
    assert_eq!(
        (e.bulk_backlog(0, 1), e.bulk_backlog(1, 1)),
        (26_000, 5_000)
    );
    for k in 1..=160 {
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (35, 0), "{}", e.c);
    assert!(e.c.conservation_holds(), "{}", e.c);
}

#[test]
fn rotorlb_sends_a_host_no_more_in_a_slot_than_its_link_carries() {
    // Host links of 4 Gb/s carry 5 KB in a 10 us slot: in slot 1 ToR 1's
    // circuit to ToR 3 could carry the 9 frames it relays for h2, but h2
    // takes 5 of them; the other 4 wait for the next cycle's circuit.
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.host_rate = BitsPerSec(4_000_000_000);
    let mut e = rotorlb_engine_at(&[0, 3], tm);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!((e.c.bulk_indirect, e.c.bulk_direct), (9, 0), "{}", e.c);
    for k in 1..=21 {
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!((e.c.bulk_indirect, e.c.bulk_direct), (18, 5), "{}", e.c);
    assert_eq!(e.queues(1)[0], vec![0, 5000, 0]);
    assert!(e.c.conservation_holds(), "{}", e.c);
}

#[test]
fn rotorlb_bulk_yields_to_low_latency_and_what_a_slot_leaves_is_offered_again() {
    // Slot 0: ToR 0 gives its 0-1 circuit 9 KB of bulk for h2 (ToR 3) to
    // relay. A low-latency frame for h3 (ToR 1) arrives after, goes first
    // all the same, and only 8 bulk frames then fit the slice; the ninth
    // comes back to ToR 0's queue and goes in slot 1 via ToR 2.
    let ll = tables(
        3,
        Lookup::Hop,
        vec![(0, vec![entry(1, None, hop(0, Some(0)), vec![])])],
    );
    let mut e = rotorlb_engine_with(&[0, 3, 1], timing(SLICE, DARK, RATE), ll);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.c.bulk_indirect, 9, "{}", e.c);
    e.port.inject(1, 0, &udp(1, 3, 0, 1000));
    e.poll(EPOCH + 500).unwrap();
    let mut first = None;
    for k in 2..=19 {
        e.poll(EPOCH + k * 500).unwrap();
        if first.is_none() && e.c.delivered == 1 {
            first = Some(k * 500);
        }
    }
    // The low-latency frame leaves first, when the window opens (1 us) and
    // reaches h3 one frame time later.
    assert_eq!(first, Some(2_000), "{}", e.c);
    assert_eq!(e.queues(0)[0], vec![1000, 0, 0], "one bulk frame left");
    e.poll(EPOCH + SLICE + 5).unwrap();
    // Back and offered again: 9 more via ToR 2 (8 + 1 counted once).
    assert_eq!(e.queues(0)[0], vec![0, 9000, 0]);
    assert_eq!(e.c.bulk_indirect, 8 + 9, "{}", e.c);
    assert_eq!(e.bulk_backlog(0, 1), 13_000);
    assert!(e.c.conservation_holds(), "{}", e.c);
    for k in 0..200 {
        e.poll(EPOCH + SLICE + 500 * k).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (31, 0), "{}", e.c);
}

#[test]
fn with_rotorlb_only_what_hosts_mark_is_bulk() {
    // Classes from 1500 bytes, class 1 (bulk) departing in slice 2, class
    // 0 in slice 0. Four unmarked 1000-byte frames of one flow pass the
    // byte threshold, yet all stay low-latency: with RotorLB the hosts say
    // what is bulk (Opera's do), not the ToR's count.
    let class = |c, d| Entry {
        m: Match {
            class: Some(c),
            ..match_dst(1)
        },
        action: hop(0, Some(d)),
        alternates: vec![],
    };
    let t = Tables {
        classes: Some(lh_ctrl::routing::ClassThresholds {
            thresholds: vec![0, 1500],
        }),
        ..tables(3, Lookup::Hop, vec![(0, vec![class(0, 0), class(1, 2)])])
    };
    let mut e = rotorlb_engine_with(&[0, 3, 1], timing(SLICE, DARK, RATE), t);
    for _ in 0..4 {
        e.port.inject(1, 0, &udp(1, 3, 0, 1000));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.queues(0)[0], vec![4000, 0, 0], "{}", e.c);
    assert_eq!((e.c.bulk_direct, e.c.bulk_indirect), (0, 0));
    e.port.inject(1, 0, &bulk_frame(1));
    e.poll(EPOCH + 10).unwrap();
    assert_eq!(e.bulk_backlog(0, 1), 1000, "marked: RotorLB's");
}

#[test]
fn rotorlb_takes_back_what_a_slot_left_even_of_frames_sent_before_its_dispatch() {
    // Slot 2 (0-3 up): nine bulk frames for h2 reach ToR 0 in the poll that
    // starts the slot, before RotorLB's dispatch, and go straight onto the
    // direct circuit; a low-latency frame for h2 then goes ahead of them,
    // so one bulk frame does not fit the slice. At slot 3 it comes back and
    // leaves via ToR 1, not a cycle later in slice 2.
    let ll = tables(
        3,
        Lookup::Hop,
        vec![(0, vec![entry(3, None, hop(0, Some(2)), vec![])])],
    );
    let mut e = rotorlb_engine_with(&[0, 3, 1], timing(SLICE, DARK, RATE), ll);
    e.poll(EPOCH + 5).unwrap();
    e.poll(EPOCH + SLICE + 5).unwrap();
    for _ in 0..9 {
        e.port.inject(1, 2 * SLICE, &bulk_frame(1));
    }
    e.port.inject(1, 2 * SLICE, &udp(1, 2, 0, 1000));
    e.poll(EPOCH + 2 * SLICE + 5).unwrap();
    assert_eq!(e.c.bulk_direct, 9, "{}", e.c);
    assert_eq!(e.queues(0)[0], vec![0, 0, 10_000]);
    for k in 1..20 {
        e.poll(EPOCH + 2 * SLICE + k * 500).unwrap();
    }
    e.poll(EPOCH + 3 * SLICE + 5).unwrap();
    assert_eq!(e.queues(0)[0], vec![1000, 0, 0], "{}", e.c);
    assert_eq!((e.c.bulk_direct, e.c.bulk_indirect), (8, 1), "{}", e.c);
    assert!(e.c.conservation_holds(), "{}", e.c);
}

#[test]
fn rotorlb_gives_a_host_a_frame_a_slot_however_slow_its_link() {
    // A 0.5 Gb/s host link carries 625 bytes in a 10 us slot, less than a
    // frame: the share still lets one frame a slot through, or bulk for
    // that host would never arrive.
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.host_rate = BitsPerSec(500_000_000);
    let mut e = rotorlb_engine_at(&[0, 3], tm);
    for _ in 0..3 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    for k in 0..=200 {
        e.poll(EPOCH + 5 + k * 500).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (3, 0), "{}", e.c);
    assert!(e.c.conservation_holds(), "{}", e.c);
}

#[test]
fn rotorlb_reads_each_uplinks_circuit_and_wakes_the_loop_for_its_next_slot() {
    // 4 ToRs, 2 uplinks, 2 slices: slice 0 has 0-1 and 2-3 on uplink 0,
    // 0-2 and 1-3 on uplink 1; slice 1 has 0-3 and 1-2 on uplink 0, 0-1 and
    // 2-3 on uplink 1. Thirty bulk frames from h1 (ToR 0) to h2 (ToR 3):
    // in slot 0 each uplink relays a window (9 KB), via ToR 1 (which meets
    // ToR 3 once a cycle) and via ToR 2 (twice).
    let mut e = rotorlb_two_uplinks(&[0, 3], tables(2, Lookup::Hop, vec![]));
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.queues(0), vec![vec![9000, 0], vec![9000, 0]]);
    assert_eq!(e.c.bulk_indirect, 18, "{}", e.c);
    // Slot 0's frames are sent and relayed by 9.5 us; RotorLB still holds
    // twelve, so the loop must wake at slot 1's start.
    for k in 1..=19 {
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!(e.bulk_backlog(0, 1), 12_000);
    assert_eq!(e.poll_at(), Some(EPOCH + SLICE), "{}", e.c);
    for k in 20..=200 {
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (30, 0), "{}", e.c);
    assert_eq!(e.poll_at(), None, "nothing held, nothing to wake for");
}

#[test]
fn rotorlb_alone_holding_frames_wakes_the_loop_at_the_next_slot() {
    // Eight bulk frames relayed to ToR 1 in slot 0 wait there for slot 1's
    // 1-3 circuit: by 9.5 us the calendar is empty and only RotorLB holds
    // them, so it alone asks for the poll at slot 1's start.
    let mut e = rotorlb_engine(&[0, 3]);
    for _ in 0..8 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    for k in 0..=19 {
        e.poll(EPOCH + 5 + k * 500).unwrap();
    }
    assert_eq!(e.queues(0)[0], vec![0, 0, 0], "{}", e.c);
    assert_eq!(e.c.bulk_indirect, 8, "{}", e.c);
    assert_eq!(e.poll_at(), Some(EPOCH + SLICE), "{}", e.c);
}

#[test]
fn rotorlb_sends_a_frame_at_once_only_within_its_hosts_share() {
    // Slot 2 (0-3 up) has been dispatched when nine bulk frames for h2
    // reach ToR 0 at 2 us: they may leave at once on the direct circuit,
    // but h2's 4 Gb/s link takes 5 KB a slot, so five do and four wait.
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.host_rate = BitsPerSec(4_000_000_000);
    let mut e = rotorlb_engine_at(&[0, 3], tm);
    for t in [5, SLICE + 5, 2 * SLICE + 5] {
        e.poll(EPOCH + t).unwrap();
    }
    for _ in 0..9 {
        e.port.inject(1, 2 * SLICE + 2_000, &bulk_frame(1));
    }
    e.poll(EPOCH + 2 * SLICE + 2_000).unwrap();
    assert_eq!(e.c.bulk_direct, 5, "{}", e.c);
    assert_eq!(e.bulk_backlog(0, 1), 4_000);
}

#[test]
fn rotorlb_offers_what_an_uplink_has_left_to_the_next_destination() {
    // Slot 0 (0-1 up): h1 holds 3 KB for h2 (ToR 3) and 10 KB for h3
    // (ToR 2), and ToR 1 has room for both: the 9 KB window carries the
    // 3 KB for ToR 3 and then 6 KB for ToR 2.
    let mut e = rotorlb_engine(&[0, 3, 2]);
    for _ in 0..3 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    let mut f = udp(1, 3, 0, 1000);
    f[15] = crate::wire::DSCP_BULK << 2;
    for _ in 0..10 {
        e.port.inject(1, 0, &f);
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.c.bulk_indirect, 9, "{}", e.c);
    assert_eq!((e.bulk_backlog(0, 1), e.bulk_backlog(0, 2)), (0, 4_000));
}

/// 4 ToRs, 2 uplinks, 2 slices of 10 us with RotorLB: slice 0 has 0-1
/// and 2-3 on uplink 0, 0-2 and 1-3 on uplink 1; slice 1 has 0-3 and 1-2
/// on uplink 0, 0-1 and 2-3 on uplink 1. Hosts on ToRs `hosts`.
fn rotorlb_two_uplinks(hosts: &[TorId], t: Tables) -> Engine<MemPort> {
    let mut s = Schedule::new(4, 2, 2);
    for (ts, p, a, b) in [
        (0, 0, 0, 1),
        (0, 0, 2, 3),
        (0, 1, 0, 2),
        (0, 1, 1, 3),
        (1, 0, 0, 3),
        (1, 0, 1, 2),
        (1, 1, 0, 1),
        (1, 1, 2, 3),
    ] {
        s.connect(Endpoint::new(a, p), Endpoint::new(b, p), ts)
            .unwrap();
    }
    let opts = rotorlb_opts();
    let sp = spec(s, t, timing(SLICE, DARK, RATE), hosts_on(hosts));
    mem_engine(&sp, clock(&sp), opts).unwrap()
}

#[test]
fn rotorlb_takes_back_a_second_uplinks_leftover_and_offers_it_again() {
    // Slot 0: ToR 0 relays 9 KB of h2's bulk on each uplink; a low-latency
    // frame for h3 (ToR 2, uplink 1) then goes first on uplink 1, so one
    // bulk frame there does not fit. At slot 1 it comes back: uplink 0
    // (0-3) carries 9 KB direct, uplink 1 (0-1) 4 KB via ToR 1 (its room
    // for ToR 3 in a cycle, empty again), and nothing is left anywhere.
    let ll = tables(
        2,
        Lookup::Hop,
        vec![(0, vec![entry(2, None, hop(1, Some(0)), vec![])])],
    );
    let mut e = rotorlb_two_uplinks(&[0, 3, 2], ll);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    e.poll(EPOCH + 5).unwrap();
    for k in 1..=19 {
        if k == 4 {
            e.port.inject(1, 2_000, &udp(1, 3, 0, 1000));
        }
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!(e.queues(0), vec![vec![0, 0], vec![1000, 0]], "{}", e.c);
    e.poll(EPOCH + SLICE + 5).unwrap();
    assert_eq!(e.queues(0), vec![vec![0, 9000], vec![0, 4000]], "{}", e.c);
    assert_eq!(e.c.bulk_indirect, 9 + 8 + 4, "{}", e.c);
    for k in 0..=200 {
        e.poll(EPOCH + SLICE + 500 * k).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (31, 0), "{}", e.c);
    assert_eq!(e.poll_at(), None, "{}", e.c);
    assert!(e.usage().iter().flatten().all(|u| u.buffer_bytes == 0));
}

#[test]
fn rotorlb_from_a_tor_other_than_the_first_relays_the_same_way() {
    // The mirror of the first RotorLB test from ToR 2 (h1) to ToR 1 (h2):
    // slot 0 relays 9 KB via ToR 3 (which meets ToR 1 in slice 1), slot 1
    // 9 KB via ToR 0 (slice 0 of the next cycle), slot 2 sends 9 KB direct;
    // every per-ToR count is ToR 2's, and everything arrives.
    let mut e = rotorlb_engine(&[2, 1]);
    for _ in 0..30 {
        e.port.inject(1, 0, &bulk_frame(1));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.queues(2)[0], vec![9000, 0, 0]);
    assert_eq!(e.queues(0)[0], vec![0, 0, 0]);
    assert_eq!((e.bulk_backlog(2, 1), e.bulk_backlog(0, 1)), (21_000, 0));
    for k in 1..=20 {
        e.poll(EPOCH + k * 500 + 5).unwrap();
    }
    assert_eq!(e.queues(2)[0], vec![0, 9000, 0], "slot 1 relays via ToR 0");
    for k in 21..=200 {
        e.poll(EPOCH + k * 500).unwrap();
    }
    assert_eq!((e.c.delivered, e.c.dropped_total()), (30, 0), "{}", e.c);
    assert_eq!(e.bulk_backlog(2, 1), 0);
    assert_eq!(e.poll_at(), None, "{}", e.c);
    assert!(e.c.conservation_holds(), "{}", e.c);
}

#[test]
fn rotorlb_accepts_for_a_host_only_what_its_port_has_room_for() {
    // Low-latency frames from h3 come for its neighbour h2 (ToR 3) at
    // twice h2's 4 Gb/s link (5 KB a 10 us slot) for 300 us: once the
    // port's pacing slack (200 us) is spent, its queue grows. Then 60 KB
    // of bulk from h1 (ToR 0) comes for h2. Bulk waits at the port below
    // the low-latency frames; RotorLB's share for h2 starts each slot at
    // what the port still holds of bulk, so the port never holds more
    // than a slot's share and a frame, and the rest waits in RotorLB's
    // queues: nothing is dropped, however small the port's buffer.
    // Without it RotorLB kept pouring a slot's share into the port.
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.host_rate = BitsPerSec(4_000_000_000);
    let mut e = rotorlb_engine_at(&[0, 3, 3], tm);
    let mut most = 0;
    for k in 0..=3000 {
        // A 1000-byte frame every 1 us: twice h2's link rate.
        if k < 600 && k % 2 == 0 {
            e.port.inject(3, 0, &udp(3, 2, 0, 1000));
        }
        if k == 440 {
            for _ in 0..60 {
                e.port.inject(1, 0, &bulk_frame(1));
            }
        }
        e.poll(EPOCH + 5 + k * 500).unwrap();
        most = most.max(e.hosts.bulk_bytes(1));
        assert!(e.c.conservation_holds(), "{}", e.c);
    }
    assert!(most > 0, "bulk waited at the port: {}", e.c);
    assert!(most <= 5000 + 1000, "h2's port held {most} bytes of bulk");
    assert_eq!((e.c.delivered, e.c.dropped_total()), (360, 0), "{}", e.c);
}
