//! OTCP (Jouet et al., NOMS 2016): the controller derives per-route TCP
//! parameters from what it knows about each route, and the hosts apply
//! them per destination (docs/otcp.md).
//!
//! The slides' formulas, with `RTT` the route latency:
//!
//! ```text
//! RTOmin   = route latency                      -> ceil to whole ms
//! RTOmax   = route latency + buffer latency     (µs precision)
//! CWNDmax  = route BDP                          -> floor(rate x RTT / MSS)
//! IW       = BDP / flow fan-in                  -> ceil, at least 1
//! RTOinit  = (not given; inferred)              -> round(2 x RTOmax) in ms
//! ```
//!
//! What a *route* is here: the ToR-level paths of [`RouteSet`] between the
//! source host's ToR and the destination host's ToR (all arrival slices,
//! classes and multipath alternatives), plus the two host links. Every
//! pair of hosts under the same two ToRs shares one set of parameters.
//!
//! Route latency on a time-sliced fabric: a frame may wait at a ToR for the
//! circuit its path uses, so the unloaded RTT depends on when it arrives.
//! [`RouteFacts::route_latency`] is the *worst* unloaded RTT over arrival
//! slices and offsets (data frame forward, ACK back, each waiting for its
//! circuit from the very start of its arrival slice): an RTOmin below it
//! would fire on an idle network whenever a packet misses its circuit.
//! [`RouteFacts::rtt_base`] is the *expected* unloaded RTT (arrival offsets
//! spread evenly over the slice, arrival slices and paths weighted alike):
//! the bytes in flight over the route on average, so the BDP (CWNDmax)
//! uses it. On electrical and static fabrics the two are equal.

use crate::compile::Compiled;
use crate::config::{Config, KERNEL_RTO_MAX_MS, OtcpCfg};
use crate::routing::{PathRef, RouteSet};
use crate::schedule::{Endpoint, Schedule, usable_window};
use crate::units::{BitsPerSec, Nanos};
use crate::{SliceId, TorId};
use serde::Serialize;

/// Default `hosts.tcp.otcp.host_overhead`: the one-way latency of a
/// busy-polling userspace forwarder measured on this kind of machine
/// (/work/shared/REFERENCE.md: p50 ~30 µs), which the link model lacks.
pub const DEFAULT_HOST_OVERHEAD: Nanos = Nanos(30_000);
/// Bytes of the ToR's egress queue towards each host port: the data
/// plane's default (`swtor::EngineOptions::host_queue_bytes`; the emu
/// crate's tests check the two agree).
pub const HOST_PORT_QUEUE_BYTES: u64 = 4 << 20;
/// An ACK on the wire: Ethernet, IPv4, TCP with the timestamp option.
pub const ACK_FRAME: u64 = 66;
/// Ethernet + IPv4 + TCP headers between a frame and its MSS.
pub const FRAME_OVERHEAD: u64 = 14 + 20 + 20;
/// Arrival offsets sampled per slice for the expected circuit wait.
const OFFSET_SAMPLES: u64 = 8;
const MS: u64 = 1_000_000;

/// What the controller knows about the route from one host to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RouteFacts {
    /// ToR-to-ToR hops of the longest path (0 between hosts of one ToR).
    pub fabric_hops: u32,
    /// The slowest link on any forward path, host links included.
    pub bottleneck: BitsPerSec,
    /// One-way propagation of the longest forward path.
    pub propagation: Nanos,
    /// Bytes of queue a forward frame can meet: a calendar queue per
    /// fabric hop plus the destination host's port queue (largest path).
    pub buffer_bytes: u64,
    /// Time to drain [`RouteFacts::buffer_bytes`], each queue at its
    /// port's rate.
    pub buffer_latency: Nanos,
    /// Expected unloaded RTT (mean circuit wait); the BDP uses it.
    pub rtt_base: Nanos,
    /// Worst unloaded RTT (longest circuit wait): the route latency.
    pub route_latency: Nanos,
    /// Mean and worst circuit wait, both directions summed (0 when
    /// circuits never change).
    pub wait_mean: Nanos,
    pub wait_max: Nanos,
}

