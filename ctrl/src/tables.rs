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
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

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
                Some(t) => slot_slice(t, slices),
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

/// The paper's `entries([path], LOOKUP, MULTIPATH)`.
///
/// Paths sharing `(src, dst, arrival, class)` are alternatives in their
/// order in `routes`. With `multipath` off only the first is used; else hash
/// bucket `b` in `0..buckets` takes alternative `b % n` and every entry of
/// that path carries `bucket: b` (the bucket is fixed at the source and the
/// same at every hop). See docs/tables.md for the full semantics.
///
/// Per-hop tables widen Host/Fabric entries of one key into a single `Any`
/// entry unless their actions differ: every action in a per-hop table is a
/// valid continuation to `dst` from this ToR and slice, whoever sent the
/// packet, so widening never misroutes and turns would-be misses into
/// forwarding. Alternates: see [`MAX_ALTERNATES`] and docs/tables.md.
///
/// Implementation: every match field has a small known range, so each
/// (ToR, dst) pair gets a dense block of cells indexed by (arrival, class,
/// bucket, ingress) instead of a map; ToRs are filled in parallel. Paths
/// are applied in the same order as the one-map-per-ToR definition, so the
/// first conflict reported is the same one.
pub fn entries(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
) -> Result<Tables, TableError> {
    entries_with_threads(s, routes, lookup, multipath, buckets, None)
}

/// [`entries`] on exactly `threads` worker threads (`None`: one for small
/// inputs, else the available cores). For tests of the parallel path.
#[doc(hidden)]
pub fn entries_with_threads(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
    threads: Option<usize>,
) -> Result<Tables, TableError> {
    let slices = s.slices();
    if multipath != Multipath::None && buckets == 0 {
        return Err(TableError::Invalid(
            "multipath needs at least one hash bucket".into(),
        ));
    }
    let paths = &routes.paths;
    let n = s.tors();
    let threads = match threads {
        Some(t) => t.max(1),
        None if paths.len() < 20_000 => 1,
        None => std::thread::available_parallelism()
            .map_or(1, |p| p.get())
            .clamp(1, 8)
            .min(n.max(1)),
    };
    // Check paths and compute their group keys, in parallel chunks; the
    // first chunk with an invalid path has the first one.
    let arrivals = s.slices() + 1;
    // Without multipath every path is used unless it repeats a group, so
    // the chunks also count their insertions per block on the way.
    let single = multipath == Multipath::None;
    let mut keys = vec![0u64; paths.len()];
    let checked = par_chunks_mut(&mut keys, threads, |from, keys| {
        let mut class_seen = [false; 257];
        let mut counts = if single {
            vec![0u32; n * n + 1]
        } else {
            Vec::new()
        };
        for (i, k) in keys.iter_mut().enumerate() {
            let p = &paths[from + i];
            check_path(s, p)?;
            let c = p.class.map_or(0, |c| c as usize + 1);
            class_seen[c] = true;
            let triple = (p.src as u64 * n as u64 + p.dst as u64) * arrivals as u64
                + Dims::arrival(p.arrival) as u64;
            *k = triple * 257 + c as u64;
            if single {
                count(&mut counts, n, p, lookup, 1);
            }
        }
        Ok((class_seen, from..from + keys.len(), counts))
    });
    let mut class_seen = [false; 257];
    let mut chunks = Vec::with_capacity(checked.len());
    for c in checked {
        let (seen, range, counts) = c?;
        for (all, this) in class_seen.iter_mut().zip(seen) {
            *all |= this;
        }
        chunks.push((range, Some(counts)));
    }
    let dims = Dims::new(s, lookup, multipath, buckets, &class_seen);
    let chosen = if single {
        let (chosen, repeats) = choose_first(&keys, &dims);
        for i in repeats {
            let (_, counts) = chunks
                .iter_mut()
                .find(|(r, _)| r.contains(&(i as usize)))
                .expect("a chunk holds every path");
            if let Some(counts) = counts {
                count(counts, n, &paths[i as usize], lookup, u32::MAX);
            }
        }
        chosen
    } else {
        choose(&keys, &dims, buckets)
    };
    drop(keys);
    let parts = if single {
        // Chosen paths are in path order: each chunk takes its own.
        par_chunks_mut(&mut chunks, threads, |_, cs| {
            let (r, counts) = &mut cs[0];
            let lo = chosen.partition_point(|c| (c.0 as usize) < r.start);
            let hi = chosen.partition_point(|c| (c.0 as usize) < r.end);
            Part::build(paths, &chosen[lo..hi], &dims, lookup, counts.take())
        })
    } else {
        par_chunks(chosen.len(), threads, |r| {
            Part::build(paths, &chosen[r], &dims, lookup, None)
        })
    };
    let recs = Records { parts };

    let failed = AtomicBool::new(false);
    let ctx = Ctx {
        dims: &dims,
        recs: &recs,
        paths,
        lookup,
        failed: &failed,
    };
    let mut outs: Vec<WorkerOut> = if threads <= 1 {
        vec![ctx.work(0, 1)]
    } else {
        std::thread::scope(|sc| {
            let ctx = &ctx;
            let handles: Vec<_> = (1..threads)
                .map(|w| sc.spawn(move || ctx.work(w, threads)))
                .collect();
            let mut v = vec![ctx.work(0, threads)];
            v.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("tables worker")),
            );
            v
        })
    };
    if let Some(c) = outs
        .iter_mut()
        .filter_map(|o| o.conflict.take())
        .min_by_key(|c| (c.part, c.ord))
    {
        return Err(ctx.conflict_error(&c));
    }
    let mut by_tor: Vec<Vec<Entry>> = vec![Vec::new(); n];
    for o in outs {
        for (tor, es) in o.tables {
            by_tor[tor] = es;
        }
    }
    let tors: Vec<TimeFlowTable> = by_tor
        .into_iter()
        .enumerate()
        .map(|(tor, entries)| TimeFlowTable {
            tor: tor as TorId,
            entries,
        })
        .collect();
    // Every chosen path leaves an entry with its own arrival at its source.
    let timed = chosen
        .iter()
        .any(|&(p, _)| paths[p as usize].arrival.is_some());
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

