//! Conformance runner for the native ToR: the ToR under test is native and
//! every other ToR is external, all on an in-memory port with a fixed
//! clock epoch. Everything the tested ToR sends through the OCS comes out
//! of [`MemPort`] on a peer's uplink ifindex (its time gives the departure
//! slice); fabric ingress is injected as tagged frames on a peer external
//! ToR's uplink (docs/p4.md). The same runner can drive a P4 ToR's
//! expected behaviour: only the ToR under test changes.

use lh_ctrl::config::Lookup;
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::units::Nanos;
use swtor::engine::{Engine, EngineOptions};
use swtor::testing::{
    EPOCH, clock, entry, hop, host_ip, hosts_on, mem_engine, spec, tables, timing, udp,
};
use swtor::wire::{self, Shim};
use swtor::{DropReason, ExternalTor, FabricSpec, Ifindexes, MemPort};

const SLICE: u64 = 10_000;
const DARK: u64 = 1_000;
const PROP: u64 = 300;

/// RotorNet-style 3 ToRs x 1 uplink x 3 slices: slice 0 joins ToRs 0-1,
/// slice 1 joins 0-2, slice 2 joins 1-2. Every circuit changes each slice
/// (1 us dark). Host k+1 (10.0.0.k+1) is on ToR k. 8 Gb/s = 1 B/ns.
fn rotornet(native: TorUnderTest) -> FabricSpec {
    let mut s = Schedule::new(3, 1, 3);
    let ep = |t| Endpoint::new(t, 0);
    s.connect(ep(0), ep(1), 0).unwrap();
    s.connect(ep(0), ep(2), 1).unwrap();
    s.connect(ep(1), ep(2), 2).unwrap();
    // Direct routing at ToR 0: wait for the circuit to the destination.
    let direct = |dst, depart| entry(dst, None, hop(0, Some(depart)), vec![]);
    let t = tables(3, Lookup::Hop, vec![(0, vec![direct(1, 0), direct(2, 1)])]);
    let mut tm = timing(SLICE, DARK, 8_000_000_000);
    tm.model.propagation = Nanos(PROP);
    tm.model.queue_capacity = 5_000;
    FabricSpec {
        external: ExternalTor::all_except(&s, &[native.0], "lh"),
        ..spec(s, t, tm, hosts_on(&[0, 1, 2]))
    }
}

#[derive(Clone, Copy)]
struct TorUnderTest(u16);

fn runner(spec: &FabricSpec) -> (Engine<MemPort>, Ifindexes) {
    let e = mem_engine(spec, clock(spec), EngineOptions::default()).unwrap();
    (e, Ifindexes::sequential(spec))
}

/// Polls every 100 ns over `[from, to)`.
fn run(e: &mut Engine<MemPort>, from: u64, to: u64) {
    let mut t = from;
    while t < to {
        e.poll(t).unwrap();
        t += 100;
    }
}

