//! Electrical packet switches of a k-ary fat tree (SOPA, seed 001): edge,
//! aggregation and core switches with one output FIFO per port, paced at
//! the link rate with a byte limit, forwarding by the controller's tables
//! (`lh_ctrl::fattree`). The ToRs' host ports feed the edge switches and
//! the edge switches deliver into them ([`crate::host`]).
//!
//! Schemes (`routing.algorithm`):
//! - `ecmp`: each switch hashes the 5-tuple (salted with its id) over its
//!   group of next-hop ports for the destination edge switch.
//! - `rps`: each switch picks a random next hop per packet.
//! - `sopa`: the source edge switch picks the next of the equal-cost paths
//!   round-robin per (source host, destination host) and writes the ports
//!   of the switches after it into a source-route header
//!   (docs/wire-formats.md); each switch pops its step.
//! - `hedera`: ECMP, while the source edge switches count bytes per flow;
//!   every `hedera_interval` the central scheduler
//!   (`lh_ctrl::fattree::hedera`) takes the elephants (≥ 10% of the host
//!   rate over the interval), estimates their natural demand and places
//!   them by global first fit; a placed flow's source edge writes its path
//!   as a source route like SOPA.
//!
//! A failed link (`set_link`) drops what is sent on it, and what was on
//! the wire when it failed, as `link_down` at once; the paths over it are withdrawn `failure_detection` later (new
//! tables from `FatTree::tables`), like a control plane that needs that
//! long to notice. Counters: a frame is `queued` from the moment it enters
//! an output FIFO until it reaches the next switch (or is dropped there).

use crate::counters::{Counters, DelayHist, DropReason};
use crate::fastmap::IntMap;
use crate::host::Hosts;
use crate::pool::{FramePool, FrameQueue};
use crate::wire;
use lh_ctrl::PortId;
use lh_ctrl::fattree::{FatTree, Link, SwitchId, SwitchTables, Tier, link};
use lh_ctrl::units::BitsPerSec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// The largest number of switches a frame may cross (a loop guard; a fat
/// tree's shortest paths cross at most 5).
pub const MAX_SWITCH_HOPS: u32 = 8;

/// How the switches choose among equal-cost paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Ecmp,
    Rps,
    Sopa,
    Hedera,
}

/// Flows the Hedera scheduler tracks at once (the table is sized up front:
/// no allocation per packet); later flows stay on ECMP.
pub const HEDERA_MAX_FLOWS: usize = 4096;

/// A fat tree for [`crate::EngineOptions`]: its shape and scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTreeOptions {
    pub k: u32,
    pub scheme: Scheme,
    /// Byte limit of each switch port's output FIFO.
    pub queue_bytes: u64,
    /// Time from a link failure to the withdrawal of its paths (ns).
    pub failure_detection: u64,
    /// Seed of RPS's random choices.
    pub seed: u64,
    /// Hedera's scheduling period (ns).
    pub hedera_interval: u64,
}

impl FatTreeOptions {
    /// From a config with `fabric: "fattree"` (None for other fabrics).
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> Option<FatTreeOptions> {
        use lh_ctrl::config::{Algorithm, FabricKind, Topology};
        let (FabricKind::FatTree, Topology::FatTree { k }) = (cfg.fabric, &cfg.topology) else {
            return None;
        };
        Some(FatTreeOptions {
            k: *k,
            scheme: match cfg.routing.algorithm {
                Algorithm::Rps => Scheme::Rps,
                Algorithm::Sopa => Scheme::Sopa,
                Algorithm::Hedera => Scheme::Hedera,
                _ => Scheme::Ecmp,
            },
            queue_bytes: cfg.queue_capacity_bytes(),
            failure_detection: cfg
                .routing
                .failure_detection
                .unwrap_or(lh_ctrl::config::DEFAULT_FAILURE_DETECTION)
                .0,
            seed: cfg.routing.seed.unwrap_or(1),
            hedera_interval: cfg
                .routing
                .hedera_interval
                .unwrap_or(lh_ctrl::config::DEFAULT_HEDERA_INTERVAL)
                .0,
        })
    }
}

/// What a switch needs from the engine to forward one frame.
pub(crate) struct Io<'a> {
    pub pool: &'a mut FramePool,
    pub c: &'a mut Counters,
    pub hosts: &'a mut Hosts,
    pub delay: &'a mut DelayHist,
}