/// Sizes of the dense match space of one (ToR, dst) block.
struct Dims {
    tors: usize,
    slices: usize,
    /// Arrival index: 0 wildcard, `1 + slice` otherwise.
    arrivals: usize,
    /// Classes present, in `Match` order (`None` first).
    classes: Vec<Option<u8>>,
    /// `class_idx[0]` for `None`, `[1 + c]` for `Some(c)`.
    class_idx: [u16; 257],
    /// Hash buckets (1 without multipath, whose bucket is `None`).
    buckets: usize,
    bucketed: bool,
    /// Ingress cells per key: Host and Fabric (per hop), Host (source).
    ingress: usize,
    /// (class, bucket) of each class-bucket index.
    keys: Vec<(Option<u8>, Option<u8>)>,
}

impl Dims {
    fn new(
        s: &Schedule,
        lookup: Lookup,
        multipath: Multipath,
        buckets: u8,
        class_seen: &[bool; 257],
    ) -> Dims {
        let mut classes = Vec::new();
        let mut class_idx = [0u16; 257];
        for (k, _) in class_seen.iter().enumerate().filter(|(_, s)| **s) {
            class_idx[k] = classes.len() as u16;
            classes.push(k.checked_sub(1).map(|c| c as u8));
        }
        if classes.is_empty() {
            classes.push(None);
        }
        let bucketed = multipath != Multipath::None;
        let nb = if bucketed { buckets as usize } else { 1 };
        let keys = classes
            .iter()
            .flat_map(|&c| (0..nb).map(move |b| (c, bucketed.then_some(b as u8))))
            .collect();
        Dims {
            tors: s.tors(),
            slices: s.slices(),
            arrivals: s.slices() + 1,
            classes,
            class_idx,
            buckets: if bucketed { buckets as usize } else { 1 },
            bucketed,
            ingress: if lookup == Lookup::Hop { 2 } else { 1 },
            keys,
        }
    }

    fn class(&self, c: Option<u8>) -> usize {
        self.class_idx[c.map_or(0, |c| c as usize + 1)] as usize
    }

    fn arrival(a: Option<SliceId>) -> usize {
        a.map_or(0, |a| a as usize + 1)
    }

    /// Keys (class, bucket) per arrival.
    fn cb(&self) -> usize {
        self.classes.len() * self.buckets
    }

    fn block_cells(&self) -> usize {
        self.arrivals * self.cb() * self.ingress
    }

