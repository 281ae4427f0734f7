//! `hosts`: the emulated hosts' settings applied in every host namespace
//! at bring-up: the host links' netem-like options and the TCP knobs
//! (OTCP's inputs among them), with the limits validation holds them to.

use super::tors::LossPercent;
use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// `hosts`: settings of the emulated hosts, applied in every host
/// namespace at bring-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HostsCfg {
    #[serde(default)]
    pub tcp: Option<HostTcp>,
    /// What every host link adds (delay, jitter, loss, queue size: netem's
    /// options, which Mininet's `TCLink` takes), in the data plane's own
    /// ports, so a kernel without netem has them too (docs/config.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<HostLinkCfg>,
}

/// `hosts.link`: netem's options on every host link, each direction, in
/// the data plane: a frame is lost with probability `loss`, else leaves
/// `delay` (plus or minus up to `jitter`, uniformly) after it came, in
/// order. `max_queue_size` bounds the frames a direction holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HostLinkCfg {
    #[serde(default)]
    pub delay: Nanos,
    #[serde(default)]
    pub jitter: Nanos,
    /// Percent, as Mininet's `loss=` (0 to 100).
    #[serde(default)]
    pub loss: LossPercent,
    /// Frames each direction of a link holds at most (Mininet's
    /// `max_queue_size`, netem's `limit`); absent: the host port's byte
    /// limit only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queue_size: Option<u32>,
    /// The loss and jitter draws' seed (absent: 1): the same seed, the
    /// same frames, the same fates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// `hosts.tcp`: the hosts' TCP knobs (paper Fig. 9 turns `reordering` from
/// 3 to 5). Each absent field keeps the kernel's default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HostTcp {
    /// `net.ipv4.tcp_reordering`: duplicate ACKs before fast retransmit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reordering: Option<u32>,
    /// `net.ipv4.tcp_max_reordering`: the most a connection raises its own
    /// threshold to after it sees reordering; equal to `reordering`, the
    /// threshold stays put.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reordering: Option<u32>,
    /// `net.ipv4.tcp_sack`: `false` turns selective ACKs off, so loss
    /// detection counts duplicate ACKs against `reordering` (NewReno). With
    /// SACK, Linux >= 6.17 detects loss only with RACK, which is time-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// `net.ipv4.tcp_rmem` = `4096 B B`: the receive buffer a connection
    /// starts with and may grow to, which bounds the window it advertises.
    /// Bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_buffer: Option<u64>,
    /// `net.ipv4.tcp_congestion_control`, e.g. `"cubic"`, `"reno"`, `"bbr"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion_control: Option<String>,
    /// The minimum retransmission timeout, set as a locked `rto_min` metric
    /// on each of the host's routes (there is no sysctl on every kernel).
    /// Whole milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<Nanos>,
    /// The maximum retransmission timeout (`net.ipv4.tcp_rto_max_ms`,
    /// Linux >= 6.15, 1 s to 120 s live; any whole ms in virtual time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_max: Option<Nanos>,
    /// The retransmission timeout before the first RTT sample (RFC 6298's
    /// 1 s). Virtual time only: the kernel fixes it, so a live run refuses
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<Nanos>,
    /// The initial congestion window in segments (a route's `initcwnd`
    /// metric; Linux: 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// The largest congestion window in segments (a locked `cwnd` route
    /// metric clamps it; default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_window: Option<u32>,
    /// OTCP (docs/otcp.md): per-destination TCP parameters computed from
    /// the routes and pushed to every host; absent: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otcp: Option<OtcpCfg>,
}

/// `hosts.tcp.otcp`: the inputs of the OTCP formulas that the network
/// itself does not give (`ctrl/src/otcp.rs`, docs/otcp.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtcpCfg {
    /// Expected flow fan-in (senders sharing one receiver): the initial
    /// window is `ceil(CWNDmax / fan_in)` segments.
    pub fan_in: u32,
    /// One-way delay of what the link model does not see (host stacks,
    /// the software ToR), added to each direction of every route.
    /// Default [`crate::otcp::DEFAULT_HOST_OVERHEAD`].
    #[serde(default)]
    pub host_overhead: Option<Nanos>,
    /// The socket-level maximum RTO every host namespace gets
    /// (`net.ipv4.tcp_rto_max_ms`, i.e. each socket's `TCP_RTO_MAX_MS`).
    /// Default: the largest RTOmax of the host's routes, raised to the
    /// kernel's minimum of 1 s.
    #[serde(default)]
    pub socket_rto_max: Option<Nanos>,
}

/// Limits of `hosts.tcp` (docs/config.md#hosts).
pub const MAX_TCP_REORDERING: u32 = 300;
/// `hosts.tcp.receive_buffer`: the kernel's smallest `tcp_rmem` (one page)
/// up to 64 MiB.
pub const MIN_TCP_RECEIVE_BUFFER: u64 = 4096;
pub const MAX_TCP_RECEIVE_BUFFER: u64 = 64 << 20;
/// The kernel's TCP_RTO_MAX.
pub const MAX_RTO_MIN_MS: u64 = 120_000;
/// Largest `hosts.tcp.initial_window` and `max_window`, segments (the
/// route metrics are 32-bit; a window past this many full-size segments,
/// about 95 MB, is no cap on any link the tool models).
pub const MAX_TCP_WINDOW: u32 = 65_535;
/// Limits of `hosts.tcp.otcp.fan_in`.
pub const MAX_OTCP_FAN_IN: u32 = 65_535;
/// The kernel's range of `TCP_RTO_MAX_MS` / `net.ipv4.tcp_rto_max_ms`
/// (Linux >= 6.15 refuses values outside it with EINVAL).
pub const KERNEL_RTO_MAX_MS: std::ops::RangeInclusive<u64> = 1_000..=120_000;
/// Largest `hosts.tcp.otcp.host_overhead`.
pub const MAX_OTCP_HOST_OVERHEAD: Nanos = Nanos(1_000_000_000);
