//! The k-ary Fat-Tree of electrical packet switches (Al-Fares et al.,
//! SIGCOMM 2008), the fabric SOPA (seed 001) routes over: the topology,
//! the equal-cost paths between edge switches, and the per-switch tables
//! with failed links withdrawn. The data plane (`swtor/src/switch.rs`)
//! forwards by these tables.
//!
//! Numbering (every switch has `k` ports; `h = k/2`):
//! - pod `p` (`0..k`) has edge switches `E(p, i)` and aggregation switches
//!   `A(p, j)`, `i, j < h`; cores are `C(j, m)`, `j, m < h`.
//! - `E(p, i)`: ports `0..h` are its hosts, port `h + j` goes to `A(p, j)`.
//! - `A(p, j)`: port `i < h` goes down to `E(p, i)`, port `h + m` up to
//!   `C(j, m)`.
//! - `C(j, m)`: port `p` goes down to `A(p, j)`.
//!
//! Switch ids: edges `0..k²/2` (`p*h + i`, the ToR ids, so host placement
//! is the ToRs'), then aggregation switches, then cores (`j*h + m`).
//! Names: edges `s1..`, aggregation `a1..`, cores `c1..` (1-based).

pub mod hedera;

use crate::PortId;
use std::collections::HashSet;

/// Index of a switch of the Fat-Tree (see the module doc).
pub type SwitchId = u16;

/// Largest `k` accepted (k³/4 = 8192 hosts; far beyond one machine).
pub const MAX_K: u32 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Edge,
    Agg,
    Core,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FatTreeError {
    #[error("a fat tree needs an even k from 2 to {MAX_K}, got {0}")]
    BadK(u32),
}

/// One hop of a path: the switch and the port it sends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hop {
    pub sw: SwitchId,
    pub port: PortId,
}

/// A link between two switches, smaller id first.
pub type Link = (SwitchId, SwitchId);

/// A k-ary Fat-Tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTree {
    k: usize,
}

impl FatTree {
    pub fn new(k: u32) -> Result<FatTree, FatTreeError> {
        if k < 2 || !k.is_multiple_of(2) || k > MAX_K {
            return Err(FatTreeError::BadK(k));
        }
        Ok(FatTree { k: k as usize })
    }

    pub fn k(&self) -> usize {
        self.k
    }
    fn h(&self) -> usize {
        self.k / 2
    }
    pub fn edges(&self) -> usize {
        self.k * self.h()
    }
    pub fn aggs(&self) -> usize {
        self.k * self.h()
    }
    pub fn cores(&self) -> usize {
        self.h() * self.h()
    }
    pub fn switches(&self) -> usize {
        self.edges() + self.aggs() + self.cores()
    }
    /// Hosts per edge switch (k/2).
    pub fn hosts_per_edge(&self) -> usize {
        self.h()
    }
    pub fn hosts(&self) -> usize {
        self.edges() * self.h()
    }
    /// Ports per switch (k).
    pub fn ports(&self) -> usize {
        self.k
    }

    pub fn edge(&self, pod: usize, i: usize) -> SwitchId {
        (pod * self.h() + i) as SwitchId
    }
    pub fn agg(&self, pod: usize, j: usize) -> SwitchId {
        (self.edges() + pod * self.h() + j) as SwitchId
    }
    pub fn core(&self, j: usize, m: usize) -> SwitchId {
        (self.edges() + self.aggs() + j * self.h() + m) as SwitchId
    }

    pub fn tier(&self, s: SwitchId) -> Tier {
        let s = s as usize;
        if s < self.edges() {
            Tier::Edge
        } else if s < self.edges() + self.aggs() {
            Tier::Agg
        } else {
            Tier::Core
        }
    }

    /// (pod, index in pod) of an edge or aggregation switch; (j, m) of a
    /// core.
    fn coords(&self, s: SwitchId) -> (usize, usize) {
        let (h, s) = (self.h(), s as usize);
        let rel = match self.tier(s as SwitchId) {
            Tier::Edge => s,
            Tier::Agg => s - self.edges(),
            Tier::Core => s - self.edges() - self.aggs(),
        };
        (rel / h, rel % h)
    }