    /// Cell of a match inside its (ToR, dst) block; `ing` 0 Host, 1 Fabric.
    fn cell(&self, arrival: Option<SliceId>, class: usize, bucket: Option<u8>, ing: usize) -> u32 {
        let cb = class * self.buckets + bucket.map_or(0, |b| b as usize);
        ((Self::arrival(arrival) * self.cb() + cb) * self.ingress + ing) as u32
    }

    /// The match of a cell (inverse of [`Dims::cell`]).
    fn match_of(&self, dst: TorId, cell: u32) -> Match {
        let cell = cell as usize;
        let ing = cell % self.ingress;
        let rest = cell / self.ingress;
        let (ai, cb) = (rest / self.cb(), rest % self.cb());
        Match {
            dst,
            arrival: ai.checked_sub(1).map(|a| a as SliceId),
            ingress: if ing == 0 {
                Ingress::Host
            } else {
                Ingress::Fabric
            },
            class: self.classes[cb / self.buckets],
            bucket: self.bucketed.then_some((cb % self.buckets) as u8),
        }
    }

    fn step(&self, h: &Hop) -> Step {
        Step {
            port: h.port,
            depart: h.depart.map(|d| slot_slice(d, self.slices)),
        }
    }
}

/// A step packed into a non-zero `u32` (0: empty cell).
fn enc(st: Step) -> u32 {
    1 << 31 | (st.port as u32) << 17 | st.depart.map_or(0, |d| d as u32 + 1)
}

fn dec(v: u32) -> Step {
    let d = v & 0x1_ffff;
    Step {
        port: (v >> 17) as PortId,
        depart: d.checked_sub(1).map(|d| d as SliceId),
    }
}

/// Without multipath: the first path of each group (in path order, bucket
/// `None`), and the indices of the other paths.
fn choose_first(keys: &[u64], dims: &Dims) -> (Vec<(u32, Option<u8>)>, Vec<u32>) {
    let n = dims.tors;
    let space = n * n * dims.arrivals * dims.classes.len();
    let dense = space <= (keys.len() * 64).max(1 << 25);
    let mut bits = if dense {
        vec![0u64; space.div_ceil(64)]
    } else {
        Vec::new()
    };
    let mut sparse: HashSet<u64> = HashSet::new();
    let mut chosen = Vec::with_capacity(keys.len());
    let mut repeats = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        let new = if dense {
            let c = dims.class_idx[(k % 257) as usize] as usize;
            let g = (k / 257) as usize * dims.classes.len() + c;
            let (w, b) = (g / 64, 1u64 << (g % 64));
            let new = bits[w] & b == 0;
            bits[w] |= b;
            new
        } else {
            sparse.insert(k)
        };
        if new {
            chosen.push((i as u32, None));
        } else {
            repeats.push(i as u32);
        }
    }
    (chosen, repeats)
}

/// Adds `by` (wrapping: `u32::MAX` subtracts one) to the per-block
/// insertion counts (`counts[block + 1]`) of path `p`.
fn count(counts: &mut [u32], n: usize, p: &Path, lookup: Lookup, by: u32) {
    match lookup {
        Lookup::Hop => {
            for h in &p.hops {
                let c = &mut counts[h.tor as usize * n + p.dst as usize + 1];
                *c = c.wrapping_add(by);
            }
        }
        Lookup::Source => {
            let c = &mut counts[p.src as usize * n + p.dst as usize + 1];
            *c = c.wrapping_add(by);
        }
    }
}

