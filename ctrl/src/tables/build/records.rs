//! The chosen paths as insertions into (ToR, dst) blocks of cells, in
//! definition order, built in parallel parts; the workers replay them to
//! fill each block and find the first conflict.

use crate::TorId;
use crate::config::Lookup;
use crate::routing::{PathRef, Paths};
use crate::tables::dims::{Dims, enc};

/// Adds `by` (wrapping: `u32::MAX` subtracts one) to the per-block
/// insertion counts (`counts[block + 1]`) of path `p`.
pub(super) fn count(counts: &mut [u32], n: usize, p: PathRef<'_>, lookup: Lookup, by: u32) {
    match lookup {
        Lookup::Hop => {
            for h in p.hops {
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

/// One insertion of the definition: `val` into `cell` of a (ToR, dst)
/// block; `ord` is its position in the definition's order.
#[derive(Clone, Copy, Default)]
pub(super) struct Rec {
    pub(super) cell: u32,
    /// Per hop: [`enc`] of the step; source: 1 + path index.
    pub(super) val: u32,
    pub(super) ord: u32,
}

/// Insertions grouped by (ToR, dst) block, in definition order: the
/// parts hold consecutive runs of chosen paths (built in parallel), and a
/// block's insertions are its ranges in part 0, part 1, ... in turn.
pub(super) struct Records {
    pub(super) parts: Vec<Part>,
}

pub(super) struct Part {
    /// `start[tor * n + dst]..start[tor * n + dst + 1]` index `recs`.
    pub(super) start: Vec<u32>,
    pub(super) recs: Vec<Rec>,
}

impl Part {
    /// `counts`: the insertions per block (`[block + 1]`) if known.
    pub(super) fn build(
        paths: &Paths,
        chosen: &[(u32, Option<u8>)],
        dims: &Dims,
        lookup: Lookup,
        counts: Option<Vec<u32>>,
    ) -> Part {
        let n = dims.tors;
        let mut start = counts.unwrap_or_else(|| {
            let mut c = vec![0u32; n * n + 1];
            for &(pi, _) in chosen {
                count(&mut c, n, paths.get(pi as usize), lookup, 1);
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
            let p = paths.get(pi as usize);
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

    pub(super) fn block(&self, k: usize) -> &[Rec] {
        &self.recs[self.start[k] as usize..self.start[k + 1] as usize]
    }
}
