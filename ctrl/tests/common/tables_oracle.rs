//! The original straightforward `entries()` (BTreeMap per ToR, one Action
//! clone per hop, alternates by scanning later arrivals), kept as the oracle
//! for the optimised implementation in `src/tables/`. `check_path` is
//! the library's own (`lh_ctrl::tables::check_path`).

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::routing::{Hop, PathRef, RouteSet};
use lh_ctrl::schedule::Schedule;
use lh_ctrl::tables::{
    Action, Entry, Ingress, MAX_ALTERNATES, Match, Step, TableError, Tables, TimeFlowTable,
    check_path, rank,
};
use lh_ctrl::{SliceId, TorId};
use std::collections::{BTreeMap, HashMap};

/// Per-ToR primaries while building: match -> action.
type Primaries = BTreeMap<TorId, BTreeMap<Match, Action>>;

fn insert(map: &mut Primaries, tor: TorId, m: Match, a: Action) -> Result<(), TableError> {
    let t = map.entry(tor).or_default();
    match t.get(&m) {
        Some(prev) if *prev != a => Err(TableError::Conflict {
            tor,
            m,
            a: prev.clone(),
            b: a,
        }),
        Some(_) => Ok(()),
        None => {
            t.insert(m, a);
            Ok(())
        }
    }
}

/// The paper's `entries([path], LOOKUP, MULTIPATH)`.
///
/// Paths sharing `(src, dst, arrival, class)` are alternatives in their
/// order in `routes`. With `multipath` off only the first is used; else hash
/// bucket `b` in `0..buckets` takes alternative `b % n` and every entry of
/// that path carries `bucket: b` (the bucket is fixed at the source and the
/// same at every hop). See docs/tables.md for the full semantics.
pub fn oracle_entries(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
) -> Result<Tables, TableError> {
    let slices = s.slices();
    if multipath != Multipath::None && buckets == 0 {
        return Err(TableError::Invalid(
            "multipath needs at least one hash bucket".into(),
        ));
    }
    // Alternatives per (src, dst, arrival, class), in first-seen order.
    type GroupKey = (TorId, TorId, Option<SliceId>, Option<u8>);
    let mut order: Vec<GroupKey> = Vec::new();
    let mut groups: HashMap<GroupKey, Vec<PathRef>> = HashMap::new();
    for p in &routes.paths {
        check_path(s, p)?;
        let k = (p.src, p.dst, p.arrival, p.class);
        groups
            .entry(k)
            .or_insert_with(|| {
                order.push(k);
                Vec::new()
            })
            .push(p);
    }

    let step = |h: &Hop| Step {
        port: h.port,
        depart: h.depart.map(|d| (d as usize % slices) as SliceId),
    };
    let mut prim: Primaries = BTreeMap::new();
    for k in &order {
        let alts = &groups[k];
        let chosen: Vec<(PathRef, Option<u8>)> = match multipath {
            Multipath::None => vec![(alts[0], None)],
            Multipath::Packet | Multipath::Flow => (0..buckets)
                .map(|b| (alts[b as usize % alts.len()], Some(b)))
                .collect(),
        };
        for (p, bucket) in chosen {
            match lookup {
                Lookup::Hop => {
                    let mut arrival = p.arrival;
                    let mut ingress = Ingress::Host;
                    for h in p.hops {
                        let m = Match {
                            dst: p.dst,
                            arrival,
                            ingress,
                            class: p.class,
                            bucket,
                        };
                        let st = step(h);
                        insert(&mut prim, h.tor, m, Action::Hop(st))?;
                        // The next ToR sees the packet within the slice it
                        // was sent in.
                        if st.depart.is_some() {
                            arrival = st.depart;
                        }
                        ingress = Ingress::Fabric;
                    }
                }
                Lookup::Source => {
                    let m = Match {
                        dst: p.dst,
                        arrival: p.arrival,
                        ingress: Ingress::Host,
                        class: p.class,
                        bucket,
                    };
                    let steps = p.hops.iter().map(step).collect();
                    insert(&mut prim, p.src, m, Action::Source(steps))?;
                }
            }
        }
    }

    let mut tors = Vec::with_capacity(s.tors());
    for tor in 0..s.tors() as TorId {
        let merged = match prim.remove(&tor) {
            Some(t) if lookup == Lookup::Hop => merge_ingress(&t),
            Some(t) => t,
            None => BTreeMap::new(),
        };
        // BTreeMap order is Match order: (dst, arrival, ingress, class,
        // bucket), so tables come out sorted deterministically.
        let mut entries: Vec<Entry> = merged
            .into_iter()
            .map(|(m, action)| Entry {
                m,
                action,
                alternates: Vec::new(),
            })
            .collect();
        add_alternates(&mut entries, slices);
        tors.push(TimeFlowTable { tor, entries });
    }
    let timed = tors
        .iter()
        .flat_map(|t| &t.entries)
        .any(|e| e.m.arrival.is_some());
    Ok(Tables {
        slices: if timed { slices } else { 1 },
        lookup,
        multipath,
        buckets: if multipath == Multipath::None {
            1
        } else {
            buckets
        },
        classes: routes.classes.clone(),
        tors,
    })
}

