//! Deterministic engine tests: time is passed to `poll` explicitly, so
//! rotation, pacing and the OCS checks are exercised to the nanosecond.

use super::*;
use crate::FabricSpec;
use crate::counters::DropReason;
use crate::testing::{
    EPOCH, clock, entry, hop, hosts_on, match_dst, mem_engine, spec, tables, timing, udp,
};
use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{Entry, Match, Tables};
use lh_ctrl::units::{BitsPerSec, Nanos};

/// A UDP frame from h1 to h2.
fn frame(len: usize) -> Vec<u8> {
    udp(1, 2, 0, len)
}

const SLICE: u64 = 10_000;
const DARK: u64 = 1_000;
/// 8 Gb/s: one byte per ns.
const RATE: u64 = 8_000_000_000;

/// 2 ToRs, 1 uplink, 4 slices of 10 us; circuit in slices 1 and 3 only
/// (so both change: 1 us dark); 8 Gb/s = 1 byte/ns; ToR0 sends to ToR1
/// departing in slice 3, alternate slice 1.
fn engine(offset: i64, depart: u16) -> Engine<MemPort> {
    engine_buffered(offset, depart, u64::MAX)
}

/// [`engine`] with ToR buffer of `buffer` bytes its queues share.
fn engine_buffered(offset: i64, depart: u16, buffer: u64) -> Engine<MemPort> {
    let mut s = Schedule::new(2, 1, 4);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 1)
        .unwrap();
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 3)
        .unwrap();
    let t = tables(
        4,
        Lookup::Hop,
        vec![(
            0,
            vec![entry(1, None, hop(0, Some(depart)), vec![hop(0, Some(1))])],
        )],
    );
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.reconfiguration = Nanos(500);
    tm.model.propagation = Nanos(300);
    tm.model.queue_capacity = 100_000;
    tm.model.buffer_capacity = buffer;
    tm.tor_clock_offset = offset;
    test_engine(&spec(s, t, tm, hosts_on(&[0, 1])))
}

/// An engine on host ifindexes 1 and 2 with the test clock.
fn test_engine(spec: &FabricSpec) -> Engine<MemPort> {
    mem_engine(spec, clock(spec), EngineOptions::default()).unwrap()
}

#[test]
fn rank_picks_the_departure_slice_queue_and_admission_caps_it() {
    let mut e = engine(0, 3);
    // Arrive in slice 0: rank 3 -> queue 3, which carries 10 us - 1 us
    // dark = 9000 bytes. The tenth 1000-byte frame goes to the
    // alternate (slice 1, also 9000 bytes). The nineteenth fits neither
    // slice: it stays in the primary queue's buffer (deferred a cycle).
    for _ in 0..19 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 2_000).unwrap();
    let q = e.queues(0);
    assert_eq!(q[0], vec![0, 9000, 0, 10000]);
    assert_eq!(e.c.rerouted, 9);
    assert_eq!(e.c.deferred, 1);
    assert_eq!(e.c.dropped(DropReason::SliceMiss), 0);
    assert_eq!(e.c.queued, 19);
    assert!(e.c.conservation_holds());
    // Past the buffer (100 000 bytes per queue) frames are dropped.
    for _ in 0..100 {
        e.port.inject(1, 0, &frame(1000));
    }
    // MemPort hands over at most one batch (64) per iteration.
    e.poll(EPOCH + 2_100).unwrap();
    e.poll(EPOCH + 2_101).unwrap();
    assert_eq!(e.port.pending(), 0);
    assert_eq!(e.queues(0)[0][3], 100_000);
    assert_eq!(e.c.dropped(DropReason::QueueFull), 10);
    assert!(e.c.conservation_holds());
}

