//! The forwarding hot path must not allocate: run the real engine (lookup,
//! calendar queues, admission, OCS checks, delay line, host delivery, source
//! routing) over an in-memory port under a counting global allocator.

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{Action, Step, Tables};
use lh_ctrl::units::{BitsPerSec, Nanos};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use swtor::afpacket::RxFrame;
use swtor::engine::{Engine, EngineOptions, Port};
use swtor::pool::FramePool;
use swtor::testing::{entry, hop, hosts_on, spec, tables, udp};
use swtor::{FabricSpec, SliceClock, Timing};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);
thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}
// SAFETY: forwards to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ON.with(|c| c.get()) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if ON.with(|c| c.get()) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static A: Counting = Counting;

/// Offers UDP frames from host 0 to host 1 (ifindex 1 and 2) and takes
/// whatever the engine sends (to `expect`, and rotation frames to `cpu`).
/// With `tagged` also offers those tagged frames on ifindex 3 (an
/// external ToR's uplink).
struct MemPort {
    frame: Vec<u8>,
    tagged: Option<Vec<u8>>,
    per_poll: usize,
    received: u64,
    expect: &'static [i32],
}
impl Port for MemPort {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        for _ in 0..self.per_poll {
            let Some(i) = pool.alloc_from(&self.frame) else {
                break;
            };
            pool.meta_mut(i).t = now;
            out.push(RxFrame {
                idx: i,
                ifindex: 1,
                truncated: false,
                csum_not_ready: true,
            });
            if let Some(t) = &self.tagged
                && let Some(j) = pool.alloc_from(t)
            {
                pool.meta_mut(j).t = now;
                out.push(RxFrame {
                    idx: j,
                    ifindex: 3,
                    truncated: false,
                    csum_not_ready: false,
                });
            }
        }
        Ok(self.per_poll)
    }
    fn send_batch(&mut self, _pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        assert!(frames.iter().all(|f| self.expect.contains(&f.1)));
        self.received += frames.len() as u64;
        Ok(frames.len())
    }
}

fn run(spec: FabricSpec) {
    run_with(spec, None, &[2]);
}

fn run_with(spec: FabricSpec, tagged: Option<Vec<u8>>, expect: &'static [i32]) {
    run_opts(spec, tagged, expect, None);
}

fn run_opts(
    spec: FabricSpec,
    tagged: Option<Vec<u8>>,
    expect: &'static [i32],
    fattree: Option<swtor::FatTreeOptions>,
) {
    let external = tagged.is_some();
    let clock = SliceClock::aligned(
        swtor::monotonic_ns(),
        spec.timing.model.slice.0,
        spec.schedule.slices() as u64,
    );
    let port = MemPort {
        frame: udp(1, 2, 0, 200),
        tagged,
        per_poll: 2,
        received: 0,
        expect,
    };
    let mut e = Engine::new(
        &spec,
        &[1, 2],
        port,
        clock,
        EngineOptions {
            pool_frames: 8192,
            host_queue_bytes: 1 << 20,
            epoch: None,
            fattree,
            ..Default::default()
        },
    )
    .unwrap();
    // Warm up: every code path once, so lazily sized things settle.
    for _ in 0..20_000 {
        e.poll(swtor::monotonic_ns()).unwrap();
    }
    let before = e.port_mut().received;
    ALLOCS.store(0, Ordering::Relaxed);
    ON.with(|c| c.set(true));
    for _ in 0..50_000 {
        e.poll(swtor::monotonic_ns()).unwrap();
    }
    ON.with(|c| c.set(false));
    let moved = e.port_mut().received - before;
    let c = e.counters();
    assert!(moved > 1000, "traffic flowed during the measurement: {c}");
    assert_eq!(
        ALLOCS.load(Ordering::Relaxed),
        0,
        "allocations on the hot path ({c})"
    );
    assert!(c.conservation_holds(), "{c}");
    if external {
        assert!(
            c.from_external > 1000 && c.to_external > 1000 && c.rotation_tx > 10,
            "the external paths ran: {c}"
        );
    }
}