impl Io<'_> {
    fn drop_frame(&mut self, i: u32, r: DropReason) {
        self.c.drop_one(r);
        self.pool.release(i);
    }
}

/// Every switch of the fat tree and the links between them.
pub struct Switches {
    tree: FatTree,
    scheme: Scheme,
    tables: SwitchTables,
    /// Withdrawals (or restorations) not yet noticed: (time, tables).
    pending: Vec<(u64, SwitchTables)>,
    failed: HashSet<Link>,
    /// When each failed link went down: frames that reach its far end
    /// from then on are lost, even if sent before (they were on the wire).
    down_since: HashMap<Link, u64>,
    detect: u64,
    rate: BitsPerSec,
    propagation: u64,
    queue_limit: u64,
    /// Per port (`switch * k + port`): the output FIFO.
    out: Vec<FrameQueue>,
    /// When the port's transmitter is next free.
    next_free: Vec<u64>,
    /// Frames on the wire from this port, arrival time in `Meta::t`.
    wire: Vec<FrameQueue>,
    /// Frames each port has put on its link.
    tx: Vec<u64>,
    /// Pending events in time order, at most one of each kind per port:
    /// the FIFO head's transmission start and the wire head's arrival.
    events: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per host: when its link to the edge switch last delivered a frame.
    host_free: Vec<u64>,
    host_rate: BitsPerSec,
    /// SOPA: next path per (source host, destination host).
    rr: Vec<u32>,
    hosts: usize,
    rng: u64,
    /// Hedera's flow table and scheduler (scheme `hedera` only).
    hedera: Option<Hedera>,
}

/// A frame's hosts and their edge switches, at its source edge switch.
#[derive(Clone, Copy, Debug)]
struct Ends {
    edge: SwitchId,
    dst_edge: SwitchId,
    src: u16,
    dst: u16,
}

/// One flow seen at its source edge switch (Hedera).
#[derive(Clone, Copy, Debug)]
struct FlowStat {
    src: u16,
    dst: u16,
    src_edge: SwitchId,
    dst_edge: SwitchId,
    /// Bytes since the last scheduling round.
    bytes: u64,
    /// Index of its placed path in `routes(src_edge, dst_edge)`.
    pin: Option<u16>,
}

struct Hedera {
    flows: IntMap<u32, FlowStat>,
    interval: u64,
    next: u64,
    /// Bytes over an interval that make a flow an elephant.
    elephant: u64,
    /// Host rate / link rate (demands are fractions of a host NIC).
    scale: f64,
    /// Scheduling rounds run and elephants placed in the last one.
    pub rounds: u64,
    pub placed: usize,
}

impl Switches {
    pub(crate) fn new(
        o: FatTreeOptions,
        rate: BitsPerSec,
        host_rate: BitsPerSec,
        propagation: u64,
        hosts: usize,
    ) -> Result<Switches, String> {
        let tree = FatTree::new(o.k).map_err(|e| e.to_string())?;
        let hedera = (o.scheme == Scheme::Hedera).then(|| {
            let mut flows = IntMap::default();
            // Twice the limit: inserts after `retain` rehash in place.
            flows.reserve(2 * HEDERA_MAX_FLOWS);
            Hedera {
                flows,
                interval: o.hedera_interval.max(1),
                next: 0,
                elephant: (host_rate.0 as u128 * o.hedera_interval as u128 / 8 / 10 / 1_000_000_000)
                    as u64,
                scale: host_rate.0 as f64 / rate.0 as f64,
                rounds: 0,
                placed: 0,
            }
        });
        let ports = tree.switches() * tree.ports();
        Ok(Switches {
            tree,
            scheme: o.scheme,
            tables: tree.tables(&HashSet::new()),
            pending: Vec::new(),
            failed: HashSet::new(),
            down_since: HashMap::new(),
            detect: o.failure_detection,
            rate,
            propagation,
            queue_limit: o.queue_bytes,
            out: vec![FrameQueue::default(); ports],
            next_free: vec![0; ports],
            wire: vec![FrameQueue::default(); ports],
            tx: vec![0; ports],
            events: BinaryHeap::with_capacity(2 * ports),
            host_free: vec![0; hosts],
            host_rate,
            rr: vec![0; hosts * hosts],
            hosts,
            rng: o.seed | 1,
            hedera,
        })
    }

