//! The optimised `entries()` must give exactly what the original
//! straightforward implementation (kept in `common/tables_oracle.rs`) gives:
//! same tables (entry order, ingress merging, alternates) and the same error
//! (first invalid path, first per-hop conflict) on random small schedules.

#[path = "common/tables_oracle.rs"]
mod oracle;

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::routing::{Hop, Path, RouteSet};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{TableError, entries, entries_with_threads};
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use oracle::oracle_entries;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

fn mix(mut x: u64) -> u64 {
    // splitmix64 finaliser: a deterministic per-match "policy" coin.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn h(parts: &[u64]) -> u64 {
    parts.iter().fold(0x1234_5678, |acc, &p| mix(acc ^ p))
}

/// Random (possibly partial) matchings on every (slice, uplink).
fn random_schedule(n: usize, u: usize, s: usize, rng: &mut StdRng) -> Schedule {
    let mut sched = Schedule::new(n, u, s);
    for ts in 0..s {
        for p in 0..u {
            let mut perm: Vec<usize> = (0..n).collect();
            perm.shuffle(rng);
            for c in perm.chunks(2) {
                if c.len() == 2 && rng.gen_bool(0.85) {
                    sched
                        .connect(
                            Endpoint::new(c[0] as TorId, p as PortId),
                            Endpoint::new(c[1] as TorId, p as PortId),
                            ts as SliceId,
                        )
                        .unwrap();
                }
            }
        }
    }
    sched
}

/// Earliest direct hop `x -> dst` leaving in `from..from + S`, the port
/// picked by `coin` among those available in that slot.
fn direct(s: &Schedule, x: TorId, dst: TorId, from: Slot, coin: u64) -> Option<Hop> {
    let sl = s.slices() as Slot;
    (from..from + sl).find_map(|t| {
        let ports: Vec<PortId> = (0..s.uplinks() as PortId)
            .filter(|&p| {
                s.peer((t % sl) as SliceId, Endpoint::new(x, p))
                    .map(|e| e.tor)
                    == Some(dst)
            })
            .collect();
        (!ports.is_empty()).then(|| Hop {
            tor: x,
            port: ports[coin as usize % ports.len()],
            depart: Some(t),
        })
    })
}

/// A path chosen by a deterministic per-match policy (so per-hop tables
/// rarely conflict): the source goes direct or detours via a neighbour
/// after a wait, transit ToRs go direct. `salt` varies the source's choice
/// between alternatives of one group.
#[allow(clippy::too_many_arguments)]
fn policy_path(
    s: &Schedule,
    electrical: bool,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    salt: u64,
    seed: u64,
    sloppy: bool,
) -> Option<Path> {
    let n = s.tors() as u64;
    let sl = s.slices() as Slot;
    let cls = class.map_or(99, u64::from);
    let coin = h(&[
        seed,
        src as u64,
        dst as u64,
        arrival.map_or(999, u64::from),
        cls,
        salt,
    ]);
    // A sloppy policy lets transit ToRs decide by source too: per-hop clashes.
    let transit_coin = |m: TorId, t: Option<Slot>| {
        h(&[
            seed,
            if sloppy { src as u64 } else { 7 },
            m as u64,
            dst as u64,
            t.map_or(999, |t| (t % sl) as u64),
            cls,
        ])
    };
    let mk = |hops| Path {
        src,
        dst,
        arrival,
        hops,
        class,
    };
    let u = s.uplinks() as u64;
    let Some(a) = arrival else {
        // Wildcard: "leave now" everywhere. Circuits are only checked on a
        // one-slice schedule.
        let pick = |x: TorId, to: TorId, c: u64| -> Option<Hop> {
            let port = if electrical || sl > 1 {
                (c % u) as PortId
            } else {
                direct(s, x, to, 0, c)?.port
            };
            Some(Hop {
                tor: x,
                port,
                depart: None,
            })
        };
        if coin.is_multiple_of(3) {
            let m = ((coin >> 8) % n) as TorId;
            if m != src && m != dst {
                let first = pick(src, m, coin >> 16)?;
                return Some(mk(vec![first, pick(m, dst, transit_coin(m, None))?]));
            }
        }
        return Some(mk(vec![pick(src, dst, coin >> 4)?]));
    };
    let t0 = a as Slot;
    if electrical {
        let w = (coin >> 3) % 3;
        let first = || Hop {
            tor: src,
            port: ((coin >> 12) % u) as PortId,
            depart: if (coin >> 20).is_multiple_of(4) {
                None
            } else {
                Some(t0 + w as Slot)
            },
        };
        let m = ((coin >> 8) % n) as TorId;
        if coin.is_multiple_of(3) && m != src && m != dst {
            let f = first();
            let t = f.depart.unwrap_or(t0);
            let tc = transit_coin(m, Some(t));
            let second = Hop {
                tor: m,
                port: (tc % u) as PortId,
                depart: Some(t + (tc >> 5) as Slot % 2),
            };
            return Some(mk(vec![f, second]));
        }
        return Some(mk(vec![first()]));
    }
    if !coin.is_multiple_of(3) {
        let w = ((coin >> 8) % sl as u64) as Slot;
        let t = t0 + w;
        let links = s.links(src, (t % sl) as SliceId);
        let links: Vec<_> = links.into_iter().filter(|&(_, m)| m != dst).collect();
        if !links.is_empty() {
            let (p, m) = links[(coin >> 20) as usize % links.len()];
            // Leaving in the arrival slot may be written as "now".
            let depart = if w == 0 && (coin >> 30).is_multiple_of(2) {
                None
            } else {
                Some(t)
            };
            let first = Hop {
                tor: src,
                port: p,
                depart,
            };
            let second = direct(s, m, dst, t, transit_coin(m, Some(t)))?;
            if second.depart.unwrap() - t >= sl && sl > 1 {
                return None;
            }
            return Some(mk(vec![first, second]));
        }
    }
    let d = direct(s, src, dst, t0, coin >> 40)?;
    Some(mk(vec![d]))
}