#[test]
fn a_tors_queues_share_its_buffer() {
    // 25 frames: far below any one queue's 100 000 bytes.
    let mut e = engine_buffered(0, 3, 25_000);
    // Slice 0: 9 frames fill slice 3's window, 9 slice 1's, 7 more wait a
    // cycle in slice 3's queue; then the ToR's 25 000 bytes are taken and
    // the last 5 are dropped, though each queue has room.
    for _ in 0..30 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 2_000).unwrap();
    assert_eq!(e.queues(0)[0], vec![0, 9000, 0, 16_000]);
    assert_eq!((e.c.rerouted, e.c.deferred), (9, 7));
    assert_eq!(e.c.dropped(DropReason::QueueFull), 5);
    // Slice 1 sends its 9 frames: what left frees the shared buffer.
    e.poll(EPOCH + SLICE + DARK).unwrap();
    e.poll(EPOCH + SLICE + DARK + 8_000).unwrap();
    assert_eq!(e.c.uplink_tx, 9);
    e.poll(EPOCH + 2 * SLICE + 500).unwrap();
    for _ in 0..10 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 2 * SLICE + 600).unwrap();
    // Slice 3's queue is over its window: 9 go to the next slice 1, and
    // the tenth finds the 25 000 bytes taken again.
    assert_eq!(e.queues(0)[0], vec![0, 9000, 0, 16_000]);
    assert_eq!(e.c.dropped(DropReason::QueueFull), 6);
    assert!(e.c.conservation_holds());
}

#[test]
fn queue_rotation_opens_after_the_dark_time_and_paces_at_link_rate() {
    let mut e = engine(0, 3);
    for _ in 0..9 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 2_000).unwrap();
    // Slice 3 starts at +30 us; its window at +31 us.
    let ws = EPOCH + 3 * SLICE + DARK;
    e.poll(ws - 1).unwrap();
    assert_eq!(e.c.uplink_tx, 0, "dark time: nothing leaves");
    e.poll(ws).unwrap();
    assert_eq!(e.c.uplink_tx, 1, "one frame at the window start");
    e.poll(ws + 3_500).unwrap();
    assert_eq!(e.c.uplink_tx, 4, "1000 B per us at 8 Gb/s");
    e.poll(ws + 8_000).unwrap();
    assert_eq!(
        e.c.uplink_tx, 9,
        "the last frame ends exactly at the slice end"
    );
    // Delivered after serialisation + 300 ns propagation.
    e.poll(ws + 1_000 + 299).unwrap();
    e.poll(ws + 9_000 + 300).unwrap();
    e.poll(ws + 9_000 + 301).unwrap();
    assert_eq!(e.c.delivered, 9);
    assert_eq!(e.c.dropped_total(), 0);
    assert!(e.port.sent.iter().all(|s| s.ifindex == 2));
    assert!(e.c.conservation_holds());
}

#[test]
fn frames_that_do_not_fit_wait_for_the_next_cycle() {
    let mut e = engine(0, 3);
    for _ in 0..3 {
        e.port.inject(1, 0, &frame(1000));
    }
    // Arrive in slice 3 itself, 8 us in: 2000 bytes of room remain.
    let t = EPOCH + 3 * SLICE + 8_000;
    e.poll(t).unwrap();
    // The first leaves at once (not before it arrived), the second is
    // paced, the third is rerouted to slice 1.
    assert_eq!(e.c.uplink_tx, 1);
    assert_eq!(e.queues(0)[0], vec![0, 1000, 0, 1000]);
    e.poll(t + 1_000).unwrap();
    assert_eq!(e.c.uplink_tx, 2);
    e.poll(t + 2_000).unwrap();
    assert_eq!(e.c.carried_over, 0);
    // A frame left over when the slice ends is carried over a cycle.
    let mut e = engine(0, 3);
    e.port.inject(1, 0, &frame(1000));
    e.poll(EPOCH + 2_000).unwrap();
    e.poll(EPOCH + 3 * SLICE + 5).unwrap(); // slice 3, still dark
    e.poll(EPOCH + 4 * SLICE + 5).unwrap(); // slice 0 of the next cycle
    assert_eq!(e.c.uplink_tx, 0);
    assert_eq!(e.c.carried_over, 1);
}

