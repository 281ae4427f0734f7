//! Data-plane counters and drop reasons.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a frame was dropped. `Display` gives the snake_case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The OCS saw the frame inside a circuit's dark time (guardband or
    /// reconfiguration) or straddling into it.
    Guardband,
    /// The OCS had no circuit for the uplink in the frame's transmit slice.
    NoCircuit,
    /// Every candidate calendar queue was at its byte capacity.
    QueueFull,
    /// Every candidate calendar queue's slice could not carry the frame any
    /// more (slice-miss detection, §6.2).
    SliceMiss,
    /// No time-flow table entry (or an uplink that does not exist).
    NoRoute,
    /// Destination IPv4 address belongs to no host of the fabric.
    UnknownHost,
    /// Frame larger than a buffer slot, or no headroom for the header.
    TooBig,
    /// Neither IPv4 nor ARP nor IPv6.
    NotIpv4,
    /// IPv6 (the fabric routes IPv4 only).
    Ipv6,
    /// The host port's egress queue was full.
    HostQueueFull,
    /// The kernel refused to transmit the frame on the host port.
    TxError,
    /// The frame crossed more ToRs than `MAX_HOPS` (a routing loop).
    HopLimit,
    /// Malformed source-route header, or a frame on an external ToR's
    /// uplink without a valid departure tag.
    BadHeader,
    /// The OCS carried the frame onto a ToR-to-ToR circuit that was failed
    /// (`link sX sY down`). Only the OCS counts it, never a ToR.
    LinkDown,
    /// The frames waiting for an external ToR to take them in were
    /// [`crate::pacer::BACKLOG`] already (docs/p4.md, "Pacing"). Only the
    /// OCS counts it.
    TorBacklog,
    /// A host link lost the frame (config `hosts.link.loss`, Mininet's
    /// `TCLink(loss=)`; [`crate::netem`]). Only host ports count it.
    LinkLoss,
}