/// A random walk over circuits with random waits (may clash per hop).
fn random_walk(s: &Schedule, electrical: bool, rng: &mut StdRng) -> Option<Path> {
    let n = s.tors();
    let sl = s.slices() as Slot;
    let src = rng.gen_range(0..n) as TorId;
    let a = rng.gen_range(0..s.slices()) as SliceId;
    let mut t = a as Slot;
    let mut cur = src;
    let mut hops = Vec::new();
    for _ in 0..rng.gen_range(1..=3) {
        t += rng.gen_range(0..sl.min(3));
        let port = rng.gen_range(0..s.uplinks()) as PortId;
        let next = if electrical {
            let m = rng.gen_range(0..n) as TorId;
            if m == cur {
                break;
            }
            m
        } else {
            match s.peer((t % sl) as SliceId, Endpoint::new(cur, port)) {
                Some(e) => e.tor,
                None => break,
            }
        };
        hops.push(Hop {
            tor: cur,
            port,
            depart: Some(t),
        });
        cur = next;
        if cur == src {
            break;
        }
    }
    if hops.is_empty() || cur == src {
        return None;
    }
    Some(Path {
        src,
        dst: cur,
        arrival: Some(a),
        hops,
        class: None,
    })
}

/// Breaks a valid path in one of the ways `check_path` refuses.
fn corrupt(p: &mut Path, s: &Schedule, rng: &mut StdRng) {
    match rng.gen_range(0..6) {
        0 => p.dst = p.src,
        1 => p.hops[0].tor = (p.src + 1) % s.tors() as TorId,
        2 => p.hops[0].port = s.uplinks() as PortId,
        3 => p.hops.clear(),
        4 => p.arrival = Some(s.slices() as SliceId),
        _ => p.dst = s.tors() as TorId,
    }
}

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    u: usize,
    s: usize,
    electrical: bool,
    seed: u64,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
    classes: bool,
    wildcard: u8,
    noise: usize,
    invalid: bool,
    shuffle: bool,
    sloppy: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            2usize..=7,
            1usize..=3,
            1usize..=12,
            prop::bool::weighted(0.15),
        ),
        any::<u64>(),
        prop_oneof![Just(Lookup::Hop), Just(Lookup::Source)],
        prop_oneof![
            2 => Just(Multipath::None),
            1 => Just(Multipath::Packet),
            1 => Just(Multipath::Flow)
        ],
        prop_oneof![1 => Just(0u8), 9 => 1u8..=4],
        (
            any::<bool>(),
            0u8..=2,
            prop_oneof![1 => Just(0usize), 1 => 1usize..=20],
        ),
        (
            prop::bool::weighted(0.1),
            any::<bool>(),
            prop::bool::weighted(0.15),
        ),
    )
        .prop_map(
            |(
                (n, u, s, electrical),
                seed,
                lookup,
                multipath,
                buckets,
                (classes, wildcard, noise),
                (invalid, shuffle, sloppy),
            )| {
                Case {
                    n,
                    u,
                    s: if electrical { 1 } else { s },
                    electrical,
                    seed,
                    lookup,
                    multipath,
                    buckets,
                    classes,
                    wildcard,
                    noise,
                    invalid,
                    shuffle,
                    sloppy,
                }
            },
        )
}

