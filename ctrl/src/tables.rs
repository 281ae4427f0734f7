//! `entries(paths, lookup, multipath)`: paths → per-ToR time-flow tables
//! (paper §4, Fig. 4 and 5c). Wire and file format: docs/tables.md.
//!
//! Match: destination ToR, arrival slice (or wildcard), where the packet came
//! from (a host port or the fabric), flow-size class and hash bucket (both
//! optional). Action: (uplink, departure slice) for per-hop lookup, or the
//! whole hop list for source routing; plus ordered alternates for later
//! slice-miss rerouting (§6.3, recirculation-free: all in one entry).
//! Packets for the ToR's own hosts are delivered without a table lookup.

use crate::config::{Lookup, Multipath};
use crate::routing::{ClassThresholds, Hop, Path, RouteSet};
use crate::schedule::{Endpoint, Schedule};
use crate::{PortId, SliceId, Slot, TorId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Where a packet entered the ToR. Per-hop routes that treat a ToR's own
/// traffic differently from transit traffic (VLB) need this in the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ingress {
    Any,
    Host,
    Fabric,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Match {
    pub dst: TorId,
    /// `None`: any arrival slice (TA, static).
    pub arrival: Option<SliceId>,
    pub ingress: Ingress,
    /// `None`: every flow-size class.
    pub class: Option<u8>,
    /// `None`: every hash bucket (no multipath).
    pub bucket: Option<u8>,
}

/// One hop's instruction: leave on `port` in slice `depart` (`None`: now).
/// The calendar-queue rank is `(depart - arrival) mod S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub port: PortId,
    pub depart: Option<SliceId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Per-hop: send on this step; the next ToR looks up again.
    Hop(Step),
    /// Source routing: this ToR takes `steps[0]` and writes the rest into
    /// the packet's source-route header (docs/wire-formats.md).
    Source(Vec<Step>),
}

impl Action {
    /// The step this ToR executes.
    pub fn first(&self) -> Step {
        match self {
            Action::Hop(s) => *s,
            Action::Source(v) => v[0],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(rename = "match")]
    pub m: Match,
    pub action: Action,
    /// Next-best actions for later slices, best first, used when the
    /// primary calendar queue is full (slice-miss rerouting).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<Action>,
}

/// One ToR's time-flow table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeFlowTable {
    pub tor: TorId,
    pub entries: Vec<Entry>,
}

/// Every ToR's table plus what the data plane needs to interpret them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    /// Slices per cycle (1 when every arrival is a wildcard).
    pub slices: usize,
    pub lookup: Lookup,
    pub multipath: Multipath,
    /// Hash buckets when `multipath` is not `none` (else 1).
    pub buckets: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassThresholds>,
    pub tors: Vec<TimeFlowTable>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    /// Two paths ask one ToR for different actions on the same match; per-hop
    /// lookup cannot express them (use `lookup: source`).
    #[error("per-hop conflict at ToR {tor} for {m:?}: {a:?} vs {b:?}; use \"lookup\": \"source\"")]
    Conflict {
        tor: TorId,
        m: Match,
        a: Action,
        b: Action,
    },
    /// A ToR on the way has no entry for the packet (`walk`).
    #[error("ToR {tor} has no entry for {m:?}")]
    NoEntry { tor: TorId, m: Match },
    /// The tables send the packet around in circles (`walk`).
    #[error("forwarding loop from ToR {src} to ToR {dst}: ToR {tor} revisited (slice {slice:?})")]
    Loop {
        src: TorId,
        dst: TorId,
        tor: TorId,
        slice: Option<SliceId>,
    },
    /// A step uses an uplink that has no circuit in its departure slice.
    #[error("ToR {tor} port {port} has no circuit in slice {slice}")]
    NoCircuit {
        tor: TorId,
        port: PortId,
        slice: SliceId,
    },
    #[error("{0}")]
    Invalid(String),
}

/// Most next-best actions precomputed into one entry (paper Fig. 5c). Two
/// keeps the action field small; more rarely helps once the primary and
/// two later queues are all full (push-back takes over then).
pub const MAX_ALTERNATES: usize = 2;

