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
    /// A bit per word of `words`, set when that word is not zero: finding
    /// the next index skips empty words 64 at a time, so a set with one
    /// busy host among 648 costs a word or two, not eleven, per look.
    summary: Vec<u64>,
}

impl ActiveSet {
    /// An empty set of indices `0..n`.
    pub(crate) fn new(n: usize) -> ActiveSet {
        let words = n.div_ceil(64);
        ActiveSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    /// Makes room for indices `0..n` (keeps what is in the set).
    pub(crate) fn grow(&mut self, n: usize) {
        let words = n.div_ceil(64);
        if self.words.len() < words {
            self.words.resize(words, 0);
            self.summary.resize(words.div_ceil(64), 0);
        }
    }

    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] |= 1 << (i % 64);
        self.summary[w / 64] |= 1 << (w % 64);
    }

    #[inline]
    pub(crate) fn remove(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] &= !(1 << (i % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// The smallest index in the set that is at least `from`. Loops that
    /// change the set while they walk it call this with the last index
    /// plus one.
    #[inline]
    pub(crate) fn next_from(&self, from: usize) -> Option<usize> {
        let w = from / 64;
        let bits = *self.words.get(w)? & (u64::MAX << (from % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        // The next word that is not zero, by the summary.
        let from = w + 1;
        let mut s = from / 64;
        let mut sbits = *self.summary.get(s)? & (u64::MAX << (from % 64));
        loop {
            if sbits != 0 {
                let w = s * 64 + sbits.trailing_zeros() as usize;
                return Some(w * 64 + self.words[w].trailing_zeros() as usize);
            }
            s += 1;
            sbits = *self.summary.get(s)?;
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

    #[test]
    fn finds_what_a_sorted_set_finds_across_summary_words() {
        // 10 000 indices need 157 words and 3 summary words; a seeded
        // walk of inserts and removes against BTreeSet.
        let n = 10_000;
        let mut s = ActiveSet::new(n);
        let mut want = std::collections::BTreeSet::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % n as u64) as usize;
            if x & (1 << 40) != 0 {
                s.insert(i);
                want.insert(i);
            } else {
                s.remove(i);
                want.remove(&i);
            }
            let from = ((x >> 20) % (n as u64 + 70)) as usize;
            assert_eq!(s.next_from(from), want.range(from..).next().copied());
        }
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            want.into_iter().collect::<Vec<_>>()
        );
    }
}
