//! The fat tree's switches (swtor/src/switch.rs) in the real engine over an
//! in-memory port, with time passed explicitly: SOPA's source routes on
//! k = 4 against an independent enumeration of the equal-cost paths (from
//! the Fat-Tree's definition), round-robin per packet; ECMP keeps a flow on
//! one path and RPS sprays it; Hedera moves two colliding elephants apart;
//! a failed agg-core link loses frames as `link_down` until its paths are
//! withdrawn, and a frame on a link when it fails; conservation is exact.

use lh_ctrl::compile::{Compiled, compile};
use lh_ctrl::config::{Algorithm, Config};
use std::collections::BTreeSet;
use swtor::engine::{Engine, EngineOptions};
use swtor::{DropReason, FatTreeOptions, MemPort, Scheme, testing};

const K: usize = 4;
const H: usize = K / 2;
const EDGES: usize = K * H;
const AGGS: usize = K * H;
const HOSTS: usize = EDGES * H;

// The Fat-Tree's definition (Al-Fares et al.), written out independently
// of lh_ctrl::fattree: pod p has edges E(p,i) and aggregation switches
// A(p,j); cores C(j,m); E(p,i) has hosts h = (p*H + i)*H + n.
fn e(p: usize, i: usize) -> u16 {
    (p * H + i) as u16
}
fn a(p: usize, j: usize) -> u16 {
    (EDGES + p * H + j) as u16
}
fn c(j: usize, m: usize) -> u16 {
    (EDGES + AGGS + j * H + m) as u16
}

/// The switches that transmit on each equal-cost path from host `x` to
/// host `y` on a switch-to-switch link (edges deliver to their hosts
/// themselves): every (agg j, core m) for different pods, every agg j
/// inside a pod, no link under one edge switch.
fn expected_paths(x: usize, y: usize) -> BTreeSet<BTreeSet<u16>> {
    let (ex, ey) = (x / H, y / H);
    let (px, ix, py) = (ex / H, ex % H, ey / H);
    let mut out = BTreeSet::new();
    if ex == ey {
        out.insert(BTreeSet::new());
        return out;
    }
    for j in 0..H {
        if px == py {
            out.insert(BTreeSet::from([e(px, ix), a(px, j)]));
        } else {
            for m in 0..H {
                out.insert(BTreeSet::from([e(px, ix), a(px, j), c(j, m), a(py, j)]));
            }
        }
    }
    out
}

/// One UDP frame of `payload` bytes from host `x` to host `y` (0-based:
/// h1 is host 0).
fn udp(x: usize, y: usize, sport: u16, payload: usize) -> Vec<u8> {
    testing::udp(x + 1, y + 1, sport, 42 + payload)
}

fn compiled(alg: Algorithm) -> Compiled {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../topologies/fattree-4.json");
    let mut cfg = Config::load(std::path::Path::new(path)).expect("fattree-4.json loads");
    cfg.routing.algorithm = alg;
    cfg.validate("fattree-4.json").expect("valid");
    compile(&cfg).expect("compiles")
}

struct Net {
    eng: Engine<MemPort>,
    now: u64,
}

fn net(alg: Algorithm) -> Net {
    net_with(alg, |_| {})
}

fn net_with(alg: Algorithm, tweak: impl FnOnce(&mut FatTreeOptions)) -> Net {
    let c = compiled(alg);
    let spec = testing::compiled_spec(&c);
    assert_eq!(spec.hosts.len(), HOSTS);
    let mut ft = FatTreeOptions::from_config(&c.config).expect("a fat tree");
    tweak(&mut ft);
    let opts = EngineOptions {
        fattree: Some(ft),
        ..Default::default()
    };
    assert_eq!(
        opts.fattree.map(|f| f.scheme),
        Some(match alg {
            Algorithm::Sopa => Scheme::Sopa,
            Algorithm::Rps => Scheme::Rps,
            Algorithm::Hedera => Scheme::Hedera,
            _ => Scheme::Ecmp,
        })
    );
    let eng = testing::mem_engine(&spec, testing::clock(&spec), opts).expect("engine");
    Net {
        eng,
        now: testing::EPOCH,
    }
}

impl Net {
    /// Per-port tx counters of every switch.
    fn tx(&self) -> Vec<u64> {
        self.eng
            .switch_ports()
            .iter()
            .map(|p| p.tx_frames)
            .collect()
    }

    /// Sends one small frame from host `x` to `y` and runs until it is out
    /// of the fabric; returns the switches that transmitted it.
    fn send(&mut self, x: usize, y: usize, sport: u16) -> BTreeSet<u16> {
        self.burst(x, y, sport, 1, 100)
    }