/// 100 Gb/s links and hosts, 1 us dark, 500 ns propagation.
fn timing(slice_ns: u64) -> Timing {
    let mut t = swtor::testing::timing(slice_ns, 1_000, 100_000_000_000);
    t.model.propagation = Nanos(500);
    t.model.host_rate = BitsPerSec(100_000_000_000);
    t
}

#[test]
fn fat_tree_switches_do_not_allocate() {
    // k = 2: h1 on edge 0 (pod 0), h2 on edge 1 (pod 1): every frame
    // crosses edge, aggregation, core, aggregation, edge with a SOPA
    // source-route header, through paced FIFOs and link delay lines.
    for scheme in [
        swtor::Scheme::Sopa,
        swtor::Scheme::Ecmp,
        swtor::Scheme::Rps,
        swtor::Scheme::Hedera,
    ] {
        let t = tables(1, Lookup::Hop, Vec::new());
        let fattree = swtor::FatTreeOptions {
            k: 2,
            scheme,
            queue_bytes: 1 << 20,
            failure_detection: 1_000_000,
            seed: 1,
            // Never during the measurement: a round allocates (it runs
            // between packets, not per packet).
            hedera_interval: 3_600_000_000_000,
        };
        let spec = spec(
            Schedule::electrical(2, 1),
            t,
            timing(20_000),
            hosts_on(&[0, 1]),
        );
        run_opts(spec, None, &[2], Some(fattree));
    }
}

#[test]
fn per_hop_rotation_path_does_not_allocate() {
    // Two slices, circuit in both (no dark time), per-hop lookup with an alternate.
    let mut s = Schedule::new(2, 1, 2);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 1)
        .unwrap();
    let at = |a: u16| entry(1, Some(a), hop(0, Some(a)), vec![hop(0, Some(1 - a))]);
    let t = Tables {
        multipath: Multipath::Flow,
        buckets: 2,
        ..tables(2, Lookup::Hop, vec![(0, vec![at(0), at(1)])])
    };
    run(spec(s, t, timing(20_000), hosts_on(&[0, 1])));
}

#[test]
fn source_route_path_does_not_allocate() {
    // Static 3-ToR chain 0-1-2 on two uplinks; ToR0 source-routes via ToR1.
    let mut s = Schedule::new(3, 2, 1);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    s.connect(Endpoint::new(1, 1), Endpoint::new(2, 1), 0)
        .unwrap();
    let via = |port| Step { port, depart: None };
    let route = Action::Source(vec![via(0), via(1)]);
    let t = tables(
        1,
        Lookup::Source,
        vec![(0, vec![entry(2, None, route, vec![])])],
    );
    run(spec(s, t, timing(100_000), hosts_on(&[0, 2])));
}

#[test]
fn external_tor_path_does_not_allocate() {
    // ToR 1 is external (uplink ifindex 3, CPU 4): h1's frames leave on
    // its uplink veth, its tagged frames to h1 enter calendar queues, and
    // rotation frames go out every slot (2 slices of 20 us).
    let mut s = Schedule::new(2, 1, 2);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 1)
        .unwrap();
    let t = Tables {
        multipath: Multipath::Flow,
        buckets: 2,
        ..tables(
            2,
            Lookup::Hop,
            vec![(0, vec![entry(1, None, hop(0, None), vec![])])],
        )
    };
    let tagged = swtor::wire::shim_insert(
        &udp(2, 1, 0, 200),
        &swtor::wire::Shim {
            kind: swtor::wire::SHIM_DEPARTURE,
            flags: 0,
            slice: 1,
            slot: 0,
        },
    );
    let spec = FabricSpec {
        external: swtor::ExternalTor::all_except(&Schedule::new(2, 1, 2), &[0], "x"),
        ..spec(s, t, timing(20_000), hosts_on(&[0, 1]))
    };
    run_with(spec, Some(tagged), &[1, 3, 4]);
}