/// The OTCP parameters of one route, in the units the kernel takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OtcpParams {
    /// Route metric `rto_min` (locked), whole milliseconds.
    pub rto_min_ms: u32,
    /// Route latency + buffer latency.
    pub rto_max: Nanos,
    /// Initial RTO, whole milliseconds (no kernel knob: docs/otcp.md).
    pub rto_init_ms: u32,
    /// Route metric `cwnd` (locked): the congestion window clamp, segments.
    pub cwnd_max: u32,
    /// Route metric `initcwnd`, segments.
    pub iw: u32,
    /// Route metric `initrwnd`: the receive window first advertised,
    /// segments; set to CWNDmax so the receiver lets the sender reach its
    /// clamp without waiting for window updates.
    pub initrwnd: u32,
}

/// The OTCP formulas on one route's facts. `mss` in bytes.
pub fn params(f: &RouteFacts, fan_in: u32, mss: u64) -> OtcpParams {
    let rtt = f.route_latency.0;
    let rto_min_ms = rtt.div_ceil(MS).max(1);
    let rto_max = Nanos(rtt + f.buffer_latency.0);
    // Nearest whole millisecond, halves up.
    let rto_init_ms = ((2 * rto_max.0 + MS / 2) / MS).max(rto_min_ms);
    let bdp = f.bottleneck.bytes_in(f.rtt_base);
    let cwnd_max = (bdp / mss.max(1)).max(1);
    let iw = cwnd_max.div_ceil(u64::from(fan_in.max(1))).max(1);
    let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    OtcpParams {
        rto_min_ms: clamp(rto_min_ms),
        rto_max,
        rto_init_ms: clamp(rto_init_ms),
        cwnd_max: clamp(cwnd_max),
        iw: clamp(iw),
        initrwnd: clamp(cwnd_max),
    }
}

/// Facts and parameters of every ToR pair, for every host pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OtcpTable {
    pub tors: usize,
    pub hosts_per_tor: usize,
    pub fan_in: u32,
    pub mss: u64,
    /// `[src_tor * tors + dst_tor]`.
    pub facts: Vec<RouteFacts>,
    pub params: Vec<OtcpParams>,
    /// `net.ipv4.tcp_rto_max_ms` for every host namespace: the config's
    /// `socket_rto_max`, else the largest RTOmax raised into the kernel's
    /// range (1 s .. 120 s).
    pub socket_rto_max_ms: u32,
}

impl OtcpTable {
    /// The ToR of host index `h` (0-based, `h1` is 0).
    pub fn tor_of(&self, h: usize) -> usize {
        h / self.hosts_per_tor.max(1)
    }
    /// Facts and parameters from host `src` to host `dst` (0-based).
    pub fn for_hosts(&self, src: usize, dst: usize) -> (&RouteFacts, &OtcpParams) {
        self.for_tors(self.tor_of(src), self.tor_of(dst))
    }
    /// Facts and parameters from a host under ToR `src` to one under `dst`.
    pub fn for_tors(&self, src: usize, dst: usize) -> (&RouteFacts, &OtcpParams) {
        let i = src * self.tors + dst;
        (&self.facts[i], &self.params[i])
    }
    /// One line per ToR pair: the facts and the parameters.
    pub fn render(&self) -> String {
        let mut s = format!(
            "{:>4} {:>4} {:>4} {:>9} {:>10} {:>10} {:>11} {:>6} {:>9} {:>7} {:>7} {:>4}\n",
            "src",
            "dst",
            "hops",
            "rate",
            "rtt_us",
            "worst_us",
            "buffer_us",
            "rtomin",
            "rtomax_ms",
            "rtoinit",
            "cwndmax",
            "iw"
        );
        for (i, (f, p)) in self.facts.iter().zip(&self.params).enumerate() {
            s.push_str(&format!(
                "{:>4} {:>4} {:>4} {:>9} {:>10.1} {:>10.1} {:>11.1} {:>6} {:>9.3} {:>7} {:>7} {:>4}\n",
                format!("s{}", i / self.tors + 1),
                format!("s{}", i % self.tors + 1),
                f.fabric_hops,
                f.bottleneck.to_string(),
                f.rtt_base.0 as f64 / 1e3,
                f.route_latency.0 as f64 / 1e3,
                f.buffer_latency.0 as f64 / 1e3,
                p.rto_min_ms,
                p.rto_max.0 as f64 / 1e6,
                p.rto_init_ms,
                p.cwnd_max,
                p.iw
            ));
        }
        s.push_str(&format!(
            "socket rto_max {} ms (net.ipv4.tcp_rto_max_ms); fan-in {}; MSS {} B\n",
            self.socket_rto_max_ms, self.fan_in, self.mss
        ));
        s
    }
}

