//! Property tests for `entries()` / `walk()` on random small optical
//! schedules with per-hop-consistent direct and two-hop (VLB-like) paths.

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::routing::{Hop, Path, RouteSet};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{
    Action, Entry, Ingress, Match, Step, TableError, Tables, entries, is_plain_flow_table, rank,
    walk, walk_alternate,
};
use lh_ctrl::{PortId, SliceId, Slot, TorId};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashMap};

/// Round `r` of the circle method on `n` (even) nodes.
fn circle_round(n: usize, r: usize) -> Vec<(usize, usize)> {
    let m = n - 1;
    let mut v = vec![(n - 1, r)];
    for i in 1..n / 2 {
        v.push(((r + i) % m, (r + m - i) % m));
    }
    v
}

/// A random schedule: `n` ToRs (even), `u` uplinks, `s` slices; the `n-1`
/// rounds of a full round robin sit on random (slice, uplink) slots so that
/// every pair meets at least once per cycle, the other slots hold random
/// (possibly partial) matchings.
fn random_schedule(n: usize, u: usize, s: usize, rng: &mut StdRng) -> Schedule {
    let mut sched = Schedule::new(n, u, s);
    let mut slots: Vec<(usize, usize)> =
        (0..s).flat_map(|ts| (0..u).map(move |p| (ts, p))).collect();
    slots.shuffle(rng);
    for (i, &(ts, p)) in slots.iter().enumerate() {
        let pairs = if i < n - 1 {
            circle_round(n, i)
        } else {
            let mut perm: Vec<usize> = (0..n).collect();
            perm.shuffle(rng);
            perm.chunks(2)
                .map(|c| (c[0], c[1]))
                .filter(|_| rng.gen_bool(0.8))
                .collect()
        };
        for (a, b) in pairs {
            sched
                .connect(
                    Endpoint::new(a as TorId, p as PortId),
                    Endpoint::new(b as TorId, p as PortId),
                    ts as SliceId,
                )
                .unwrap();
        }
    }
    sched
}

/// Earliest direct hop from `x` to `dst` leaving in a slot in
/// `from..from + S`, lowest port first.
fn direct_from(s: &Schedule, x: TorId, dst: TorId, from: Slot) -> Option<Hop> {
    let slices = s.slices() as Slot;
    (from..from + slices).find_map(|t| {
        (0..s.uplinks() as PortId).find_map(|p| {
            let peer = s.peer((t % slices) as SliceId, Endpoint::new(x, p))?;
            (peer.tor == dst).then_some(Hop {
                tor: x,
                port: p,
                depart: Some(t),
            })
        })
    })
}

/// How a transit ToR continues: it waits for its direct circuit, from the
/// slot it got the packet (`same_slot`, Opera-like) or from the next one
/// (RotorNet-like, one hop per slot), falling back to the same slot when
/// the only circuit is in that slot (a full-cycle wait is inexpressible).
/// Deterministic per (ToR, dst, slot), so per-hop tables stay consistent.
fn transit(s: &Schedule, m: TorId, dst: TorId, t: Slot, same_slot: bool) -> Hop {
    let slices = s.slices() as Slot;
    if !same_slot
        && let Some(h) = direct_from(s, m, dst, t + 1)
        && h.depart.unwrap() < t + slices
    {
        return h;
    }
    direct_from(s, m, dst, t).unwrap()
}