    /// Pod of an edge or aggregation switch.
    pub fn pod(&self, s: SwitchId) -> Option<usize> {
        (self.tier(s) != Tier::Core).then(|| self.coords(s).0)
    }

    /// The switch and port at the other end of `s`'s port `port`; None for
    /// an edge switch's host ports and ports that do not exist.
    pub fn peer(&self, s: SwitchId, port: PortId) -> Option<(SwitchId, PortId)> {
        let (h, p) = (self.h(), port as usize);
        if s as usize >= self.switches() || p >= self.k {
            return None;
        }
        let (a, b) = self.coords(s);
        Some(match self.tier(s) {
            Tier::Edge if p < h => return None,
            Tier::Edge => (self.agg(a, p - h), b as PortId),
            Tier::Agg if p < h => (self.edge(a, p), (h + b) as PortId),
            Tier::Agg => (self.core(b, p - h), a as PortId),
            Tier::Core => (self.agg(p, a), (h + b) as PortId),
        })
    }

    /// `s1..` (edge), `a1..` (aggregation), `c1..` (core).
    pub fn name(&self, s: SwitchId) -> String {
        let n = s as usize;
        match self.tier(s) {
            Tier::Edge => format!("s{}", n + 1),
            Tier::Agg => format!("a{}", n - self.edges() + 1),
            Tier::Core => format!("c{}", n - self.edges() - self.aggs() + 1),
        }
    }

    /// The switch named `name` (see [`FatTree::name`]).
    pub fn by_name(&self, name: &str) -> Option<SwitchId> {
        let (base, count) = match name.as_bytes().first()? {
            b's' => (0, self.edges()),
            b'a' => (self.edges(), self.aggs()),
            b'c' => (self.edges() + self.aggs(), self.cores()),
            _ => return None,
        };
        let n: usize = name[1..].parse().ok()?;
        let s = (n >= 1 && n <= count).then(|| (base + n - 1) as SwitchId)?;
        (self.name(s) == name).then_some(s)
    }

    /// Whether a link joins `a` and `b`.
    pub fn linked(&self, a: SwitchId, b: SwitchId) -> bool {
        (0..self.k as PortId).any(|p| self.peer(a, p).is_some_and(|(x, _)| x == b))
    }

    /// The equal-cost shortest paths from edge switch `a` to edge switch
    /// `b`, each as the hops from `a` up to the switch before `b` (`b`
    /// delivers by the destination host). `a == b`: one empty path.
    /// Order: by core index within an aggregation switch, then by
    /// aggregation index (interleaved, see below).
    pub fn paths(&self, a: SwitchId, b: SwitchId) -> Vec<Vec<Hop>> {
        let h = self.h();
        let ((pa, _), (pb, ib)) = (self.coords(a), self.coords(b));
        let hop = |sw, port: usize| Hop {
            sw,
            port: port as PortId,
        };
        if a == b {
            return vec![Vec::new()];
        }
        if pa == pb {
            return (0..h)
                .map(|j| vec![hop(a, h + j), hop(self.agg(pa, j), ib)])
                .collect();
        }
        // Core index outer, aggregation inner: consecutive paths differ in
        // their first hop and each aggregation switch's consecutive paths
        // in their core, so a round robin over this list spreads a burst
        // evenly at every level (SOPA's balance).
        let mut out = Vec::with_capacity(h * h);
        for m in 0..h {
            for j in 0..h {
                out.push(vec![
                    hop(a, h + j),
                    hop(self.agg(pa, j), h + m),
                    hop(self.core(j, m), pb),
                    hop(self.agg(pb, j), ib),
                ]);
            }
        }
        out
    }

    /// Whether path `p` crosses a link in `failed`.
    fn crosses(&self, p: &[Hop], failed: &HashSet<Link>) -> bool {
        p.iter().any(|x| {
            self.peer(x.sw, x.port)
                .is_some_and(|(y, _)| failed.contains(&link(x.sw, y)))
        })
    }

