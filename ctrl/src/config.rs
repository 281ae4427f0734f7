//! config.json: the physical DCN and the choices of topology, routing and
//! monitoring (paper §3). Reference: docs/config.md, schema: docs/config.schema.json.
//!
//! Parsing rejects unknown fields, and every error names the JSON path of the
//! offending field (`$.tors.uplinks`) and what was expected.

use crate::units::{BitsPerSec, Nanos};
use crate::{PortId, TorId};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file cannot be read as text (`err` names the file).
    #[error("{err}")]
    Io {
        file: String,
        err: crate::textfile::TextError,
    },
    /// A syntax or type error, or an unknown field.
    #[error("{file}: at {path}: {msg}")]
    Parse {
        file: String,
        path: String,
        msg: String,
    },
    /// A semantic error found after parsing.
    #[error("{file}: at {path}: {msg}")]
    Invalid {
        file: String,
        path: String,
        msg: String,
    },
}

impl ConfigError {
    /// The JSON path the error is about (`$` for the whole document).
    pub fn json_path(&self) -> &str {
        match self {
            ConfigError::Io { .. } => "$",
            ConfigError::Parse { path, .. } | ConfigError::Invalid { path, .. } => path,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Traffic-oblivious: a fixed cyclic schedule of time slices.
    TO,
    /// Traffic-aware: topologies computed from a traffic matrix, changed every
    /// `ta.update_interval`; tables use wildcard slices.
    TA,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FabricKind {
    /// ToRs meet through OCSes.
    #[default]
    Optical,
    /// ToRs meet through electrical packet switches (Clos baseline): uplink
    /// `p` of every ToR goes to spine `p`, which reaches every ToR.
    Electrical,
    /// A k-ary Fat-Tree of electrical packet switches (SOPA, Al-Fares et
    /// al.): the ToRs are its edge switches, with aggregation and core
    /// switches above them (`topology.kind` `fat_tree`, `ctrl/src/fattree/`).
    #[serde(rename = "fattree")]
    FatTree,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free text used in summaries and as the default run label.
    #[serde(default)]
    pub name: Option<String>,
    pub mode: Mode,
    #[serde(default)]
    pub fabric: FabricKind,
    pub tors: Tors,
    /// Absent for an electrical fabric.
    #[serde(default)]
    pub ocs: Option<Ocs>,
    pub slice: SliceTiming,
    pub topology: Topology,
    pub routing: Routing,
    #[serde(default)]
    pub monitoring: Vec<Monitor>,
    /// Required when `mode` is TA.
    #[serde(default)]
    pub ta: Option<TaSettings>,
    /// The ToR and host systems of paper §6–§7 (occupancy estimation,
    /// slice-miss detection, traffic push-back); absent: defaults.
    #[serde(default)]
    pub tor: Option<TorSystem>,
    /// The emulated hosts' kernel settings (TCP knobs per host namespace);
    /// absent: the kernel's defaults.
    #[serde(default)]
    pub hosts: Option<HostsCfg>,
    /// Directory the config was read from; relative file names resolve here.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

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
    /// as queue full. Default: [`Config::queue_capacity_bytes`].
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ocs {
    pub count: u16,
    /// Ports per OCS.
    pub ports: u16,
    pub reconfiguration_delay: Nanos,
    /// `"auto"`: uplink `p` of ToR `t` goes to OCS `p % count`, port
    /// `t + (p / count) * tors`; or an explicit list.
    pub cabling: Cabling,
}

/// Deserialized by hand (not `untagged`) so that an error inside one cable
/// keeps its path, e.g. `$.ocs.cabling[3].ocs_port`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cabling {
    Auto(AutoCabling),
    Explicit(Vec<Cable>),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoCabling {
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cable {
    pub tor: TorId,
    pub port: PortId,
    pub ocs: u16,
    pub ocs_port: u16,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SliceTiming {
    /// Slice duration (TO). In TA mode the topology holds for
    /// `ta.update_interval` instead, and this is the data-plane tick.
    pub duration: Nanos,
    /// Dead time at the start of a slice on a circuit that changed.
    pub guardband: Nanos,
    /// One-way propagation delay per fabric link (emulated in software).
    #[serde(default)]
    pub propagation: Nanos,
}

/// Deserialized by hand (`config/de.rs`): serde's internally tagged enums
/// accept unknown fields in unit variants and lose the path of inner errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// RotorNet / Sirius: circle-method perfect matchings, N-1 per cycle.
    RoundRobin,
    /// Opera: N/u matchings per rotor, rotors offset so that exactly one
    /// reconfigures in each slice, every slice graph connected.
    Opera {
        #[serde(default)]
        seed: Option<u64>,
    },
    /// Shale: N = n^h, h(n-1) directed cyclic-shift slots per epoch.
    Shale { h: u32 },
    /// A fixed topology (Clos and TA base topologies).
    Static { graph: StaticGraph },
    /// TA: computed from a traffic matrix by `ta.scheduler`.
    TrafficAware,
    /// An explicit schedule file (see docs/config.md#schedule-files).
    File { path: PathBuf },
    /// A k-ary Fat-Tree (fabric `fattree`): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)² cores, k³/4 hosts.
    FatTree { k: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaticGraph {
    /// Uplink p of ToR t connects to ToR t ± (p/2+1) (a ring / circulant).
    Ring,
    /// Every ToR reaches every ToR (electrical fabric only).
    Full,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Direct,
    Vlb,
    Opera,
    Ucmp,
    Hoho,
    ShortestPath,
    Ecmp,
    Ksp,
    /// Fat-Tree: random next hop per packet (random packet spraying).
    Rps,
    /// Fat-Tree: the source edge switch writes a source route, paths
    /// round-robin per packet (SOPA).
    Sopa,
    /// Fat-Tree: ECMP, plus a central scheduler that places elephant flows
    /// on measured demand with global first fit every
    /// `routing.hedera_interval` (Hedera).
    Hedera,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// Per-hop lookup: each ToR matches (dst, arrival slice).
    #[default]
    Hop,
    /// Source routing: the first ToR writes the whole hop list.
    Source,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Multipath {
    #[default]
    None,
    Packet,
    Flow,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    pub algorithm: Algorithm,
    #[serde(default)]
    pub lookup: Lookup,
    #[serde(default)]
    pub multipath: Multipath,
    /// Hop budget for earliest-path searches (default: algorithm's own).
    #[serde(default)]
    pub max_hop: Option<u8>,
    /// Allow several hops inside one slice (Opera style). Default: false for
    /// RotorNet-style algorithms, true for `opera`.
    #[serde(default)]
    pub same_slice_hops: Option<bool>,
    /// k for `ksp`; number of hash buckets for multipath (default 4).
    #[serde(default)]
    pub k: Option<u8>,
    /// Seed for randomised choices (VLB intermediates, RPS next hops).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Fat-Tree: how long after a link fails the paths over it are
    /// withdrawn (until then its frames are dropped as `link_down`).
    /// Default [`DEFAULT_FAILURE_DETECTION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_detection: Option<Nanos>,
    /// Hedera: how often the scheduler measures flows and places the
    /// elephants. Default [`DEFAULT_HEDERA_INTERVAL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hedera_interval: Option<Nanos>,
    /// Opera: flows of at least this many bytes are bulk (the direct
    /// path). Default: one cycle of one uplink (`routing::opera::bulk_threshold`);
    /// the Opera authors ran 15 MB and 30 MB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_threshold: Option<u64>,
    /// Opera: how bulk flows cross the fabric (`direct`: wait for the
    /// direct circuit; `rotorlb`: RotorLB, direct circuits plus two-hop
    /// indirection through spare capacity). Default direct.
    #[serde(default, skip_serializing_if = "BulkTransport::is_default")]
    pub bulk: BulkTransport,
}

/// `routing.bulk`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BulkTransport {
    /// Each bulk frame waits at its ToR for the direct circuit to its
    /// destination ToR (a calendar queue).
    #[default]
    Direct,
    /// RotorLB (RotorNet §4.2, Opera §3.4): per-destination queues at the
    /// ToR; in each slice a circuit carries relayed traffic for its peer,
    /// then direct traffic, then, with the capacity left, traffic for other
    /// ToRs that the peer has room to deliver (two hops at most).
    Rotorlb,
}

impl BulkTransport {
    fn is_default(&self) -> bool {
        *self == BulkTransport::Direct
    }
}

/// Default `routing.hedera_interval`.
pub const DEFAULT_HEDERA_INTERVAL: Nanos = Nanos(100_000_000);

/// Default `routing.failure_detection`.
pub const DEFAULT_FAILURE_DETECTION: Nanos = Nanos(1_000_000);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    BufferUsage,
    BwUsage,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Monitor {
    pub metric: Metric,
    /// A ToR index; absent means every ToR.
    #[serde(default)]
    pub tor: Option<TorId>,
    /// An uplink index; absent means every port.
    #[serde(default)]
    pub port: Option<PortId>,
    pub interval: Nanos,
}

/// `tor.on_slice_miss`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SliceMissAction {
    #[default]
    Defer,
    Drop,
}

impl SliceMissAction {
    fn is_default(&self) -> bool {
        *self == SliceMissAction::Defer
    }
}

/// `tor`: optional mechanisms of the ToR and host systems (paper §6–§7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorSystem {
    /// How admission learns a calendar queue's occupancy.
    #[serde(default)]
    pub occupancy: OccupancyMode,
    /// Slice-miss detection (§6.2); false: frames go to their primary
    /// calendar queue while its buffer lasts. Default true.
    #[serde(default = "yes")]
    pub slice_miss_detection: bool,
    /// What a frame that fits no action's slice meets: `defer` (the
    /// primary calendar queue keeps it, a cycle later: UCMP, HOHO) or
    /// `drop` (Opera caps its queues and drops, §6.2 [29]). Default defer.
    #[serde(default, skip_serializing_if = "SliceMissAction::is_default")]
    pub on_slice_miss: SliceMissAction,
    /// Traffic push-back (§7); absent: off.
    #[serde(default)]
    pub pushback: Option<PushbackWhen>,
    /// Flow pausing at the hosts (§7); absent: off.
    #[serde(default)]
    pub flow_pausing: Option<FlowPausingCfg>,
    /// Buffer offloading to the hosts (§7); absent: off.
    #[serde(default)]
    pub offload: Option<OffloadCfg>,
}

/// `tor.offload`: each ToR keeps `queues` calendar queues per uplink (the
/// nearest slices); frames for later slices wait at its hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffloadCfg {
    pub queues: u16,
}

/// `tor.flow_pausing`: elephants (by flow aging) wait at their host for
/// their direct circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowPausingCfg {
    /// A flow that sent at least this many aged bytes is an elephant.
    pub elephant_bytes: u64,
    /// Flow byte counts halve every `aging`.
    pub aging: Nanos,
}

fn yes() -> bool {
    true
}

/// `"exact"` or `{"estimated": {"update_interval": "1us"}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OccupancyMode {
    #[default]
    Exact,
    Estimated {
        update_interval: Nanos,
    },
}

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

/// `"first_rejection"` or `{"after_reroutes": N}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushbackWhen {
    /// The first time a frame's primary calendar queue refuses it.
    FirstRejection,
    /// After N frames towards the same destination ToR were rerouted to an
    /// alternate in one slice.
    AfterReroutes(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    Bvn,
    Hotspot,
    Mip,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaSettings {
    pub update_interval: Nanos,
    pub scheduler: Scheduler,
    /// ToR-level traffic matrix in bytes: inline rows, or a file name.
    pub traffic_matrix: TrafficMatrixSrc,
    /// Hybrid (c-Through): an electrical fabric with this rate carries
    /// what has no circuit.
    #[serde(default)]
    pub electrical_rate: Option<BitsPerSec>,
}

/// Deserialized by hand (not `untagged`) so that a bad entry keeps its path,
/// e.g. `$.ta.traffic_matrix[2][5]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TrafficMatrixSrc {
    Inline(Vec<Vec<u64>>),
    File(PathBuf),
}

impl Topology {
    /// The `kind` tag as written in config.json.
    pub fn kind(&self) -> TopologyKind {
        match self {
            Topology::RoundRobin => TopologyKind::RoundRobin,
            Topology::Opera { .. } => TopologyKind::Opera,
            Topology::Shale { .. } => TopologyKind::Shale,
            Topology::Static { .. } => TopologyKind::Static,
            Topology::TrafficAware => TopologyKind::TrafficAware,
            Topology::File { .. } => TopologyKind::File,
            Topology::FatTree { .. } => TopologyKind::FatTree,
        }
    }
}

impl Config {
    /// Parse and validate a config from JSON text. `file` names the source in
    /// errors. Relative file names in the config resolve against the current
    /// directory; use [`Config::from_json_in`] to give another one.
    pub fn from_json(text: &str, file: &str) -> Result<Config, ConfigError> {
        Config::from_json_in(text, file, Path::new(""))
    }

    /// Like [`Config::from_json`], with relative file names (topology and
    /// traffic-matrix files) resolved against `base_dir`.
    pub fn from_json_in(text: &str, file: &str, base_dir: &Path) -> Result<Config, ConfigError> {
        let mut cfg = Config::parse_json(text, file)?;
        cfg.base_dir = base_dir.to_path_buf();
        cfg.validate(file)?;
        Ok(cfg)
    }

    /// Parse without semantic validation (types, units and unknown fields are
    /// still checked). `base_dir` is left empty.
    pub fn parse_json(text: &str, file: &str) -> Result<Config, ConfigError> {
        // A UTF-8 byte-order mark is not JSON, but editors write it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        let cfg: Config = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| parse_error(file, &e.path().to_string(), &e.into_inner().to_string()))?;
        // Trailing characters after the document.
        de.end()
            .map_err(|e| parse_error(file, "", &e.to_string()))?;
        Ok(cfg)
    }

    /// Read, parse and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = crate::textfile::read_text(path).map_err(|err| ConfigError::Io {
            file: file.clone(),
            err,
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Config::from_json_in(&text, &file, &base)
    }

    /// Semantic checks that types cannot express. Each names the JSON path.
    /// Relative file names resolve against `self.base_dir`.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        crate::config::validate::validate(self, file)
    }

