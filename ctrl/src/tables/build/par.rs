//! Splitting work over threads in near-equal consecutive chunks, results
//! in chunk order (so the first error found is the first in path order).

use std::ops::Range;

/// Where [`par_chunks`] splits `0..len`: chunk `i` is `b[i]..b[i + 1]`.
pub(super) fn par_bounds(len: usize, t: usize) -> Vec<usize> {
    let t = t.clamp(1, len.max(1));
    (0..=t).map(|i| len * i / t).collect()
}

/// Runs `f` on `t` consecutive near-equal chunks of `0..len` in parallel;
/// results in chunk order.
pub(super) fn par_chunks<R: Send>(
    len: usize,
    t: usize,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
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
pub(super) fn par_chunks_mut<T: Send, R: Send>(
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
