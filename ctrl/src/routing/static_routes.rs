//! Routing on static topologies (paper Table 5: TA architectures, plus Clos
//! and other static fabrics): one slice, wildcard arrival and departure.
//! Hop counts are the cost; an electrical fabric reaches every ToR from
//! every uplink (a spine per uplink), so its shortest paths are one hop,
//! one per uplink.
//!
//! - `shortest_path`: one fewest-hop path per pair (lowest uplink, then
//!   lowest ToR, chosen destination-rooted so per-hop tables are consistent).
//! - `ecmp`: every equal-cost shortest path (at most [`MAX_ECMP_PATHS`]), as
//!   multipath alternatives.
//! - `ksp`: Yen's `k` shortest loopless paths (`k = opts.k`), shortest first,
//!   ties in lexicographic (ToR, uplink, next ToR) order.
//! - `direct`: the one-hop path when `src` has a circuit to `dst` (lowest
//!   uplink); otherwise the shortest path, so that every pair stays
//!   reachable over multi-hop static topologies.
//!
//! Hybrid schedules (c-Through: optical circuits plus electrical uplinks):
//! an electrical uplink is one hop to any destination, but the electrical
//! switch forwards by the packet's destination, so an electrical hop always
//! ends at `dst` (it cannot relay through another ToR). Optical edges come
//! first (lower uplinks), so ties prefer the circuit.

use super::{Hop, Path, RouteSet, RoutingError, RoutingOptions, is_static};
use crate::schedule::Schedule;
use crate::{PortId, TorId};
use std::collections::VecDeque;

/// Most equal-cost paths ECMP emits per pair.
pub const MAX_ECMP_PATHS: usize = 64;

/// An edge of the static graph: leave `tor` on `port`, reach `next`.
type Edge = (TorId, PortId, TorId);

/// Static adjacency (slice 0), edges sorted by (port, next ToR).
struct Graph {
    out: Vec<Vec<(PortId, TorId)>>,
    inc: Vec<Vec<TorId>>,
    /// Electrical uplinks of a hybrid schedule: each reaches the
    /// destination in one hop and nothing else (not in `out`/`inc`).
    elec: Vec<PortId>,
}

impl Graph {
    fn new(s: &Schedule) -> Self {
        let n = s.tors();
        let mut out = vec![Vec::new(); n];
        let mut inc = vec![Vec::new(); n];
        // An all-electrical fabric keeps spine relays as edges.
        let hybrid = s.optical_uplinks() > 0;
        let elec: Vec<PortId> = if hybrid {
            (s.optical_uplinks()..s.uplinks())
                .map(|p| p as PortId)
                .collect()
        } else {
            Vec::new()
        };
        for (x, o) in out.iter_mut().enumerate() {
            s.for_each_link(x as TorId, 0, |p, y| {
                if hybrid && s.is_electrical(p) {
                    return;
                }
                o.push((p, y));
                inc[y as usize].push(x as TorId);
            });
        }
        for v in &mut inc {
            v.sort_unstable();
            v.dedup();
        }
        Graph { out, inc, elec }
    }

    /// Edges usable from `x` towards `dst`, in (port, next ToR) order.
    fn edges(&self, x: TorId, dst: TorId) -> impl Iterator<Item = (PortId, TorId)> + '_ {
        let elec = if x == dst { &[][..] } else { &self.elec[..] };
        self.out[x as usize]
            .iter()
            .copied()
            .chain(elec.iter().map(move |&p| (p, dst)))
    }

    /// Hops from every ToR to `dst` (`u32::MAX`: unreachable).
    fn dist_to(&self, dst: TorId) -> Vec<u32> {
        let n = self.out.len();
        let mut dist = vec![u32::MAX; n];
        dist[dst as usize] = 0;
        if !self.elec.is_empty() {
            // Every ToR is one electrical hop from `dst`.
            dist.iter_mut()
                .enumerate()
                .filter(|&(x, _)| x != dst as usize)
                .for_each(|(_, d)| *d = 1);
            return dist;
        }
        let mut q = VecDeque::from([dst]);
        while let Some(y) = q.pop_front() {
            for &x in &self.inc[y as usize] {
                if dist[x as usize] == u32::MAX {
                    dist[x as usize] = dist[y as usize] + 1;
                    q.push_back(x);
                }
            }
        }
        dist
    }
}