    /// Tables with the paths over `failed` links withdrawn.
    pub fn tables(&self, failed: &HashSet<Link>) -> SwitchTables {
        let e = self.edges();
        let mut groups = vec![Vec::new(); self.switches() * e];
        let mut routes = Vec::with_capacity(e * e);
        for a in 0..e as SwitchId {
            for b in 0..e as SwitchId {
                let ok: Vec<Vec<Hop>> = self
                    .paths(a, b)
                    .into_iter()
                    .filter(|p| !self.crosses(p, failed))
                    .collect();
                for x in ok.iter().flatten() {
                    let g: &mut Vec<PortId> = &mut groups[x.sw as usize * e + b as usize];
                    if !g.contains(&x.port) {
                        g.push(x.port);
                    }
                }
                routes.push(
                    ok.into_iter()
                        .map(|p| p.into_iter().map(|x| x.port).collect())
                        .collect(),
                );
            }
        }
        for g in &mut groups {
            g.sort_unstable();
        }
        SwitchTables {
            edges: e,
            groups,
            routes,
        }
    }
}

/// The link between `a` and `b` as stored in failure sets.
pub fn link(a: SwitchId, b: SwitchId) -> Link {
    (a.min(b), a.max(b))
}

/// What the switches forward by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchTables {
    edges: usize,
    /// Per (switch, destination edge): the ports of the surviving shortest
    /// paths (the ECMP / RPS group), sorted.
    groups: Vec<Vec<PortId>>,
    /// Per (source edge, destination edge): each surviving path as the
    /// port taken at each of its switches, first at the source edge (SOPA's
    /// source routes).
    routes: Vec<Vec<Vec<PortId>>>,
}

impl SwitchTables {
    /// Next-hop ports at switch `s` towards edge switch `dst` (empty: no
    /// route).
    pub fn group(&self, s: SwitchId, dst: SwitchId) -> &[PortId] {
        &self.groups[s as usize * self.edges + dst as usize]
    }

    /// Surviving paths from edge `a` to edge `b`, as ports per switch.
    pub fn routes(&self, a: SwitchId, b: SwitchId) -> &[Vec<PortId>] {
        &self.routes[a as usize * self.edges + b as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_or_zero_k_is_refused() {
        assert_eq!(FatTree::new(5), Err(FatTreeError::BadK(5)));
        assert_eq!(FatTree::new(0), Err(FatTreeError::BadK(0)));
        assert!(FatTree::new(4).is_ok());
    }

    #[test]
    fn k4_sizes_and_peers_are_symmetric() {
        let t = FatTree::new(4).unwrap();
        assert_eq!((t.edges(), t.aggs(), t.cores(), t.hosts()), (8, 8, 4, 16));
        let mut links = 0;
        for s in 0..t.switches() as SwitchId {
            for p in 0..4 {
                if let Some((x, q)) = t.peer(s, p) {
                    assert_eq!(t.peer(x, q), Some((s, p)), "{} port {p}", t.name(s));
                    links += 1;
                }
            }
        }
        // k³/4 edge-agg plus k³/4 agg-core links, both directions.
        assert_eq!(links, 2 * (16 + 16));
        assert_eq!(t.by_name("c4"), Some(t.core(1, 1)));
        assert_eq!(t.by_name("a1"), Some(t.agg(0, 0)));
        assert_eq!(t.by_name("c5"), None);
        assert_eq!(t.by_name("s01"), None);
    }

    #[test]
    fn failed_agg_core_link_leaves_the_other_cores() {
        let t = FatTree::new(4).unwrap();
        let (a, b) = (t.edge(0, 0), t.edge(3, 1));
        let all = t.tables(&HashSet::new());
        assert_eq!(all.routes(a, b).len(), 4);
        assert_eq!(all.group(a, b), &[2, 3]);
        // A(3,0)-C(0,0) down: the core C(0,0) cannot reach pod 3, so
        // A(0,0) must not send to it for b either.
        let failed: HashSet<Link> = [link(t.agg(3, 0), t.core(0, 0))].into();
        let cut = t.tables(&failed);
        assert_eq!(cut.routes(a, b).len(), 3);
        assert_eq!(cut.group(t.agg(0, 0), b), &[3]);
        assert_eq!(cut.group(t.agg(0, 1), b), &[2, 3]);
        // Towards pod 0 from pod 3, A(3,0) still has C(0,1).
        assert_eq!(cut.group(t.agg(3, 0), a), &[3]);
    }
}