    /// Every semantic error, in the order the checks run (empty when valid).
    pub fn validate_all(&self, file: &str) -> Vec<ConfigError> {
        crate::config::validate::validate_all(self, file)
    }

    /// Number of hosts in the whole network.
    pub fn host_count(&self) -> usize {
        self.tors.count as usize * self.tors.hosts_per_tor as usize
    }

    /// A file name from the config, resolved against the config's directory.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    /// OCS reconfiguration delay (zero for an electrical fabric).
    pub fn reconfiguration_delay(&self) -> Nanos {
        self.ocs
            .as_ref()
            .map(|o| o.reconfiguration_delay)
            .unwrap_or_default()
    }

    /// Dark time at the start of a slice on a changed circuit:
    /// `max(guardband, reconfiguration_delay)` (they overlap, paper §9.3).
    pub fn dark_time(&self) -> Nanos {
        self.slice.guardband.max(self.reconfiguration_delay())
    }

    /// How long one topology holds: the slice in TO mode, the update interval
    /// in TA mode (falling back to the slice if `ta` is absent).
    pub fn topology_period(&self) -> Nanos {
        match (self.mode, &self.ta) {
            (Mode::TA, Some(ta)) => ta.update_interval,
            _ => self.slice.duration,
        }
    }

    /// Bytes one uplink carries in one slice of usable time:
    /// `link_rate × (duration − max(guardband, reconfiguration_delay))`.
    /// In TA mode circuits change only every `ta.update_interval`, so a slice
    /// (the data-plane tick) loses only the guardband.
    pub fn bytes_per_slice(&self) -> u64 {
        let dark = match self.mode {
            Mode::TO => self.dark_time(),
            Mode::TA => self.slice.guardband,
        };
        let usable = Nanos(self.slice.duration.0.saturating_sub(dark.0));
        self.tors.link_rate.bytes_in(usable)
    }

