//! Which paths fill the tables, in the order the definition applies them:
//! without multipath the first path of each (src, dst, arrival, class)
//! group, with it one path per hash bucket taken round the group.

use crate::tables::dims::Dims;
use std::collections::{HashMap, HashSet};

/// Without multipath: the first path of each group (in path order, bucket
/// `None`), and the indices of the other paths.
pub(super) fn choose_first(keys: &[u64], dims: &Dims) -> (Vec<(u32, Option<u8>)>, Vec<u32>) {
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

/// With multipath: the paths tables are built from, in the order the
/// definition applies them: `(path index, bucket)`.
/// `keys[i]`: path `i`'s group (src, dst, arrival, class) as
/// `((src * n + dst) * arrivals + arrival index) * 257 + class key` (0 for
/// no class, else `1 + class`).
pub(super) fn choose(keys: &[u64], dims: &Dims, buckets: u8) -> Vec<(u32, Option<u8>)> {
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
