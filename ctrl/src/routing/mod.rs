//! Routing API (paper Table 1 and Table 5): paths from every source ToR to
//! every destination ToR for every arrival slice, over the time-expanded
//! graph of a [`Schedule`].
//!
//! Semantics (details in [`earliest`]): a packet at ToR `x` in absolute slot
//! `t` may leave on any uplink whose circuit is up in slice `t % S`, or wait
//! at `x`. RotorNet style (default): a hop taken in slot `t` delivers the
//! packet to the next ToR within slot `t`, and its next hop leaves in slot
//! `>= t + 1`. Opera style (`same_slice_hops`): the next hop may also leave
//! in slot `t`. `Path::hops[i].depart` is an absolute slot counted from the
//! arrival's cycle; every wait at a ToR is `< S` slots, so one calendar queue
//! per slice suffices. Static and electrical fabrics (TA, Clos) use
//! wildcards: hops depart `None`, paths arrive `None`.
//!
//! Output conventions:
//! - TO algorithms emit paths for every `src != dst` and every arrival slice
//!   `0..S`, ordered by destination, source, arrival slice, then class.
//! - Several paths with the same `(src, dst, arrival, class)` are multipath
//!   alternatives, in preference order (VLB with `multipath`, ECMP, KSP).
//! - `class: Some(c)` paths serve flow-size class `c` of
//!   [`RouteSet::classes`] (Opera, UCMP); every pair then has a path for
//!   every class.
//!
//! Per-hop lookup needs consistent suffixes (two paths through ToR `x`
//! arriving in the same slice to the same destination take the same next
//! step). `direct`, `hoho`, `vlb`, and the static `direct` and
//! `shortest_path` guarantee it, keyed by where the packet entered the ToR
//! (a local host or the fabric: `tables::Ingress`), which VLB and
//! RotorNet-style HOHO need in the match; Opera-style HOHO does not.
//! `opera` (class 1 is direct, class 0 is Opera-style HOHO) is consistent
//! per class. `ucmp` paths depend on the remaining hop budget: use source
//! routing. `ecmp` and `ksp` alternatives are for hashing or source routing.

pub mod direct;
pub mod earliest;
pub mod hoho;
pub mod opera;
pub mod paths;
pub mod static_routes;
pub mod ucmp;
pub mod vlb;

use crate::config::{self, Algorithm};
use crate::schedule::{Endpoint, LinkKind, Schedule};
use crate::{PortId, SliceId, Slot, TorId};
use serde::{Deserialize, Serialize};

pub use paths::{PathRef, Paths};

/// One hop: leave `tor` on uplink `port` in absolute slot `depart`
/// (`None`: wildcard, leave at once; TA and static fabrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Hop {
    pub tor: TorId,
    pub port: PortId,
    pub depart: Option<Slot>,
}

/// A path from `src` to `dst` for packets arriving at `src` in slice
/// `arrival` (`None`: any slice). Slots count from the arrival's cycle, so
/// `hops[i].depart >= arrival` and departures never decrease.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Path {
    pub src: TorId,
    pub dst: TorId,
    pub arrival: Option<SliceId>,
    pub hops: Vec<Hop>,
    /// Flow-size class this path serves (UCMP, Opera); `None`: every class.
    pub class: Option<u8>,
}

impl Path {
    /// Slot in which the last hop leaves (the packet reaches `dst` in it).
    pub fn delivered(&self) -> Option<Slot> {
        self.hops.last().and_then(|h| h.depart)
    }
    /// Latency in slots from arrival to the last departure (0 when the
    /// packet leaves in its arrival slice).
    pub fn latency_slots(&self) -> Option<Slot> {
        Some(self.delivered()? - self.arrival? as Slot)
    }
}

/// The ToRs visited by a path, source first.
pub fn tors_of<'a>(p: impl Into<PathRef<'a>>, s: &Schedule) -> Vec<TorId> {
    let p = p.into();
    let mut v = vec![p.src];
    let mut cur = p.src;
    for (i, h) in p.hops.iter().enumerate() {
        let ts = h
            .depart
            .map(|d| (d as usize % s.slices()) as SliceId)
            .unwrap_or(0);
        // An electrical switch reaches every ToR: the next hop says which.
        let want = p.hops.get(i + 1).map_or(p.dst, |n| n.tor);
        cur = s
            .next_tor(ts, Endpoint::new(cur, h.port), want)
            .unwrap_or(want);
        v.push(cur);
    }
    v
}