    /// Sends `n` frames of one flow at once and runs until they are out of
    /// the fabric; returns the switches that transmitted them, each all `n`
    /// (one path).
    fn burst(&mut self, x: usize, y: usize, sport: u16, n: u64, payload: usize) -> BTreeSet<u16> {
        let before = self.tx();
        let f = udp(x, y, sport, payload);
        for _ in 0..n {
            self.eng.port_mut().inject(x as i32 + 1, self.now, &f);
        }
        for _ in 0..2000 {
            self.eng.poll(self.now).expect("poll");
            self.now += 2_000;
            if self.eng.counters().queued == 0 && self.eng.port().pending() == 0 {
                break;
            }
        }
        let after = self.tx();
        let ports = self.eng.switch_ports();
        let mut sw = BTreeSet::new();
        for (k, p) in ports.iter().enumerate() {
            if after[k] > before[k] {
                assert_eq!(after[k], before[k] + n, "{n} frames, one path");
                sw.insert(p.switch);
            }
        }
        sw
    }

    fn check_conservation(&mut self) {
        let c = self.eng.counters();
        assert_eq!(
            c.sent,
            c.delivered + c.dropped_total() + c.queued,
            "sent = delivered + dropped + queued: {c:?}"
        );
    }
}

#[test]
fn sopa_source_routes_are_the_equal_cost_paths_round_robin() {
    let mut n = net(Algorithm::Sopa);
    let mut pairs = 0;
    for x in 0..HOSTS {
        for y in 0..HOSTS {
            if x == y {
                continue;
            }
            let want = expected_paths(x, y);
            let w = want.len();
            // Two rounds: the first covers every path once, the second
            // repeats it in the same order (round-robin per packet).
            let got: Vec<BTreeSet<u16>> = (0..2 * w).map(|_| n.send(x, y, 4000)).collect();
            let first: BTreeSet<BTreeSet<u16>> = got[..w].iter().cloned().collect();
            assert_eq!(first, want, "h{} -> h{}: path set", x + 1, y + 1);
            assert_eq!(got[..w], got[w..], "h{} -> h{}: round-robin", x + 1, y + 1);
            pairs += 1;
        }
    }
    assert_eq!(pairs, HOSTS * (HOSTS - 1));
    let c = n.eng.counters();
    assert_eq!(c.dropped_total(), 0, "{c:?}");
    assert_eq!(c.delivered, c.sent);
    n.check_conservation();
}

#[test]
fn ecmp_keeps_a_flow_on_one_path_and_rps_sprays_it() {
    // ECMP: one 5-tuple, one path; many 5-tuples use several paths.
    let mut n = net(Algorithm::Ecmp);
    let (x, y) = (0, HOSTS - 1);
    let one: BTreeSet<_> = (0..16).map(|_| n.send(x, y, 4000)).collect();
    assert_eq!(one.len(), 1, "one flow, one path: {one:?}");
    let many: BTreeSet<_> = (0..64).map(|s| n.send(x, y, 4000 + s)).collect();
    assert!(many.len() >= 3, "64 flows over 4 paths used {}", many.len());
    assert!(many.is_subset(&expected_paths(x, y)));
    n.check_conservation();

    // RPS: one flow, many paths, all of them equal-cost.
    let mut n = net(Algorithm::Rps);
    let sprayed: BTreeSet<_> = (0..64).map(|_| n.send(x, y, 4000)).collect();
    assert!(
        sprayed.len() >= 3,
        "64 packets over 4 paths used {}",
        sprayed.len()
    );
    assert!(sprayed.is_subset(&expected_paths(x, y)));
    assert_eq!(n.eng.counters().dropped_total(), 0);
    n.check_conservation();
}

#[test]
fn failed_agg_core_link_drops_until_its_paths_are_withdrawn() {
    for alg in [Algorithm::Sopa, Algorithm::Ecmp, Algorithm::Rps] {
        let mut n = net(alg);
        // h1 (pod 0) -> h16 (pod 3); fail A(3,0)-C(0,0), a link into the
        // destination pod: the sources must stop using C(0,0) for pod 3.
        let (x, y) = (0, HOSTS - 1);
        let t0 = n.now;
        n.eng
            .set_switch_link(a(3, 0), c(0, 0), false, t0)
            .expect("link exists");
        assert!(n.eng.set_switch_link(a(3, 0), c(1, 0), false, t0).is_err());
        // Before detection (1 ms): some of 40 packets over many flows
        // (sprayed or hashed) hit the failed link and are lost as link_down.
        for s in 0..40 {
            n.send(x, y, 4000 + s);
        }
        assert!(n.now < t0 + 1_000_000, "still before detection");
        let lost = n.eng.counters().dropped(DropReason::LinkDown);
        assert!(lost > 0, "{alg:?}: nothing crossed the failed link");
        n.check_conservation();
        n.now = t0 + 1_000_000;
        let after: BTreeSet<_> = (0..40).map(|s| n.send(x, y, 5000 + s)).collect();
        let k = n.eng.counters();
        assert_eq!(
            k.dropped(DropReason::LinkDown),
            lost,
            "{alg:?}: lost after detection"
        );
        assert_eq!(k.dropped_total(), lost);
        assert!(
            after.iter().all(|p| !p.contains(&c(0, 0))),
            "{alg:?}: {after:?}"
        );
        if alg != Algorithm::Ecmp {
            assert_eq!(after.len(), 3, "{alg:?}: the 3 surviving paths");
        }
        n.check_conservation();
    }
}