    pub fn tree(&self) -> &FatTree {
        &self.tree
    }

    /// Frames each port of switch `s` has sent on its link.
    pub fn port_tx(&self, s: SwitchId) -> &[u64] {
        let k = self.tree.ports();
        &self.tx[s as usize * k..(s as usize + 1) * k]
    }

    /// Bytes in each output FIFO of switch `s`.
    pub fn queues(&self, s: SwitchId) -> Vec<u64> {
        let k = self.tree.ports();
        self.out[s as usize * k..(s as usize + 1) * k]
            .iter()
            .map(|q| q.bytes)
            .collect()
    }

    /// Fails (restores) the link between `a` and `b` at time `now`.
    pub(crate) fn set_link(
        &mut self,
        a: SwitchId,
        b: SwitchId,
        up: bool,
        now: u64,
    ) -> Result<(), String> {
        let n = self.tree.switches() as SwitchId;
        if a >= n || b >= n || !self.tree.linked(a, b) {
            return Err(format!("no link between switches {a} and {b}"));
        }
        let changed = if up {
            self.down_since.remove(&link(a, b));
            self.failed.remove(&link(a, b))
        } else {
            self.down_since.entry(link(a, b)).or_insert(now);
            self.failed.insert(link(a, b))
        };
        if changed {
            self.pending
                .push((now + self.detect, self.tree.tables(&self.failed)));
        }
        Ok(())
    }

    /// Whether the link on `port` of `s` is up at time `t` (a late poll
    /// may handle an event from before a failure after it).
    fn link_up(&self, s: SwitchId, port: PortId, t: u64) -> bool {
        match self.tree.peer(s, port) {
            Some((x, _)) => self
                .down_since
                .get(&link(s, x))
                .is_none_or(|&since| t < since),
            None => false,
        }
    }

    /// A frame from host `src` enters its edge switch `edge`, when its
    /// last bit would have crossed the host's link: frames a late poll reads
    /// together keep a host link's spacing instead of arriving at one
    /// instant (where ties between equal paths would reorder them).
    pub(crate) fn ingress(&mut self, x: &mut Io<'_>, edge: SwitchId, src: u16, i: u32, now: u64) {
        let len = x.pool.meta(i).wire_len();
        let free = &mut self.host_free[src as usize];
        let t = now.max(*free + self.host_rate.time_for(len).0);
        *free = t;
        self.forward(x, edge, Some(src), i, t);
    }

    /// Frame `i` at switch `s` (from host `src` when it just entered).
    fn forward(&mut self, x: &mut Io<'_>, s: SwitchId, src: Option<u16>, i: u32, now: u64) {
        let Some(dh) = x.hosts.dest(x.pool.data(i)) else {
            let r = if wire::ipv4_dst(x.pool.data(i)).is_some() {
                DropReason::UnknownHost
            } else {
                DropReason::BadHeader
            };
            return x.drop_frame(i, r);
        };
        let dst = x.hosts.tor(dh);
        if s == dst {
            return x.hosts.arrive(x.pool, x.c, x.delay, dh, i, now);
        }
        let ends = |h| Ends {
            edge: s,
            dst_edge: dst,
            src: h,
            dst: dh,
        };
        let m = x.pool.meta_mut(i);
        m.tag += 1;
        if m.tag > MAX_SWITCH_HOPS {
            return x.drop_frame(i, DropReason::HopLimit);
        }
        let port = if wire::srh_count(x.pool.data(i)).is_some() {
            match wire::srh_pop(x.pool, i) {
                Some((p, _)) if self.tree.peer(s, p).is_some() => p,
                _ => return x.drop_frame(i, DropReason::BadHeader),
            }
        } else if let (Scheme::Sopa, Some(h)) = (self.scheme, src) {
            match self.source_route(x, ends(h), i) {
                Some(p) => p,
                None => return,
            }
        } else if let Some(pin) = src.and_then(|h| self.hedera_pin(x, ends(h), i)) {
            let r = &self.tables.routes(s, dst)[pin];
            match write_route(x, r, i) {
                Some(p) => p,
                None => return,
            }
        } else {
            let pick = match self.scheme {
                Scheme::Rps => self.random() as usize,
                _ => mix(wire::flow_hash(x.pool.data(i)) ^ u32::from(s).wrapping_mul(0x9E37_79B9))
                    as usize,
            };
            let g = self.tables.group(s, dst);
            if g.is_empty() {
                return x.drop_frame(i, DropReason::NoRoute);
            }
            g[pick % g.len()]
        };
        self.enqueue(x, s, port, i, now);
    }