#[test]
fn ocs_drops_frames_in_the_dark_and_without_a_circuit() {
    // ToR clock 600 ns ahead: it opens its window inside the OCS's dark time.
    let mut e = engine(600, 3);
    e.port.inject(1, 0, &frame(100));
    e.port.inject(1, 0, &frame(100));
    e.poll(EPOCH + 2_000).unwrap();
    let ws_tor = EPOCH + 3 * SLICE + DARK - 600;
    e.poll(ws_tor).unwrap();
    assert_eq!(e.c.dropped(DropReason::Guardband), 1, "{}", e.c);
    // Tables depart in slice 2, where there is no circuit.
    let mut e = engine(0, 2);
    e.port.inject(1, 0, &frame(100));
    e.poll(EPOCH + 2_000).unwrap();
    e.poll(EPOCH + 2 * SLICE + DARK + 5).unwrap();
    assert_eq!(e.c.dropped(DropReason::NoCircuit), 1);
    assert!(e.c.conservation_holds());
}

/// Hosts h1 and h2 on ToRs `hosts_on`, 8 Gb/s, no propagation delay.
fn spec_with(schedule: Schedule, tables: Tables, hosts_on: [u16; 2]) -> FabricSpec {
    spec(
        schedule,
        tables,
        timing(SLICE, DARK, RATE),
        self::hosts_on(&hosts_on),
    )
}

#[test]
fn electrical_fabric_delivers_to_the_destination_tor() {
    let s = Schedule::electrical(3, 2);
    let t = tables(
        1,
        Lookup::Hop,
        vec![(0, vec![entry(2, None, hop(1, None), vec![])])],
    );
    let mut e = test_engine(&spec_with(s, t, [0, 2]));
    e.port.inject(1, 0, &frame(500));
    e.poll(EPOCH + 5).unwrap();
    e.poll(EPOCH + 1_000).unwrap();
    e.poll(EPOCH + 1_001).unwrap();
    assert_eq!(e.c.delivered, 1, "{}", e.c);
    assert_eq!(e.port.sent[0].ifindex, 2);
    assert!(e.c.conservation_holds());
}

/// A hybrid of 3 ToRs and `slices` slices: uplink 0 optical (circuit
/// 0-1 in slice 0), uplink 1 electrical at 800 Mb/s = 1000 B per 10 us;
/// optical 8 Gb/s. h1 on ToR0 sends to h2 on ToR2 (no circuit from
/// ToR0) on the electrical port, departing in `depart`.
fn hybrid(slices: usize, depart: Option<lh_ctrl::SliceId>) -> (Tables, FabricSpec) {
    let mut s = Schedule::hybrid(3, 1, 1, slices);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    let table = tables(
        slices,
        Lookup::Hop,
        vec![(0, vec![entry(2, None, hop(1, depart), vec![])])],
    );
    let mut spec = spec_with(s, table.clone(), [0, 2]);
    spec.timing.model.propagation = Nanos(300);
    spec.timing.model.electrical_rate = Some(BitsPerSec(800_000_000));
    (table, spec)
}

