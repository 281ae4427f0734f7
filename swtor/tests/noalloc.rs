//! The forwarding hot path must not allocate: run the real engine (lookup,
//! calendar queues, admission, OCS checks, delay line, host delivery, source
//! routing) over an in-memory port under a counting global allocator.

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::schedule::timing::TimeModel;
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{Action, Entry, Ingress, Match, Step, Tables, TimeFlowTable};
use lh_ctrl::units::{BitsPerSec, Nanos};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering};
use swtor::afpacket::RxFrame;
use swtor::engine::{Engine, EngineOptions, Port};
use swtor::pool::FramePool;
use swtor::{FabricSpec, HostAttach, SliceClock, Timing};

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

fn udp_frame() -> Vec<u8> {
    let mut f = vec![0u8; 200];
    f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
    f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&[8, 0]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&186u16.to_be_bytes());
    f[23] = 17;
    f[26..30].copy_from_slice(&[10, 0, 0, 1]);
    f[30..34].copy_from_slice(&[10, 0, 0, 2]);
    f[38..40].copy_from_slice(&166u16.to_be_bytes());
    f
}

fn m(dst: u16) -> Match {
    Match {
        dst,
        arrival: None,
        ingress: Ingress::Any,
        class: None,
        bucket: None,
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
        frame: udp_frame(),
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

fn timing(slice_ns: u64) -> Timing {
    Timing {
        model: TimeModel {
            slice: Nanos(slice_ns),
            guardband: Nanos(1_000),
            reconfiguration: Nanos(0),
            propagation: Nanos(500),
            link_rate: BitsPerSec(100_000_000_000),
            electrical_rate: None,
            host_rate: BitsPerSec(100_000_000_000),
            queue_capacity: 1 << 20,
        },
        tor_clock_offset: 0,
    }
}

fn hosts(tors: [u16; 2]) -> Vec<HostAttach> {
    (0..2)
        .map(|k| HostAttach {
            ip: Ipv4Addr::new(10, 0, 0, k as u8 + 1),
            mac: [2, 0, 0, 0, 0, k as u8 + 1],
            tor: tors[k],
            ifname: String::new(),
        })
        .collect()
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
        let t = Tables {
            slices: 1,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: Vec::new(),
        };
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
        run_opts(
            FabricSpec {
                schedule: Schedule::electrical(2, 1),
                tables: t.into(),
                timing: timing(20_000),
                hosts: hosts([0, 1]),
                external: Vec::new(),
            },
            None,
            &[2],
            Some(fattree),
        );
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
    let hop = |d| {
        Action::Hop(Step {
            port: 0,
            depart: Some(d),
        })
    };
    let t = Tables {
        slices: 2,
        lookup: Lookup::Hop,
        multipath: Multipath::Flow,
        buckets: 2,
        classes: None,
        tors: vec![TimeFlowTable {
            tor: 0,
            entries: vec![
                Entry {
                    m: Match {
                        arrival: Some(0),
                        ..m(1)
                    },
                    action: hop(0),
                    alternates: vec![hop(1)],
                },
                Entry {
                    m: Match {
                        arrival: Some(1),
                        ..m(1)
                    },
                    action: hop(1),
                    alternates: vec![hop(0)],
                },
            ],
        }],
    };
    run(FabricSpec {
        schedule: s,
        tables: t.into(),
        timing: timing(20_000),
        hosts: hosts([0, 1]),
        external: Vec::new(),
    });
}

#[test]
fn source_route_path_does_not_allocate() {
    // Static 3-ToR chain 0-1-2 on two uplinks; ToR0 source-routes via ToR1.
    let mut s = Schedule::new(3, 2, 1);
    s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    s.connect(Endpoint::new(1, 1), Endpoint::new(2, 1), 0)
        .unwrap();
    let t = Tables {
        slices: 1,
        lookup: Lookup::Source,
        multipath: Multipath::None,
        buckets: 1,
        classes: None,
        tors: vec![TimeFlowTable {
            tor: 0,
            entries: vec![Entry {
                m: m(2),
                action: Action::Source(vec![
                    Step {
                        port: 0,
                        depart: None,
                    },
                    Step {
                        port: 1,
                        depart: None,
                    },
                ]),
                alternates: vec![],
            }],
        }],
    };
    run(FabricSpec {
        schedule: s,
        tables: t.into(),
        timing: timing(100_000),
        hosts: hosts([0, 2]),
        external: Vec::new(),
    });
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
        slices: 2,
        lookup: Lookup::Hop,
        multipath: Multipath::Flow,
        buckets: 2,
        classes: None,
        tors: vec![TimeFlowTable {
            tor: 0,
            entries: vec![Entry {
                m: m(1),
                action: Action::Hop(Step {
                    port: 0,
                    depart: None,
                }),
                alternates: vec![],
            }],
        }],
    };
    let mut back = udp_frame();
    back[0..12].copy_from_slice(&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
    back[26..34].copy_from_slice(&[10, 0, 0, 2, 10, 0, 0, 1]);
    let tagged = swtor::wire::shim_insert(
        &back,
        &swtor::wire::Shim {
            kind: swtor::wire::SHIM_DEPARTURE,
            flags: 0,
            slice: 1,
            slot: 0,
        },
    );
    let spec = FabricSpec {
        schedule: s,
        tables: t.into(),
        timing: timing(20_000),
        hosts: hosts([0, 1]),
        external: swtor::ExternalTor::all_except(&Schedule::new(2, 1, 2), &[0], "x"),
    };
    run_with(spec, Some(tagged), &[1, 3, 4]);
}