    /// SOPA at the source edge switch `s`: the next path of the pair
    /// round-robin, its later ports written into a source-route header.
    /// Returns the port to send on (None: dropped).
    fn source_route(&mut self, x: &mut Io<'_>, e: Ends, i: u32) -> Option<PortId> {
        let routes = self.tables.routes(e.edge, e.dst_edge);
        if routes.is_empty() {
            x.drop_frame(i, DropReason::NoRoute);
            return None;
        }
        let rr = &mut self.rr[e.src as usize * self.hosts + e.dst as usize];
        let r = &routes[*rr as usize % routes.len()];
        *rr = rr.wrapping_add(1);
        write_route(x, r, i)
    }

    /// Hedera at the source edge switch `s`: counts frame `i` of its flow
    /// and returns the index of the flow's placed path, if it has one.
    fn hedera_pin(&mut self, x: &mut Io<'_>, e: Ends, i: u32) -> Option<usize> {
        let hd = self.hedera.as_mut()?;
        let key = wire::flow_hash(x.pool.data(i));
        let len = x.pool.meta(i).wire_len();
        let full = hd.flows.len() >= HEDERA_MAX_FLOWS;
        let f = match hd.flows.get_mut(&key) {
            Some(f) => f,
            None if full => return None,
            None => hd.flows.entry(key).or_insert(FlowStat {
                src: e.src,
                dst: e.dst,
                src_edge: e.edge,
                dst_edge: e.dst_edge,
                bytes: 0,
                pin: None,
            }),
        };
        f.bytes += len;
        let pin = f.pin? as usize;
        (pin < self.tables.routes(e.edge, e.dst_edge).len()).then_some(pin)
    }

    /// Hedera's scheduling round, every interval: elephants by measured
    /// bytes, their natural demand, global first fit; mice and idle flows
    /// are forgotten. Runs on the data-plane thread between packets.
    fn schedule(&mut self, now: u64) {
        use lh_ctrl::fattree::hedera::{Elephant, estimate_demands, global_first_fit};
        let Some(hd) = self.hedera.as_mut() else {
            return;
        };
        if now < hd.next {
            return;
        }
        hd.next = now + hd.interval;
        hd.rounds += 1;
        let mut big: Vec<(u32, FlowStat)> = hd
            .flows
            .iter()
            .filter(|(_, f)| f.bytes >= hd.elephant.max(1))
            .map(|(k, f)| (*k, *f))
            .collect();
        big.sort_unstable_by_key(|(k, _)| *k);
        hd.flows.retain(|_, f| f.bytes > 0);
        for f in hd.flows.values_mut() {
            f.bytes = 0;
            f.pin = None;
        }
        let el: Vec<Elephant> = big
            .iter()
            .map(|(_, f)| Elephant {
                src: f.src as usize,
                dst: f.dst as usize,
                src_edge: f.src_edge,
                dst_edge: f.dst_edge,
            })
            .collect();
        let demands = estimate_demands(&el);
        let fit = global_first_fit(&self.tree, &self.tables, &el, &demands, hd.scale);
        hd.placed = 0;
        for ((k, _), p) in big.iter().zip(fit) {
            if let (Some(p), Some(f)) = (p, hd.flows.get_mut(k)) {
                f.pin = Some(p as u16);
                hd.placed += 1;
            }
        }
    }

    /// Hedera's scheduling rounds so far and elephants placed in the last.
    pub fn hedera_rounds(&self) -> Option<(u64, usize)> {
        self.hedera.as_ref().map(|h| (h.rounds, h.placed))
    }

    fn random(&mut self) -> u64 {
        // xorshift64
        let mut v = self.rng;
        v ^= v << 13;
        v ^= v >> 7;
        v ^= v << 17;
        self.rng = v;
        v >> 11
    }

    /// Frame `i`, at switch `s` since `now`, joins the output FIFO of
    /// `port` (or is dropped as `queue_full`).
    fn enqueue(&mut self, x: &mut Io<'_>, s: SwitchId, port: PortId, i: u32, now: u64) {
        let q = s as usize * self.tree.ports() + port as usize;
        let len = x.pool.meta(i).wire_len();
        if self.out[q].bytes + len > self.queue_limit {
            return x.drop_frame(i, DropReason::QueueFull);
        }
        x.pool.meta_mut(i).t = now;
        let was_empty = self.out[q].is_empty();
        self.out[q].push(x.pool, i);
        x.c.queued += 1;
        if was_empty {
            self.events
                .push(Reverse((self.next_free[q].max(now), send_event(q))));
        }
    }