#[test]
fn hybrid_electrical_port_is_always_up_and_paced_at_its_rate() {
    // c-Through: one slice.
    let (table, spec) = hybrid(1, None);
    let mut e = test_engine(&spec);
    // Send at the very start of a slice, then mid-slice: no dark time.
    let t0 = EPOCH + 5 * SLICE;
    for _ in 0..3 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(t0).unwrap();
    assert_eq!(e.c.uplink_tx, 1, "leaves at once, at the slice start");
    e.poll(t0 + 9_999).unwrap();
    assert_eq!(e.c.uplink_tx, 1, "paced: 10 us per 1000 B");
    // Delivered to ToR2 after serialisation + propagation.
    e.poll(t0 + 10_000 + 299).unwrap();
    assert_eq!(e.c.delivered, 0);
    e.poll(t0 + 10_000 + 300).unwrap();
    e.poll(t0 + 10_000 + 301).unwrap();
    assert_eq!(e.c.delivered, 1, "{}", e.c);
    assert_eq!(e.c.uplink_tx, 2);
    // The third frame crosses the slice boundary: fine on electrical.
    e.poll(t0 + 20_000).unwrap();
    assert_eq!(e.c.uplink_tx, 3);
    e.poll(t0 + 30_300).unwrap();
    e.poll(t0 + 30_301).unwrap();
    assert_eq!(e.c.delivered, 3, "{}", e.c);
    assert!(e.port.sent.iter().all(|x| x.ifindex == 2), "to h2 on ToR2");
    // A topology update darkens the changed circuit, not the electrical
    // port: a frame sent right after it leaves at once.
    let mut b = Schedule::hybrid(3, 1, 1, 1);
    b.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
        .unwrap();
    let t = t0 + 52_000;
    e.reconfigure(&b, &table, t).unwrap();
    e.port.inject(1, 0, &frame(1000));
    e.poll(t + 1).unwrap();
    assert_eq!(e.c.uplink_tx, 4, "electrical port is not dark");
    e.poll(t + 1 + 10_300).unwrap();
    e.poll(t + 1 + 10_301).unwrap();
    assert_eq!(e.c.delivered, 4, "{}", e.c);
    assert_eq!(e.c.dropped_total(), 0, "{}", e.c);
    assert!(e.c.conservation_holds());
}

#[test]
fn hybrid_electrical_port_on_a_rotor_is_one_fifo_across_slices() {
    // A hybrid RotorNet: the rotor has 2 slices. ToR0's frames to ToR2
    // leave on the electrical port back to back, across slice
    // boundaries: no calendar queue holds them for a slice, none is a
    // slice miss or carried over.
    let (_, spec) = hybrid(2, Some(0));
    let mut e = test_engine(&spec);
    let t0 = EPOCH + 4 * SLICE;
    for _ in 0..3 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(t0).unwrap();
    assert_eq!(e.c.uplink_tx, 1, "{}", e.c);
    // Slice 1: the rotor's queue for slice 0 would wait a cycle.
    e.poll(t0 + SLICE).unwrap();
    assert_eq!(e.c.uplink_tx, 2, "sends in slice 1 too: {}", e.c);
    e.poll(t0 + 2 * SLICE).unwrap();
    assert_eq!(e.c.uplink_tx, 3, "{}", e.c);
    e.poll(t0 + 3 * SLICE + 300).unwrap();
    e.poll(t0 + 3 * SLICE + 301).unwrap();
    assert_eq!(e.c.delivered, 3, "{}", e.c);
    assert_eq!(e.c.carried_over, 0, "{}", e.c);
    assert_eq!(e.c.dropped_total(), 0, "{}", e.c);
    assert!(e.c.conservation_holds());
}

/// 2 ToRs, 1 uplink, 4 slices, the 0-1 circuit in every slice.
fn connected_every_slice() -> Schedule {
    let mut s = Schedule::new(2, 1, 4);
    for ts in 0..4 {
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), ts)
            .unwrap();
    }
    s
}

/// Packets to ToR 1 that `narrow` leaves matched go in slice `depart`.
fn to_tor1(narrow: impl FnOnce(&mut Match), depart: lh_ctrl::SliceId) -> Entry {
    let mut m = match_dst(1);
    narrow(&mut m);
    Entry {
        m,
        action: hop(0, Some(depart)),
        alternates: vec![],
    }
}