    /// Calendar-queue buffer in bytes: `tors.queue_capacity`, or eight
    /// slices' worth of bytes and at least 64 KiB. The buffer is separate
    /// from what a slice can carry ([`Config::bytes_per_slice`], which
    /// slice-miss detection uses): frames beyond a slice's capacity that no
    /// alternate takes wait a cycle in the buffer instead of being lost.
    pub fn queue_capacity_bytes(&self) -> u64 {
        self.tors
            .queue_capacity
            .unwrap_or_else(|| (8 * self.bytes_per_slice()).max(64 * 1024))
    }

    /// The rate of the electrical uplink of a hybrid fabric:
    /// `tors.electrical_rate` (TO) or `ta.electrical_rate` (TA, c-Through).
    pub fn electrical_rate(&self) -> Option<BitsPerSec> {
        self.tors
            .electrical_rate
            .or_else(|| self.ta.as_ref().and_then(|t| t.electrical_rate))
    }

    /// `tors.max_frame` or its default, in bytes.
    pub fn max_frame(&self) -> u64 {
        self.tors.max_frame.unwrap_or(DEFAULT_MAX_FRAME) as u64
    }

    /// Routing knobs with their defaults filled in.
    /// The fat tree of a config whose topology is one (`None` otherwise, or
    /// for a `k` that [`crate::fattree::FatTree::new`] refuses, which
    /// validation reports). (Here, not in `fattree`: the fat tree's shape
    /// does not depend on the config; the config knows its topology.)
    pub fn fat_tree(&self) -> Option<crate::fattree::FatTree> {
        match self.topology {
            Topology::FatTree { k } => crate::fattree::FatTree::new(k).ok(),
            _ => None,
        }
    }