/// UCMP's per-class flow-size thresholds in bytes: class `i` serves flows
/// whose size is at least `thresholds[i]` (thresholds ascending, first 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassThresholds {
    pub thresholds: Vec<u64>,
}

/// The output of `routing()`: paths in one flat store ([`Paths`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteSet {
    pub paths: Paths,
    /// Present when paths carry classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassThresholds>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RoutingError {
    #[error("no path from ToR {src} to ToR {dst} for arrival slice {ts} within {max_hop} hops")]
    NoPath {
        src: TorId,
        dst: TorId,
        ts: SliceId,
        max_hop: u8,
    },
    #[error("{0}")]
    Unsupported(String),
}

/// Knobs shared by the routing algorithms (from config `routing`).
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingOptions {
    pub max_hop: Option<u8>,
    pub same_slice_hops: bool,
    /// Paths per pair for multipath / k-shortest.
    pub k: u8,
    pub seed: u64,
    /// Link rate in bytes per slice of usable time (UCMP thresholds).
    pub bytes_per_slice: u64,
    /// Emit multipath alternatives where the algorithm has a choice (VLB:
    /// up to `k` intermediates). Set from config `routing.multipath`.
    pub multipath: bool,
    /// Opera's bulk threshold in bytes (config `routing.bulk_threshold`;
    /// `None`: [`opera::bulk_threshold`]'s default).
    pub bulk_threshold: Option<u64>,
}

impl RoutingOptions {
    /// The config's routing options (its `routing` section, and the bytes
    /// a slice carries from its link rate and timing).
    pub fn of(cfg: &config::Config) -> Self {
        RoutingOptions::from_config(&cfg.routing, cfg.bytes_per_slice())
    }

    /// Options from the config's `routing` section; `bytes_per_slice` comes
    /// from the link rate and slice timing.
    pub fn from_config(r: &config::Routing, bytes_per_slice: u64) -> Self {
        RoutingOptions {
            max_hop: r.max_hop,
            same_slice_hops: r.same_slice_hops.unwrap_or(r.algorithm == Algorithm::Opera),
            k: r.k.unwrap_or(4).max(1),
            seed: r.seed.unwrap_or(1),
            bytes_per_slice: bytes_per_slice.max(1),
            multipath: r.multipath != config::Multipath::None,
            bulk_threshold: r.bulk_threshold,
        }
    }
}

impl Default for RoutingOptions {
    fn default() -> Self {
        RoutingOptions {
            max_hop: None,
            same_slice_hops: false,
            k: 4,
            seed: 1,
            bytes_per_slice: 1,
            multipath: false,
            bulk_threshold: None,
        }
    }
}