#[test]
fn flow_size_classes_move_a_growing_flow_to_its_class_entry() {
    // UCMP-style: class 0 (flows < 1500 B so far) departs in slice 1,
    // class 1 in slice 3.
    let s = connected_every_slice();
    let class = |c, d| to_tor1(|m| m.class = Some(c), d);
    let t = Tables {
        classes: Some(lh_ctrl::routing::ClassThresholds {
            thresholds: vec![0, 1500],
        }),
        ..tables(4, Lookup::Hop, vec![(0, vec![class(0, 1), class(1, 3)])])
    };
    let mut e = test_engine(&spec_with(s, t, [0, 1]));
    for _ in 0..3 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 5).unwrap();
    // 1000 B seen: class 0; 2000 and 3000 B: class 1.
    assert_eq!(e.queues(0)[0], vec![0, 1000, 0, 2000]);
}

#[test]
fn flow_size_classes_count_a_flow_once_however_many_tors_look_it_up() {
    // Per-hop lookup through ToR1 (ToR0 -> ToR1 -> ToR2), classes as
    // above. The one 1000-byte frame is class 0 at every ToR: each ToR
    // counts what it forwards, as each P4 switch's register does. Added to
    // ToR0's count, it would look like 2000 bytes and turn bulk at ToR1
    // (issue 45: a flow turned bulk after threshold / hops bytes).
    let mut s = Schedule::new(3, 2, 4);
    for ts in 0..4 {
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), ts)
            .unwrap();
        s.connect(Endpoint::new(1, 1), Endpoint::new(2, 0), ts)
            .unwrap();
    }
    let class = |c, d| Entry {
        m: Match {
            class: Some(c),
            ..match_dst(2)
        },
        action: hop(1, Some(d)),
        alternates: vec![],
    };
    let t = Tables {
        classes: Some(lh_ctrl::routing::ClassThresholds {
            thresholds: vec![0, 1500],
        }),
        ..tables(
            4,
            Lookup::Hop,
            vec![
                (0, vec![entry(2, None, hop(0, None), vec![])]),
                (1, vec![class(0, 1), class(1, 3)]),
            ],
        )
    };
    let mut e = test_engine(&spec(s, t, timing(SLICE, DARK, RATE), hosts_on(&[0, 2])));
    e.port.inject(1, 0, &frame(1000));
    for t in [5, 100, 1_500, 3_000, 5_000] {
        e.poll(EPOCH + t).unwrap();
    }
    assert_eq!(e.c.uplink_tx, 1, "{}", e.c);
    assert_eq!(e.queues(1)[1], vec![0, 1000, 0, 0], "{}", e.c);
}

/// ToR0 -> ToR1 in slice 0, then ToR1 -> ToR2 in the slices `on`
/// (1 uplink, 4 slices, 1 byte/ns); a source route departing ToR1 in
/// slice 1, and a propagation delay of 2.5 slices, so the frame reaches
/// ToR1 in slice 2, late. The time it reaches h2, if it does by 60 us.
fn late_hop(on: &[u16]) -> (Option<u64>, Counters) {
    let mut s = Schedule::new(3, 1, 4);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    for &ts in on {
        s.connect(Endpoint::new(1, 0), Endpoint::new(2, 0), ts)
            .unwrap();
    }
    let route = lh_ctrl::tables::Action::Source(vec![
        lh_ctrl::tables::Step {
            port: 0,
            depart: Some(0),
        },
        lh_ctrl::tables::Step {
            port: 0,
            depart: Some(1),
        },
    ]);
    let t = tables(
        4,
        Lookup::Source,
        vec![(0, vec![entry(2, None, route, vec![])])],
    );
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.propagation = Nanos(25_000);
    let mut e = test_engine(&spec(s, t, tm, hosts_on(&[0, 2])));
    e.port.inject(1, 0, &frame(1000));
    let mut at = None;
    for k in 0..=120 {
        e.poll(EPOCH + 5 + k * 500).unwrap();
        if at.is_none() && e.c.delivered == 1 {
            at = Some(k * 500);
        }
    }
    (at, e.c.clone())
}