impl DropReason {
    pub const COUNT: usize = 16;
    /// Reasons a ToR can count (the P4 program's `drops` counter has this
    /// many cells); the ones after them are the OCS's own and the host
    /// links'.
    pub const TOR_COUNT: usize = 13;
    pub const ALL: [DropReason; DropReason::COUNT] = [
        DropReason::Guardband,
        DropReason::NoCircuit,
        DropReason::QueueFull,
        DropReason::SliceMiss,
        DropReason::NoRoute,
        DropReason::UnknownHost,
        DropReason::TooBig,
        DropReason::NotIpv4,
        DropReason::Ipv6,
        DropReason::HostQueueFull,
        DropReason::TxError,
        DropReason::HopLimit,
        DropReason::BadHeader,
        DropReason::LinkDown,
        DropReason::TorBacklog,
        DropReason::LinkLoss,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Guardband => "guardband",
            DropReason::NoCircuit => "no_circuit",
            DropReason::QueueFull => "queue_full",
            DropReason::SliceMiss => "slice_miss",
            DropReason::NoRoute => "no_route",
            DropReason::UnknownHost => "unknown_host",
            DropReason::TooBig => "too_big",
            DropReason::NotIpv4 => "not_ipv4",
            DropReason::Ipv6 => "ipv6",
            DropReason::HostQueueFull => "host_queue_full",
            DropReason::TxError => "tx_error",
            DropReason::HopLimit => "hop_limit",
            DropReason::BadHeader => "bad_header",
            DropReason::LinkDown => "link_down",
            DropReason::TorBacklog => "tor_backlog",
            DropReason::LinkLoss => "link_loss",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A consistent snapshot of the data plane's counters (taken between two
/// loop iterations, so the conservation law holds exactly).
///
/// `sent` counts every non-ARP frame accepted from a host port (IPv6 and
/// other EtherTypes too: they are then counted as dropped) and
/// `from_external` every frame received on an external ToR's uplink, so
/// `sent + from_external == delivered + to_external + dropped_total() +
/// queued` always.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Frames accepted from host ports (all but ARP).
    pub sent: u64,
    /// Frames handed to host ports.
    pub delivered: u64,
    /// Frames currently held: calendar queues, host egress queues, the
    /// OCS delay lines and the backlogs of paced external ToRs.
    pub queued: u64,
    /// Drops by reason, indexed like `DropReason::ALL` (serialised as a map
    /// from the snake_case name to the count).
    #[serde(serialize_with = "drops_as_map", deserialize_with = "drops_from_map")]
    pub dropped: [u64; DropReason::COUNT],
    /// Proxy-ARP replies sent.
    pub arp_replies: u64,
    /// ARP frames not answered (not a request, or for an unknown IP).
    pub arp_ignored: u64,
    /// Frames admitted to an alternate action after the primary calendar
    /// queue refused them (recirculation-free rerouting, §6.3), and
    /// source-route hops moved to a later slice of the same circuit.
    pub rerouted: u64,
    /// Frames that fit no action's slice but were kept in the primary
    /// calendar queue's buffer (slice miss without loss: they wait a cycle).
    pub deferred: u64,
    /// Source-routed frames that reached a ToR after their hop's departure
    /// slice and left at once, their circuit still up (late source-route
    /// hops, `Calendar::still_up`).
    pub late_hops: u64,
    /// RotorLB (`routing.bulk: rotorlb`): bulk frames put on their direct
    /// circuit (first hop from their own ToR, or second from a relay).
    #[serde(default)]
    pub bulk_direct: u64,
    /// RotorLB: bulk frames sent to a relay ToR (the first of two hops).
    #[serde(default)]
    pub bulk_indirect: u64,
    /// Frames put on an uplink towards the OCS.
    pub uplink_tx: u64,
    /// Frames the OCS delivered to a ToR.
    pub ocs_delivered: u64,
    /// Frames still in a calendar queue when its slice ended (they wait one
    /// more cycle); counted once per slice end they outlive.
    pub carried_over: u64,
    /// Frames from interfaces that are no host port (ignored, not counted).
    pub foreign: u64,
    /// Frames received on external ToRs' uplinks (they enter the calendar
    /// queues or are dropped, e.g. `bad_header` without a departure tag).
    pub from_external: u64,
    /// Frames the OCS delivered to external ToRs (sent out of their uplink
    /// veths); they leave the fabric's accounting there.
    pub to_external: u64,
    /// Frames from external ToRs whose departure slot had already passed
    /// when swtor received them (they wait for the next occurrence of
    /// their departure slice).
    pub late_from_tor: u64,
    /// Rotation frames sent on external ToRs' CPU ports (not data).
    pub rotation_tx: u64,
    /// Bytes accepted from host ports.
    pub sent_bytes: u64,
    /// Bytes handed to host ports.
    pub delivered_bytes: u64,
    /// Runtime reconfigurations applied (traffic-aware topology updates).
    pub reconfigurations: u64,
    /// Frames the kernel dropped before the data plane read them (host-port
    /// socket buffer full); they never entered `sent`.
    pub port_drops: u64,
    /// Time the data-plane thread spent in loop iterations that moved
    /// frames: `delivered / busy_ns` estimates the forwarding capacity of
    /// one core independently of how fast senders can offer load.
    pub busy_ns: u64,
    /// Longest time between two data-plane loop iterations (how long the
    /// thread was descheduled at worst): a measure of timing fidelity.
    pub max_poll_gap_ns: u64,
    /// Slice-boundary lateness: per slot boundary, how long after it the
    /// data-plane loop first polled (log2 buckets, see
    /// [`Counters::record_boundary`]). Timing fidelity of slice switches.
    pub boundary_lateness_hist: [u64; LATENESS_BUCKETS],
    /// The same for the boundaries at which frames were queued in the
    /// fabric (the ones whose lateness can delay or misplace a frame; an
    /// idle data plane yields its core and may wake up late harmlessly).
    pub boundary_lateness_queued_hist: [u64; LATENESS_BUCKETS],
    /// Error of the occupancy estimator (§6.2) against the true occupancy
    /// of the active calendar queues (all zero with exact occupancy).
    pub estimator_error: crate::estimator::EstimatorError,
    /// Frames held at host NICs now (push-back, §7): sent but not yet in
    /// the fabric. Host memory, apart from `queued`.
    pub held: u64,
    /// Their bytes.
    pub held_bytes: u64,
    /// Frames ever held at a host NIC.
    pub held_total: u64,
    /// Frames a paused host could not hold (host memory full); they went
    /// on to the ToR.
    pub hold_overflow: u64,
    /// Push-back messages sent by rejecting ToRs.
    pub pushbacks: u64,
    /// Hosts reached by push-back broadcasts.
    pub pushback_notified: u64,
    /// Frames of flows past the elephant threshold (flow pausing, §7).
    pub elephant_frames: u64,
    /// Frames (and bytes) of calendar queues offloaded to hosts now
    /// (buffer offloading, §7); part of `held`.
    pub offloaded: u64,
    pub offloaded_bytes: u64,
    /// Offloaded frames the hosts returned to their ToR.
    pub offload_returned: u64,
}

/// Log-linear histogram of delays in ns (8 buckets per octave, ≤ 12.5%
/// relative error), kept by the engine outside [`Counters`].
#[derive(Clone, Debug)]
pub struct DelayHist {
    buckets: Vec<u64>,
    pub count: u64,
    pub sum_ns: u64,
    pub max_ns: u64,
}

impl Default for DelayHist {
    fn default() -> Self {
        DelayHist {
            buckets: vec![0; 8 + 61 * 8],
            count: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }
}

impl DelayHist {
    #[inline]
    fn index(x: u64) -> usize {
        if x < 8 {
            return x as usize;
        }
        let e = 63 - x.leading_zeros() as usize;
        8 + (e - 3) * 8 + ((x >> (e - 3)) & 7) as usize
    }
    fn lower(i: usize) -> u64 {
        if i < 8 {
            return i as u64;
        }
        let e = (i - 8) / 8 + 3;
        let m = ((i - 8) % 8) as u64;
        (8 + m) << (e - 3)
    }
    #[inline]
    pub fn record(&mut self, x: u64) {
        self.buckets[Self::index(x)] += 1;
        self.count += 1;
        self.sum_ns += x;
        self.max_ns = self.max_ns.max(x);
    }
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }
    /// Lower bound (ns) of the bucket holding quantile `q`; 0 when empty.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut acc = 0;
        for (i, &n) in self.buckets.iter().enumerate() {
            acc += n;
            if acc >= rank {
                return Self::lower(i);
            }
        }
        self.max_ns
    }
}

