//! Slices: the usable window, no-circuit and guardband drops, slice-miss
//! reroutes and deferrals, a circuit moved at run time.

use super::*;

#[test]
fn probes_leave_only_inside_the_usable_window() {
    let Some(_serial) = can_run("probes_leave_only_inside_the_usable_window") else {
        return;
    };
    let net = Net::new(&[0, 1]);
    let (slice, dark) = (1_000_000u64, 100_000u64);
    let tables = tables(
        2,
        Lookup::Hop,
        vec![(0, vec![entry(1, None, hop(0, Some(0)), vec![])])],
    );
    let spec = spec(
        two_tor_schedule(2),
        tables,
        timing(slice / 1000, dark / 1000, 1_000_000_000),
        net.attach(),
    );
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let clock = fab.clock();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(600)));
    // Random gaps from a fixed-seed LCG: probes land all over both slices.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let gaps: Vec<u64> = (0..80)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % 1500
        })
        .collect();
    let payloads: Vec<Vec<u8>> = (0..80u8).map(|i| vec![i; 64]).collect();
    send_probes(&net, 0, net.hosts[1].ip, payloads, gaps);
    let got = recv.join().unwrap();
    let c = fab.stop();
    // A probe reaching the ToR in the last frame-time of slice 0 cannot fit
    // its slice any more and has no alternate: a legitimate slice miss.
    let miss = c.dropped(DropReason::SliceMiss);
    assert!(miss <= 2, "{c}");
    assert_eq!(got.len() as u64 + miss, 80, "nothing else is lost: {c}");
    assert_eq!(c.delivered, got.len() as u64, "{c}");
    // The OCS checked every transmission independently: none was outside a
    // usable window.
    assert_eq!(c.dropped_total(), miss, "{c}");
    assert!(c.conservation_holds(), "{c}");
    // Kernel receive stamps: nothing can arrive before the window opens
    // (phase < dark) unless delayed by more than a whole slice; the bulk
    // must arrive inside [dark, slice + tol]. Scheduling noise on a loaded
    // 2-core machine can delay a few deliveries, so those are counted, not
    // failed; without queue rotation about half would land outside.
    let cycle = 2 * slice;
    let tol = 100_000;
    let (mut inside, mut early_in_window) = (0, 0);
    let mut outside = Vec::new();
    let n = got.len();
    for (t, p) in &got {
        let phase = (t - clock.epoch) % cycle;
        if phase >= dark && phase <= slice + tol {
            inside += 1;
            if phase < dark + tol {
                early_in_window += 1;
            }
        } else {
            outside.push((p[0], phase));
        }
    }
    eprintln!("{inside}/{n} inside the window; outside (probe, phase ns): {outside:?}");
    assert!(
        inside * 100 >= n * 95,
        "{inside}/{n} inside [{dark}, {}]: {outside:?}",
        slice + tol
    );
    assert!(
        early_in_window > 0,
        "probes held through slice 1 are released as the window opens"
    );
}