#[test]
fn native_tor_direct_path_on_rotornet_conforms() {
    let spec = rotornet(TorUnderTest(0));
    let (mut e, ifx) = runner(&spec);
    let clk = clock(&spec);
    let h1 = e.host_ifindex(host_ip(1)).unwrap();
    assert_eq!(h1, ifx.hosts[0]);
    // Hosts of external ToRs are not attached.
    assert_eq!(e.host_ifindex(host_ip(2)), None);
    let up1 = e.uplink_ifindex(1, 0).unwrap();
    let up2 = e.uplink_ifindex(2, 0).unwrap();
    assert_eq!(
        (up1, up2),
        (ifx.external[0].uplinks[0], ifx.external[1].uplinks[0])
    );
    assert_eq!(e.uplink_ifindex(0, 0), None, "ToR 0 is native");
    assert_eq!(e.uplink_of_ifindex(up2), Some((2, 0)));

    // Host ingress at the ToR under test, arrival slice 2 (slot 2).
    let t0 = EPOCH + 2 * SLICE + 2_000;
    let to_h2 = udp(1, 2, 0, 500);
    let to_h3 = udp(1, 3, 0, 700);
    e.port_mut().inject(h1, t0, &to_h2);
    e.port_mut().inject(h1, t0, &to_h3);
    // Fabric ingress: ToR 1 (external) sends h2 -> h1 departing in slice 0
    // of slot 3, i.e. over the 0-1 circuit.
    let from_h2 = udp(2, 1, 0, 300);
    let tag = |slice, slot| Shim {
        kind: wire::SHIM_DEPARTURE,
        flags: 0,
        slice,
        slot,
    };
    e.port_mut()
        .inject(up1, t0 + 500, &wire::shim_insert(&from_h2, &tag(0, 3)));
    run(&mut e, EPOCH, EPOCH + 6 * SLICE);

    let c = e.counters();
    assert_eq!(
        (c.sent, c.from_external, c.delivered, c.to_external),
        (2, 1, 1, 2),
        "{c}"
    );
    assert_eq!(c.dropped_total(), 0, "{c}");
    assert_eq!(c.late_from_tor, 0);
    assert!(c.conservation_holds(), "{c}");

    // What the ToR under test sent through the OCS: out of each peer's
    // uplink, untagged, departing in the table's slice of the next cycle.
    let depart = |s: &swtor::SentFrame| {
        let ser = s.data.len() as u64; // 1 B/ns
        clk.slice_of(s.t - PROP - ser)
    };
    let at2: Vec<_> = e.port().sent_on(up1).collect();
    assert_eq!(at2.len(), 1);
    assert_eq!(at2[0].data, to_h2, "delivered to ToR 1 unchanged, no tag");
    assert_eq!(depart(at2[0]), (0, 1), "slice 0 of cycle 1 (rank 1)");
    let at3: Vec<_> = e.port().sent_on(up2).collect();
    assert_eq!(at3.len(), 1);
    assert_eq!(at3[0].data, to_h3);
    assert_eq!(depart(at3[0]), (1, 1), "slice 1 of cycle 1 (rank 2)");
    // Not before the usable window (1 us dark), not past the poll step.
    let win = clk.start_of_slot(3) + DARK + PROP + 500;
    assert!(at2[0].t >= win && at2[0].t < win + 100, "{}", at2[0].t);

    // Fabric ingress reached h1 untagged, in slot 3 after its window opened.
    let at1: Vec<_> = e.port().sent_on(h1).collect();
    assert_eq!(at1.len(), 1);
    assert_eq!(at1[0].data, from_h2);
    assert!(at1[0].t >= win - 200 && clk.slot(at1[0].t) == 3);

    // One rotation frame per slot on each external ToR's CPU port.
    for x in &ifx.external {
        let rot: Vec<_> = e.port().sent_on(x.cpu).collect();
        assert_eq!(rot.len(), 6, "slots 0..6");
        for (k, r) in rot.iter().enumerate() {
            let s = wire::shim_parse(&r.data).unwrap();
            assert_eq!(
                (s.kind, s.slice, s.slot),
                (wire::SHIM_ROTATION, (k % 3) as u16, k as u32)
            );
            assert_eq!(clk.slot(r.t), k as u64, "sent at the slot start");
            assert_eq!(&r.data[0..6], &[0xff; 6]);
            assert_eq!(r.data.len(), wire::ROTATION_FRAME_LEN);
        }
    }
    assert_eq!(c.rotation_tx, 12);
}

