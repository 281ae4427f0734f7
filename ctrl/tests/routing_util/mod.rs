//! Shared helpers for the routing tests: schedules built with `connect()`
//! (the generators are written elsewhere) and independent oracles.
#![allow(dead_code)]

use lh_ctrl::routing::{PathRef, RouteSet};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use std::collections::{HashMap, VecDeque};

pub fn ep(t: TorId, p: PortId) -> Endpoint {
    Endpoint::new(t, p)
}

/// The paper's Fig. 2 example: 4 ToRs, 1 uplink, 3 slices.
pub fn fig2() -> Schedule {
    let mut s = Schedule::new(4, 1, 3);
    for (ts, pairs) in [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
        .iter()
        .enumerate()
    {
        for &(a, b) in pairs {
            s.connect(ep(a, 0), ep(b, 0), ts as SliceId).unwrap();
        }
    }
    s
}

/// RotorNet round robin (circle method), `n` even, `u` uplinks: slice `ts`
/// uplink `p` uses round `(ts * u + p) mod (n - 1)`; `n - 1` slices when `u`
/// divides it, else rounds repeat.
pub fn circle(n: usize, u: usize, slices: usize) -> Schedule {
    assert_eq!(n % 2, 0);
    let mut s = Schedule::new(n, u, slices);
    let m = n - 1;
    for ts in 0..slices {
        for p in 0..u {
            let r = (ts * u + p) % m;
            s.connect(
                ep((n - 1) as TorId, p as PortId),
                ep(r as TorId, p as PortId),
                ts as SliceId,
            )
            .unwrap();
            for i in 1..n / 2 {
                let a = (r + i) % m;
                let b = (r + m - i) % m;
                s.connect(
                    ep(a as TorId, p as PortId),
                    ep(b as TorId, p as PortId),
                    ts as SliceId,
                )
                .unwrap();
            }
        }
    }
    s
}

/// Opera-like: `n` slices, rotor `r` (uplink `r`) cycles through the
/// symmetric matchings `x <-> (i - x) mod n` with `i ≡ r (mod u)`, changing
/// at slices `s % u == r`.
pub fn opera_like(n: usize, u: usize) -> Schedule {
    assert_eq!(n % u, 0);
    let per = n / u;
    let mut s = Schedule::new(n, u, n);
    for ts in 0..n {
        for r in 0..u {
            let j = ((ts + n - r) / u) % per;
            let i = r + u * j;
            for x in 0..n {
                let y = (i + n - x) % n;
                if x < y {
                    s.connect(
                        ep(x as TorId, r as PortId),
                        ep(y as TorId, r as PortId),
                        ts as SliceId,
                    )
                    .unwrap();
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

/// Random matchings: per slice and uplink a shuffled pairing of the ToRs,
/// each pair kept with probability `keep_pct`%.
pub fn random_schedule(n: usize, u: usize, slices: usize, seed: u64, keep_pct: u64) -> Schedule {
    let mut st = seed;
    let mut s = Schedule::new(n, u, slices);
    for ts in 0..slices {
        for p in 0..u {
            let mut v: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = (splitmix(&mut st) % (i as u64 + 1)) as usize;
                v.swap(i, j);
            }
            for pair in v.chunks(2) {
                if pair.len() == 2 && splitmix(&mut st) % 100 < keep_pct {
                    s.connect(
                        ep(pair[0] as TorId, p as PortId),
                        ep(pair[1] as TorId, p as PortId),
                        ts as SliceId,
                    )
                    .unwrap();
                }
            }
        }
    }
    s
}

/// Brute force: enumerate every walk of at most `max_hop` hops (waits
/// `< S`, RotorNet or Opera style), best `(arrival, hops)`.
pub fn brute_walks(
    s: &Schedule,
    src: TorId,
    dst: TorId,
    ts: SliceId,
    max_hop: usize,
    same_slice: bool,
) -> Option<(Slot, u32)> {
    struct Walk<'a> {
        s: &'a Schedule,
        dst: TorId,
        max_hop: usize,
        same_slice: bool,
        best: Option<(Slot, u32)>,
    }
    fn rec(w: &mut Walk, x: TorId, lo: Slot, hi: Slot, hops: u32) {
        let sl = w.s.slices() as Slot;
        for t in lo..=hi {
            for (_, y) in w.s.links(x, (t % sl) as SliceId) {
                if y == w.dst {
                    let c = (t, hops + 1);
                    if w.best.is_none_or(|b| c < b) {
                        w.best = Some(c);
                    }
                } else if ((hops + 1) as usize) < w.max_hop {
                    let lo2 = if w.same_slice { t } else { t + 1 };
                    rec(w, y, lo2, t + sl - 1, hops + 1);
                }
            }
        }
    }
    let sl = s.slices() as Slot;
    let mut w = Walk {
        s,
        dst,
        max_hop,
        same_slice,
        best: None,
    };
    let ts = ts as Slot;
    rec(&mut w, src, ts, ts + sl - 1, 0);
    w.best
}

/// Forward breadth-first search over time-expanded states `(ToR, slot the
/// packet reached it, from the fabric?)`, layered by hop count: fewest hops
/// to every state, then the earliest state at `dst`. `max_hop: None`
/// explores up to `4 n` hops.
pub fn bfs_oracle(
    s: &Schedule,
    src: TorId,
    dst: TorId,
    ts: SliceId,
    max_hop: Option<usize>,
    same_slice: bool,
) -> Option<(Slot, u32)> {
    let n = s.tors();
    let sl = s.slices() as Slot;
    let cap = max_hop.unwrap_or(4 * n);
    let horizon = (cap as Slot + 2) * sl;
    let mut seen: HashMap<(TorId, Slot), u32> = HashMap::new();
    let mut q = VecDeque::from([(src, ts as Slot, false, 0u32)]);
    let mut best: Option<(Slot, u32)> = None;
    while let Some((x, a, fabric, h)) = q.pop_front() {
        if h as usize >= cap {
            continue;
        }
        let lo = if fabric && !same_slice { a + 1 } else { a };
        for t in lo..a + sl {
            if t >= horizon {
                break;
            }
            for (_, y) in s.links(x, (t % sl) as SliceId) {
                if y == dst {
                    let c = (t, h + 1);
                    if best.is_none_or(|b| c < b) {
                        best = Some(c);
                    }
                } else if let std::collections::hash_map::Entry::Vacant(e) = seen.entry((y, t)) {
                    e.insert(h + 1);
                    q.push_back((y, t, true, h + 1));
                }
            }
        }
    }
    best
}

/// `(arrival slot, hops)` of a timed path.
pub fn arrival_hops<'a>(p: impl Into<PathRef<'a>>) -> (Slot, u32) {
    let p = p.into();
    (p.delivered().unwrap(), p.hops.len() as u32)
}

/// Per-hop table key: (ToR, arrival slice, from the fabric, dst) → (uplink,
/// wait). Returns the first conflict. With `ignore_ingress`, host and
/// fabric arrivals share keys (Opera style).
pub fn per_hop_conflict(s: &Schedule, rs: &RouteSet, ignore_ingress: bool) -> Option<String> {
    let sl = s.slices() as Slot;
    let mut m: HashMap<(TorId, Slot, bool, TorId), (PortId, Slot)> = HashMap::new();
    for p in &rs.paths {
        let mut arr = p.arrival.unwrap() as Slot;
        for (i, h) in p.hops.iter().enumerate() {
            let d = h.depart.unwrap();
            let k = (h.tor, arr % sl, i > 0 && !ignore_ingress, p.dst);
            let v = (h.port, d - arr);
            if let Some(old) = m.insert(k, v)
                && old != v
            {
                return Some(format!("{k:?}: {old:?} vs {v:?} (path {p:?})"));
            }
            arr = d;
        }
    }
    None
}