/// The OTCP table of a compiled network, `None` when `hosts.tcp.otcp` is
/// absent.
pub fn table(c: &Compiled) -> Option<OtcpTable> {
    let o = c.config.hosts.as_ref()?.tcp.as_ref()?.otcp?;
    Some(compute(&c.config, &c.schedule, &c.routes, &o))
}

/// [`table`] from its parts.
pub fn compute(cfg: &Config, s: &Schedule, routes: &RouteSet, o: &OtcpCfg) -> OtcpTable {
    let n = s.tors();
    let mut by_pair: Vec<Vec<PathRef>> = vec![Vec::new(); n * n];
    for p in routes.paths.iter() {
        let (a, b) = (p.src as usize, p.dst as usize);
        if a < n && b < n {
            by_pair[a * n + b].push(p);
        }
    }
    let overhead = o.host_overhead.unwrap_or(DEFAULT_HOST_OVERHEAD);
    let mss = cfg.max_frame().saturating_sub(FRAME_OVERHEAD).max(1);
    let m = Model { cfg, s };
    let mut facts = Vec::with_capacity(n * n);
    for a in 0..n {
        for b in 0..n {
            let fwd = m.direction(&by_pair[a * n + b], cfg.max_frame());
            let rev = m.direction(&by_pair[b * n + a], ACK_FRAME);
            facts.push(RouteFacts {
                fabric_hops: fwd.hops,
                bottleneck: fwd.bottleneck,
                propagation: fwd.propagation,
                buffer_bytes: fwd.buffer_bytes,
                buffer_latency: fwd.buffer_latency,
                rtt_base: Nanos(fwd.mean.0 + rev.mean.0 + 2 * overhead.0),
                route_latency: Nanos(fwd.worst.0 + rev.worst.0 + 2 * overhead.0),
                wait_mean: Nanos(fwd.wait_mean.0 + rev.wait_mean.0),
                wait_max: Nanos(fwd.wait_max.0 + rev.wait_max.0),
            });
        }
    }
    let params: Vec<OtcpParams> = facts.iter().map(|f| params(f, o.fan_in, mss)).collect();
    let socket_rto_max_ms = match o.socket_rto_max {
        Some(r) => r.0 / MS,
        None => {
            let worst = params.iter().map(|p| p.rto_max.0.div_ceil(MS)).max();
            let (lo, hi) = (*KERNEL_RTO_MAX_MS.start(), *KERNEL_RTO_MAX_MS.end());
            worst.unwrap_or(lo).clamp(lo, hi)
        }
    };
    OtcpTable {
        tors: n,
        hosts_per_tor: cfg.tors.hosts_per_tor as usize,
        fan_in: o.fan_in,
        mss,
        facts,
        params,
        socket_rto_max_ms: socket_rto_max_ms as u32,
    }
}

/// One direction of a route: host link, the fabric paths, host link.
struct Direction {
    hops: u32,
    bottleneck: BitsPerSec,
    propagation: Nanos,
    buffer_bytes: u64,
    buffer_latency: Nanos,
    mean: Nanos,
    worst: Nanos,
    wait_mean: Nanos,
    wait_max: Nanos,
}

