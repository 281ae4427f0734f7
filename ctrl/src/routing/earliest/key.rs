//! How the engine ranks answers: the arrival slot and hop count of a path
//! packed in one `u32` key, so `<` orders by earliest arrival then fewest
//! hops; a hop adds one; and the two choices made on keys, the best
//! uplink (the first with the lowest key: the tie-break order) and leave
//! now or wait.

use crate::{Slot, TorId};

/// Arrival slot in the high bits, hop count in the low [`HOP_BITS`]: `<`
/// orders by earliest arrival, then fewest hops.
pub(super) type Key = u32;
pub(super) const HOP_BITS: u32 = 8;
pub(super) const HOP_MASK: u32 = (1 << HOP_BITS) - 1;
/// Longest path the engine represents.
pub const MAX_HOPS: u32 = HOP_MASK - 1;
pub(super) const INF: Key = u32::MAX;
/// Slots a key can hold.
pub(super) const MAX_HORIZON: usize = (1 << (32 - HOP_BITS)) - 2;
pub(super) const NONE: u32 = u32::MAX;
/// `max_hop` value that means "no budget" (bounded by the ToR count).
pub const UNLIMITED: u8 = u8::MAX;

#[inline]
pub(super) fn key(arrival: u32, hops: u32) -> Key {
    (arrival << HOP_BITS) | hops
}

#[inline]
pub(super) fn plus_hop(k: Key) -> Key {
    if k == INF || (k & HOP_MASK) >= MAX_HOPS {
        INF
    } else {
        k + 1
    }
}

/// Arrival slot and hop count of a key.
#[inline]
pub(super) fn unkey(k: Key) -> (Slot, u32) {
    (k >> HOP_BITS, k & HOP_MASK)
}

/// The first uplink in `range` (of `nexts`) with the lowest hop key, and
/// that key; `(INF, NONE)` if none reaches.
#[inline]
pub(super) fn best_uplink(
    nexts: &[TorId],
    range: std::ops::Range<usize>,
    hop: &[Key],
) -> (Key, u32) {
    let (mut best, mut ba) = (INF, NONE);
    let first = range.start;
    for (i, &y) in nexts[range].iter().enumerate() {
        let c = hop[y as usize];
        if c < best {
            best = c;
            ba = (first + i) as u32;
        }
    }
    (best, ba)
}

/// Leave in slot `t` with key `go`, or wait for the next slot's value and
/// departure (`next`) when it is strictly better.
#[inline]
pub(super) fn leave_or_wait(go: Key, t: usize, next: Option<(Key, u32)>) -> (Key, u32) {
    match next {
        Some((v, dep)) if v < go => (v, dep),
        _ if go == INF => (INF, NONE),
        _ => (go, t as u32),
    }
}
