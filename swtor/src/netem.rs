//! netem's options on host links, in the data plane (Mininet's
//! `TCLink(delay=, jitter=, loss=, max_queue_size=)`, config `hosts.link`),
//! and the loss and delay spread of optical circuits (a switch link's
//! `loss=` and `jitter=`, config `tors.link_loss` and `tors.link_jitter`).
//! The host ports are the engine's own, so a link's delay and loss need no
//! netem qdisc: this machine's kernel has none, and a run gives the same
//! fates to the same frames for the same seed, live or in virtual time.
//!
//! Each direction of each host link has its own [`Shape`]: a frame is
//! lost with probability `loss`, else it is due `delay` (plus or minus up
//! to `jitter`, uniformly) after it came, and never before the frame ahead
//! of it. Unlike netem, whose jitter reorders frames, a link keeps them in
//! order: as netem does when it also has a rate.
//!
//! Towards the ToR, frames wait in a [`Line`] before the ToR sees them;
//! towards the host, in the host port's egress queue, which sends a frame
//! no earlier than its due time (`Meta::t`).

use crate::counters::DropReason;
use crate::pool::{FramePool, FrameQueue};
use lh_ctrl::config::{HostLinkCfg, LossPercent};

/// One direction of a link: its options and its random draws.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    delay: u64,
    jitter: u64,
    /// Loss probability in parts per billion.
    loss: u32,
    /// Frames held at most (`u32::MAX`: no limit).
    pub(crate) limit: u32,
    rng: u64,
    /// The latest due time given (frames keep their order).
    last_due: u64,
}

impl Shape {
    /// Direction `stream` (two per host: `2h` towards the ToR, `2h + 1`
    /// towards the host) of a link with options `cfg`.
    pub(crate) fn new(cfg: &HostLinkCfg, stream: u64) -> Shape {
        let seed = cfg.seed.unwrap_or(1);
        Shape {
            delay: cfg.delay.0,
            jitter: cfg.jitter.0,
            loss: cfg.loss.0,
            limit: cfg.max_queue_size.unwrap_or(u32::MAX),
            // Streams far apart in SplitMix64's sequence.
            rng: seed ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03),
            last_due: 0,
        }
    }

    /// The loss draw of the optical circuits (config `tors.link_loss`):
    /// one stream for all of them, apart from every host link's.
    pub(crate) fn circuits(loss: LossPercent, seed: u64) -> Shape {
        let cfg = HostLinkCfg {
            loss,
            seed: Some(seed),
            ..HostLinkCfg::default()
        };
        Shape::new(&cfg, u64::MAX)
    }

    /// SplitMix64: small, fast, and the same on every machine.
    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Whether the next frame is lost.
    pub(crate) fn lose(&mut self) -> bool {
        self.loss > 0 && self.next() % u64::from(LossPercent::BILLION) < u64::from(self.loss)
    }

    /// The delay spread of the optical circuits (config
    /// `tors.link_jitter`): `delay` (their propagation) plus or minus
    /// `jitter`; a stream of its own, apart from the circuits' loss.
    pub(crate) fn circuit_jitter(delay: u64, jitter: u64, seed: u64) -> Shape {
        let cfg = HostLinkCfg {
            delay: lh_ctrl::units::Nanos(delay),
            jitter: lh_ctrl::units::Nanos(jitter),
            seed: Some(seed),
            ..HostLinkCfg::default()
        };
        Shape::new(&cfg, u64::MAX - 1)
    }

    /// One frame's delay: `delay`, plus or minus up to `jitter`
    /// (uniformly), at least 0.
    pub(crate) fn draw_delay(&mut self) -> u64 {
        if self.jitter == 0 {
            self.delay
        } else {
            let j = self.next() % (2 * self.jitter + 1);
            (self.delay + j).saturating_sub(self.jitter)
        }
    }

    /// The due time of a frame that came at `now`.
    pub(crate) fn due(&mut self, now: u64) -> u64 {
        let d = self.draw_delay();
        self.last_due = self.last_due.max(now + d);
        self.last_due
    }

    /// The fate of frame `i`, which came at `now` to a direction holding
    /// `held` frames: dropped (with the reason), or due at `Meta::t`.
    pub(crate) fn admit(
        &mut self,
        pool: &mut FramePool,
        i: u32,
        held: u32,
        now: u64,
    ) -> Result<(), DropReason> {
        if self.lose() {
            return Err(DropReason::LinkLoss);
        }
        if held >= self.limit {
            return Err(DropReason::HostQueueFull);
        }
        pool.meta_mut(i).t = self.due(now);
        Ok(())
    }
}