#[test]
fn external_uplink_checks_tag_buffer_and_lateness() {
    let spec = rotornet(TorUnderTest(0));
    let (mut e, _) = runner(&spec);
    let up1 = e.uplink_ifindex(1, 0).unwrap();
    let from_h2 = udp(2, 1, 0, 1000);
    let tag = |slice, slot| Shim {
        kind: wire::SHIM_DEPARTURE,
        flags: 0,
        slice,
        slot,
    };
    let t = EPOCH + 4 * SLICE + 5_000; // slot 4 = slice 1
    let p = e.port_mut();
    // No tag, a rotation tag, a slice out of range: bad_header.
    p.inject(up1, t, &from_h2);
    let mut rot = [0u8; wire::ROTATION_FRAME_LEN];
    wire::rotation_frame(&mut rot, 0, 4);
    p.inject(up1, t, &rot);
    p.inject(up1, t, &wire::shim_insert(&from_h2, &tag(3, 6)));
    // Slot 3 (slice 0) passed: late, waits for slot 6.
    p.inject(up1, t, &wire::shim_insert(&from_h2, &tag(0, 3)));
    // On time for slot 6, and wrapping arithmetic around u32::MAX is "past".
    p.inject(up1, t, &wire::shim_insert(&from_h2, &tag(0, 6)));
    p.inject(up1, t, &wire::shim_insert(&from_h2, &tag(0, u32::MAX)));
    // Queue capacity is 5 000 bytes: the sixth 1 000-byte frame is refused.
    for _ in 0..3 {
        p.inject(up1, t, &wire::shim_insert(&from_h2, &tag(0, 6)));
    }
    e.poll(t).unwrap();
    let c = e.counters();
    assert_eq!(c.from_external, 9, "{c}");
    assert_eq!(c.dropped(DropReason::BadHeader), 3, "{c}");
    assert_eq!(c.dropped(DropReason::QueueFull), 1, "{c}");
    assert_eq!(c.late_from_tor, 2, "{c}");
    assert_eq!(e.queues(1)[0], vec![5000, 0, 0]);
    assert!(c.conservation_holds(), "{c}");
    // All five leave in slot 6 (slice 0) and reach h1.
    run(&mut e, t, EPOCH + 7 * SLICE + 1_000);
    let c = e.counters();
    assert_eq!(c.delivered, 5, "{c}");
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn external_tors_refuse_a_shared_buffer() {
    let mut spec = rotornet(TorUnderTest(0));
    spec.timing.model.buffer_capacity = 64_000;
    let e = mem_engine(&spec, clock(&spec), EngineOptions::default());
    let msg = e.err().expect("refused").to_string();
    assert!(msg.contains("tors.buffer_capacity"), "{msg}");
    assert!(msg.contains("external (P4) ToRs"), "{msg}");
}

#[test]
fn failed_tor_link_drops_both_directions_as_link_down_until_restored() {
    let spec = rotornet(TorUnderTest(0));
    let (mut e, _) = runner(&spec);
    let h1 = e.host_ifindex(host_ip(1)).unwrap();
    let up1 = e.uplink_ifindex(1, 0).unwrap();
    let up2 = e.uplink_ifindex(2, 0).unwrap();
    let tag = |slot| Shim {
        kind: wire::SHIM_DEPARTURE,
        flags: 0,
        slice: 0,
        slot,
    };
    assert!(
        e.set_link(0, 0, false).is_err(),
        "no link from a ToR to itself"
    );
    assert!(e.set_link(0, 3, false).is_err(), "no ToR 3");
    e.set_link(1, 0, false).unwrap();
    assert!(!e.ocs().link_up(0, 1) && !e.ocs().link_up(1, 0));
    assert!(e.ocs().link_up(0, 2));
    // Slot 2 (slice 2): h1 -> h2 needs the 0-1 circuit (slice 0), h1 -> h3
    // the 0-2 one (slice 1); ToR 1 sends h2 -> h1 over 0-1 in slot 3.
    let t0 = EPOCH + 2 * SLICE + 2_000;
    let p = e.port_mut();
    p.inject(h1, t0, &udp(1, 2, 0, 500));
    p.inject(h1, t0, &udp(1, 3, 0, 700));
    p.inject(
        up1,
        t0 + 500,
        &wire::shim_insert(&udp(2, 1, 0, 300), &tag(3)),
    );
    run(&mut e, EPOCH, EPOCH + 6 * SLICE);
    let c = e.counters();
    assert_eq!(c.dropped(DropReason::LinkDown), 2, "both directions: {c}");
    assert_eq!(c.dropped_total(), 2, "{c}");
    assert_eq!((c.delivered, c.to_external), (0, 1), "{c}");
    assert_eq!(e.port().sent_on(up2).count(), 1, "0-2 is unaffected");
    assert_eq!(e.port().sent_on(up1).count(), 0);
    assert!(c.conservation_holds(), "{c}");

    // Restored: the same traffic crosses 0-1 again (slot 8 = slice 2).
    e.set_link(0, 1, true).unwrap();
    let t1 = EPOCH + 8 * SLICE + 2_000;
    let p = e.port_mut();
    p.inject(h1, t1, &udp(1, 2, 0, 500));
    p.inject(
        up1,
        t1 + 500,
        &wire::shim_insert(&udp(2, 1, 0, 300), &tag(9)),
    );
    run(&mut e, EPOCH + 6 * SLICE, EPOCH + 12 * SLICE);
    let c = e.counters();
    assert_eq!(c.dropped(DropReason::LinkDown), 2, "no new drops: {c}");
    assert_eq!((c.delivered, c.to_external), (1, 2), "{c}");
    assert_eq!(e.port().sent_on(up1).count(), 1);
    assert!(c.conservation_holds(), "{c}");
}