struct Model<'a> {
    cfg: &'a Config,
    s: &'a Schedule,
}

impl Model<'_> {
    /// The paths of one ordered ToR pair carrying `frame`-byte frames
    /// (none: both hosts under one ToR).
    fn direction(&self, paths: &[PathRef], frame: u64) -> Direction {
        let host = self.cfg.tors.host_link_rate;
        let host_ser = host.time_for(frame).0;
        let host_queue = host.time_for(HOST_PORT_QUEUE_BYTES).0;
        let mut d = Direction {
            hops: 0,
            bottleneck: host,
            propagation: Nanos(0),
            buffer_bytes: HOST_PORT_QUEUE_BYTES,
            buffer_latency: Nanos(host_queue),
            mean: Nanos(2 * host_ser),
            worst: Nanos(2 * host_ser),
            wait_mean: Nanos(0),
            wait_max: Nanos(0),
        };
        if paths.is_empty() {
            return d;
        }
        let prop = self.cfg.slice.propagation.0;
        let cap = self.cfg.queue_capacity_bytes();
        let (mut sum, mut wait_sum, mut count) = (0u128, 0u128, 0u128);
        let (mut worst, mut wait_max) = (0u64, 0u64);
        for p in paths {
            d.hops = d.hops.max(p.hops.len() as u32);
            d.propagation = d.propagation.max(Nanos(prop * p.hops.len() as u64));
            let mut queue = host_queue;
            for h in p.hops {
                let rate = crate::schedule::timing::port_rate(self.cfg, self.s, h.port);
                d.bottleneck = d.bottleneck.min(rate);
                queue += rate.time_for(cap).0;
            }
            if queue > d.buffer_latency.0 {
                d.buffer_latency = Nanos(queue);
                d.buffer_bytes = HOST_PORT_QUEUE_BYTES + cap * p.hops.len() as u64;
            }
            for u in offsets(self.cfg.slice.duration.0, p.arrival.is_some()) {
                let (lat, wait) = self.fabric_time(p, frame, u);
                sum += u128::from(lat);
                wait_sum += u128::from(wait);
                count += 1;
            }
            // The longest wait: arriving at the very start of the slice.
            let (lat, wait) = self.fabric_time(p, frame, 0);
            worst = worst.max(lat);
            wait_max = wait_max.max(wait);
        }
        let mean = (sum / count.max(1)) as u64;
        d.mean = Nanos(2 * host_ser + mean);
        d.worst = Nanos(2 * host_ser + worst.max(mean));
        d.wait_mean = Nanos((wait_sum / count.max(1)) as u64);
        d.wait_max = Nanos(wait_max.max(d.wait_mean.0));
        d
    }

    /// Time from reaching the source ToR `u` ns into the arrival slice to
    /// reaching the destination ToR, and the part of it spent waiting for
    /// circuits (usable windows, docs/time-model.md).
    fn fabric_time(&self, p: &PathRef, frame: u64, u: u64) -> (u64, u64) {
        let d = self.cfg.slice.duration.0;
        let start = u64::from(p.arrival.unwrap_or(0)) * d + u;
        let (mut t, mut wait) = (start, 0);
        let prop = self.cfg.slice.propagation.0;
        let slices = self.s.slices().max(1);
        for h in p.hops {
            if let Some(slot) = h.depart {
                let ts = (slot as usize % slices) as SliceId;
                let (open, _) =
                    usable_window(self.cfg, self.s, ts, Endpoint::new(h.tor as TorId, h.port));
                let ready = u64::from(slot) * d + open.0;
                if ready > t {
                    wait += ready - t;
                    t = ready;
                }
            }
            let rate = crate::schedule::timing::port_rate(self.cfg, self.s, h.port);
            t += rate.time_for(frame).0 + prop;
        }
        (t - start, wait)
    }
}

