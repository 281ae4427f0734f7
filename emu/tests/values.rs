//! Values of the typed Network API that need no running network: the
//! conservation terms (`drops`, the dashboard's ticks) and where a slice
//! clock is in its cycle.

use lh_emu::net::values::{Conservation, SliceNow};
use lh_emu::tor::bmv2::P4Counters;
use swtor::{Counters, SliceClock};

/// A mixed fabric mid-run: native hosts' frames in swtor, a BMv2 ToR's
/// frames in its own counters, one frame inside BMv2 and one on its veth.
fn mixed() -> (Counters, P4Counters) {
    let mut sw = Counters {
        sent: 5,
        delivered: 4,
        queued: 1,
        to_external: 1,
        from_external: 1,
        ..Counters::default()
    };
    sw.dropped[0] = 0;
    let mut p4 = P4Counters {
        host_rx: 5,
        host_tx: 1,
        uplink_tx: 2,
        ..P4Counters::default()
    };
    p4.dropped[0] = 2;
    (sw, p4)
}

#[test]
fn conservation_adds_the_p4_tors_terms_and_what_is_in_flight_between() {
    let (sw, p4) = mixed();
    assert!(sw.conservation_holds());
    assert_eq!(
        Conservation::of(&sw, Some(&p4)),
        Conservation {
            sent: 10,
            delivered: 5,
            dropped: 2,
            queued: 1,
            held: 0,
            // One frame inside BMv2, one on its uplink veth.
            in_flight: 2,
            holds: true,
        }
    );
    // Native only: swtor's own terms.
    let native = Counters {
        sent: 7,
        delivered: 5,
        queued: 1,
        ..Counters::default()
    };
    let mut n = native.clone();
    n.dropped[0] = 1;
    assert_eq!(
        Conservation::of(&n, None),
        Conservation {
            sent: 7,
            delivered: 5,
            dropped: 1,
            queued: 1,
            held: 0,
            in_flight: 0,
            holds: true,
        }
    );
}

#[test]
fn conservation_fails_when_a_frame_is_unaccounted_for() {
    // swtor took in a frame it did not deliver, drop or queue.
    let (mut sw, p4) = mixed();
    sw.sent += 1;
    assert!(!Conservation::of(&sw, Some(&p4)).holds);
    // swtor's own line broken (a frame at a host NIC it never took in).
    let (mut sw, p4) = mixed();
    sw.held = 1;
    assert!(!sw.conservation_holds());
    assert!(!Conservation::of(&sw, Some(&p4)).holds);
    // A frame sent and held at a host NIC (push-back): conservation holds,
    // with the frame in the held term.
    let (mut sw, p4) = mixed();
    sw.sent += 1;
    sw.held = 1;
    let c = Conservation::of(&sw, Some(&p4));
    assert!(c.holds && c.held == 1, "{c:?}");
}

#[test]
fn slice_now_is_where_the_clock_is_in_the_cycle() {
    let slice = 1_000_000_000; // 1 s: the test does not cross a boundary
    let now = swtor::monotonic_ns();
    // Cycle 2 of 4-slice cycles, slice 3, half way through it.
    let clock = SliceClock {
        epoch: now - (2 * 4 + 3) * slice - slice / 2,
        slice,
        slices: 4,
    };
    assert_eq!(
        SliceNow::at(&clock, 4),
        SliceNow {
            slice: 3,
            slices: 4,
            cycle: 2,
        }
    );
}