    /// True when the schedule is a multi-slice TO cycle (routing must be
    /// time-aware), false for static, electrical and TA topologies.
    pub fn is_cyclic(&self) -> bool {
        self.mode == Mode::TO
            && self.fabric == FabricKind::Optical
            && matches!(
                self.topology.kind(),
                TopologyKind::RoundRobin
                    | TopologyKind::Opera
                    | TopologyKind::Shale
                    | TopologyKind::File
            )
    }

    /// The TA traffic matrix: the inline rows, or the file read from disk.
    /// A file holds either JSON (a list of rows) or one row per line of
    /// integers separated by spaces or commas (`#` starts a comment).
    /// Errors name `$.ta.traffic_matrix`. The shape is not checked here.
    pub fn traffic_matrix(&self) -> Result<Vec<Vec<u64>>, ConfigError> {
        let Some(ta) = &self.ta else {
            return Err(ConfigError::Invalid {
                file: self.name.clone().unwrap_or_else(|| "config".into()),
                path: "$.ta".into(),
                msg: "expected a `ta` object with a traffic matrix".into(),
            });
        };
        match &ta.traffic_matrix {
            TrafficMatrixSrc::Inline(rows) => Ok(rows.clone()),
            TrafficMatrixSrc::File(p) => read_traffic_matrix(&self.resolve(p)),
        }
    }