impl Tables {
    /// Entries per ToR, in ToR order.
    pub fn sizes(&self) -> Vec<(TorId, usize)> {
        self.tors.iter().map(|t| (t.tor, t.entries.len())).collect()
    }

    /// Entries in the largest table (0 without ToRs).
    pub fn max_size(&self) -> usize {
        self.tors.iter().map(|t| t.entries.len()).max().unwrap_or(0)
    }

    /// Mean entries per ToR (0 without ToRs).
    pub fn mean_size(&self) -> f64 {
        if self.tors.is_empty() {
            0.0
        } else {
            self.total_entries() as f64 / self.tors.len() as f64
        }
    }

    /// Entries over all ToRs.
    pub fn total_entries(&self) -> usize {
        self.tors.iter().map(|t| t.entries.len()).sum()
    }

    /// The table of `tor`, if any.
    pub fn table(&self, tor: TorId) -> Option<&TimeFlowTable> {
        self.tors
            .get(tor as usize)
            .filter(|t| t.tor == tor)
            .or_else(|| self.tors.iter().find(|t| t.tor == tor))
    }

    /// The entry a packet with these header fields hits at `tor`, following
    /// the match rules of docs/tables.md: a `None`/`Any` field in an entry
    /// matches every value, and the most specific matching entry wins.
    /// A `None` packet field matches only wildcard entries.
    pub fn lookup(&self, tor: TorId, key: &Match) -> Result<Option<&Entry>, TableError> {
        let Some(table) = self.table(tor) else {
            return Ok(None);
        };
        let mut best: Option<(u8, &Entry)> = None;
        let mut tie: Option<&Entry> = None;
        for e in table.entries.iter().filter(|e| e.m.dst == key.dst) {
            let Some(score) = match_score(&e.m, key) else {
                continue;
            };
            match best {
                Some((b, prev)) if b == score => {
                    if prev.action != e.action {
                        tie = Some(e);
                    }
                }
                Some((b, _)) if b > score => {}
                _ => {
                    best = Some((score, e));
                    tie = None;
                }
            }
        }
        if let (Some((_, a)), Some(b)) = (best, tie) {
            return Err(TableError::Invalid(format!(
                "ToR {tor}: {key:?} matches {:?} and {:?} equally",
                a.m, b.m
            )));
        }
        Ok(best.map(|(_, e)| e))
    }
}

/// How specifically `m` matches the packet fields `key`, or `None` if it
/// does not match.
fn match_score(m: &Match, key: &Match) -> Option<u8> {
    fn field<T: PartialEq>(entry: Option<T>, pkt: Option<T>) -> Option<u8> {
        match (entry, pkt) {
            (None, _) => Some(0),
            (Some(a), Some(b)) if a == b => Some(1),
            _ => None,
        }
    }
    let ingress = match (m.ingress, key.ingress) {
        (Ingress::Any, _) => 0,
        (a, b) if a == b => 1,
        _ => return None,
    };
    Some(
        field(m.arrival, key.arrival)?
            + ingress
            + field(m.class, key.class)?
            + field(m.bucket, key.bucket)?,
    )
}

/// True when the tables are an ordinary flow table: no entry matches on the
/// arrival slice and no step waits for a departure slice (TA and static
/// fabrics; the data plane can then skip calendar queues).
pub fn is_plain_flow_table(t: &Tables) -> bool {
    t.tors.iter().flat_map(|t| &t.entries).all(|e| {
        e.m.arrival.is_none()
            && std::iter::once(&e.action)
                .chain(&e.alternates)
                .all(|a| match a {
                    Action::Hop(s) => s.depart.is_none(),
                    Action::Source(v) => v.iter().all(|s| s.depart.is_none()),
                })
    })
}

