//! Which of many small queues hold something: a bit per queue, so that a
//! poll visits only the busy ones, in index order, instead of scanning
//! every ToR, uplink and host. On opera-108 (648 uplinks, 648 hosts) the
//! full scans were 70% of a simulation's time (docs/benchmarks.md,
//! "Virtual time"); a word holds 64 queues, so an idle fabric costs a few
//! word reads per poll. Iterating in index order keeps the order frames
//! are served in the same as the full scans', so results do not change.

/// A set of indices below a fixed bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActiveSet {
    words: Vec<u64>,
}

impl ActiveSet {
    /// An empty set of indices `0..n`.
    pub(crate) fn new(n: usize) -> ActiveSet {
        ActiveSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    /// Makes room for indices `0..n` (keeps what is in the set).
    pub(crate) fn grow(&mut self, n: usize) {
        if self.words.len() < n.div_ceil(64) {
            self.words.resize(n.div_ceil(64), 0);
        }
    }

    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub(crate) fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// The smallest index in the set that is at least `from`. Loops that
    /// change the set while they walk it call this with the last index
    /// plus one.
    #[inline]
    pub(crate) fn next_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = *self.words.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            bits = *self.words.get(w)?;
        }
    }

    /// The indices in the set, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut next = self.next_from(0);
        std::iter::from_fn(move || {
            let i = next?;
            next = self.next_from(i + 1);
            Some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::ActiveSet;

    #[test]
    fn walks_the_set_in_order_across_words() {
        let mut s = ActiveSet::new(1);
        s.insert(0);
        s.grow(200);
        for i in [199, 63, 64, 130] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 130, 199]);
        assert_eq!(s.next_from(1), Some(63));
        assert_eq!(s.next_from(65), Some(130));
        assert_eq!(s.next_from(200), None);
        s.remove(63);
        s.remove(64);
        assert_eq!(s.next_from(1), Some(130));
        s.remove(0);
        s.remove(130);
        s.remove(199);
        assert_eq!(s.next_from(0), None);
        assert_eq!(ActiveSet::new(0).next_from(0), None);
    }
}