    /// The OCS port each ToR uplink is cabled to, indexed
    /// `[tor * uplinks + port]` as `(ocs, ocs_port)`.
    pub fn cabling(&self) -> Vec<(u16, u16)> {
        let n = self.tors.count as usize;
        let u = self.tors.uplinks as usize;
        let Some(ocs) = &self.ocs else {
            return Vec::new();
        };
        match &ocs.cabling {
            Cabling::Auto(_) => {
                let count = ocs.count.max(1) as usize;
                (0..n * u)
                    .map(|i| {
                        let (t, p) = (i / u, i % u);
                        ((p % count) as u16, (t + (p / count) * n) as u16)
                    })
                    .collect()
            }
            Cabling::Explicit(list) => {
                let mut v = vec![(u16::MAX, u16::MAX); n * u];
                for c in list {
                    let i = c.tor as usize * u + c.port as usize;
                    if c.port as usize >= u {
                        continue;
                    }
                    if i < v.len() {
                        v[i] = (c.ocs, c.ocs_port);
                    }
                }
                v
            }
        }
    }
}

/// Read a traffic-matrix file (JSON rows, or whitespace/comma separated text).
pub fn read_traffic_matrix(path: &Path) -> Result<Vec<Vec<u64>>, ConfigError> {
    let file = path.display().to_string();
    let bad = |msg: String| ConfigError::Invalid {
        file: file.clone(),
        path: "$.ta.traffic_matrix".into(),
        msg,
    };
    let text = crate::textfile::read_text(path)
        .map_err(|e| bad(format!("expected a readable traffic-matrix file, but {e}")))?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "expected a JSON list of rows of non-negative integers: {e}"
            ))
        });
    }
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let row: Result<Vec<u64>, _> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(str::parse::<u64>)
            .collect();
        rows.push(row.map_err(|e| {
            bad(format!(
                "line {}: expected non-negative integers separated by spaces or commas: {e}",
                i + 1
            ))
        })?);
    }
    Ok(rows)
}