/// With multipath: the paths tables are built from, in the order the
/// definition applies them: `(path index, bucket)`.
/// `keys[i]`: path `i`'s group (src, dst, arrival, class) as
/// `((src * n + dst) * arrivals + arrival index) * 257 + class key` (0 for
/// no class, else `1 + class`).
fn choose(keys: &[u64], dims: &Dims, buckets: u8) -> Vec<(u32, Option<u8>)> {
    // Groups numbered in first-seen order.
    let n = dims.tors;
    let space = n * n * dims.arrivals * dims.classes.len();
    let dense = space <= (keys.len() * 8).max(1 << 22);
    let mut ids = if dense {
        vec![u32::MAX; space]
    } else {
        Vec::new()
    };
    let mut sparse: HashMap<u64, u32> = HashMap::new();
    let mut groups = 0u32;
    let gid: Vec<u32> = keys
        .iter()
        .map(|&k| {
            let slot = if dense {
                let c = dims.class_idx[(k % 257) as usize] as usize;
                &mut ids[(k / 257) as usize * dims.classes.len() + c]
            } else {
                sparse.entry(k).or_insert(u32::MAX)
            };
            if *slot == u32::MAX {
                *slot = groups;
                groups += 1;
            }
            *slot
        })
        .collect();
    drop(ids);
    // Members of each group in path order (CSR).
    let mut start = vec![0u32; groups as usize + 1];
    for &g in &gid {
        start[g as usize + 1] += 1;
    }
    for g in 0..groups as usize {
        start[g + 1] += start[g];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; keys.len()];
    for (i, &g) in gid.iter().enumerate() {
        members[fill[g as usize] as usize] = i as u32;
        fill[g as usize] += 1;
    }
    let mut chosen = Vec::with_capacity(groups as usize * buckets as usize);
    for g in 0..groups as usize {
        let alts = &members[start[g] as usize..start[g + 1] as usize];
        chosen.extend((0..buckets).map(|b| (alts[b as usize % alts.len()], Some(b))));
    }
    chosen
}

/// One insertion of the definition: `val` into `cell` of a (ToR, dst)
/// block; `ord` is its position in the definition's order.
#[derive(Clone, Copy, Default)]
struct Rec {
    cell: u32,
    /// Per hop: [`enc`] of the step; source: 1 + path index.
    val: u32,
    ord: u32,
}

/// Insertions grouped by (ToR, dst) block, in definition order: the
/// parts hold consecutive runs of chosen paths (built in parallel), and a
/// block's insertions are its ranges in part 0, part 1, ... in turn.
struct Records {
    parts: Vec<Part>,
}

struct Part {
    /// `start[tor * n + dst]..start[tor * n + dst + 1]` index `recs`.
    start: Vec<u32>,
    recs: Vec<Rec>,
}

impl Part {
    /// `counts`: the insertions per block (`[block + 1]`) if known.
    fn build(
        paths: &[Path],
        chosen: &[(u32, Option<u8>)],
        dims: &Dims,
        lookup: Lookup,
        counts: Option<Vec<u32>>,
    ) -> Part {
        let n = dims.tors;
        let mut start = counts.unwrap_or_else(|| {
            let mut c = vec![0u32; n * n + 1];
            for &(pi, _) in chosen {
                count(&mut c, n, &paths[pi as usize], lookup, 1);
            }
            c
        });
        for k in 0..n * n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut recs = vec![Rec::default(); start[n * n] as usize];
        let mut ord = 0u32;
        let mut put = |tor: TorId, dst: TorId, cell: u32, val: u32| {
            let f = &mut fill[tor as usize * n + dst as usize];
            recs[*f as usize] = Rec { cell, val, ord };
            *f += 1;
            ord += 1;
        };
        for &(pi, bucket) in chosen {
            let p = &paths[pi as usize];
            let class = dims.class(p.class);
            match lookup {
                Lookup::Hop => {
                    let mut arrival = p.arrival;
                    for (i, h) in p.hops.iter().enumerate() {
                        let st = dims.step(h);
                        let cell = dims.cell(arrival, class, bucket, usize::from(i > 0));
                        put(h.tor, p.dst, cell, enc(st));
                        // The next ToR sees the packet within the slice it
                        // was sent in.
                        if st.depart.is_some() {
                            arrival = st.depart;
                        }
                    }
                }
                Lookup::Source => {
                    put(p.src, p.dst, dims.cell(p.arrival, class, bucket, 0), pi + 1);
                }
            }
        }
        Part { start, recs }
    }

    fn block(&self, k: usize) -> &[Rec] {
        &self.recs[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Runs `f` on `t` consecutive near-equal chunks of `0..len` in parallel;
/// results in chunk order.
fn par_chunks<R: Send>(len: usize, t: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let t = t.clamp(1, len.max(1));
    let chunk = |i: usize| len * i / t..len * (i + 1) / t;
    if t == 1 {
        return vec![f(0..len)];
    }
    std::thread::scope(|sc| {
        let f = &f;
        let handles: Vec<_> = (1..t).map(|i| sc.spawn(move || f(chunk(i)))).collect();
        let mut v = vec![f(chunk(0))];
        v.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("tables worker")),
        );
        v
    })
}

/// [`par_chunks`] over a slice that each chunk fills (`f(first index, chunk)`).
fn par_chunks_mut<T: Send, R: Send>(
    v: &mut [T],
    t: usize,
    f: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let t = t.clamp(1, v.len().max(1));
    if t == 1 {
        return vec![f(0, v)];
    }
    let size = v.len().div_ceil(t);
    std::thread::scope(|sc| {
        let f = &f;
        let mut chunks = v.chunks_mut(size).enumerate();
        let first = chunks.next();
        let handles: Vec<_> = chunks
            .map(|(i, c)| sc.spawn(move || f(i * size, c)))
            .collect();
        let mut out: Vec<R> = first.into_iter().map(|(_, c)| f(0, c)).collect();
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("tables worker")),
        );
        out
    })
}

