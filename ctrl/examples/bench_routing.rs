//! Routing benchmark: every algorithm for all pairs × all slices on an
//! Opera-like 108-ToR, 6-uplink schedule (108 slices).
//!
//! `cargo run --release -p lighthouse-ctrl --example bench_routing [tors uplinks reps] [names]`
//!
//! Reference: Python/networkx routing takes 7.9 s (direct) and 80 s (HOHO)
//! on opera(108, 6) (REFERENCE.md).

use lh_ctrl::config::Algorithm;
use lh_ctrl::routing::earliest::{Adjacency, Dp};
use lh_ctrl::routing::{RoutingOptions, UNLIMITED, route};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::{PortId, SliceId, TorId};
use std::time::Instant;

/// `n` slices; rotor `r` cycles through the symmetric matchings
/// `x <-> (i - x) mod n` with `i ≡ r (mod u)`, changing at slices
/// `s % u == r`.
fn opera_like(n: usize, u: usize) -> Schedule {
    assert!(n % u == 0, "uplinks must divide the ToR count");
    let per = n / u;
    let mut s = Schedule::new(n, u, n);
    for ts in 0..n {
        for r in 0..u {
            let i = r + u * (((ts + n - r) / u) % per);
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

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    // A non-numeric argument selects algorithms by name prefix.
    let only: Vec<&String> = raw.iter().filter(|a| a.parse::<usize>().is_err()).collect();
    let args: Vec<usize> = raw.iter().filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(108);
    let u = args.get(1).copied().unwrap_or(6);
    let reps = args.get(2).copied().unwrap_or(3).max(1);
    let s = opera_like(n, u);
    println!(
        "opera-like schedule: {n} ToRs, {u} uplinks, {} slices",
        s.slices()
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
        println!(
            "{name:>20}: {ms:9.1} ms  (1 thread, values only; mean latency {:.2} slots)",
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
        let mut paths = 0;
        let mut hops = 0;
        let mut classes = 0;
        for _ in 0..reps {
            let t = Instant::now();
            let rs = route(alg, &s, &o).expect("routes");
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            paths = rs.paths.len();
            hops = rs.paths.iter().map(|p| p.hops.len()).sum::<usize>();
            classes = rs.classes.map_or(0, |c| c.thresholds.len());
            drop(rs.paths);
        }
        println!(
            "{name:>20}: {best:9.1} ms  ({paths} paths, {:.2} hops/path{})",
            hops as f64 / paths as f64,
            if classes > 0 {
                format!(", {classes} classes")
            } else {
                String::new()
            }
        );
    }
}