fn require_static(s: &Schedule, name: &str) -> Result<(), RoutingError> {
    if is_static(s) {
        Ok(())
    } else {
        Err(RoutingError::Unsupported(format!(
            "{name} routes a static topology (one slice or an electrical fabric); this schedule has {} slices",
            s.slices()
        )))
    }
}

fn to_path(src: TorId, dst: TorId, edges: &[Edge]) -> Path {
    Path {
        src,
        dst,
        arrival: None,
        hops: edges
            .iter()
            .map(|&(tor, port, _)| Hop {
                tor,
                port,
                depart: None,
            })
            .collect(),
        class: None,
    }
}

fn no_path(src: TorId, dst: TorId) -> RoutingError {
    RoutingError::NoPath {
        src,
        dst,
        ts: 0,
        max_hop: u8::MAX,
    }
}

/// The paper's `shortest_path(src, dst)` (Table 5): every fewest-hop path
/// from `src` to `dst` over slice 0, in (uplink, next ToR) order, at most
/// [`MAX_ECMP_PATHS`]. Empty when unreachable or `src == dst`.
pub fn shortest_paths(s: &Schedule, src: TorId, dst: TorId) -> Vec<Path> {
    let g = Graph::new(s);
    all_shortest(&g, &g.dist_to(dst), src, dst, MAX_ECMP_PATHS)
}

fn all_shortest(g: &Graph, dist: &[u32], src: TorId, dst: TorId, cap: usize) -> Vec<Path> {
    let mut out = Vec::new();
    if src == dst || dist[src as usize] == u32::MAX {
        return out;
    }
    let mut stack: Vec<Edge> = Vec::new();
    fn dfs(
        g: &Graph,
        dist: &[u32],
        x: TorId,
        dst: TorId,
        stack: &mut Vec<Edge>,
        out: &mut Vec<Path>,
        cap: usize,
    ) {
        if x == dst {
            out.push(to_path(stack[0].0, dst, stack));
            return;
        }
        for (p, y) in g.edges(x, dst) {
            if out.len() >= cap {
                return;
            }
            if dist[y as usize] != u32::MAX && dist[y as usize] + 1 == dist[x as usize] {
                stack.push((x, p, y));
                dfs(g, dist, y, dst, stack, out, cap);
                stack.pop();
            }
        }
    }
    dfs(g, dist, src, dst, &mut stack, &mut out, cap);
    out
}

/// Shortest paths for every ordered pair, `per_pair` alternatives each.
fn all_pairs(s: &Schedule, per_pair: usize) -> Result<Vec<Path>, RoutingError> {
    let g = Graph::new(s);
    let n = s.tors();
    let mut paths = Vec::new();
    for dst in 0..n as TorId {
        let dist = g.dist_to(dst);
        for src in (0..n as TorId).filter(|&x| x != dst) {
            let v = all_shortest(&g, &dist, src, dst, per_pair);
            if v.is_empty() {
                return Err(no_path(src, dst));
            }
            paths.extend(v);
        }
    }
    Ok(paths)
}

/// One fewest-hop path per pair. The first path in (uplink, next ToR)
/// order follows, from every ToR, its first edge that lowers the distance to
/// `dst`: a function of (ToR, dst) only, hence per-hop consistent.
pub fn shortest_path(s: &Schedule, _opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    require_static(s, "shortest_path")?;
    Ok(RouteSet {
        paths: all_pairs(s, 1)?.into(),
        classes: None,
    })
}

/// All equal-cost shortest paths per pair, as multipath alternatives.
pub fn ecmp(s: &Schedule, _opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    require_static(s, "ecmp")?;
    Ok(RouteSet {
        paths: all_pairs(s, MAX_ECMP_PATHS)?.into(),
        classes: None,
    })
}

