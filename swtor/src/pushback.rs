//! Traffic push-back (paper §7): when admission rejects a frame's primary
//! calendar queue (at once, or after N rejections towards the same
//! destination ToR in one slice), the rejecting ToR sends a push-back
//! message (docs/wire-formats.md, shim kind 3) to the ToR of the frame's
//! sender; that ToR broadcasts it to all its hosts, whose NICs
//! ([`crate::nic`]) hold every frame towards the destination ToR until the
//! full queue's slice ends (paper: "preventing them from sending to the
//! destination ToR during that time slice"; for a queue of the current
//! slice, the rest of the slice).
//!
//! Emulation: a message between two different ToRs travels on a control
//! channel with the fabric's propagation delay (not through the calendar
//! queues); a ToR pushing back its own hosts applies it at once.

use crate::wire::{self, PushbackMsg};
use lh_ctrl::TorId;
use std::collections::VecDeque;

/// When a rejection triggers a push-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushbackTrigger {
    /// The first time a primary calendar queue refuses a frame.
    FirstRejection,
    /// At the N-th refusal of a primary queue towards the same destination
    /// ToR in one slice (the earlier ones were rerouted or deferred).
    AfterReroutes(u32),
}

/// Messages in flight at most; beyond, a message is lost (counted).
const INFLIGHT: usize = 4096;

pub(crate) struct Pushback {
    trigger: PushbackTrigger,
    tors: usize,
    propagation: u64,
    /// `[tor * tors + dst]`: the slot `count` belongs to.
    count_slot: Vec<u64>,
    count: Vec<u32>,
    /// `[sender * tors + dst]`: the last slot pushed back (one message per
    /// sender ToR, destination and slot).
    pushed: Vec<u64>,
    /// Encoded messages to remote ToRs with their arrival time (true time;
    /// one propagation delay for all, so in time order).
    inflight: VecDeque<(u64, [u8; wire::PUSHBACK_LEN])>,
    /// Messages of a ToR to its own hosts (apply at once).
    local: VecDeque<[u8; wire::PUSHBACK_LEN]>,
}

impl Pushback {
    pub(crate) fn new(trigger: PushbackTrigger, tors: usize, propagation: u64) -> Pushback {
        Pushback {
            trigger,
            tors,
            propagation,
            count_slot: vec![u64::MAX; tors * tors],
            count: vec![0; tors * tors],
            pushed: vec![u64::MAX; tors * tors],
            inflight: VecDeque::with_capacity(INFLIGHT),
            local: VecDeque::with_capacity(INFLIGHT),
        }
    }

    /// A primary calendar queue of ToR `tor`, departing in slot `slot`
    /// (slice `slice`), refused a frame from a host of `sender` towards ToR
    /// `dst` at true time `now`. Rejections are counted per departure slot.
    /// Returns true if a message was sent.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_rejection(
        &mut self,
        tor: TorId,
        sender: TorId,
        dst: TorId,
        slot: u64,
        slice: u16,
        full: bool,
        now: u64,
    ) -> bool {
        let k = tor as usize * self.tors + dst as usize;
        if self.count_slot[k] != slot {
            self.count_slot[k] = slot;
            self.count[k] = 0;
        }
        self.count[k] += 1;
        let fire = match self.trigger {
            PushbackTrigger::FirstRejection => true,
            PushbackTrigger::AfterReroutes(n) => self.count[k] >= n,
        };
        let p = sender as usize * self.tors + dst as usize;
        if !fire
            || self.pushed[p] == slot
            || self.inflight.len() == INFLIGHT
            || self.local.len() == INFLIGHT
        {
            return false;
        }
        self.pushed[p] = slot;
        let mut f = [0u8; wire::PUSHBACK_LEN];
        wire::pushback_frame(
            &mut f,
            &PushbackMsg {
                sender_tor: sender,
                dst_tor: dst,
                from_tor: tor,
                slice,
                slot: slot as u32,
                reason: if full { 2 } else { 1 },
            },
        );
        if sender == tor {
            self.local.push_back(f);
        } else {
            self.inflight.push_back((now + self.propagation, f));
        }
        true
    }

    /// True if a message has arrived by `now`.
    #[inline]
    pub(crate) fn has_due(&self, now: u64) -> bool {
        !self.local.is_empty() || self.inflight.front().is_some_and(|m| m.0 <= now)
    }

    /// The next message that has arrived by `now`, decoded.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<PushbackMsg> {
        if let Some(f) = self.local.pop_front() {
            return wire::pushback_parse(&f);
        }
        if !self.has_due(now) {
            return None;
        }
        let (_, f) = self.inflight.pop_front()?;
        wire::pushback_parse(&f)
    }
}
