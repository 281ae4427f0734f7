//! What [`Network`](crate::net::Network)'s operations return: plain values
//! (`serde::Serialize`, so `lighthouse run --json`, the Python binding and
//! the dashboard see the same fields), never text, or why one did not give
//! its value ([`NetworkError`], error.rs). [`crate::text::view`] renders
//! each of them as the CLI prints it.
//!
//! A module of its own, below both [`crate::net`], which returns them, and
//! [`crate::text`], which renders them: in `net` they made text and net
//! use each other (issue 43). `lh_emu::net::values` and
//! `lh_emu::net::NetworkError` are re-exports of it.

mod error;

pub use error::NetworkError;

use lh_ctrl::compile::Compiled;
use lh_ctrl::{PortId, SliceId, TorId};
use serde::Serialize;

/// `nodes`: hosts, then switches (ToRs, then a fat tree's inner switches).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Nodes {
    pub hosts: Vec<String>,
    pub switches: Vec<String>,
}

/// One interface of a node and the far end(s) it connects to (an optical
/// uplink lists every ToR uplink the OCS gives it over the cycle,
/// comma-separated, as Mininet's `net` prints one peer).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Intf {
    pub name: String,
    pub peer: Option<String>,
}

/// A node and its interfaces, in Mininet's order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeIntfs {
    pub node: String,
    pub intfs: Vec<Intf>,
}

/// `net`, `intfs` and `ports`: every node's interfaces (`ports`: the
/// switches only, an interface's index is its port number).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetView {
    pub nodes: Vec<NodeIntfs>,
}

/// One link and whether each end is up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub a: String,
    pub b: String,
    pub a_up: bool,
    pub b_up: bool,
}

/// `links`: host links, then ToR uplinks (each circuit pair of the cycle
/// once) or a fat tree's switch links.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Links {
    pub links: Vec<Link>,
}

/// One node as `dump` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DumpNode {
    /// `Host`, `OpticalToR`, `P4ToR` or `FatTreeSwitch`.
    pub class: &'static str,
    pub name: String,
    /// Interfaces and their addresses.
    pub intfs: Vec<(String, Option<String>)>,
    pub pid: u32,
}

/// `dump`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dump {
    pub nodes: Vec<DumpNode>,
}

/// One echo: its destination and round-trip time (`None`: no reply).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PingResult {
    pub dst: String,
    pub rtt_ms: Option<f64>,
}

/// One source's pings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PingRow {
    pub src: String,
    pub results: Vec<PingResult>,
}

/// `pingall`, `pingpair` and their `full` forms: every row, and the totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PingAll {
    pub rows: Vec<PingRow>,
    pub sent: u64,
    pub received: u64,
    /// All hosts (`pingall`: the header is printed) or a given set.
    pub all: bool,
    /// Per-pair lines instead of the summary (`pingallfull`).
    pub full: bool,
}

/// What a ping run reports while it runs (rows take a circuit wait each).
#[derive(Clone, Copy, Debug)]
pub enum PingEvent<'a> {
    /// A source's pings start.
    Source(&'a str),
    /// A source's row is done.
    Row(&'a PingRow),
}

/// `iperf` (TCP) and `iperfudp`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Iperf {
    /// `TCP` or `UDP`.
    pub l4: &'static str,
    pub client: String,
    pub server: String,
    /// UDP: the rate asked for, as given (`10M`).
    pub bw: Option<String>,
    /// Received at the server, bits/s.
    pub server_bps: f64,
    /// Sent by the client, bits/s.
    pub client_bps: f64,
}

/// `flow`: one TCP flow with the built-in flow tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flow {
    pub client: String,
    pub server: String,
    pub bytes: u64,
    pub server_bps: f64,
    pub client_bps: f64,
    pub fct_ns: u64,
}

pub use crate::traffic::workload::fct::{FlowRecord, Summary};

pub use crate::traffic::workload::FlowSummary;

/// `memcached`: one record per SET.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Memcached {
    pub server: String,
    pub clients: Vec<String>,
    pub records: Vec<FlowRecord>,
    /// SET latencies of the completed SETs, ns.
    pub latencies_ns: Vec<u64>,
    pub summary: Summary,
    pub elapsed_s: f64,
}

/// `allreduce`: completion times of the iterations and the bus bandwidth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Allreduce {
    pub hosts: Vec<String>,
    pub bytes: u64,
    pub iterations: usize,
    pub times_ns: Vec<u64>,
    /// NCCL's bus bandwidth at the median time, bits/s.
    pub bus_bps: f64,
}

/// One circuit of a slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Circuit {
    pub a_tor: TorId,
    pub a_port: PortId,
    pub b_tor: TorId,
    pub b_port: PortId,
    /// Set up at this slice (it was not there in the slice before).
    pub reconfigured: bool,
}

/// `schedule [ts]` (and `lighthouse show --slice`): one slice's circuits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceView {
    pub slice: SliceId,
    pub slices: usize,
    pub duration: String,
    pub guardband: String,
    pub optical_uplinks: usize,
    pub circuits: Vec<Circuit>,
    /// Electrical uplinks: port and rate (they reach every ToR always).
    pub electrical: Vec<(PortId, String)>,
}

impl SliceView {
    pub fn of(c: &Compiled, ts: SliceId) -> SliceView {
        SliceView::on(&c.config, &c.schedule, ts)
    }