/// Arrival offsets inside a slice: evenly spread mid-points on a timed
/// path, just 0 on a wildcard one (no waits).
fn offsets(slice: u64, timed: bool) -> impl Iterator<Item = u64> {
    let k = if timed { OFFSET_SAMPLES } else { 1 };
    (0..k).map(move |i| {
        if timed {
            slice * (2 * i + 1) / (2 * k)
        } else {
            0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slides' example network: 1 Gb/s everywhere; a switch port
    /// buffers 1.44 ms at 1 Gb/s (120 frames of 1500 B); ToR, Agg and Core
    /// routes cross 1, 3 and 5 switches.
    fn slide_route(rtt_us: u64, switches: u64) -> RouteFacts {
        let rate = BitsPerSec(1_000_000_000);
        let per_switch = 120 * 1500;
        RouteFacts {
            fabric_hops: switches as u32 - 1,
            bottleneck: rate,
            propagation: Nanos(0),
            buffer_bytes: per_switch * switches,
            buffer_latency: rate.time_for(per_switch * switches),
            rtt_base: Nanos(rtt_us * 1_000),
            route_latency: Nanos(rtt_us * 1_000),
            wait_mean: Nanos(0),
            wait_max: Nanos(0),
        }
    }

    /// The published table (NOMS 2016 slide 8) with fan-in 100 and MSS
    /// 1460. Matches except two cells, named below with the reason.
    #[test]
    fn reproduces_the_slides_table() {
        let fan_in = 100;
        let row = |rtt, sw| params(&slide_route(rtt, sw), fan_in, 1460);
        let tor = row(629, 1);
        let agg = row(1485, 3);
        let core = row(5571, 5);
        // RTOmin: ceil(RTT) in ms.
        assert_eq!((tor.rto_min_ms, agg.rto_min_ms, core.rto_min_ms), (1, 2, 6));
        // RTOmax: exact to the microsecond (buffer 1.44 ms per switch).
        assert_eq!(
            (tor.rto_max, agg.rto_max, core.rto_max),
            (Nanos(2_069_000), Nanos(5_805_000), Nanos(12_771_000))
        );
        // RTOinit: round(2 x RTOmax) gives 4 and 12 as published; Core
        // gives 26 where the slide says 25 (2 x 12.771 = 25.542; no single
        // rounding of 2 x RTOmax gives 4, 12 and 25).
        assert_eq!(
            (tor.rto_init_ms, agg.rto_init_ms, core.rto_init_ms),
            (4, 12, 26)
        );
        // CWNDmax: floor(1 Gb/s x RTT / 1460 B) gives 127 and 476 as
        // published; ToR gives 53 where the slide says 49 (49 segments
        // would need an RTT of 572 µs, not 629 µs).
        assert_eq!((tor.cwnd_max, agg.cwnd_max, core.cwnd_max), (53, 127, 476));
        // IW: ceil(CWNDmax / fan-in) gives 1, 2, 5 for any fan-in from 96
        // to 118 (and from the slide's own 49 for the ToR row).
        assert_eq!((tor.iw, agg.iw, core.iw), (1, 2, 5));
        for f in [96, 118] {
            let iw = |rtt, sw| params(&slide_route(rtt, sw), f, 1460).iw;
            assert_eq!(
                (iw(629, 1), iw(1485, 3), iw(5571, 5)),
                (1, 2, 5),
                "fan-in {f}"
            );
        }
        assert_eq!(params(&slide_route(1485, 3), 95, 1460).iw, 2);
        assert_eq!(params(&slide_route(5571, 5), 95, 1460).iw, 6);
        assert_eq!(tor.initrwnd, tor.cwnd_max);
    }

    #[test]
    fn floors_keep_parameters_usable() {
        // A tiny route still gets 1 ms, one segment and RTOinit >= RTOmin.
        let mut f = slide_route(1, 1);
        f.buffer_latency = Nanos(0);
        let p = params(&f, 65_535, 1460);
        assert_eq!((p.rto_min_ms, p.cwnd_max, p.iw), (1, 1, 1));
        assert!(p.rto_init_ms >= p.rto_min_ms);
    }
}
