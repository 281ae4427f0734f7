//! Benchmark of `tables::entries()` on an Opera-like 108-ToR schedule with
//! direct and with two-hop (VLB-like) paths for every (src, dst, arrival
//! slice). Prints wall and process CPU time (the machine may be shared).
//!
//! `cargo run --release -p lighthouse-ctrl --example bench_tables [reps] [hop|source]`

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::routing::{Hop, Path, RouteSet};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::entries;
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use std::time::Instant;

const TORS: usize = 108;
const UPLINKS: usize = 6;
const SLICES: usize = 108;
/// Matchings per rotor (TORS / UPLINKS).
const PER_ROTOR: usize = TORS / UPLINKS;

/// 108 symmetric matchings `x <-> (i - x) mod 108`; rotor `r` (uplink `r`)
/// cycles through matchings `r, r + 6, ...` and changes in the slices with
/// `s % 6 == r`, so every pair meets on one rotor for 6 slices per cycle.
fn schedule() -> Schedule {
    let mut s = Schedule::new(TORS, UPLINKS, SLICES);
    for ts in 0..SLICES {
        for r in 0..UPLINKS {
            let pos = (ts as i64 - r as i64).div_euclid(UPLINKS as i64);
            let i = r + UPLINKS * pos.rem_euclid(PER_ROTOR as i64) as usize;
            for x in 0..TORS {
                let y = (i + TORS - x) % TORS;
                if x < y {
                    s.connect(
                        Endpoint::new(x as TorId, r as PortId),
                        Endpoint::new(y as TorId, r as PortId),
                        ts as SliceId,
                    )
                    .unwrap();
                }
            }
        }
    }
    s
}

/// Earliest direct hop `x -> dst` leaving in `from..from + S`.
fn direct(s: &Schedule, x: TorId, dst: TorId, from: Slot) -> Hop {
    (from..from + SLICES as Slot)
        .find_map(|t| {
            (0..UPLINKS as PortId).find_map(|p| {
                let peer = s.peer((t as usize % SLICES) as SliceId, Endpoint::new(x, p))?;
                (peer.tor == dst).then_some(Hop {
                    tor: x,
                    port: p,
                    depart: Some(t),
                })
            })
        })
        .expect("every pair meets once per cycle")
}

/// Paths for every src != dst and arrival slice. Direct: wait at the
/// source for the first slot with a direct circuit. Two-hop (VLB-like):
/// leave at once on uplink 0 (unless it reaches `dst`), the intermediate
/// waits for its direct circuit; transit choices depend only on (ToR, dst,
/// slice), so per-hop tables stay consistent.
fn paths(s: &Schedule, two_hop: bool) -> Vec<Path> {
    let mut paths = Vec::with_capacity(TORS * (TORS - 1) * SLICES);
    for src in 0..TORS as TorId {
        for dst in 0..TORS as TorId {
            if src == dst {
                continue;
            }
            for a in 0..SLICES as SliceId {
                let t = a as Slot;
                let hops = match s.peer(a, Endpoint::new(src, 0)) {
                    Some(m) if two_hop && m.tor != dst => vec![
                        Hop {
                            tor: src,
                            port: 0,
                            depart: Some(t),
                        },
                        direct(s, m.tor, dst, t),
                    ],
                    _ => vec![direct(s, src, dst, t)],
                };
                paths.push(Path {
                    src,
                    dst,
                    arrival: Some(a),
                    hops,
                    class: None,
                });
            }
        }
    }
    paths
}

/// CPU time of this process (all threads) in ms, from /proc (10 ms ticks);
/// the wall time alone misleads on a machine shared with other jobs.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may contain spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let only = std::env::args().nth(2);
    let s = schedule();
    for (name, two_hop) in [("direct", false), ("two-hop", true)] {
        let routes = RouteSet {
            paths: paths(&s, two_hop).into(),
            classes: None,
        };
        let hops: usize = routes.paths.iter().map(|p| p.hops.len()).sum();
        println!(
            "opera-like: {TORS} ToRs, {UPLINKS} uplinks, {SLICES} slices, {} {name} paths \
             ({hops} hops)",
            routes.paths.len()
        );
        bench(&s, &routes, reps, only.as_deref());
    }
}

fn bench(s: &Schedule, routes: &RouteSet, reps: usize, only: Option<&str>) {
    for lookup in [Lookup::Hop, Lookup::Source] {
        if only.is_some_and(|o| !format!("{lookup:?}").eq_ignore_ascii_case(o)) {
            continue;
        }
        let mut times = Vec::with_capacity(reps);
        let mut total = 0;
        let mut cpu = 0.0;
        for _ in 0..reps {
            let c0 = cpu_ms();
            let t0 = Instant::now();
            let t = entries(s, routes, lookup, Multipath::None, 1).unwrap();
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            cpu += cpu_ms().zip(c0).map_or(f64::NAN, |(a, b)| a - b);
            total = t.total_entries();
            drop(t);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  entries({lookup:?}): wall min {:.1} ms, median {:.1} ms, cpu {:.0} ms/run \
             over {reps} runs ({total} entries)",
            times[0],
            times[reps / 2],
            cpu / reps as f64
        );
    }
}