/// Buckets of [`Counters::boundary_lateness_hist`]: bucket 0 is < 256 ns,
/// bucket i (1..) is [2^(i+7), 2^(i+8)) ns, the last one is open-ended (>= 1 s).
pub const LATENESS_BUCKETS: usize = 24;

fn drops_as_map<S: serde::Serializer>(
    d: &[u64; DropReason::COUNT],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(DropReason::COUNT))?;
    for r in DropReason::ALL {
        m.serialize_entry(r.name(), &d[r as usize])?;
    }
    m.end()
}

/// The inverse of [`drops_as_map`] (a counters snapshot read back from the
/// OCS process's control channel): every known reason, missing ones 0.
fn drops_from_map<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<[u64; DropReason::COUNT], D::Error> {
    let m = std::collections::BTreeMap::<String, u64>::deserialize(d)?;
    let mut out = [0; DropReason::COUNT];
    for (name, n) in m {
        let r = DropReason::ALL
            .iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown drop reason {name:?}")))?;
        out[*r as usize] = n;
    }
    Ok(out)
}

impl Counters {
    /// Frames moved over one link each (host to ToR, ToR to OCS, OCS to
    /// ToR, ToR to host): the simulation's unit of work.
    pub fn frame_hops(&self) -> u64 {
        self.sent + self.uplink_tx + self.ocs_delivered + self.delivered
    }

    pub fn dropped(&self, r: DropReason) -> u64 {
        self.dropped[r as usize]
    }
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
    pub fn drop_one(&mut self, r: DropReason) {
        self.dropped[r as usize] += 1;
    }
    /// `sent + from_external == delivered + to_external + dropped + queued
    /// + held` (held: at host NICs).
    pub fn conservation_holds(&self) -> bool {
        self.sent + self.from_external
            == self.delivered + self.to_external + self.dropped_total() + self.queued + self.held
    }
    /// Records `n` slot boundaries first polled `lateness_ns` after they
    /// passed (fixed buckets: no allocation on the data plane's loop).
    #[inline]
    pub fn record_boundary(&mut self, lateness_ns: u64, n: u64) {
        let b = ((64 - (lateness_ns >> 8).leading_zeros()) as usize).min(LATENESS_BUCKETS - 1);
        self.boundary_lateness_hist[b] += n;
        if self.queued > 0 {
            self.boundary_lateness_queued_hist[b] += n;
        }
    }
    /// Upper bound (ns) of the bucket holding quantile `q` (0..=1) of the
    /// boundary lateness; None before any boundary. The last bucket has no
    /// bound and reports u64::MAX.
    pub fn boundary_lateness_quantile_ns(&self, q: f64) -> Option<u64> {
        lateness_quantile(&self.boundary_lateness_hist, q)
    }
    /// [`Counters::boundary_lateness_quantile_ns`] over the boundaries at
    /// which frames were queued.
    pub fn boundary_lateness_queued_quantile_ns(&self, q: f64) -> Option<u64> {
        lateness_quantile(&self.boundary_lateness_queued_hist, q)
    }
    /// Non-zero drop counters by name.
    pub fn drops(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        DropReason::ALL
            .iter()
            .map(|&r| (r, self.dropped(r)))
            .filter(|(_, n)| *n > 0)
    }
}

