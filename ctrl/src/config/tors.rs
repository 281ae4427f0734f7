//! `tors`: the ToRs, their uplinks, hosts, buffers and largest frame, and
//! what an optical circuit does to frames (loss, jitter). `LossPercent` is
//! here because circuits are the first to use it; `hosts.link` takes it too.

use crate::units::{BitsPerSec, Nanos};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tors {
    pub count: u16,
    /// Optical (or spine) uplinks per ToR.
    pub uplinks: u8,
    pub link_rate: BitsPerSec,
    pub hosts_per_tor: u16,
    pub host_link_rate: BitsPerSec,
    /// Bytes of buffer per calendar queue; a packet beyond it is dropped
    /// as queue full. Default: [`Config::queue_capacity_bytes`](super::Config::queue_capacity_bytes).
    #[serde(default)]
    pub queue_capacity: Option<u64>,
    /// Bytes of buffer a ToR shares among all its calendar queues (a
    /// switch's packet buffer, such as Tofino2's 64 MB); a packet beyond it
    /// is dropped as queue full, whatever its queue holds. Default: no
    /// limit beyond each queue's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_capacity: Option<u64>,
    /// Largest frame in bytes, Ethernet header included (default
    /// [`DEFAULT_MAX_FRAME`]). Routing uses a circuit in a slice only if its
    /// usable window carries one such frame (docs/time-model.md).
    #[serde(default)]
    pub max_frame: Option<u32>,
    /// Hybrid traffic-oblivious fabric (TDTCP's hybrid RotorNet): one
    /// electrical uplink at this rate, index `uplinks`, after the optical
    /// ones; it reaches every ToR at any time. Only for mode TO on an
    /// optical fabric (TA hybrids use `ta.electrical_rate`).
    #[serde(default)]
    pub electrical_rate: Option<BitsPerSec>,
    /// Percent of frames an optical circuit loses on the way to the peer
    /// ToR (Mininet's `loss=` on a switch link), each a seeded draw
    /// (`hosts.link.seed`, else 1) counted as `link_loss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_loss: Option<LossPercent>,
    /// Every optical circuit's delay spreads over `slice.propagation`
    /// plus or minus this (uniformly, at least 0; frames kept in order),
    /// as Mininet's `jitter=` on a switch link; a seeded draw
    /// (`hosts.link.seed`, else 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_jitter: Option<Nanos>,
}

/// Default `tors.max_frame`: a 1500-byte MTU plus the 14-byte Ethernet
/// header.
pub const DEFAULT_MAX_FRAME: u32 = 1514;

/// A loss probability given in percent (0 to 100), kept in parts per
/// billion so that configs stay comparable (`Eq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LossPercent(pub u32);

impl LossPercent {
    pub const BILLION: u32 = 1_000_000_000;
    pub fn percent(self) -> f64 {
        self.0 as f64 / 1e7
    }
}

impl Serialize for LossPercent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.percent())
    }
}

impl<'de> Deserialize<'de> for LossPercent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let p = f64::deserialize(d)?;
        if !(0.0..=100.0).contains(&p) {
            return Err(serde::de::Error::custom(format!(
                "expected a loss in percent, 0 to 100, got {p}"
            )));
        }
        Ok(LossPercent((p * 1e7).round() as u32))
    }
}