/// Calendar-queue rank of a step taken by a packet that arrived in slice
/// `arrival`: `(depart - arrival) mod S`, 0 for "leave now".
pub fn rank(arrival: SliceId, depart: Option<SliceId>, slices: usize) -> usize {
    let s = slices.max(1);
    match depart {
        Some(d) => (d as usize % s + s - arrival as usize % s) % s,
        None => 0,
    }
}

/// Checks that a path is something tables can express: hops chain from
/// `src` over real circuits to `dst`, departures never go back in time and
/// no single wait reaches a full cycle (the calendar queue rank is taken
/// mod S, so such a wait would leave a cycle early).
fn check_path(s: &Schedule, p: &Path) -> Result<(), TableError> {
    let bad = |msg: String| {
        TableError::Invalid(format!(
            "path {}->{} (arrival {:?}): {msg}",
            p.src, p.dst, p.arrival
        ))
    };
    let n = s.tors();
    let slices = s.slices();
    if p.src as usize >= n || p.dst as usize >= n {
        return Err(bad(format!("ToR out of range ({n} ToRs)")));
    }
    if p.src == p.dst {
        return Err(bad("source equals destination".into()));
    }
    if p.hops.is_empty() {
        return Err(bad("no hops".into()));
    }
    if p.hops[0].tor != p.src {
        return Err(bad(format!("first hop leaves ToR {}", p.hops[0].tor)));
    }
    if let Some(a) = p.arrival
        && a as usize >= slices
    {
        return Err(bad(format!("arrival slice out of range ({slices} slices)")));
    }
    let mut slot: Option<Slot> = p.arrival.map(Slot::from);
    for (i, h) in p.hops.iter().enumerate() {
        if h.port as usize >= s.uplinks() {
            return Err(bad(format!("hop {i}: no uplink {}", h.port)));
        }
        match (slot, h.depart) {
            (None, Some(_)) => {
                return Err(bad(format!(
                    "hop {i}: timed departure on a wildcard-arrival path"
                )));
            }
            (Some(t), Some(d)) => {
                if d < t {
                    return Err(bad(format!("hop {i} departs in slot {d} before slot {t}")));
                }
                if (d - t) as usize >= slices && slices > 1 {
                    return Err(bad(format!(
                        "hop {i} waits {} slots at ToR {}: a calendar queue holds at most {} \
                         (one cycle)",
                        d - t,
                        h.tor,
                        slices - 1
                    )));
                }
                slot = Some(d);
            }
            _ => {}
        }
        let next = p.hops.get(i + 1).map(|h| h.tor).unwrap_or(p.dst);
        if s.is_electrical(h.port) {
            if next == h.tor {
                return Err(bad(format!("hop {i}: next ToR equals current")));
            }
        } else {
            // A wildcard hop on a multi-slice schedule has no fixed
            // circuit to check.
            let ts = match slot {
                Some(t) => (t as usize % slices) as SliceId,
                None if slices == 1 => 0,
                None => continue,
            };
            let peer = s.peer(ts, Endpoint::new(h.tor, h.port)).map(|e| e.tor);
            if peer != Some(next) {
                return Err(bad(format!(
                    "hop {i}: ToR {} port {} reaches {peer:?} in slice {ts}, not ToR {next}",
                    h.tor, h.port
                )));
            }
        }
    }
    Ok(())
}

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
pub fn entries(
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
    let mut groups: HashMap<GroupKey, Vec<&Path>> = HashMap::new();
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
        let chosen: Vec<(&Path, Option<u8>)> = match multipath {
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
                    for h in &p.hops {
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

/// Follows the tables as the data plane would, from `src` for a packet
/// arriving in slice `arrival`: returns the hops taken. Used by tests to
/// prove tables reproduce compiled paths, and by `lighthouse show`.
///
/// Slots are reconstructed from ranks: a step leaving in slice `d` for a
/// packet that arrived in slice `a` at slot `t` leaves in slot
/// `t + (d - a) mod S`; the next ToR sees the packet in slice `d`.
pub fn walk(
    t: &Tables,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
) -> Result<Path, TableError> {
    walk_impl(t, s, src, dst, arrival, class, bucket, None)
}

/// Like [`walk`], but the source ToR takes its entry's alternate number
/// `alt` (0: the best) instead of the primary, as slice-miss rerouting
/// does when the primary calendar queue is full.
#[allow(clippy::too_many_arguments)]
pub fn walk_alternate(
    t: &Tables,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
    alt: usize,
) -> Result<Path, TableError> {
    walk_impl(t, s, src, dst, arrival, class, bucket, Some(alt))
}

#[allow(clippy::too_many_arguments)]
fn walk_impl(
    t: &Tables,
    s: &Schedule,
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    bucket: Option<u8>,
    alt: Option<usize>,
) -> Result<Path, TableError> {
    let slices = t.slices.max(1);
    for tor in [src, dst] {
        if tor as usize >= s.tors() {
            return Err(TableError::Invalid(format!(
                "ToR {tor} out of range ({} ToRs)",
                s.tors()
            )));
        }
    }
    let mut cur = src;
    let mut slice = arrival.map(|a| (a as usize % slices) as SliceId);
    let mut slot: Option<Slot> = arrival.map(Slot::from);
    let mut ingress = Ingress::Host;
    // Source-route header still to execute (None: no header).
    let mut header: Option<std::collections::VecDeque<Step>> = None;
    let mut seen: HashSet<(TorId, Option<SliceId>, Ingress)> = HashSet::new();
    let mut hops = Vec::new();
    while cur != dst {
        let step = match header.as_mut() {
            Some(h) => h.pop_front().ok_or_else(|| {
                TableError::Invalid(format!(
                    "source route to ToR {dst} ends at ToR {cur} before the destination"
                ))
            })?,
            None => {
                if !seen.insert((cur, slice, ingress)) {
                    return Err(TableError::Loop {
                        src,
                        dst,
                        tor: cur,
                        slice,
                    });
                }
                let key = Match {
                    dst,
                    arrival: slice,
                    ingress,
                    class,
                    bucket,
                };
                let e = t
                    .lookup(cur, &key)?
                    .ok_or(TableError::NoEntry { tor: cur, m: key })?;
                let action = match alt {
                    Some(i) if hops.is_empty() => e.alternates.get(i).ok_or_else(|| {
                        TableError::Invalid(format!(
                            "ToR {cur}: entry {:?} has {} alternates, not {}",
                            e.m,
                            e.alternates.len(),
                            i + 1
                        ))
                    })?,
                    _ => &e.action,
                };
                if let Action::Source(v) = action {
                    if v.is_empty() {
                        return Err(TableError::Invalid(format!(
                            "ToR {cur}: empty source route in {:?}",
                            e.m
                        )));
                    }
                    header = Some(v[1..].iter().copied().collect());
                }
                action.first()
            }
        };
        let depart = match step.depart {
            Some(d) => {
                let a = slice.ok_or_else(|| {
                    TableError::Invalid(format!(
                        "ToR {cur}: timed step {step:?} for a packet without arrival slice"
                    ))
                })?;
                let at = slot.unwrap_or(0) + rank(a, Some(d), slices) as Slot;
                slot = Some(at);
                slice = Some((d as usize % slices) as SliceId);
                Some(at)
            }
            None => None,
        };
        hops.push(Hop {
            tor: cur,
            port: step.port,
            depart,
        });
        let ts = slice.unwrap_or(0);
        let next =
            s.next_tor(ts, Endpoint::new(cur, step.port), dst)
                .ok_or(TableError::NoCircuit {
                    tor: cur,
                    port: step.port,
                    slice: ts,
                })?;
        if hops.len() > s.tors() * slices + 1 {
            return Err(TableError::Loop {
                src,
                dst,
                tor: cur,
                slice,
            });
        }
        cur = next;
        ingress = Ingress::Fabric;
    }
    if let Some(h) = header
        && !h.is_empty()
    {
        return Err(TableError::Invalid(format!(
            "source route to ToR {dst} has {} steps left at the destination",
            h.len()
        )));
    }
    Ok(Path {
        src,
        dst,
        arrival,
        hops,
        class,
    })
}