    /// Slice `ts` of any schedule on `cfg`'s fabric (a script's `topo()`
    /// before it is compiled).
    pub fn on(
        cfg: &lh_ctrl::config::Config,
        s: &lh_ctrl::schedule::Schedule,
        ts: SliceId,
    ) -> SliceView {
        let c = cfg;
        SliceView {
            slice: ts,
            slices: s.slices(),
            duration: c.slice.duration.to_string(),
            guardband: c.slice.guardband.to_string(),
            optical_uplinks: s.optical_uplinks(),
            circuits: s
                .circuits(ts)
                .into_iter()
                .map(|(a, b)| Circuit {
                    a_tor: a.tor,
                    a_port: a.port,
                    b_tor: b.tor,
                    b_port: b.port,
                    reconfigured: s.changed(ts, a),
                })
                .collect(),
            electrical: (s.optical_uplinks()..s.uplinks())
                .map(|p| {
                    let p = p as PortId;
                    let rate = lh_ctrl::schedule::timing::port_rate(c, s, p);
                    (p, rate.to_string())
                })
                .collect(),
        }
    }
}

/// `slice`: where the data plane is in the cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceNow {
    pub slice: SliceId,
    pub slices: usize,
    pub cycle: u64,
}

impl SliceNow {
    /// Where `clock` is now, in a cycle of `slices`.
    pub fn at(clock: &swtor::SliceClock, slices: usize) -> SliceNow {
        let (slice, cycle) = clock.slice_of(swtor::monotonic_ns());
        SliceNow {
            slice,
            slices,
            cycle,
        }
    }
}

/// What a BMv2 ToR's program has loaded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct P4Table {
    pub entries: usize,
    /// Entries in its `time_flow` table, or why they could not be read.
    pub time_flow: Result<u64, String>,
    pub thrift_port: u16,
}

/// `table <tor>` (and `lighthouse show --tor`): a ToR's time-flow table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableView {
    pub tor: TorId,
    pub lookup: String,
    pub entries: Vec<lh_ctrl::tables::Entry>,
    pub p4: Option<P4Table>,
}

impl TableView {
    /// `None`: no such ToR.
    pub fn of(c: &Compiled, t: TorId) -> Option<TableView> {
        let tbl = c.tables.tors.iter().find(|x| x.tor == t)?;
        Some(TableView {
            tor: t,
            lookup: format!("{:?}", c.tables.lookup),
            entries: tbl.iter().map(|e| e.to_entry()).collect(),
            p4: None,
        })
    }
}

/// `buffer_usage` and `bw_usage` (the paper's Table 1): one sample per
/// ToR uplink, as the `--telemetry` stream writes them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Usage {
    pub metric: &'static str,
    pub interval: String,
    pub samples: Vec<crate::control::telemetry::Sample>,
}

/// `queues <tor>`: bytes per calendar queue (row: uplink, column:
/// departure slice), and a BMv2 ToR's own occupancy estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Queues {
    pub tor: TorId,
    pub bytes: Vec<Vec<u64>>,
    pub p4_estimate: Option<Vec<Vec<u64>>>,
}

/// Kernel drop counters of some interfaces (summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IfaceDrops {
    pub rx_dropped: u64,
    pub tx_dropped: u64,
    pub rx_errors: u64,
    pub tx_errors: u64,
}

impl IfaceDrops {
    pub fn add(&mut self, o: &IfaceDrops) {
        self.rx_dropped += o.rx_dropped;
        self.tx_dropped += o.tx_dropped;
        self.rx_errors += o.rx_errors;
        self.tx_errors += o.tx_errors;
    }
}

/// The conservation line: every frame the data plane took in is
/// delivered, dropped (with a reason) or still queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub queued: u64,
    /// Held at hosts' NICs by the §7 mechanisms (push-back, flow pausing,
    /// offloading): sent, not yet in the fabric's queues.
    pub held: u64,
    /// Inside BMv2 ToRs or on their veths (0 without BMv2 ToRs).
    pub in_flight: i64,
    pub holds: bool,
}

impl Conservation {
    /// The terms from the data plane's counters and the P4 ToRs' (if any).
    pub fn of(c: &swtor::Counters, p4: Option<&crate::tor::bmv2::P4Counters>) -> Conservation {
        let t = crate::tor::fabric::Totals::of(c, p4);
        Conservation {
            sent: t.sent,
            delivered: t.delivered,
            dropped: t.dropped,
            queued: t.queued,
            held: c.held,
            in_flight: t.in_bmv2 + t.on_veths,
            holds: c.conservation_holds()
                && t.sent as i64
                    == (t.delivered + t.dropped + t.queued + c.held) as i64
                        + t.in_bmv2
                        + t.on_veths,
        }
    }
}

/// `drops`: the data plane's counters by reason with the conservation
/// terms, the P4 ToRs' own counters, and the kernel's veth counters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drops {
    pub counters: swtor::Counters,
    pub conservation: Conservation,
    /// The P4 ToRs' counters (summed), or why they could not be read;
    /// `None` without BMv2 ToRs.
    #[serde(skip)]
    pub p4: Option<Result<crate::tor::bmv2::P4Counters, String>>,
    /// Kernel socket drops on host ports (never entered `sent`).
    pub port_drops: u64,
    /// `ToR-side veths`, `host-side veths`.
    pub kernel: Vec<(&'static str, IfaceDrops)>,
}

/// `otcp`: the per-route TCP parameters the hosts got.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Otcp {
    pub table: lh_ctrl::otcp::OtcpTable,
}

/// `pcap ...`: a capture that runs until `pcap stop`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capture {
    /// The interface, or a ToR uplink (`s1 up0`).
    pub what: String,
    pub file: String,
    pub uplink: Option<(String, PortId)>,
}

/// One capture `pcap stop` closed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaptureStopped {
    /// What was captured into which file.
    pub what: String,
    /// Frames written (host and ToR ports).
    pub frames: Option<u64>,
    /// Why the capture ended badly.
    pub error: Option<String>,
}

/// `pcap stop`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CapturesStopped {
    pub captures: Vec<CaptureStopped>,
}