/// One-hop paths where a circuit exists, otherwise the shortest path (on a
/// hybrid schedule: the electrical uplink).
pub fn direct(s: &Schedule, _opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    require_static(s, "direct")?;
    let g = Graph::new(s);
    let n = s.tors();
    let mut paths = Vec::new();
    for dst in 0..n as TorId {
        let mut dist = None;
        for src in (0..n as TorId).filter(|&x| x != dst) {
            if let Some((p, _)) = g.edges(src, dst).find(|e| e.1 == dst) {
                paths.push(to_path(src, dst, &[(src, p, dst)]));
                continue;
            }
            let dist = dist.get_or_insert_with(|| g.dist_to(dst));
            let mut v = all_shortest(&g, dist, src, dst, 1);
            paths.push(v.pop().ok_or_else(|| no_path(src, dst))?);
        }
    }
    Ok(RouteSet {
        paths: paths.into(),
        classes: None,
    })
}

/// Yen's `k` shortest loopless paths for every pair, as alternatives.
pub fn ksp(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    require_static(s, "ksp")?;
    let g = Graph::new(s);
    let n = s.tors();
    let k = opts.k.max(1) as usize;
    let mut paths = Vec::new();
    for dst in 0..n as TorId {
        for src in (0..n as TorId).filter(|&x| x != dst) {
            let v = yen(&g, src, dst, k);
            if v.is_empty() {
                return Err(no_path(src, dst));
            }
            paths.extend(v.iter().map(|e| to_path(src, dst, e)));
        }
    }
    Ok(RouteSet {
        paths: paths.into(),
        classes: None,
    })
}

/// The paper's `shortest_path` variant for `k` loopless paths between one
/// pair (Yen's algorithm) on a static schedule's slice 0.
pub fn k_shortest_paths(s: &Schedule, src: TorId, dst: TorId, k: usize) -> Vec<Path> {
    let g = Graph::new(s);
    yen(&g, src, dst, k)
        .iter()
        .map(|e| to_path(src, dst, e))
        .collect()
}

/// BFS from `src` to `dst` avoiding `banned_nodes` and `banned_edges`;
/// first-found (uplink, next ToR) order, so deterministic.
fn bfs(
    g: &Graph,
    src: TorId,
    dst: TorId,
    banned_nodes: &[bool],
    banned_edges: &[Edge],
) -> Option<Vec<Edge>> {
    let n = g.out.len();
    let mut prev: Vec<Option<Edge>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src as usize] = true;
    let mut q = VecDeque::from([src]);
    while let Some(x) = q.pop_front() {
        if x == dst {
            let mut path = Vec::new();
            let mut cur = dst;
            while cur != src {
                let e = prev[cur as usize].expect("BFS predecessor");
                path.push(e);
                cur = e.0;
            }
            path.reverse();
            return Some(path);
        }
        for (p, y) in g.edges(x, dst) {
            let e = (x, p, y);
            if seen[y as usize] || banned_nodes[y as usize] || banned_edges.contains(&e) {
                continue;
            }
            seen[y as usize] = true;
            prev[y as usize] = Some(e);
            q.push_back(y);
        }
    }
    None
}

fn yen(g: &Graph, src: TorId, dst: TorId, k: usize) -> Vec<Vec<Edge>> {
    let n = g.out.len();
    let mut a: Vec<Vec<Edge>> = Vec::new();
    if src == dst || k == 0 {
        return a;
    }
    let Some(first) = bfs(g, src, dst, &vec![false; n], &[]) else {
        return a;
    };
    a.push(first);
    let mut b: Vec<Vec<Edge>> = Vec::new();
    while a.len() < k {
        let last = a.last().expect("nonempty").clone();
        for i in 0..last.len() {
            let spur = last[i].0;
            let root = &last[..i];
            let banned_edges: Vec<Edge> = a
                .iter()
                .filter(|p| p.len() > i && &p[..i] == root)
                .map(|p| p[i])
                .collect();
            let mut banned_nodes = vec![false; n];
            for e in root {
                banned_nodes[e.0 as usize] = true;
            }
            if let Some(spur_path) = bfs(g, spur, dst, &banned_nodes, &banned_edges) {
                let mut total = root.to_vec();
                total.extend(spur_path);
                if !a.contains(&total) && !b.contains(&total) {
                    b.push(total);
                }
            }
        }
        // Shortest candidate; ties by lexicographic edge order.
        let Some(best) =
            (0..b.len()).min_by(|&x, &y| (b[x].len(), &b[x]).cmp(&(b[y].len(), &b[y])))
        else {
            break;
        };
        a.push(b.swap_remove(best));
    }
    a
}