#[test]
fn tables_without_a_circuit_give_no_circuit_drops() {
    let Some(_serial) = can_run("tables_without_a_circuit_give_no_circuit_drops") else {
        return;
    };
    let net = Net::new(&[0, 1]);
    // The circuit is up in slice 0, but the table departs in slice 1.
    let tables = tables(
        2,
        Lookup::Hop,
        vec![(0, vec![entry(1, None, hop(0, Some(1)), vec![])])],
    );
    let spec = spec(
        two_tor_schedule(2),
        tables,
        timing(500, 50, 1_000_000_000),
        net.attach(),
    );
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(200)));
    send_probes(
        &net,
        0,
        net.hosts[1].ip,
        vec![vec![7; 50]; 10],
        vec![300; 10],
    );
    assert!(recv.join().unwrap().is_empty());
    std::thread::sleep(Duration::from_millis(5));
    let c = fab.counters();
    // (A probe processed in the last frame-time of slice 1 is a slice miss:
    // rare, but the thread can resume there after being descheduled.)
    let miss = c.dropped(DropReason::SliceMiss);
    assert!(miss <= 2, "{c}");
    assert_eq!(c.dropped(DropReason::NoCircuit) + miss, 10, "{c}");
    assert_eq!(c.sent, 10);
    assert!(c.conservation_holds(), "{c}");
    let c = fab.stop();
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn tor_clock_ahead_of_the_ocs_gives_guardband_drops() {
    let Some(_serial) = can_run("tor_clock_ahead_of_the_ocs_gives_guardband_drops") else {
        return;
    };
    let net = Net::new(&[0, 1]);
    let tables = tables(
        2,
        Lookup::Hop,
        vec![(0, vec![entry(1, None, hop(0, Some(0)), vec![])])],
    );
    let mut t = timing(1000, 200, 1_000_000_000);
    // The ToR opens its window 150 us early: 50 us into the OCS's 200 us dark time.
    t.tor_clock_offset = 150_000;
    let spec = spec(two_tor_schedule(2), tables, t, net.attach());
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let clock = fab.clock();
    // Resolve ARP first so the burst below leaves the host at once.
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![0; 10]], vec![0]);
    std::thread::sleep(Duration::from_millis(10));
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(500)));
    // A burst in the middle of slice 1 (no circuit): all wait for slice 0.
    // It counts only if the ToR took all of it within slice 1; under load an
    // attempt can miss and is repeated (bursts marked by payload byte).
    let mut ok = None;
    for attempt in 1..=5u8 {
        let before = fab.counters();
        wait_phase(&clock, 1, 300_000, 400_000);
        let slot0 = clock.slot(monotonic_ns());
        send_probes(
            &net,
            0,
            net.hosts[1].ip,
            vec![vec![attempt; 100]; 10],
            vec![0; 10],
        );
        while fab.counters().sent - before.sent < 10 && clock.slot(monotonic_ns()) == slot0 {
            std::hint::spin_loop();
        }
        let taken = fab.counters().sent - before.sent == 10;
        if taken && clock.slot(monotonic_ns()) == slot0 {
            ok = Some((attempt, before));
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(10));
    let c = fab.stop();
    let got = recv.join().unwrap();
    let Some((attempt, before)) = ok else {
        skip(
            "tor_clock_ahead_of_the_ocs_gives_guardband_drops: no burst was taken within slice 1 in 5 tries (machine overloaded)",
        );
        return;
    };
    assert!(
        got.iter().all(|(_, p)| p[0] != attempt || p.len() != 100),
        "the burst hit the dark time: {c}"
    );
    // Later attempts (none after success) cannot add drops: compare with
    // the counters taken just before the successful burst.
    assert_eq!(
        c.dropped(DropReason::Guardband) - before.dropped(DropReason::Guardband),
        10,
        "{c}"
    );
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn slice_miss_reroutes_to_the_alternate_then_defers() {
    let Some(_serial) = can_run("slice_miss_reroutes_to_the_alternate_then_defers") else {
        return;
    };
    let net = Net::new(&[0, 1]);
    // Circuit up in slices 0 and 2 of 4; 2.5 Mb/s and 4 ms slices with a
    // 400 us guardband carry 1125 bytes per slice: two 542-byte frames.
    let mut s = Schedule::new(2, 1, 4);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(0, 0), ep(1, 0), 2).unwrap();
    let tables = tables(
        4,
        Lookup::Hop,
        vec![(
            0,
            vec![entry(1, None, hop(0, Some(0)), vec![hop(0, Some(2))])],
        )],
    );
    let spec = spec(s, tables, timing(4000, 400, 2_500_000), net.attach());
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let clock = fab.clock();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(800)));
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![0; 10]], vec![0]);
    // Drained: every frame sent so far taken by the ToR and gone from its
    // queues. The veth hands frames over asynchronously, so `queued == 0`
    // alone can be read before the ToR has even taken the last one (a
    // loaded run read the warm-up probe's queued 0, then 1).
    let mut taken = 1;
    let mut drained = |more: u64| {
        taken += more;
        let t0 = monotonic_ns();
        while monotonic_ns() - t0 < 2_000_000_000 {
            let c = fab.counters();
            if c.sent >= taken && c.queued == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    // The burst must be admitted inside slice 1: counters showing all six
    // taken and a queue snapshot, both back while still in the burst's slot,
    // prove it. On a loaded machine an attempt can miss and is repeated
    // (each burst marked by its first payload byte).
    let mut ok = None;
    let mut burst = 0;
    for attempt in 1..=5u8 {
        drained(burst); // earlier frames would take calendar-queue room
        burst = 6;
        let before = fab.counters();
        wait_phase(&clock, 1, 50_000, 3_000_000);
        let slot0 = clock.slot(monotonic_ns());
        let payloads: Vec<Vec<u8>> = (1..=6u8).map(|i| vec![attempt * 10 + i; 500]).collect();
        send_probes(&net, 0, net.hosts[1].ip, payloads, vec![0; 6]);
        // Wait until the ToR has taken all six (the veth hands them over
        // asynchronously), then look at the calendar queues.
        while fab.counters().sent - before.sent < 6 && clock.slot(monotonic_ns()) == slot0 {
            std::hint::spin_loop();
        }
        let queues = fab.queues(0);
        if clock.slot(monotonic_ns()) == slot0 {
            ok = Some((attempt, before, slot0, queues));
            break;
        }
    }
    drained(burst);
    let c = fab.stop();
    let got = recv.join().unwrap();
    let Some((attempt, before, slot0, queues)) = ok else {
        skip(
            "slice_miss_reroutes_to_the_alternate_then_defers: no burst was admitted within slice 1 in 5 tries (machine overloaded)",
        );
        return;
    };
    assert_eq!(before.queued, 0, "{before}");
    // Frames 1-2 fill slice 0's queue, 3-4 the alternate (slice 2); 5-6 fit
    // neither slice and wait in the primary queue's buffer for a cycle.
    assert_eq!(queues, vec![vec![2168, 0, 1084, 0]], "admission: {c}");
    let got: Vec<_> = got
        .into_iter()
        .filter(|(_, p)| p.len() == 500 && p[0] / 10 == attempt)
        .collect();
    assert_eq!(got.len(), 6, "all six arrive, two per usable slice: {c}");
    // Frames 3 and 4 took the alternate (slice 2), which comes first; 5 and
    // 6 leave a cycle after 1 and 2 — unless the data-plane thread missed a
    // window (it then counts frames as carried over, one cycle later).
    let order: Vec<u8> = got.iter().map(|(_, p)| p[0] % 10).collect();
    let when: Vec<(u8, u64, u64)> = got
        .iter()
        .map(|(t, p)| (p[0] % 10, clock.slot(*t) - slot0, *t - clock.slot_start(*t)))
        .collect();
    assert!(
        order == vec![3, 4, 1, 2, 5, 6] || c.carried_over > before.carried_over + 2,
        "(probe, slots after the burst, ns into slot): {when:?} {c}"
    );
    assert_eq!(c.rerouted - before.rerouted, 2, "{c}");
    assert_eq!(c.deferred - before.deferred, 2, "{c}");
    assert_eq!(
        c.dropped(DropReason::SliceMiss) - before.dropped(DropReason::SliceMiss),
        0,
        "{c}"
    );
    assert_eq!(c.delivered - before.delivered, 6, "{c}");
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn reconfigure_moves_a_circuit_at_runtime() {
    let Some(_serial) = can_run("reconfigure_moves_a_circuit_at_runtime") else {
        return;
    };
    // TA-style, one slice: ToR0's uplink reaches ToR1 first, then ToR2.
    let net = Net::new(&[0, 2]);
    let mut a = Schedule::new(3, 1, 1);
    a.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    let mut b = Schedule::new(3, 1, 1);
    b.connect(ep(0, 0), ep(2, 0), 0).unwrap();
    let t = || {
        tables(
            1,
            Lookup::Hop,
            vec![
                (0, vec![entry(2, None, hop(0, None), vec![])]),
                (2, vec![entry(0, None, hop(0, None), vec![])]),
            ],
        )
    };
    let spec = spec(a, t(), timing(100, 10, 1_000_000_000), net.attach());
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(300)));
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![1; 50]; 3], vec![300; 3]);
    std::thread::sleep(Duration::from_millis(20));
    let before = fab.counters();
    assert_eq!(
        before.dropped(DropReason::NoRoute),
        3,
        "ToR1 has no route: {before}"
    );
    fab.reconfigure(b, t()).unwrap();
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![2; 50]; 3], vec![300; 3]);
    let got = recv.join().unwrap();
    assert_eq!(got.len(), 3, "after the update the circuit reaches ToR2");
    let c = fab.stop();
    assert_eq!(c.reconfigurations, 1);
    assert!(c.conservation_holds(), "{c}");
}