/// Every distinct per-hop-consistent path for (src, dst, arrival): direct
/// first, then two-hop ones: leave now or after waiting up to S-1 slots
/// towards a neighbour, which continues by [`transit`].
fn candidates(s: &Schedule, src: TorId, dst: TorId, a: SliceId, same_slot: bool) -> Vec<Path> {
    let t0 = a as Slot;
    let mk = |hops| Path {
        src,
        dst,
        arrival: Some(a),
        hops,
        class: None,
    };
    let direct = direct_from(s, src, dst, t0).unwrap();
    let mut v = vec![mk(vec![direct])];
    for t in t0..t0 + s.slices() as Slot {
        for (p, m) in s.links(src, (t % s.slices() as Slot) as SliceId) {
            if m == dst {
                continue;
            }
            let first = Hop {
                tor: src,
                port: p,
                depart: Some(t),
            };
            let p = mk(vec![first, transit(s, m, dst, t, same_slot)]);
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    v
}

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    u: usize,
    s: usize,
    seed: u64,
    same_slot: bool,
    classes: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        2usize..=4,
        1usize..=2,
        0usize..=4,
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(half, u, extra, seed, same_slot, classes)| {
            let n = 2 * half;
            let base = (n - 1).div_ceil(u).max(3);
            Case {
                n,
                u,
                s: (base + extra).min(7.max(base)),
                seed,
                same_slot,
                classes,
            }
        })
}

/// One path per (src, dst, arrival, class), chosen at random among the
/// candidates, plus the schedule.
fn single_paths(c: &Case) -> (Schedule, Vec<Path>) {
    let mut rng = StdRng::seed_from_u64(c.seed);
    let s = random_schedule(c.n, c.u, c.s, &mut rng);
    let classes: Vec<Option<u8>> = if c.classes {
        vec![Some(0), Some(1)]
    } else {
        vec![None]
    };
    let mut paths = Vec::new();
    for src in 0..c.n as TorId {
        for dst in 0..c.n as TorId {
            if src == dst {
                continue;
            }
            for a in 0..c.s as SliceId {
                for &class in &classes {
                    let cands = candidates(&s, src, dst, a, c.same_slot);
                    let mut p = cands[rng.gen_range(0..cands.len())].clone();
                    p.class = class;
                    paths.push(p);
                }
            }
        }
    }
    (s, paths)
}

fn routes(paths: Vec<Path>) -> RouteSet {
    RouteSet {
        paths: paths.into(),
        classes: None,
    }
}

fn all_entries(t: &Tables) -> impl Iterator<Item = (TorId, &Entry)> {
    t.tors
        .iter()
        .flat_map(|tab| tab.entries.iter().map(move |e| (tab.tor, e)))
}