/// The paper's abstract `routing()`.
pub trait Router {
    fn routes(&self, s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError>;
}

pub use earliest::{UNLIMITED, earliest_path};

/// Routing workers: `LIGHTHOUSE_ROUTING_THREADS` if set, else one per core.
pub(crate) fn worker_threads() -> usize {
    std::env::var("LIGHTHOUSE_ROUTING_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()))
        .max(1)
}

/// Solves every destination (in parallel over the available cores): `f`
/// appends one destination's paths; the result is in destination order. Each worker
/// fills one flat store (the first one sized for everything, `per_dst`
/// paths of about two hops per destination), so paths are moved at most
/// once.
pub(crate) fn paths_per_destination(
    s: &Schedule,
    max_hop: u8,
    same_slice_hops: bool,
    transit: bool,
    per_dst: usize,
    f: impl Fn(&earliest::Dp, &mut Paths) -> Result<(), RoutingError> + Sync,
) -> Result<Paths, RoutingError> {
    paths_per_destination_with(
        s,
        &[Search {
            transit,
            ..Search::new(max_hop, same_slice_hops)
        }],
        per_dst,
        |dps, out| f(&dps[0], out),
    )
}

/// One earliest-arrival search of [`paths_per_destination_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Search {
    /// Hop budget, or [`UNLIMITED`].
    pub max_hop: u8,
    /// Opera-style transit (a hop may leave in the slot it arrived).
    pub same_slice: bool,
    /// Keep the transit values ([`earliest::Dp::transit_step`]).
    pub transit: bool,
    /// Only circuits that stay up into the next slice
    /// ([`earliest::Adjacency::stable`]).
    pub stable: bool,
}

impl Search {
    pub(crate) fn new(max_hop: u8, same_slice: bool) -> Search {
        Search {
            max_hop,
            same_slice,
            transit: false,
            stable: false,
        }
    }
}

/// [`paths_per_destination`] with several searches per destination, one per
/// [`Search`] in `dps`, all solved for the same
/// destination before `f` runs: algorithms that interleave several kinds of
/// path (Opera's classes) emit them in one pass, with no second copy.
pub(crate) fn paths_per_destination_with(
    s: &Schedule,
    dps: &[Search],
    per_dst: usize,
    f: impl Fn(&[earliest::Dp], &mut Paths) -> Result<(), RoutingError> + Sync,
) -> Result<Paths, RoutingError> {
    let mut parts = paths_per_destination_parts(s, dps, per_dst, f)?.into_iter();
    let mut out = parts.next().expect("one worker");
    for mut p in parts {
        out.append(&mut p);
    }
    Ok(out)
}

/// [`paths_per_destination_with`] before the workers' stores are joined:
/// one store per worker, in destination order, the first with room for
/// every path.
pub(crate) fn paths_per_destination_parts(
    s: &Schedule,
    dps: &[Search],
    per_dst: usize,
    f: impl Fn(&[earliest::Dp], &mut Paths) -> Result<(), RoutingError> + Sync,
) -> Result<Vec<Paths>, RoutingError> {
    let n = s.tors();
    let adj = earliest::Adjacency::new(s);
    let stable = dps
        .iter()
        .any(|d| d.stable)
        .then(|| earliest::Adjacency::stable(s));
    let threads = worker_threads().clamp(1, n.max(1));
    let chunk = n.div_ceil(threads).max(1);
    let run = |lo: usize, hi: usize, mut out: Paths| -> Result<Paths, RoutingError> {
        let mut dp: Vec<earliest::Dp> = dps
            .iter()
            .map(|d| {
                let a = if d.stable {
                    stable.as_ref().expect("built when a search is stable")
                } else {
                    &adj
                };
                earliest::Dp::new(s, a, d.max_hop, d.same_slice).with_transit(d.transit)
            })
            .collect();
        for d in lo..hi {
            for x in &mut dp {
                x.solve(d as TorId);
            }
            f(&dp, &mut out)?;
        }
        Ok(out)
    };
    // Capacity is only reserved, not touched: the first worker's store is
    // sized for everything so the others append without moving it.
    let mut first = Some(Paths::with_capacity(per_dst * n, 2 * per_dst * n));
    if threads <= 1 {
        return Ok(vec![run(0, n, first.take().expect("set"))?]);
    }
    let parts: Vec<Result<Paths, RoutingError>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .enumerate()
            .map(|(i, lo)| {
                let run = &run;
                let hi = (lo + chunk).min(n);
                let out = if i == 0 {
                    first.take().expect("set")
                } else {
                    Paths::with_capacity(per_dst * (hi - lo), 2 * per_dst * (hi - lo))
                };
                sc.spawn(move || run(lo, hi, out))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("routing worker panicked"))
            .collect()
    });
    parts.into_iter().collect()
}

/// The earliest-arrival path (budget `max_hop`) for every `src != dst` and
/// every arrival slice; `NoPath` if one is missing.
pub(crate) fn earliest_routes(
    s: &Schedule,
    max_hop: u8,
    same_slice_hops: bool,
) -> Result<Paths, RoutingError> {
    let (n, slices) = (s.tors(), s.slices());
    paths_per_destination(
        s,
        max_hop,
        same_slice_hops,
        false,
        n.saturating_sub(1) * slices,
        |dp, out| {
            let d = dp.dst();
            for src in (0..n as TorId).filter(|&x| x != d) {
                for ts in 0..slices as SliceId {
                    let found = out.push_with(src, d, Some(ts), None, |hops| {
                        dp.path_into(src, ts, max_hop as usize, hops)
                    });
                    if !found {
                        return Err(RoutingError::NoPath {
                            src,
                            dst: d,
                            ts,
                            max_hop,
                        });
                    }
                }
            }
            Ok(())
        },
    )
}

impl Router for Algorithm {
    fn routes(&self, s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
        route(*self, s, opts)
    }
}

/// True for schedules routed with wildcard slices: electrical fabrics and
/// one-slice (static, TA) topologies.
pub fn is_static(s: &Schedule) -> bool {
    s.kind() == LinkKind::Electrical || s.slices() == 1
}