/// Turn a serde_path_to_error report into a `Parse` error whose path points
/// at the field itself (serde reports a missing field at its parent) and
/// whose message says what was expected.
fn parse_error(file: &str, raw_path: &str, msg: &str) -> ConfigError {
    let mut path = json_path(raw_path);
    // serde_json ends messages with " at line L column C"; hints go before it.
    let (body, at) = match msg.rfind(" at line ") {
        Some(i) => msg.split_at(i),
        None => (msg, ""),
    };
    let mut msg = body.to_string();
    if let Some(rest) = msg.strip_prefix(de::FIELD_MARK) {
        if let Some((field, m)) = rest.split_once(de::FIELD_MARK) {
            path = format!("{path}.{field}");
            msg = m.to_string();
        }
    } else if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            path = format!("{path}.{field}");
            msg = match field_hint(&path) {
                Some(h) => format!("missing required field `{field}`: expected {h}{tail}"),
                None => format!("missing required field `{field}`{tail}"),
            };
        }
    } else if (msg.starts_with("invalid type") || msg.starts_with("invalid value"))
        && let Some(h) = field_hint(&path)
    {
        msg = format!("{msg} ({h})");
    }
    ConfigError::Parse {
        file: file.to_string(),
        path,
        msg: format!("{msg}{at}"),
    }
}