/// The first clash in one worker's share: `prev` was in `cell` when `val`
/// (insertion number `ord`) came.
struct Clash {
    part: usize,
    ord: u32,
    tor: TorId,
    dst: TorId,
    cell: u32,
    prev: u32,
    val: u32,
}

struct WorkerOut {
    tables: Vec<(usize, Vec<Entry>)>,
    conflict: Option<Clash>,
}

/// What every worker shares.
struct Ctx<'a> {
    dims: &'a Dims,
    recs: &'a Records,
    paths: &'a [Path],
    lookup: Lookup,
    failed: &'a AtomicBool,
}

const NONE: u32 = u32::MAX;

impl Ctx<'_> {
    fn source(&self, val: u32) -> Vec<Step> {
        let p = &self.paths[val as usize - 1];
        p.hops.iter().map(|h| self.dims.step(h)).collect()
    }

    fn action(&self, val: u32) -> Action {
        match self.lookup {
            Lookup::Hop => Action::Hop(dec(val)),
            Lookup::Source => Action::Source(self.source(val)),
        }
    }

    fn same(&self, a: u32, b: u32) -> bool {
        a == b
            || (self.lookup == Lookup::Source && {
                let (p, q) = (&self.paths[a as usize - 1], &self.paths[b as usize - 1]);
                p.hops.len() == q.hops.len()
                    && p.hops
                        .iter()
                        .zip(&q.hops)
                        .all(|(x, y)| self.dims.step(x) == self.dims.step(y))
            })
    }

    fn conflict_error(&self, c: &Clash) -> TableError {
        TableError::Conflict {
            tor: c.tor,
            m: self.dims.match_of(c.dst, c.cell),
            a: self.action(c.prev),
            b: self.action(c.val),
        }
    }

    /// Builds the tables of ToRs `w, w + of, ...` (ToRs cost about the
    /// same, and a fixed split keeps runs reproducible).
    fn work(&self, w: usize, of: usize) -> WorkerOut {
        let d = self.dims;
        let n = d.tors;
        let mut out = WorkerOut {
            tables: Vec::new(),
            conflict: None,
        };
        let mut cells = vec![0u32; d.block_cells()];
        let mut scratch = AltScratch::new(d);
        for tor in (w..n).step_by(of) {
            let parts = &self.recs.parts;
            let cap = parts
                .iter()
                .map(|p| (p.start[(tor + 1) * n] - p.start[tor * n]) as usize)
                .sum();
            let mut entries = Vec::with_capacity(cap);
            for dst in 0..n {
                let k = tor * n + dst;
                if parts.iter().all(|p| p.block(k).is_empty()) {
                    continue;
                }
                cells.fill(0);
                let mut clash = None;
                'fill: for (part, p) in parts.iter().enumerate() {
                    for r in p.block(k) {
                        let c = &mut cells[r.cell as usize];
                        if *c == 0 {
                            *c = r.val;
                        } else if !self.same(*c, r.val) {
                            clash = Some(Clash {
                                part,
                                ord: r.ord,
                                tor: tor as TorId,
                                dst: dst as TorId,
                                cell: r.cell,
                                prev: *c,
                                val: r.val,
                            });
                            break 'fill;
                        }
                    }
                }
                if let Some(c) = clash {
                    self.failed.store(true, Ordering::Relaxed);
                    if out
                        .conflict
                        .as_ref()
                        .is_none_or(|o| (c.part, c.ord) < (o.part, o.ord))
                    {
                        out.conflict = Some(c);
                    }
                }
                if self.failed.load(Ordering::Relaxed) {
                    continue;
                }
                let first = entries.len();
                self.emit(dst as TorId, &cells, &mut entries, &mut scratch);
                scratch.alternates(d, &mut entries, first);
            }
            out.tables.push((tor, entries));
        }
        out
    }

    /// Appends one block's entries in `Match` order (arrival, ingress,
    /// class, bucket) and records where each landed in `scratch.idx`.
    fn emit(&self, dst: TorId, cells: &[u32], entries: &mut Vec<Entry>, scratch: &mut AltScratch) {
        let d = self.dims;
        let cb = d.cb();
        scratch.idx.fill(NONE);
        let mut push =
            |ai: usize, k: usize, ingress: Ingress, val: u32, entries: &mut Vec<Entry>| {
                let at = (ai * cb + k) * 3 + ingress_col(ingress);
                scratch.idx[at] = entries.len() as u32;
                scratch.first[at] = match self.lookup {
                    Lookup::Hop => val,
                    Lookup::Source => enc(d.step(&self.paths[val as usize - 1].hops[0])),
                };
                scratch.timed[k] |= ai > 0;
                entries.push(Entry {
                    m: Match {
                        dst,
                        arrival: ai.checked_sub(1).map(|a| a as SliceId),
                        ingress,
                        class: d.keys[k].0,
                        bucket: d.keys[k].1,
                    },
                    action: self.action(val),
                    alternates: Vec::new(),
                });
            };
        for ai in 0..d.arrivals {
            let row = &cells[ai * cb * d.ingress..(ai + 1) * cb * d.ingress];
            if row.iter().all(|&v| v == 0) {
                continue;
            }
            match self.lookup {
                Lookup::Source => {
                    for (k, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0) {
                        push(ai, k, Ingress::Host, v, entries);
                    }
                }
                Lookup::Hop => {
                    let split = |k: usize| {
                        let (h, f) = (row[2 * k], row[2 * k + 1]);
                        h != 0 && f != 0 && h != f
                    };
                    for k in 0..cb {
                        let v = if row[2 * k] != 0 {
                            row[2 * k]
                        } else {
                            row[2 * k + 1]
                        };
                        if v != 0 && !split(k) {
                            push(ai, k, Ingress::Any, v, entries);
                        }
                    }
                    for (ing, ingress) in [(0, Ingress::Host), (1, Ingress::Fabric)] {
                        for k in (0..cb).filter(|&k| split(k)) {
                            push(ai, k, ingress, row[2 * k + ing], entries);
                        }
                    }
                }
            }
        }
    }
}