#[test]
fn a_late_source_route_hop_leaves_at_once_while_its_circuit_is_up() {
    // The ToR1-ToR2 circuit of slice 1 is still up in slice 2: the frame
    // leaves ToR1 on arrival (~26 us) and reaches ToR2 2.5 slices later.
    let (at, c) = late_hop(&[1, 2]);
    assert_eq!(c.late_hops, 1, "{c}");
    let at = at.expect("delivered by 60 us");
    assert!((50_000..56_000).contains(&at), "delivered at {at} ns: {c}");
    // Gone in slice 2: it waits for slice 1 of the next cycle (50-60 us)
    // and arrives 25 us after that.
    let (at, c) = late_hop(&[1, 3]);
    assert_eq!((at, c.late_hops), (None, 0), "{c}");
    assert_eq!(
        (c.delivered, c.dropped_total()),
        (0, 0),
        "still on its way: {c}"
    );
}

#[test]
fn a_frame_that_fits_no_slice_is_dropped_when_the_tor_drops_on_a_miss() {
    // As rank_picks_the_departure_slice_queue_and_admission_caps_it: the
    // nineteenth 1000-byte frame fits neither its slice nor the alternate's.
    // With `tor.on_slice_miss: drop` (Opera's capped queues) it is dropped
    // as a slice miss instead of waiting a cycle in the primary queue.
    let mut s = Schedule::new(2, 1, 4);
    for ts in [1, 3] {
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), ts)
            .unwrap();
    }
    let t = tables(
        4,
        Lookup::Hop,
        vec![(
            0,
            vec![entry(1, None, hop(0, Some(3)), vec![hop(0, Some(1))])],
        )],
    );
    let mut tm = timing(SLICE, DARK, RATE);
    tm.model.queue_capacity = 100_000;
    let opts = EngineOptions {
        tor: TorFeatures {
            drop_on_miss: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let sp = spec(s, t, tm, hosts_on(&[0, 1]));
    let mut e = mem_engine(&sp, clock(&sp), opts).unwrap();
    for _ in 0..19 {
        e.port.inject(1, 0, &frame(1000));
    }
    e.poll(EPOCH + 2_000).unwrap();
    assert_eq!(e.queues(0)[0], vec![0, 9000, 0, 9000]);
    assert_eq!((e.c.rerouted, e.c.deferred), (9, 0), "{}", e.c);
    assert_eq!(e.c.dropped(DropReason::SliceMiss), 1, "{}", e.c);
    assert!(e.c.conservation_holds());
}

#[test]
fn timing_from_config_uses_the_larger_dark_time_and_a_slice_of_buffer() {
    let cfg = lh_ctrl::config::Config::from_json(
        r#"{"mode": "TO",
            "tors": {"count": 4, "uplinks": 1, "link_rate": "10Gbps",
                     "hosts_per_tor": 1, "host_link_rate": "10Gbps"},
            "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "300ns", "cabling": "auto"},
            "slice": {"duration": "50us", "guardband": "200ns", "propagation": "1us"},
            "topology": {"kind": "round_robin"},
            "routing": {"algorithm": "direct"}}"#,
        "test.json",
    )
    .unwrap();
    let t = Timing::from_config(&cfg);
    assert_eq!(t.model.slice, Nanos(50_000));
    assert_eq!(t.dark(), Nanos(300));
    assert_eq!(t.model.propagation, Nanos(1_000));
    // Eight slices' worth of usable bytes: 10 Gb/s x (50 us - 300 ns).
    assert_eq!(t.model.queue_capacity, 8 * 62_125);
    assert_eq!(t.tor_clock_offset, 0);
    assert_eq!(t.model.electrical_rate, None);
}

