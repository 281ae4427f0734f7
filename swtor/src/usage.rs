//! What a running data plane reports per port (telemetry read through
//! [`crate::UsageProbe`] and [`crate::FabricHandle::switch_ports`]).

/// One uplink's telemetry at a moment (paper Table 1's `buffer_usage()`
/// and `bw_usage()`; the sampler in `lh_emu::control::telemetry` turns two samples
/// into a rate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PortUsage {
    /// Bytes in the uplink's calendar queues on the ToR.
    pub buffer_bytes: u64,
    /// Bytes of its calendar queues offloaded to hosts (§7).
    pub offloaded_bytes: u64,
    /// Bytes put on the link since the start.
    pub tx_bytes: u64,
    /// The link's rate.
    pub rate_bps: u64,
}

/// One port of a fat-tree switch: frames sent on its link, bytes queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SwitchPort {
    pub switch: u16,
    pub port: u8,
    pub tx_frames: u64,
    pub queued_bytes: u64,
}