/// The paper's `routing()` dispatcher. `direct` on a static schedule is the
/// static variant ([`static_routes::direct`]); the TO algorithms refuse
/// electrical fabrics and the static ones refuse multi-slice schedules.
pub fn route(
    alg: Algorithm,
    s: &Schedule,
    opts: &RoutingOptions,
) -> Result<RouteSet, RoutingError> {
    let to_only = |name: &str| {
        if s.kind() == LinkKind::Electrical {
            Err(RoutingError::Unsupported(format!(
                "{name} routing needs an optical schedule; use direct, shortest_path, ecmp or ksp on an electrical fabric"
            )))
        } else {
            Ok(())
        }
    };
    match alg {
        Algorithm::Direct => direct::direct(s, opts),
        Algorithm::Vlb => to_only("vlb").and_then(|_| vlb::vlb(s, opts)),
        Algorithm::Opera => to_only("opera").and_then(|_| opera::opera(s, opts)),
        Algorithm::Ucmp => to_only("ucmp").and_then(|_| ucmp::ucmp(s, opts)),
        Algorithm::Hoho => to_only("hoho").and_then(|_| hoho::hoho(s, opts)),
        Algorithm::ShortestPath => static_routes::shortest_path(s, opts),
        Algorithm::Ecmp => static_routes::ecmp(s, opts),
        Algorithm::Ksp => static_routes::ksp(s, opts),
        Algorithm::Rps | Algorithm::Sopa | Algorithm::Hedera => {
            Err(RoutingError::Unsupported(format!(
                "{} routes a fat tree (fabric \"fattree\"), whose switches forward by crate::fattree tables",
                format!("{alg:?}").to_lowercase()
            )))
        }
    }
}

/// The paper's `neighbors(ToR, ts)`: ToRs with a circuit from `tor` in
/// slice `ts` (every other ToR on an electrical fabric), sorted.
pub fn neighbors(s: &Schedule, tor: TorId, ts: SliceId) -> Vec<TorId> {
    s.neighbors(tor, ts)
}

/// Checks that `p` is a path the data plane can execute on `s`: it starts
/// at `src` and ends at `dst`, every hop's circuit exists when it departs,
/// departures never decrease (strictly increase in RotorNet style), every
/// wait is `< S` slots, and wildcards are used exactly on static schedules.
/// Returns what is wrong.
pub fn check_path<'a>(
    s: &Schedule,
    p: impl Into<PathRef<'a>>,
    same_slice_hops: bool,
) -> Result<(), String> {
    let p = p.into();
    if p.hops.is_empty() {
        return Err("path has no hops".into());
    }
    if p.src == p.dst {
        return Err("path from a ToR to itself".into());
    }
    let slices = s.slices() as Slot;
    let wild = p.arrival.is_none();
    let mut cur = p.src;
    // Slot the packet reached `cur` and whether it came from the fabric.
    let mut at: Option<Slot> = p.arrival.map(Slot::from);
    if p.arrival.is_some_and(|a| a as usize >= s.slices()) {
        return Err(format!("arrival slice {:?} out of range", p.arrival));
    }
    for (i, h) in p.hops.iter().enumerate() {
        if h.tor != cur {
            return Err(format!(
                "hop {i} leaves ToR {} but the packet is at {cur}",
                h.tor
            ));
        }
        if h.port as usize >= s.uplinks() {
            return Err(format!("hop {i}: no uplink {}", h.port));
        }
        let slice = match (wild, h.depart) {
            (true, None) => 0,
            (false, Some(d)) => {
                let a = at.expect("arrival set");
                let earliest = if i > 0 && !same_slice_hops { a + 1 } else { a };
                if d < earliest {
                    return Err(format!(
                        "hop {i} departs in slot {d}, before slot {earliest}"
                    ));
                }
                if d - a >= slices {
                    return Err(format!(
                        "hop {i} waits {} slots at ToR {cur} (S = {slices})",
                        d - a
                    ));
                }
                at = Some(d);
                (d % slices) as SliceId
            }
            _ => {
                return Err(format!(
                    "hop {i}: wildcard departure mixed with timed arrival"
                ));
            }
        };
        let next = if i + 1 < p.hops.len() {
            p.hops[i + 1].tor
        } else {
            p.dst
        };
        if s.is_electrical(h.port) {
            if next == cur {
                return Err(format!("hop {i} loops at ToR {cur}"));
            }
        } else {
            match s.peer(slice, Endpoint::new(cur, h.port)) {
                Some(e) if e.tor == next => {}
                other => {
                    return Err(format!(
                        "hop {i}: ToR {cur} uplink {} reaches {other:?} in slice {slice}, not ToR {next}",
                        h.port
                    ));
                }
            }
        }
        cur = next;
    }
    Ok(())
}
