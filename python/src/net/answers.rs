//! `earliest_path`'s answers, held as Python objects: Fig. 6c's loop asks
//! for every pair and slice (a million calls on opera-108), and one solve
//! of a destination answers all of its sources, so answers are solved a
//! destination (or the whole fabric) at a time and handed out from here.

use crate::path::PyPath;
use lh_ctrl::net::LighthouseNet as Facade;
use lh_ctrl::{SliceId, TorId};
use pyo3::prelude::*;

/// One `earliest_path(src, dst, ts, max_hop)` question.
#[derive(Clone, Copy)]
pub(super) struct Ask {
    pub(super) src: TorId,
    pub(super) dst: TorId,
    pub(super) ts: SliceId,
    pub(super) max_hop: u8,
}

/// The answers for one hop budget (`paths_hop`); a topology change or
/// another budget starts afresh.
pub(super) struct Answers {
    /// ToRs of the fabric (the config's).
    tors: TorId,
    /// Answers for `max_hop == paths_hop`, per destination (index
    /// `src * paths_slices + ts`).
    paths: Vec<Option<Vec<Option<Py<PyPath>>>>>,
    paths_hop: u8,
    paths_slices: usize,
    /// Answers held in `paths` (bounded).
    paths_held: usize,
    /// Every answer for `paths_hop`, in Fig. 6c's loop order (index
    /// `(ts * tors + src) * tors + dst`), when the fabric is small enough
    /// to solve whole (`ALL_AT_ONCE`): its calls then walk memory in order.
    flat: Vec<Option<Py<PyPath>>>,
}

impl Answers {
    /// Destinations `earliest_path` solves in one go on a large fabric.
    const SOLVE_AHEAD: usize = 16;
    /// Fabrics with at most this many answers (tors x tors x slices) are
    /// solved whole on the first `earliest_path` call (opera-108: 1.25 M).
    const ALL_AT_ONCE: usize = 2_000_000;

    pub(super) fn new(tors: TorId) -> Answers {
        Answers {
            tors,
            paths: Vec::new(),
            paths_hop: 0,
            paths_slices: 0,
            paths_held: 0,
            flat: Vec::new(),
        }
    }

    /// Forgets every answer (the topology changed).
    pub(super) fn clear(&mut self) {
        self.paths.clear();
        self.flat.clear();
        self.paths_held = 0;
    }

    /// The answer if it is already solved (`None`: not held).
    pub(super) fn held(&self, py: Python<'_>, q: Ask) -> Option<Option<Py<PyPath>>> {
        let (src, dst, ts) = (q.src as usize, q.dst as usize, q.ts as usize);
        let slices = self.paths_slices;
        let n = self.tors as usize;
        if q.max_hop == self.paths_hop
            && !self.flat.is_empty()
            && ts < slices
            && src < n
            && let Some(p) = self.flat.get((ts * n + src) * n + dst)
        {
            return Some(p.as_ref().map(|p| p.clone_ref(py)));
        }
        if q.max_hop == self.paths_hop
            && ts < slices
            && let Some(Some(v)) = self.paths.get(dst)
            && let Some(p) = v.get(src * slices + ts)
        {
            return Some(p.as_ref().map(|p| p.clone_ref(py)));
        }
        None
    }

    /// Solves the answer on `f`'s schedule (the fabric whole, or this
    /// destination and the next unsolved ones), keeps what it solved and
    /// returns the answer. `q`'s ToRs and slice are checked.
    pub(super) fn solve(
        &mut self,
        py: Python<'_>,
        f: &Facade,
        q: Ask,
    ) -> PyResult<Option<Py<PyPath>>> {
        let Ask {
            src,
            dst,
            ts,
            max_hop,
        } = q;
        let n = self.tors;
        let slices = f.schedule().slices();
        if max_hop != self.paths_hop || self.paths.len() != n as usize {
            self.paths = (0..n).map(|_| None).collect();
            self.flat.clear();
            self.paths_hop = max_hop;
            self.paths_held = 0;
        }
        let (nn, all) = (n as usize, n as usize * n as usize * slices);
        if all <= Self::ALL_AT_ONCE {
            let dsts: Vec<TorId> = (0..n).collect();
            let mut solved = f.earliest_paths_to_many(&dsts, max_hop);
            let mut flat = Vec::with_capacity(all);
            for t in 0..slices {
                for a in 0..nn {
                    for d in solved.iter_mut() {
                        let p = d[a * slices + t].take();
                        flat.push(p.map(|p| crate::path::untracked(py, p)).transpose()?);
                    }
                }
            }
            self.flat = flat;
            self.paths_slices = slices;
            let p = &self.flat[(ts as usize * nn + src as usize) * nn + dst as usize];
            return Ok(p.as_ref().map(|p| p.clone_ref(py)));
        }
        // Solve this destination and the next unsolved ones together (one
        // solver's buffers, every core): a loop over every pair asks for
        // them next.
        let dsts: Vec<TorId> = (0..n)
            .map(|k| (dst + k) % n)
            .filter(|&d| self.paths[d as usize].is_none())
            .take(Self::SOLVE_AHEAD)
            .collect();
        let solved = f.earliest_paths_to_many(&dsts, max_hop);
        // At most about four million answers held (a few hundred MB).
        let adding: usize = solved.iter().map(Vec::len).sum();
        if self.paths_held + adding > 4_000_000 {
            self.paths.iter_mut().for_each(|v| *v = None);
            self.paths_held = 0;
        }
        for (d, all) in dsts.into_iter().zip(solved) {
            let v = all
                .into_iter()
                .map(|p| p.map(|p| crate::path::untracked(py, p)).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            self.paths[d as usize] = Some(v);
        }
        self.paths_held += adding;
        self.paths_slices = slices;
        let v = self.paths[dst as usize].as_ref().expect("solved above");
        Ok(v[src as usize * slices + ts as usize]
            .as_ref()
            .map(|p| p.clone_ref(py)))
    }
}
