//! A hash map for small integer keys (IPv4 addresses as `u32`, ifindexes)
//! on the per-frame path: std's SipHash showed up as ~10% of the engine's
//! time at 64-byte frames (docs/benchmarks.md, "Forwarding"). The keys are
//! not attacker-chosen in a way that matters here (a collision only slows
//! a lookup), so a multiplicative hash folded to the low bits is enough.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// `HashMap` with [`IntHasher`].
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// Multiplicative hasher for integer keys.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high half (which mixes all key bits) into the low bits
        // the table indexes with.
        let p = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        p ^ (p >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).rotate_left(5);
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0 = self.0.rotate_left(32) ^ i as u64;
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.write_u32(i as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_map_finds_keys_differing_only_in_high_bits() {
        let mut m: IntMap<u32, u32> = IntMap::default();
        let high = |k: u32| (k << 24) | 7;
        for k in 1..200 {
            m.insert(high(k), k);
        }
        for k in 8..1000 {
            m.insert(k, 10_000 + k);
        }
        assert_eq!(m.len(), 199 + 992);
        assert!((1..200).all(|k| m.get(&high(k)) == Some(&k)));
        assert!((8..1000).all(|k| m.get(&k) == Some(&(10_000 + k))));
        let h = |x: u32| {
            let mut s = IntHasher::default();
            s.write_u32(x);
            s.finish()
        };
        assert_ne!(
            h(1 << 24) & 0xff,
            h(2 << 24) & 0xff,
            "high bits reach the low ones"
        );
    }
}