/// [`rank`] for `x`, `depart` already in `0..s`, without divisions (hot).
#[inline]
fn wait(x: usize, depart: Option<SliceId>, s: usize) -> usize {
    match depart {
        Some(d) if d as usize >= x => d as usize - x,
        Some(d) => d as usize + s - x,
        None => 0,
    }
}

/// `t mod s`, cheap when `t` is within the first two cycles (the usual case).
#[inline]
fn slot_slice(t: Slot, s: usize) -> SliceId {
    let (t, s) = (t as usize, s);
    (if t < s {
        t
    } else if t < 2 * s {
        t - s
    } else {
        t % s
    }) as SliceId
}

fn ingress_col(i: Ingress) -> usize {
    match i {
        Ingress::Any => 0,
        Ingress::Host => 1,
        Ingress::Fabric => 2,
    }
}

/// Scratch space for one block's alternates.
struct AltScratch {
    /// Entry index per (arrival index, class-bucket, ingress column).
    idx: Vec<u32>,
    /// The entry's first step there ([`enc`]).
    first: Vec<u32>,
    /// Class-buckets with an entry for some arrival slice.
    timed: Vec<bool>,
    /// Entries by departure slot `D = x + wait` in `0..2S` (arrival `x` in
    /// `0..S`), each bucket sorted by (arrival, ingress column):
    /// `start`/`items` CSR of `(x, column, entry)`.
    start: Vec<u32>,
    items: Vec<(u32, u8, u32)>,
    /// Per entry of the block: (entry, best alternates).
    found: Vec<(u32, [u32; MAX_ALTERNATES], usize)>,
}

