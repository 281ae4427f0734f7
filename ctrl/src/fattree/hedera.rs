//! Hedera (Al-Fares et al., NSDI 2010), the central scheduler SOPA compares
//! against: estimate the natural demand of the elephant flows (§4.2: the
//! rates they would get if only the hosts' NICs limited them, max-min fair),
//! then place each on the first equal-cost path whose links all have room
//! for it (Global First Fit, §4.3). Flows that fit nowhere keep their ECMP
//! path. The data plane measures the flows and applies the placement
//! (swtor/src/switch.rs).

use super::{FatTree, SwitchId, SwitchTables};
use crate::PortId;

/// An elephant flow: its source and destination hosts (indices `0..H`)
/// and their edge switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elephant {
    pub src: usize,
    pub dst: usize,
    pub src_edge: SwitchId,
    pub dst_edge: SwitchId,
}

/// Natural demands, as fractions of a host NIC's rate: Hedera's demand
/// estimation (its Fig. 7). Senders split their NIC evenly over their
/// unconverged flows; a receiver that would get more than its NIC caps the
/// flows above its fair share (they converge); repeat until nothing moves.
pub fn estimate_demands(flows: &[Elephant]) -> Vec<f64> {
    let n = flows.len();
    let mut demand = vec![0.0f64; n];
    let mut converged = vec![false; n];
    let hosts = flows
        .iter()
        .map(|f| f.src.max(f.dst) + 1)
        .max()
        .unwrap_or(0);
    let same = |a: f64, b: f64| (a - b).abs() < 1e-12;
    // Each round converges a flow or ends; the bound guards float noise.
    for _ in 0..=2 * n + 2 {
        let mut changed = false;
        for s in 0..hosts {
            let from = || (0..n).filter(move |&i| flows[i].src == s);
            let fixed: f64 = from().filter(|&i| converged[i]).map(|i| demand[i]).sum();
            let open = from().filter(|&i| !converged[i]).count();
            if open == 0 {
                continue;
            }
            let share = (1.0 - fixed) / open as f64;
            for i in from().filter(|&i| !converged[i]) {
                changed |= !same(demand[i], share);
                demand[i] = share;
            }
        }
        for d in 0..hosts {
            let into: Vec<usize> = (0..n).filter(|&i| flows[i].dst == d).collect();
            let total: f64 = into.iter().map(|&i| demand[i]).sum();
            if total <= 1.0 {
                continue;
            }
            let mut limited = into.clone();
            let mut share = 1.0 / limited.len() as f64;
            let mut small_sum = 0.0;
            loop {
                let before = limited.len();
                limited.retain(|&i| {
                    let small = demand[i] < share;
                    if small {
                        small_sum += demand[i];
                    }
                    !small
                });
                if limited.is_empty() || limited.len() == before {
                    break;
                }
                share = (1.0 - small_sum) / limited.len() as f64;
            }
            for i in limited {
                changed |= !same(demand[i], share) || !converged[i];
                demand[i] = share;
                converged[i] = true;
            }
        }
        if !changed {
            break;
        }
    }
    demand
}

/// Global First Fit: for each flow in order, the index of the first path
/// in `tables.routes(src_edge, dst_edge)` whose every link has room for its
/// demand (a fraction of the link rate, `scale` = host rate / link rate
/// applied); the path's links are then reserved. None: no path fits.
pub fn global_first_fit(
    tree: &FatTree,
    tables: &SwitchTables,
    flows: &[Elephant],
    demands: &[f64],
    scale: f64,
) -> Vec<Option<usize>> {
    let k = tree.ports();
    let mut reserved = vec![0.0f64; tree.switches() * k];
    let mut out = Vec::with_capacity(flows.len());
    for (f, &d) in flows.iter().zip(demands) {
        let need = d * scale;
        let routes = tables.routes(f.src_edge, f.dst_edge);
        let links = |r: &[PortId]| -> Vec<usize> { hops(tree, f.src_edge, r) };
        let pick = routes
            .iter()
            .position(|r| links(r).iter().all(|&q| reserved[q] + need <= 1.0 + 1e-9));
        if let Some(p) = pick {
            for q in links(&routes[p]) {
                reserved[q] += need;
            }
        }
        out.push(pick);
    }
    out
}

/// The (switch * k + port) indices of a route's hops from `edge`.
fn hops(tree: &FatTree, edge: SwitchId, route: &[PortId]) -> Vec<usize> {
    let k = tree.ports();
    let mut s = edge;
    let mut v = Vec::with_capacity(route.len());
    for &p in route {
        v.push(s as usize * k + p as usize);
        match tree.peer(s, p) {
            Some((x, _)) => s = x,
            None => break,
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn el(tree: &FatTree, src: usize, dst: usize) -> Elephant {
        let h = tree.hosts_per_edge();
        Elephant {
            src,
            dst,
            src_edge: (src / h) as SwitchId,
            dst_edge: (dst / h) as SwitchId,
        }
    }

    #[test]
    fn demands_are_max_min_fair_at_senders_and_receivers() {
        let t = FatTree::new(4).unwrap();
        // h0 sends to h4 and h8; h1 sends to h4: h4 takes two flows
        // (1/2 each), h0's other flow gets the rest of its NIC (1/2).
        let f = [el(&t, 0, 4), el(&t, 0, 8), el(&t, 1, 4)];
        let d = estimate_demands(&f);
        for (x, want) in d.iter().zip([0.5, 0.5, 0.5]) {
            assert!((x - want).abs() < 1e-9, "{d:?}");
        }
        // Three senders into one receiver: a third each.
        let f = [el(&t, 0, 15), el(&t, 4, 15), el(&t, 8, 15)];
        let d = estimate_demands(&f);
        assert!(d.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-9), "{d:?}");
        // One flow alone: the whole NIC.
        assert_eq!(estimate_demands(&[el(&t, 0, 15)]), [1.0]);
    }

    #[test]
    fn first_fit_spreads_full_rate_elephants_over_disjoint_paths() {
        let t = FatTree::new(4).unwrap();
        let tables = t.tables(&HashSet::new());
        // h0 and h1 (edge 0) to h14 and h15 (edge 7): both at full rate
        // cannot share an uplink of edge 0.
        let f = [el(&t, 0, 14), el(&t, 1, 15)];
        let d = estimate_demands(&f);
        let p = global_first_fit(&t, &tables, &f, &d, 1.0);
        let (a, b) = (p[0].unwrap(), p[1].unwrap());
        let routes = tables.routes(0, 7);
        assert_ne!(routes[a][0], routes[b][0], "{p:?}");
        // A third full-rate flow from edge 0 finds no room.
        let f = [el(&t, 0, 14), el(&t, 1, 15), el(&t, 1, 13)];
        let p = global_first_fit(&t, &tables, &f, &[1.0, 1.0, 1.0], 1.0);
        assert_eq!(p[2], None, "{p:?}");
    }
}