/// Collapses Host/Fabric entries of one key into a single `Any` entry
/// unless their actions differ. A key with only one of the two is widened
/// too: every action in a per-hop table is a valid continuation to `dst`
/// from this ToR and slice, whoever sent the packet, so widening never
/// misroutes and turns would-be misses into forwarding.
fn merge_ingress(t: &BTreeMap<Match, Action>) -> BTreeMap<Match, Action> {
    let mut out = BTreeMap::new();
    for (m, a) in t {
        let other = match m.ingress {
            Ingress::Host => Ingress::Fabric,
            Ingress::Fabric => Ingress::Host,
            Ingress::Any => {
                out.insert(*m, a.clone());
                continue;
            }
        };
        match t.get(&Match {
            ingress: other,
            ..*m
        }) {
            Some(b) if b != a => out.insert(*m, a.clone()),
            _ => out.insert(
                Match {
                    ingress: Ingress::Any,
                    ..*m
                },
                a.clone(),
            ),
        };
    }
    out
}

fn ingress_idx(i: Ingress) -> usize {
    match i {
        Ingress::Any => 0,
        Ingress::Host => 1,
        Ingress::Fabric => 2,
    }
}

/// Fills `alternates` of one ToR's entries (sorted, ingress already
/// merged): for an entry matching arrival `a`, the actions of the entries
/// for `a+1, a+2, ...` (same dst, class, bucket and a compatible ingress),
/// i.e. what the packet would do had it arrived later, restricted to those
/// whose departure is strictly later than the primary's yet within the
/// cycle (so the rank stays unambiguous), earliest first, one per distinct
/// first step (one per calendar queue), at most [`MAX_ALTERNATES`].
fn add_alternates(entries: &mut [Entry], slices: usize) {
    if slices < 2 {
        return;
    }
    type Key = (TorId, Option<u8>, Option<u8>);
    let mut series: HashMap<Key, Vec<[Option<usize>; 3]>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(a) = e.m.arrival {
            series
                .entry((e.m.dst, e.m.class, e.m.bucket))
                .or_insert_with(|| vec![[None; 3]; slices])[a as usize % slices]
                [ingress_idx(e.m.ingress)] = Some(i);
        }
    }
    let mut all = Vec::with_capacity(entries.len());
    for e in entries.iter() {
        let Some(a) = e.m.arrival else {
            all.push(Vec::new());
            continue;
        };
        let ser = &series[&(e.m.dst, e.m.class, e.m.bucket)];
        let prim = e.action.first();
        let r = rank(a, prim.depart, slices);
        let compat: &[usize] = match e.m.ingress {
            Ingress::Any => &[0, 1, 2],
            Ingress::Host => &[0, 1],
            Ingress::Fabric => &[0, 2],
        };
        // (offset from arrival in slots, first step, entry index)
        let mut got: Vec<(usize, Step, usize)> = Vec::new();
        for k in 1..slices {
            // Offsets found from arrival a+k are at least k.
            if got.len() >= MAX_ALTERNATES && got[MAX_ALTERNATES - 1].0 < k {
                break;
            }
            let x = ((a as usize + k) % slices) as SliceId;
            for &c in compat {
                let Some(j) = ser[x as usize][c] else {
                    continue;
                };
                let st = entries[j].action.first();
                let o = k + rank(x, st.depart, slices);
                if o > r && o < slices && st != prim && !got.iter().any(|g| g.1 == st) {
                    got.push((o, st, j));
                }
            }
            got.sort_by_key(|g| g.0);
            got.truncate(MAX_ALTERNATES);
        }
        all.push(
            got.into_iter()
                .map(|(_, _, j)| entries[j].action.clone())
                .collect(),
        );
    }
    for (e, alts) in entries.iter_mut().zip(all) {
        e.alternates = alts;
    }
}