fn build(c: &Case) -> (Schedule, RouteSet) {
    let mut rng = StdRng::seed_from_u64(c.seed);
    let s = if c.electrical {
        Schedule::electrical(c.n, c.u)
    } else {
        random_schedule(c.n, c.u, c.s, &mut rng)
    };
    let classes: Vec<Option<u8>> = if c.classes {
        vec![None, Some(0), Some(2)]
    } else {
        vec![None]
    };
    let mut paths = Vec::new();
    for src in 0..c.n as TorId {
        for dst in 0..c.n as TorId {
            if src == dst {
                continue;
            }
            // wildcard 0: timed only; 1: both; 2: wildcard only.
            let mut arrivals: Vec<Option<SliceId>> = Vec::new();
            if c.wildcard < 2 {
                arrivals.extend((0..c.s as SliceId).map(Some));
            }
            if c.wildcard > 0 {
                arrivals.push(None);
            }
            for &a in &arrivals {
                for &class in &classes {
                    if rng.gen_bool(0.1) {
                        continue;
                    }
                    for salt in 0..rng.gen_range(1..=3u64) {
                        if let Some(p) = policy_path(
                            &s,
                            c.electrical,
                            src,
                            dst,
                            a,
                            class,
                            salt,
                            c.seed,
                            c.sloppy,
                        ) {
                            paths.push(p);
                        }
                    }
                }
            }
        }
    }
    for _ in 0..c.noise {
        if let Some(p) = random_walk(&s, c.electrical, &mut rng) {
            let at = rng.gen_range(0..=paths.len());
            paths.insert(at, p);
        }
    }
    if c.shuffle {
        paths.shuffle(&mut rng);
    }
    if c.invalid && !paths.is_empty() {
        let i = rng.gen_range(0..paths.len());
        corrupt(&mut paths[i], &s, &mut rng);
    }
    (
        s,
        RouteSet {
            paths: paths.into(),
            classes: None,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn entries_equal_oracle(c in case()) {
        let (s, routes) = build(&c);
        let got = entries(&s, &routes, c.lookup, c.multipath, c.buckets);
        let want = oracle_entries(&s, &routes, c.lookup, c.multipath, c.buckets);
        prop_assert_eq!(&got, &want);
        // Several workers split the ToRs: same tables, same first conflict.
        let par = entries_with_threads(&s, &routes, c.lookup, c.multipath, c.buckets, Some(3));
        prop_assert_eq!(par, want);
    }
}

/// The generator covers what the comparison is meant to exercise: tables
/// with unmerged Host/Fabric entries and alternates, per-hop conflicts and
/// invalid paths all occur.
#[test]
fn generator_covers_merges_alternates_conflicts() {
    use lh_ctrl::tables::Ingress;
    use proptest::strategy::ValueTree;
    let (mut split, mut alts, mut conflicts, mut invalid, mut ok) = (0, 0, 0, 0, 0);
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..300 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let (s, routes) = build(&c);
        match oracle_entries(&s, &routes, c.lookup, c.multipath, c.buckets) {
            Ok(t) => {
                ok += 1;
                let es = t.tors.iter().flat_map(|t| &t.entries);
                split += es
                    .clone()
                    .filter(|e| e.m.ingress == Ingress::Fabric)
                    .count();
                alts += es.filter(|e| !e.alternates.is_empty()).count();
            }
            Err(TableError::Conflict { .. }) => conflicts += 1,
            Err(_) => invalid += 1,
        }
    }
    assert!(
        ok > 100 && split > 0 && alts > 0 && conflicts > 0 && invalid > 0,
        "ok {ok} split {split} alts {alts} conflicts {conflicts} invalid {invalid}"
    );
}