/// Upper bound (ns) of the log2 bucket holding quantile `q` of `hist`.
fn lateness_quantile(hist: &[u64; LATENESS_BUCKETS], q: f64) -> Option<u64> {
    let total: u64 = hist.iter().sum();
    if total == 0 {
        return None;
    }
    let rank = ((q.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
    let mut acc = 0;
    for (i, &n) in hist.iter().enumerate() {
        acc += n;
        if acc >= rank {
            return Some(if i + 1 == LATENESS_BUCKETS {
                u64::MAX
            } else {
                256u64 << i
            });
        }
    }
    Some(u64::MAX)
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sent {} delivered {} queued {} dropped {}",
            self.sent,
            self.delivered,
            self.queued,
            self.dropped_total()
        )?;
        for (r, n) in self.drops() {
            write!(f, " {r}={n}")?;
        }
        if self.from_external + self.to_external > 0 {
            write!(
                f,
                " from_external {} to_external {} late_from_tor {}",
                self.from_external, self.to_external, self.late_from_tor
            )?;
        }
        write!(
            f,
            " rerouted {} arp_replies {} carried_over {} port_drops {} max_poll_gap {}us",
            self.rerouted,
            self.arp_replies,
            self.carried_over,
            self.port_drops,
            self.max_poll_gap_ns / 1000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_snake_case_and_indices_match() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
            assert!(
                r.to_string()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            );
        }
        assert_eq!(DropReason::SliceMiss.to_string(), "slice_miss");
        assert_eq!(
            Counters::default().boundary_lateness_quantile_ns(0.99),
            None
        );
        let mut c = Counters {
            sent: 3,
            delivered: 1,
            queued: 1,
            ..Default::default()
        };
        assert!(!c.conservation_holds());
        c.drop_one(DropReason::NoCircuit);
        assert!(c.conservation_holds());
        assert_eq!(
            c.drops().collect::<Vec<_>>(),
            vec![(DropReason::NoCircuit, 1)]
        );
    }

    #[test]
    fn boundary_lateness_buckets_and_quantiles() {
        let mut c = Counters::default();
        c.record_boundary(0, 1);
        c.record_boundary(255, 1);
        assert_eq!(c.boundary_lateness_hist[0], 2);
        c.record_boundary(256, 1);
        c.record_boundary(511, 1);
        assert_eq!(c.boundary_lateness_hist[1], 2);
        c.record_boundary(1500, 96); // [1024, 2048) ns
        assert_eq!(c.boundary_lateness_hist[3], 96);
        c.record_boundary(u64::MAX, 1);
        assert_eq!(c.boundary_lateness_hist[LATENESS_BUCKETS - 1], 1);
        // 101 samples: the 99th-percentile rank (100) is in [1024, 2048).
        assert_eq!(c.boundary_lateness_quantile_ns(0.99), Some(2048));
        assert_eq!(c.boundary_lateness_quantile_ns(0.01), Some(256));
        assert_eq!(c.boundary_lateness_quantile_ns(1.0), Some(u64::MAX));
        // Nothing was queued: no boundary counts as one with frames waiting.
        assert_eq!(c.boundary_lateness_queued_quantile_ns(0.99), None);
        c.queued = 1;
        c.record_boundary(300, 1);
        assert_eq!(c.boundary_lateness_queued_hist[1], 1);
        assert_eq!(c.boundary_lateness_queued_quantile_ns(0.99), Some(512));
    }
}