#[test]
fn hedera_places_colliding_elephants_on_disjoint_paths() {
    // Two flows h1 -> h15 and h2 -> h16 (edge 0 to edge 7) that ECMP hashes
    // onto the same uplink of edge 0 both become elephants (>= 10% of the
    // host rate over the 1 ms interval = 12.5 kB); a round then places
    // them with global first fit on paths through different aggregation
    // switches (each wants a whole 1 Gb/s NIC, more than a link has left).
    let mut n = net_with(Algorithm::Hedera, |o| o.hedera_interval = 1_000_000);
    let (a1, b1) = (0, HOSTS - 2);
    let (a2, b2) = (1, HOSTS - 1);
    let agg = |p: &BTreeSet<u16>| p.iter().copied().find(|&s| s as usize >= EDGES);
    let first = n.send(a1, b1, 4000);
    let sport = (4000..4400)
        .find(|&sp| agg(&n.send(a2, b2, sp)) == agg(&first))
        .expect("an ECMP collision among 400 source ports");
    assert_eq!(n.eng.switches().unwrap().hedera_rounds().unwrap().1, 0);
    // Bursts of 10 x 1442 B per flow, alternating, for ~10 ms.
    let t0 = n.now;
    let mut last = (BTreeSet::new(), BTreeSet::new());
    while n.now < t0 + 10_000_000 {
        last = (
            n.burst(a1, b1, 4000, 10, 1400),
            n.burst(a2, b2, sport, 10, 1400),
        );
    }
    let (rounds, placed) = n.eng.switches().unwrap().hedera_rounds().unwrap();
    assert!(
        rounds >= 5 && placed == 2,
        "rounds {rounds}, placed {placed}"
    );
    let (p1, p2) = last;
    assert_ne!(agg(&p1), agg(&p2), "placed apart: {p1:?} {p2:?}");
    assert!(expected_paths(a1, b1).contains(&p1), "{p1:?}");
    assert!(expected_paths(a2, b2).contains(&p2), "{p2:?}");
    assert_eq!(n.eng.counters().dropped_total(), 0);
    n.check_conservation();
}

#[test]
fn a_frame_on_a_link_when_it_fails_is_lost_and_one_already_across_is_not() {
    // One ECMP flow h1 -> h16 takes one path; its first link is E(0,0) to
    // the A(0,j) the path crosses. A 1442-byte frame takes 11.5 us on a
    // 1 Gb/s link plus 1 us of propagation, so 1 us after it starts it is
    // on that link, and 20 us after it is past it.
    let (x, y, sport) = (0, HOSTS - 1, 4000);
    for (fail_after, lost) in [(1_000, 1), (20_000, 0)] {
        let mut n = net(Algorithm::Ecmp);
        let path = n.send(x, y, sport);
        let up = (0..H)
            .map(|j| a(0, j))
            .find(|s| path.contains(s))
            .expect("the path leaves pod 0's edge by an aggregation switch");
        let before = n.eng.counters();
        let t0 = n.now;
        n.eng
            .port_mut()
            .inject(x as i32 + 1, t0, &udp(x, y, sport, 1400));
        n.eng.poll(t0).expect("poll");
        assert_eq!(
            n.eng.counters().queued,
            1,
            "the frame is on E(0,0)'s uplink"
        );
        // No poll between the failure and the frame's arrival times: a
        // late poll must judge each event by its own time.
        n.eng
            .set_switch_link(e(0, 0), up, false, t0 + fail_after)
            .expect("link exists");
        n.now = t0 + 100_000;
        for _ in 0..100 {
            n.eng.poll(n.now).expect("poll");
            n.now += 2_000;
        }
        let c = n.eng.counters();
        assert_eq!(
            c.dropped(DropReason::LinkDown) - before.dropped(DropReason::LinkDown),
            lost,
            "failed {fail_after} ns after the send: {c:?}"
        );
        assert_eq!(c.delivered - before.delivered, 1 - lost, "{c:?}");
        assert_eq!(c.queued, 0);
        n.check_conservation();
    }
}
