//! Routing benchmark: every algorithm for all pairs × all slices on an
//! Opera-like 108-ToR, 6-uplink schedule (108 slices).
//!
//! `cargo run --release -p lighthouse-ctrl --example bench_routing [tors uplinks reps] [names]`
//!
//! Reference: Python/networkx routing takes 7.9 s (direct) and 80 s (HOHO)
//! on opera(108, 6) (REFERENCE.md).

use lh_ctrl::config::Algorithm;
use lh_ctrl::routing::earliest::{Adjacency, Dp};
use lh_ctrl::routing::{Hop, Path, RoutingOptions, UNLIMITED, route};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::{PortId, SliceId, TorId};
use std::time::Instant;

/// `n` slices; the `n` symmetric matchings `x <-> (i - x) mod n` are dealt
/// to the `u` rotors in a seeded random order (as Opera draws random
/// factorisations; consecutive `i` would make every slice graph a short-hop
/// ring), `n / u` per rotor; rotor `r` (uplink `r`) moves to its next
/// matching at slices `s % u == r`, so exactly one rotor changes per slice.
fn opera_like(n: usize, u: usize, seed: u64) -> Schedule {
    assert_eq!(n % u, 0, "uplinks must divide the ToR count");
    let per = n / u;
    let mut order: Vec<usize> = (0..n).collect();
    let mut st = seed;
    for i in (1..n).rev() {
        let j = (splitmix(&mut st) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut s = Schedule::new(n, u, n);
    for ts in 0..n {
        for r in 0..u {
            let i = order[r + u * (((ts + n - r) / u) % per)];
            for x in 0..n {
                let y = (i + n - x) % n;
                if x < y {
                    let (a, b) = (
                        Endpoint::new(x as TorId, r as PortId),
                        Endpoint::new(y as TorId, r as PortId),
                    );
                    s.connect(a, b, ts as SliceId).expect("valid matching");
                }
            }
        }
    }
    s
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Process CPU time (all threads, finished ones included) from
/// /proc/self/stat, in ms; the machine may be shared, so wall time alone
/// overstates the cost.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the name.
    let ticks: f64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|x| x.parse().ok()).unwrap_or(0.0);
    ticks * 10.0
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    // A non-numeric argument selects algorithms by name prefix.
    let only: Vec<&String> = raw.iter().filter(|a| a.parse::<usize>().is_err()).collect();
    let args: Vec<usize> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(108);
    let u = args.get(1).copied().unwrap_or(6);
    let reps = args.get(2).copied().unwrap_or(3).max(1);
    let seed = 7;
    let s = opera_like(n, u, seed);
    println!(
        "opera-like schedule (seed {seed}): {n} ToRs, {u} uplinks, {} slices, {} cores",
        s.slices(),
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let base = RoutingOptions {
        bytes_per_slice: 1_250_000,
        ..RoutingOptions::default()
    };
    let cases = [
        ("direct", Algorithm::Direct, false),
        ("vlb", Algorithm::Vlb, false),
        ("hoho", Algorithm::Hoho, false),
        ("hoho (opera style)", Algorithm::Hoho, true),
        ("opera", Algorithm::Opera, true),
        ("ucmp", Algorithm::Ucmp, false),
    ];
    // The floor: allocating as many one-hop `Path`s, single-threaded.
    if only.is_empty() || only.iter().any(|o| "alloc".starts_with(o.as_str())) {
        let (t, c0) = (Instant::now(), cpu_ms());
        let total = n * (n - 1) * s.slices();
        let mut v = Vec::with_capacity(total);
        for i in 0..total {
            v.push(Path {
                src: (i % n) as TorId,
                dst: 0,
                arrival: Some(0),
                hops: vec![Hop {
                    tor: 0,
                    port: 0,
                    depart: Some(i as u32),
                }],
                class: None,
            });
        }
        let (ms, cpu) = (t.elapsed().as_secs_f64() * 1e3, cpu_ms() - c0);
        println!(
            "{:>20}: {ms:8.1} ms wall, {cpu:7.1} ms cpu  (1 thread, {} one-hop Paths)",
            "alloc floor",
            v.len()
        );
    }
    // The engine alone (no path objects), single-threaded.
    for (name, max_hop, same) in [
        ("dp direct", 1u8, false),
        ("dp hoho", UNLIMITED, false),
        ("dp hoho opera", UNLIMITED, true),
    ] {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            continue;
        }
        let t = Instant::now();
        let c0 = cpu_ms();
        let adj = Adjacency::new(&s);
        let mut dp = Dp::new(&s, &adj, max_hop, same);
        let mut sum = 0u64;
        for d in 0..n as TorId {
            dp.solve(d);
            for src in (0..n as TorId).filter(|&x| x != d) {
                for ts in 0..s.slices() as SliceId {
                    sum += dp
                        .value(src, ts, max_hop as usize)
                        .map_or(0, |v| v.0 as u64 - ts as u64);
                }
            }
        }
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let cpu = cpu_ms() - c0;
        println!(
            "{name:>20}: {ms:8.1} ms wall, {cpu:7.1} ms cpu  (1 thread, values only; mean latency {:.2} slots)",
            sum as f64 / (n * (n - 1) * s.slices()) as f64
        );
    }
    for (name, alg, same) in cases {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            continue;
        }
        let o = RoutingOptions {
            same_slice_hops: same,
            ..base.clone()
        };
        let mut best = f64::INFINITY;
        let cpu0 = cpu_ms();
        let mut dropping = 0.0;
        let mut paths = 0;
        let mut hops = 0;
        let mut classes: Vec<u64> = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            let rs = route(alg, &s, &o).expect("routes");
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            paths = rs.paths.len();
            hops = rs.paths.iter().map(|p| p.hops.len()).sum::<usize>();
            classes = rs.classes.map_or(Vec::new(), |c| c.thresholds);
            let c = cpu_ms();
            drop(rs.paths);
            dropping += cpu_ms() - c;
        }
        let cpu = (cpu_ms() - cpu0 - dropping) / reps as f64;
        println!(
            "{name:>20}: {best:8.1} ms wall, {cpu:7.1} ms cpu  ({paths} paths, {:.2} hops/path{})",
            hops as f64 / paths as f64,
            if classes.is_empty() {
                String::new()
            } else {
                format!(", class thresholds {classes:?} B")
            }
        );
    }
}