/// What a field holds, for error messages. Indices are ignored.
pub fn field_hint(path: &str) -> Option<&'static str> {
    // `$.ocs.cabling[3].tor` -> `$.ocs.cabling[].tor`
    let mut p = String::with_capacity(path.len());
    let mut skip = false;
    for c in path.chars() {
        match c {
            '[' => {
                skip = true;
                p.push('[');
            }
            ']' => {
                skip = false;
                p.push(']');
            }
            _ if !skip => p.push(c),
            _ => {}
        }
    }
    Some(match p.as_str() {
        "$.name" => "a string naming the setup",
        "$.mode" => "\"TO\" (traffic-oblivious) or \"TA\" (traffic-aware)",
        "$.fabric" => "\"optical\" or \"electrical\"",
        "$.tors" => "an object {count, uplinks, link_rate, hosts_per_tor, host_link_rate}",
        "$.tors.count" => "the number of ToRs, an integer >= 2",
        "$.tors.uplinks" => "optical (or spine) uplinks per ToR, an integer 1..=255",
        "$.tors.link_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.tors.hosts_per_tor" => "hosts under each ToR, an integer >= 1",
        "$.tors.host_link_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.tors.queue_capacity" => "bytes per calendar queue, a positive integer",
        "$.tors.buffer_capacity" => {
            "bytes of buffer a ToR shares among its calendar queues, an integer >= 1500"
        }
        "$.tors.max_frame" => "the largest frame in bytes, an integer 64..=65535",
        "$.tors.electrical_rate" => "a rate with a unit, like \"100Mbps\"",
        "$.tors.link_loss" => "a percentage of frames lost on a circuit, 0 to 100",
        "$.tors.link_jitter" => "a time with a unit, like \"2ms\"",
        "$.ocs" => "an object {count, ports, reconfiguration_delay, cabling}",
        "$.ocs.count" => "the number of OCSes, an integer >= 1",
        "$.ocs.ports" => "ports per OCS, an integer >= 2",
        "$.ocs.reconfiguration_delay" => "a duration with a unit, like \"10us\"",
        "$.ocs.cabling" => "\"auto\" or a list of cables {tor, port, ocs, ocs_port}",
        "$.ocs.cabling[]" => "a cable {tor, port, ocs, ocs_port}",
        "$.ocs.cabling[].tor" => "a ToR index, an integer",
        "$.ocs.cabling[].port" => "a ToR uplink index, an integer 0..=255",
        "$.ocs.cabling[].ocs" => "an OCS index, an integer",
        "$.ocs.cabling[].ocs_port" => "an OCS port index, an integer",
        "$.slice" => "an object {duration, guardband, propagation}",
        "$.slice.duration" => "a duration with a unit, like \"50us\"",
        "$.slice.guardband" => "a duration with a unit, like \"200ns\"",
        "$.slice.propagation" => "a duration with a unit, like \"1us\"",
        "$.topology" => "an object with a `kind`",
        "$.topology.kind" => {
            "one of \"round_robin\", \"opera\", \"shale\", \"static\", \"traffic_aware\", \"file\""
        }
        "$.topology.seed" => "a non-negative integer",
        "$.topology.h" => "the number of Shale digits, an integer >= 1",
        "$.topology.graph" => "\"ring\" or \"full\"",
        "$.topology.path" => "a schedule file name",
        "$.routing" => "an object with an `algorithm`",
        "$.routing.algorithm" => {
            "one of \"direct\", \"vlb\", \"opera\", \"ucmp\", \"hoho\", \"shortest_path\", \"ecmp\", \"ksp\""
        }
        "$.routing.lookup" => "\"hop\" or \"source\"",
        "$.routing.multipath" => "\"none\", \"packet\" or \"flow\"",
        "$.routing.max_hop" => "a hop budget, an integer 1..=255",
        "$.routing.same_slice_hops" => "true or false",
        "$.routing.k" => "an integer 1..=255",
        "$.routing.seed" => "a non-negative integer",
        "$.monitoring" => "a list of monitors {metric, tor, port, interval}",
        "$.monitoring[]" => "a monitor {metric, tor, port, interval}",
        "$.monitoring[].metric" => "\"buffer_usage\" or \"bw_usage\"",
        "$.monitoring[].tor" => "a ToR index, an integer",
        "$.monitoring[].port" => "an uplink index, an integer 0..=255",
        "$.monitoring[].interval" => "a duration with a unit, like \"1ms\"",
        "$.ta" => "an object {update_interval, scheduler, traffic_matrix}",
        "$.ta.update_interval" => "a duration with a unit, like \"10ms\"",
        "$.ta.scheduler" => "\"bvn\", \"hotspot\" or \"mip\"",
        "$.ta.traffic_matrix" => "a file name or a list of rows of byte counts",
        "$.ta.traffic_matrix[]" => "a row of byte counts",
        "$.ta.traffic_matrix[][]" => "a byte count, a non-negative integer",
        "$.ta.electrical_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.hosts" => "an object {tcp}",
        "$.hosts.tcp" => {
            "an object {reordering, max_reordering, sack, receive_buffer, congestion_control, rto_min, otcp}"
        }
        "$.hosts.tcp.reordering" => "net.ipv4.tcp_reordering, an integer 1..=300",
        "$.hosts.tcp.max_reordering" => "net.ipv4.tcp_max_reordering, an integer 1..=300",
        "$.hosts.tcp.sack" => "net.ipv4.tcp_sack, a boolean",
        "$.hosts.tcp.receive_buffer" => "bytes, an integer 4096..=67108864",
        "$.hosts.tcp.congestion_control" => {
            "a congestion control module name, like \"cubic\" or \"reno\""
        }
        "$.hosts.tcp.rto_min" => "a duration in whole milliseconds, like \"5ms\"",
        "$.hosts.tcp.otcp" => "an object {fan_in, host_overhead, socket_rto_max}",
        "$.hosts.tcp.otcp.fan_in" => "the expected flow fan-in, an integer 1..=65535",
        "$.hosts.tcp.otcp.host_overhead" => "a duration with a unit, like \"30us\"",
        "$.hosts.tcp.otcp.socket_rto_max" => {
            "a duration in whole milliseconds from 1s to 120s, like \"1s\""
        }
        _ => return None,
    })
}

/// serde_path_to_error prints `tors.uplinks` or `.`; we print `$.tors.uplinks`.
fn json_path(p: &str) -> String {
    if p.is_empty() || p == "." {
        "$".to_string()
    } else if p.starts_with('[') {
        format!("${p}")
    } else {
        format!("$.{p}")
    }
}

mod de;
pub mod validate;

pub use de::TopologyKind;
