//! Data-plane counters and drop reasons.

use serde::Serialize;
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
    /// Malformed source-route header.
    BadHeader,
}

impl DropReason {
    pub const COUNT: usize = 13;
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
/// other EtherTypes too: they are then counted as dropped), so
/// `sent == delivered + dropped_total() + queued` always.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Frames accepted from host ports (all but ARP).
    pub sent: u64,
    /// Frames handed to host ports.
    pub delivered: u64,
    /// Frames currently held: calendar queues, host egress queues and the
    /// OCS delay lines.
    pub queued: u64,
    /// Drops by reason, indexed like `DropReason::ALL`.
    pub dropped: [u64; DropReason::COUNT],
    /// Proxy-ARP replies sent.
    pub arp_replies: u64,
    /// ARP frames not answered (not a request, or for an unknown IP).
    pub arp_ignored: u64,
    /// Frames admitted to an alternate action after the primary calendar
    /// queue refused them (recirculation-free rerouting, §6.3).
    pub rerouted: u64,
    /// Frames put on an uplink towards the OCS.
    pub uplink_tx: u64,
    /// Frames the OCS delivered to a ToR.
    pub ocs_delivered: u64,
    /// Frames still in a calendar queue when its slice ended (they wait one
    /// more cycle); counted once per slice end they outlive.
    pub carried_over: u64,
    /// Frames from interfaces that are no host port (ignored, not counted).
    pub foreign: u64,
    /// Bytes accepted from host ports.
    pub sent_bytes: u64,
    /// Bytes handed to host ports.
    pub delivered_bytes: u64,
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
}

impl Counters {
    pub fn dropped(&self, r: DropReason) -> u64 {
        self.dropped[r as usize]
    }
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
    pub fn drop_one(&mut self, r: DropReason) {
        self.dropped[r as usize] += 1;
    }
    /// `sent == delivered + dropped + queued`.
    pub fn conservation_holds(&self) -> bool {
        self.sent == self.delivered + self.dropped_total() + self.queued
    }
    /// Non-zero drop counters by name.
    pub fn drops(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        DropReason::ALL
            .iter()
            .map(|&r| (r, self.dropped(r)))
            .filter(|(_, n)| *n > 0)
    }
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
}