/// A host link's direction towards the ToR: frames in order, each with its
/// due time in `Meta::t`.
#[derive(Debug)]
pub(crate) struct Line {
    pub(crate) shape: Shape,
    q: FrameQueue,
}

impl Line {
    pub(crate) fn new(shape: Shape) -> Line {
        Line {
            shape,
            q: FrameQueue::default(),
        }
    }

    /// Takes frame `i`, come at `now`, or says why it is dropped.
    pub(crate) fn push(
        &mut self,
        pool: &mut FramePool,
        i: u32,
        now: u64,
    ) -> Result<(), DropReason> {
        self.shape.admit(pool, i, self.q.frames, now)?;
        self.q.push(pool, i);
        Ok(())
    }

    /// When the first frame is due.
    pub(crate) fn next_due(&self, pool: &FramePool) -> Option<u64> {
        self.q.peek().map(|i| pool.meta(i).t)
    }

    /// The first frame, if it is due by `now`.
    pub(crate) fn pop_due(&mut self, pool: &mut FramePool, now: u64) -> Option<u32> {
        if self.next_due(pool)? <= now {
            self.q.pop(pool)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lh_ctrl::units::Nanos;

    fn cfg(delay: u64, jitter: u64, loss_pct: f64, seed: u64) -> HostLinkCfg {
        HostLinkCfg {
            delay: Nanos(delay),
            jitter: Nanos(jitter),
            loss: LossPercent((loss_pct * 1e7).round() as u32),
            max_queue_size: None,
            seed: Some(seed),
        }
    }

    #[test]
    fn a_seed_gives_the_same_fates_and_loss_is_near_its_rate() {
        let fates = |seed: u64, stream: u64| -> Vec<bool> {
            let mut s = Shape::new(&cfg(0, 0, 10.0, seed), stream);
            (0..100_000).map(|_| s.lose()).collect()
        };
        let a = fates(7, 0);
        assert_eq!(a, fates(7, 0));
        assert_ne!(a, fates(8, 0));
        assert_ne!(a, fates(7, 1));
        let lost = a.iter().filter(|&&l| l).count();
        // 10% of 100,000: the binomial's sd is 95.
        assert!((9_600..=10_400).contains(&lost), "{lost}");
        let mut none = Shape::new(&cfg(0, 0, 0.0, 1), 0);
        assert!((0..10_000).all(|_| !none.lose()));
        let mut all = Shape::new(&cfg(0, 0, 100.0, 1), 0);
        assert!((0..10_000).all(|_| all.lose()));
    }

    #[test]
    fn jitter_spreads_the_delay_both_ways_and_frames_keep_their_order() {
        let mut s = Shape::new(&cfg(1_000, 200, 0.0, 3), 0);
        let mut prev = 0;
        let (mut lo, mut hi) = (u64::MAX, 0);
        for k in 0..10_000u64 {
            let now = k * 1_000;
            let due = s.due(now);
            assert!(due >= prev, "in order");
            prev = due;
            lo = lo.min(due - now);
            hi = hi.max(due - now);
        }
        // Frames 1 us apart: a due time is its own draw or the one ahead.
        assert!((800..=810).contains(&lo), "{lo}");
        assert!((1_190..=1_200).contains(&hi), "{hi}");
        let mut fixed = Shape::new(&cfg(5_000, 0, 0.0, 3), 0);
        assert_eq!(fixed.due(10), 5_010);
        // Frames that come together leave together, no earlier than the
        // one ahead.
        let mut bigger = Shape::new(&cfg(0, 1_000_000, 0.0, 3), 0);
        let first = bigger.due(0);
        assert!(bigger.due(0) >= first);
    }

    #[test]
    fn a_line_holds_frames_until_due_in_order_up_to_its_limit() {
        let mut pool = FramePool::new(8);
        let mut c = cfg(1_000, 0, 0.0, 1);
        c.max_queue_size = Some(2);
        let mut line = Line::new(Shape::new(&c, 0));
        let [a, b, d] = [1u8, 2, 3].map(|t| pool.alloc_from(&[t; 64]).unwrap());
        line.push(&mut pool, a, 100).unwrap();
        line.push(&mut pool, b, 150).unwrap();
        assert_eq!(line.push(&mut pool, d, 160), Err(DropReason::HostQueueFull));
        assert_eq!(line.next_due(&pool), Some(1_100));
        assert_eq!(line.pop_due(&mut pool, 1_099), None);
        assert_eq!(line.pop_due(&mut pool, 1_100), Some(a));
        assert_eq!(line.pop_due(&mut pool, 1_100), None);
        assert_eq!(line.pop_due(&mut pool, 1_150), Some(b));
        assert_eq!(line.next_due(&pool), None);
    }
}