    /// Link changes noticed by `now` replace the tables (paths over failed
    /// links withdrawn, restored ones back).
    pub(crate) fn notice(&mut self, now: u64) {
        while let Some(k) = self.pending.iter().position(|(t, _)| *t <= now) {
            self.tables = self.pending.remove(k).1;
        }
        self.schedule(now);
    }

    /// Replays, in time order, every transmission start and arrival due by
    /// `now`: a frame starts when its port is free and it has arrived,
    /// takes its length at the link rate, and reaches the next switch a
    /// propagation delay later. Handled in event-time order rather than
    /// port order, so a late poll (a busy CPU) neither reorders frames nor
    /// changes their queueing; only delivery to hosts waits for the poll.
    /// True if anything moved.
    pub(crate) fn poll(&mut self, x: &mut Io<'_>, now: u64) -> bool {
        let mut busy = false;
        while let Some(&Reverse((t, e))) = self.events.peek() {
            if t > now {
                break;
            }
            self.events.pop();
            busy = true;
            let q = (e >> 1) as usize;
            let k = self.tree.ports();
            let (s, port) = ((q / k) as SwitchId, (q % k) as PortId);
            if e & 1 == 1 {
                // The wire head reaches the peer at `t`.
                let Some(i) = self.wire[q].pop(x.pool) else {
                    continue;
                };
                if let Some(n) = self.wire[q].peek() {
                    self.events
                        .push(Reverse((x.pool.meta(n).t, arrive_event(q))));
                }
                x.c.queued -= 1;
                let Some((peer, _)) = self.tree.peer(s, port) else {
                    x.drop_frame(i, DropReason::NoRoute);
                    continue;
                };
                if !self.down_since.is_empty() && !self.link_up(s, port, t) {
                    // The link failed while the frame was on it.
                    x.drop_frame(i, DropReason::LinkDown);
                    continue;
                }
                self.forward(x, peer, None, i, t);
                continue;
            }
            // The FIFO head starts its transmission at `t` (or is dropped
            // then when its link is down).
            let Some(i) = self.out[q].pop(x.pool) else {
                continue;
            };
            let up = self.link_up(s, port, t);
            let done = if up {
                t + self.rate.time_for(x.pool.meta(i).wire_len()).0
            } else {
                t
            };
            if let Some(n) = self.out[q].peek() {
                let start = x.pool.meta(n).t.max(done);
                self.events.push(Reverse((start, send_event(q))));
            }
            if !up {
                x.c.queued -= 1;
                x.drop_frame(i, DropReason::LinkDown);
                continue;
            }
            self.next_free[q] = done;
            let at = done + self.propagation;
            x.pool.meta_mut(i).t = at;
            if self.wire[q].is_empty() {
                self.events.push(Reverse((at, arrive_event(q))));
            }
            self.wire[q].push(x.pool, i);
            self.tx[q] += 1;
        }
        busy
    }

    /// The tier of switch `s` (for renderers).
    pub fn tier(&self, s: SwitchId) -> Tier {
        self.tree.tier(s)
    }
}

/// The event of port `q`'s FIFO head starting its transmission.
fn send_event(q: usize) -> u32 {
    (q as u32) << 1
}

/// The event of port `q`'s wire head reaching the peer.
fn arrive_event(q: usize) -> u32 {
    ((q as u32) << 1) | 1
}

/// Writes route `r` (ports per switch, from the one holding frame `i`):
/// the later ports as a source-route header. Returns the first port (None:
/// dropped as `too_big`).
fn write_route(x: &mut Io<'_>, r: &[PortId], i: u32) -> Option<PortId> {
    let steps = r[1..].iter().map(|&p| (p, wire::SRH_NOW));
    if r.len() > 1 && !wire::srh_push(x.pool, i, steps) {
        x.drop_frame(i, DropReason::TooBig);
        return None;
    }
    Some(r[0])
}

/// A 32-bit finaliser (MurmurHash3's) so that salted hashes spread.
fn mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}