impl AltScratch {
    fn new(d: &Dims) -> AltScratch {
        AltScratch {
            idx: vec![NONE; d.arrivals * d.cb() * 3],
            first: vec![0; d.arrivals * d.cb() * 3],
            timed: vec![false; d.cb()],
            start: vec![0; 2 * d.slices + 1],
            items: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Fills `alternates` of the entries from `first` on (one block): for
    /// an entry matching arrival `a`, the actions of the entries for
    /// `a+1, a+2, ...` (same dst, class, bucket and a compatible ingress),
    /// i.e. what the packet would do had it arrived later, restricted to
    /// those whose departure is strictly later than the primary's yet
    /// within the cycle (so the rank stays unambiguous), earliest first
    /// (ties: earlier arrival, then Any, Host, Fabric), one per distinct
    /// first step (one per calendar queue), at most [`MAX_ALTERNATES`].
    ///
    /// In absolute slots from entry `a`'s cycle, an entry for arrival `x`
    /// leaving `w` slots later departs in `D = x + w` if `x > a`, or in
    /// `D + S` (next cycle) if `x < a`; entry `a` with primary departure
    /// `a + r` scans `D in a+r+1 .. a+S`.
    fn alternates(&mut self, d: &Dims, entries: &mut [Entry], first: usize) {
        let s = d.slices;
        if s < 2 || first == entries.len() {
            return;
        }
        let cb = d.cb();
        let col = |ai: usize, k: usize, c: usize| (ai * cb + k) * 3 + c;
        self.found.clear();
        for k in 0..cb {
            if !std::mem::take(&mut self.timed[k]) {
                continue;
            }
            // Bucket entries by departure slot.
            self.start.fill(0);
            for x in 0..s {
                for c in 0..3 {
                    let j = self.idx[col(x + 1, k, c)];
                    if j != NONE {
                        let w = wait(x, dec(self.first[col(x + 1, k, c)]).depart, s);
                        self.start[x + w + 1] += 1;
                    }
                }
            }
            for i in 0..2 * s {
                self.start[i + 1] += self.start[i];
            }
            self.items.clear();
            self.items.resize(self.start[2 * s] as usize, (0, 0, 0));
            let mut fill = std::mem::take(&mut self.start);
            for x in 0..s {
                for c in 0..3 {
                    let j = self.idx[col(x + 1, k, c)];
                    if j != NONE {
                        let w = wait(x, dec(self.first[col(x + 1, k, c)]).depart, s);
                        self.items[fill[x + w] as usize] = (x as u32, c as u8, j);
                        fill[x + w] += 1;
                    }
                }
            }
            // `fill[D]` now holds where bucket D ends, i.e. where D+1 starts.
            let items = &self.items;
            let bucket = |dd: usize| {
                let lo = if dd == 0 { 0 } else { fill[dd - 1] as usize };
                &items[lo..fill[dd] as usize]
            };
            for a in 0..s {
                for ce in 0..3 {
                    let je = self.idx[col(a + 1, k, ce)];
                    if je == NONE {
                        continue;
                    }
                    let prim = self.first[col(a + 1, k, ce)];
                    let r = wait(a, dec(prim).depart, s);
                    let mut got = [NONE; MAX_ALTERNATES];
                    let mut got_steps = [prim; MAX_ALTERNATES];
                    let mut len = 0;
                    'scan: for dd in a + r + 1..a + s {
                        // Later arrivals of this cycle, then (all later in
                        // unrolled time) earlier arrivals of the next one.
                        let this = bucket(dd);
                        let this = &this[this.partition_point(|it| it.0 as usize <= a)..];
                        let next = if dd >= s { bucket(dd - s) } else { &[] };
                        let next = &next[..next.partition_point(|it| (it.0 as usize) < a)];
                        for &(x, c, j) in this.iter().chain(next) {
                            let c = c as usize;
                            if !(ce == 0 || c == 0 || c == ce) {
                                continue;
                            }
                            let st = self.first[col(x as usize + 1, k, c)];
                            if st == prim || got_steps[..len].contains(&st) {
                                continue;
                            }
                            got[len] = j;
                            got_steps[len] = st;
                            len += 1;
                            if len == MAX_ALTERNATES {
                                break 'scan;
                            }
                        }
                    }
                    if len > 0 {
                        self.found.push((je, got, len));
                    }
                }
            }
            self.start = fill;
        }
        for &(je, got, len) in &self.found {
            let alts = got[..len]
                .iter()
                .map(|&j| entries[j as usize].action.clone())
                .collect();
            entries[je as usize].alternates = alts;
        }
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