#[test]
fn packet_multipath_spreads_consecutive_packets_over_buckets() {
    let s = connected_every_slice();
    let bucket = |b, d| to_tor1(|m| m.bucket = Some(b), d);
    let t = Tables {
        multipath: Multipath::Packet,
        buckets: 2,
        ..tables(4, Lookup::Hop, vec![(0, vec![bucket(0, 1), bucket(1, 3)])])
    };
    let mut e = test_engine(&spec_with(s, t, [0, 1]));
    for _ in 0..4 {
        e.port.inject(1, 0, &frame(100));
    }
    e.poll(EPOCH + 5).unwrap();
    assert_eq!(e.queues(0)[0], vec![0, 200, 0, 200]);
}

#[test]
fn reconfiguration_swaps_circuits_with_a_dark_time() {
    // TA-style: one slice; ToR0's uplink first reaches ToR1, then ToR2.
    let mut a = Schedule::new(3, 1, 1);
    a.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    let mut b = Schedule::new(3, 1, 1);
    b.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
        .unwrap();
    let table = |dst| {
        tables(
            1,
            Lookup::Hop,
            vec![(0, vec![entry(dst, None, hop(0, None), vec![])])],
        )
    };
    // h1 on ToR0, h2 on ToR2: unreachable under `a` (tables say go,
    // but the circuit leads to ToR1, which has no route).
    let mut e = test_engine(&spec_with(a, table(2), [0, 2]));
    e.port.inject(1, 0, &frame(100));
    e.poll(EPOCH + 5).unwrap();
    e.poll(EPOCH + 200).unwrap();
    assert_eq!(e.c.dropped(DropReason::NoRoute), 1, "{}", e.c);
    let t = EPOCH + 1_000;
    e.reconfigure(&b, table(2), t).unwrap();
    e.port.inject(1, 0, &frame(100));
    e.poll(t + 10).unwrap();
    assert_eq!(e.c.uplink_tx, 1, "held during the 1 us dark time");
    e.poll(t + DARK).unwrap();
    e.poll(t + DARK + 200).unwrap();
    e.poll(t + DARK + 201).unwrap();
    assert_eq!(e.c.delivered, 1, "{}", e.c);
    assert_eq!(e.c.reconfigurations, 1);
    assert!(e.c.conservation_holds());
    // A ToR clock ahead of the OCS sends into the dark time.
    let mut ahead = spec_with(b.clone(), table(2), [0, 2]);
    ahead.timing.tor_clock_offset = 600;
    let mut e = test_engine(&ahead);
    let mut c = Schedule::new(3, 1, 1);
    c.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    e.reconfigure(&c, table(2), t).unwrap();
    e.port.inject(1, 0, &frame(100));
    e.poll(t + DARK - 600).unwrap();
    assert_eq!(e.c.dropped(DropReason::Guardband), 1, "{}", e.c);
    assert!(e.reconfigure(&Schedule::new(4, 1, 1), table(1), t).is_err());
}

mod rotorlb;

#[test]
fn an_all_native_fabric_may_sleep_only_while_it_holds_no_frame_and_until_the_next_slot() {
    let mut e = engine(0, 3);
    e.poll(EPOCH + 2_000).unwrap();
    // Nothing held: the loop may sleep until slot 1 starts (10 us).
    assert_eq!(e.idle_until(EPOCH + 2_000), Some(EPOCH + SLICE));
    e.port.inject(1, EPOCH + 2_100, &frame(1000));
    e.poll(EPOCH + 2_100).unwrap();
    assert_eq!(e.c.queued, 1);
    // A queued frame has a deadline: spin.
    assert_eq!(e.idle_until(EPOCH + 2_100), None);
    // Sent in slice 3 (30 us); delivered after the OCS's propagation.
    let mut t = EPOCH + 2_100;
    while e.c.queued > 0 && t < EPOCH + 60_000 {
        t += 500;
        e.poll(t).unwrap();
    }
    assert_eq!(e.c.queued, 0, "delivered by {t}");
    let next = EPOCH + (t - EPOCH) / SLICE * SLICE + SLICE;
    assert_eq!(e.idle_until(t), Some(next));
}

mod gateway;
mod netem;