fn compatible(a: Ingress, b: Ingress) -> bool {
    a == Ingress::Any || b == Ingress::Any || a == b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Per-hop tables reproduce every input path, slot for slot.
    #[test]
    fn hop_tables_reproduce_paths(c in case()) {
        let (s, paths) = single_paths(&c);
        let t = entries(&s, &routes(paths.clone()), Lookup::Hop, Multipath::None, 1).unwrap();
        prop_assert_eq!(t.slices, c.s);
        for p in &paths {
            let w = walk(&t, &s, p.src, p.dst, p.arrival, p.class, None).unwrap();
            prop_assert_eq!(&w, p);
        }
        // Sorted, and no two entries with the same match.
        for tab in &t.tors {
            for w in tab.entries.windows(2) {
                prop_assert!(w[0].m < w[1].m, "{:?} !< {:?}", w[0].m, w[1].m);
            }
        }
        // Serde round trip (the `lighthouse compile` file format).
        let back: Tables = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        prop_assert_eq!(back, t);
    }

    /// Source-routed tables: one Host entry per path at its source, none at
    /// transit ToRs, and they reproduce every path.
    #[test]
    fn source_entries_reproduce_paths(c in case()) {
        let (s, paths) = single_paths(&c);
        let t = entries(&s, &routes(paths.clone()), Lookup::Source, Multipath::None, 1).unwrap();
        prop_assert_eq!(t.total_entries(), paths.len());
        for p in &paths {
            let w = walk(&t, &s, p.src, p.dst, p.arrival, p.class, None).unwrap();
            prop_assert_eq!(&w, p);
            let key = Match { dst: p.dst, arrival: p.arrival, ingress: Ingress::Host, class: p.class, bucket: None };
            let e = t.lookup(p.src, &key).unwrap().unwrap();
            prop_assert_eq!(e.m, key);
            let Action::Source(steps) = &e.action else { panic!("not a source action") };
            prop_assert_eq!(steps.len(), p.hops.len());
        }
    }

    /// Alternates leave strictly later than the primary but within one
    /// cycle, are the actions of later-arrival entries, start with distinct
    /// queues, the best is the earliest such action, and taking one still
    /// delivers the packet.
    #[test]
    fn alternates_are_later_and_deliver(c in case()) {
        let (s, paths) = single_paths(&c);
        let slices = c.s;
        let t = entries(&s, &routes(paths), Lookup::Hop, Multipath::None, 1).unwrap();
        for (tor, e) in all_entries(&t) {
            let a = e.m.arrival.unwrap();
            let r = rank(a, e.action.first().depart, slices);
            prop_assert!(e.alternates.len() <= lh_ctrl::tables::MAX_ALTERNATES);
            // Valid candidates, computed by brute force over the table.
            let mut best: Option<usize> = None;
            for (tor2, e2) in all_entries(&t) {
                if tor2 != tor || e2.m.dst != e.m.dst || e2.m.class != e.m.class
                    || e2.m.arrival == Some(a) || !compatible(e.m.ingress, e2.m.ingress) {
                    continue;
                }
                let x = e2.m.arrival.unwrap();
                let k = rank(a, Some(x), slices);
                let o = k + rank(x, e2.action.first().depart, slices);
                if o > r && o < slices {
                    best = Some(best.map_or(o, |b: usize| b.min(o)));
                }
            }
            let mut firsts = BTreeSet::new();
            let mut prev = r;
            for (i, alt) in e.alternates.iter().enumerate() {
                let st = alt.first();
                let o = rank(a, st.depart, slices);
                prop_assert!(o > r && o >= prev, "alt {i} rank {o} vs primary {r}");
                prev = o;
                prop_assert!(firsts.insert((st.port, st.depart)));
                prop_assert!(all_entries(&t).any(|(tor2, e2)| tor2 == tor && e2.m.dst == e.m.dst
                    && e2.m.arrival != Some(a) && e2.action == *alt));
            }
            prop_assert_eq!(
                e.alternates.first().map(|x| rank(a, x.first().depart, slices)),
                best
            );
            if e.m.ingress != Ingress::Fabric {
                let prim = walk(&t, &s, tor, e.m.dst, Some(a), e.m.class, None).unwrap();
                for i in 0..e.alternates.len() {
                    let w = walk_alternate(&t, &s, tor, e.m.dst, Some(a), e.m.class, None, i).unwrap();
                    prop_assert!(w.hops[0].depart > prim.hops[0].depart);
                    prop_assert!(w.hops[0].depart.unwrap() < a as Slot + slices as Slot);
                }
            }
        }
    }

    /// Multipath: bucket b follows alternative b % n; with enough buckets
    /// every alternative is used; without multipath only the first.
    #[test]
    fn multipath_buckets_cover_alternatives(c in case(), buckets in 1u8..=4, flow in any::<bool>()) {
        let mut rng = StdRng::seed_from_u64(c.seed);
        let s = random_schedule(c.n, c.u, c.s, &mut rng);
        let mut groups: Vec<Vec<Path>> = Vec::new();
        for src in 0..c.n as TorId {
            for dst in 0..c.n as TorId {
                if src == dst {
                    continue;
                }
                for a in 0..c.s as SliceId {
                    let mut cands = candidates(&s, src, dst, a, c.same_slot);
                    cands.shuffle(&mut rng);
                    cands.truncate(rng.gen_range(1..=3));
                    groups.push(cands);
                }
            }
        }
        let all: Vec<Path> = groups.iter().flatten().cloned().collect();
        let mp = if flow { Multipath::Flow } else { Multipath::Packet };
        let t = entries(&s, &routes(all.clone()), Lookup::Hop, mp, buckets).unwrap();
        prop_assert_eq!(t.buckets, buckets);
        let ts = entries(&s, &routes(all.clone()), Lookup::Source, mp, buckets).unwrap();
        for g in &groups {
            let (src, dst, a) = (g[0].src, g[0].dst, g[0].arrival);
            let mut used = BTreeSet::new();
            for b in 0..buckets {
                let want = &g[b as usize % g.len()];
                prop_assert_eq!(&walk(&t, &s, src, dst, a, None, Some(b)).unwrap(), want);
                prop_assert_eq!(&walk(&ts, &s, src, dst, a, None, Some(b)).unwrap(), want);
                used.insert(b as usize % g.len());
            }
            if buckets as usize >= g.len() {
                prop_assert_eq!(used.len(), g.len());
            }
        }
        let t1 = entries(&s, &routes(all), Lookup::Hop, Multipath::None, buckets).unwrap();
        prop_assert_eq!(t1.buckets, 1);
        for g in &groups {
            let w = walk(&t1, &s, g[0].src, g[0].dst, g[0].arrival, None, None).unwrap();
            prop_assert_eq!(&w, &g[0]);
        }
    }

    /// A static ring with BFS paths gives wildcard tables equal to a plain
    /// destination -> port flow table, and walking works from any slice.
    #[test]
    fn wildcard_ring_is_a_plain_flow_table(n in 3usize..=10, u in 2usize..=5, arrival in 0u16..8) {
        let mut s = Schedule::new(n, u, 1);
        // Uplink p (even) of t reaches t + (p/2+1) on that ToR's uplink p+1.
        for p in (0..u.saturating_sub(1)).step_by(2) {
            let k = p / 2 + 1;
            if k >= n {
                continue;
            }
            for x in 0..n {
                let y = (x + k) % n;
                if s.peer(0, Endpoint::new(x as TorId, p as PortId)).is_none()
                    && s.peer(0, Endpoint::new(y as TorId, (p + 1) as PortId)).is_none()
                {
                    s.connect(
                        Endpoint::new(x as TorId, p as PortId),
                        Endpoint::new(y as TorId, (p + 1) as PortId),
                        0,
                    )
                    .unwrap();
                }
            }
        }
        // BFS towards each destination (reverse edges), next hop = lowest
        // port one step closer.
        let mut next: HashMap<(TorId, TorId), PortId> = HashMap::new();
        for dst in 0..n as TorId {
            let mut dist = vec![usize::MAX; n];
            dist[dst as usize] = 0;
            let mut q = std::collections::VecDeque::from([dst]);
            while let Some(y) = q.pop_front() {
                for x in 0..n as TorId {
                    if dist[x as usize] == usize::MAX && s.links(x, 0).iter().any(|&(_, z)| z == y) {
                        dist[x as usize] = dist[y as usize] + 1;
                        q.push_back(x);
                    }
                }
            }
            for x in 0..n as TorId {
                if x == dst || dist[x as usize] == usize::MAX {
                    continue;
                }
                let p = s.links(x, 0).into_iter()
                    .filter(|&(_, z)| dist[z as usize] + 1 == dist[x as usize])
                    .map(|(p, _)| p).min().unwrap();
                next.insert((x, dst), p);
            }
        }
        let mut paths = Vec::new();
        for (&(src, dst), _) in next.iter() {
            let mut hops = Vec::new();
            let mut x = src;
            while x != dst {
                let p = next[&(x, dst)];
                hops.push(Hop { tor: x, port: p, depart: None });
                x = s.peer(0, Endpoint::new(x, p)).unwrap().tor;
            }
            paths.push(Path { src, dst, arrival: None, hops, class: None });
        }
        paths.sort_by_key(|p| (p.src, p.dst));
        // The ring (uplinks 0 and 1) connects everything.
        prop_assert_eq!(paths.len(), n * (n - 1));
        let t = entries(&s, &routes(paths.clone()), Lookup::Hop, Multipath::None, 1).unwrap();
        prop_assert!(is_plain_flow_table(&t));
        prop_assert_eq!(t.slices, 1);
        for x in 0..n as TorId {
            let mut want: Vec<Entry> = next.iter()
                .filter(|((y, _), _)| *y == x)
                .map(|(&(_, dst), &port)| Entry {
                    m: Match { dst, arrival: None, ingress: Ingress::Any, class: None, bucket: None },
                    action: Action::Hop(Step { port, depart: None }),
                    alternates: vec![],
                })
                .collect();
            want.sort_by_key(|e| e.m);
            prop_assert_eq!(&t.table(x).unwrap().entries, &want);
        }
        for p in &paths {
            for arr in [None, Some(arrival)] {
                let w = walk(&t, &s, p.src, p.dst, arr, None, None).unwrap();
                prop_assert_eq!(&w.hops, &p.hops);
            }
        }
    }

    /// With transit ToRs that choose their continuation per path (not per
    /// key), per-hop tables fail exactly when an independent oracle finds
    /// two paths asking one ToR for different actions on one match, and
    /// the error names that ToR, match and both actions.
    #[test]
    fn conflicts_match_an_oracle(c in case()) {
        let mut rng = StdRng::seed_from_u64(c.seed ^ 0x5eed);
        let s = random_schedule(c.n, c.u, c.s, &mut rng);
        let slices = c.s as Slot;
        let mut paths = Vec::new();
        for src in 0..c.n as TorId {
            for dst in 0..c.n as TorId {
                if src == dst {
                    continue;
                }
                for a in 0..c.s as SliceId {
                    let mut p = candidates(&s, src, dst, a, true)
                        .choose(&mut rng)
                        .unwrap()
                        .clone();
                    if p.hops.len() == 2 && rng.gen_bool(0.3) {
                        let t = p.hops[0].depart.unwrap();
                        if let Some(h) = direct_from(&s, p.hops[1].tor, dst, t + 1)
                            && h.depart.unwrap() < t + slices
                        {
                            p.hops[1] = h;
                        }
                    }
                    paths.push(p);
                }
            }
        }
        let mut oracle: HashMap<(TorId, Match), Action> = HashMap::new();
        let mut clash = None;
        'outer: for p in &paths {
            let mut arrival = p.arrival;
            for (i, h) in p.hops.iter().enumerate() {
                let m = Match {
                    dst: p.dst,
                    arrival,
                    ingress: if i == 0 { Ingress::Host } else { Ingress::Fabric },
                    class: None,
                    bucket: None,
                };
                let a = Action::Hop(Step { port: h.port, depart: Some((h.depart.unwrap() % slices) as SliceId) });
                match oracle.get(&(h.tor, m)) {
                    Some(old) if *old != a => {
                        clash = Some(TableError::Conflict { tor: h.tor, m, a: old.clone(), b: a });
                        break 'outer;
                    }
                    _ => {
                        oracle.insert((h.tor, m), a.clone());
                    }
                }
                arrival = Some((h.depart.unwrap() % slices) as SliceId);
            }
        }
        let got = entries(&s, &routes(paths.clone()), Lookup::Hop, Multipath::None, 1);
        match clash {
            Some(e) => prop_assert_eq!(got.unwrap_err(), e),
            None => {
                let t = got.unwrap();
                for p in &paths {
                    prop_assert_eq!(&walk(&t, &s, p.src, p.dst, p.arrival, None, None).unwrap(), p);
                }
            }
        }
        // Source routing always expresses them.
        let t = entries(&s, &routes(paths.clone()), Lookup::Source, Multipath::None, 1).unwrap();
        for p in &paths {
            prop_assert_eq!(&walk(&t, &s, p.src, p.dst, p.arrival, None, None).unwrap(), p);
        }
    }
}
