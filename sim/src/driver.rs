//! The discrete-event loop: the native engine (`swtor::Engine`, the same
//! code as a live run's data plane) on the in-memory port, polled at
//! virtual times (`poll(now)`), with the hosts' frames as timed events.
//! Nothing reads a wall clock and every tie is broken by insertion order,
//! so the same config and inputs give the same results, byte for byte.

use crate::host::{BULK_HEADER, Echo, bulk_frame_into, echo_frame_into, parse_bulk, parse_echo};
use crate::queue::Queue;
use crate::tcp::{self, ConnId, Tcp, TcpConfig, TcpEvent, TcpStats};
use lh_ctrl::compile::Compiled;
use lh_emu::net::values::{PingAll, PingResult, PingRow};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use swtor::MemPort;
use swtor::engine::Engine;

/// Why a config cannot be simulated, or the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// `field` names what the simulation does not model (a JSON path of the
    /// config, or a flag).
    #[error("{field}: {why}")]
    Unsupported { field: String, why: String },
    #[error("the data plane: {0}")]
    Fabric(#[from] swtor::FabricError),
    #[error("the data plane: {0}")]
    Io(#[from] std::io::Error),
}

/// Tunables of the model.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// Polling interval while a part of the engine that does not report
    /// its next event holds frames, and of the `fixed_step` loop (default:
    /// a fiftieth of a slice, at most one MTU frame's time at the link
    /// rate, at least 100 ns).
    pub step_ns: Option<u64>,
    /// A host's time from receiving an echo request to sending the reply
    /// (0: an ideal host; the live run's kernel takes microseconds).
    pub turnaround_ns: u64,
    /// A host's receive path: from a frame's last bit at its NIC to its
    /// stack and application seeing it (none: an ideal host; a live host's
    /// kernel, veth and application take tens of microseconds). The delay
    /// is paid once per batch: a frame that arrives while earlier ones
    /// still wait goes up with them (a kernel's NAPI poll). One value is a
    /// fixed delay; with more, each batch's is drawn from them, uniformly,
    /// seeded by `host_rx_seed`: a live host's delay varies.
    pub host_rx_ns: Vec<u64>,
    /// The seed of the draws from `host_rx_ns`.
    pub host_rx_seed: u64,
    /// Poll every `step` while frames are in the fabric instead of at the
    /// engine's next event (`poll_at`): the reference the event-driven
    /// loop is tested against.
    pub fixed_step: bool,
}

/// How much the loop did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Engine polls.
    pub polls: u64,
    /// Frames moved over one link each: host to ToR, ToR to OCS, OCS to
    /// ToR, ToR to host.
    pub frame_hops: u64,
    /// Virtual time simulated, ns.
    pub simulated_ns: u64,
}

/// What happens at a host, or between a host and its ToR, at a virtual
/// time.
enum Ev {
    /// A host's frame has left its NIC: it enters the fabric. `frame`
    /// holds its headers, `pad` bytes more are on the wire.
    Inject {
        ifindex: i32,
        pad: u16,
        frame: Vec<u8>,
    },
    /// A frame's last bit has reached host `host`.
    Arrive { host: usize, frame: Vec<u8> },
    /// A TCP retransmission timer.
    Tcp { conn: ConnId, end: usize },
    /// An application's timer.
    App { tag: u64 },
    /// Bulk flow `id`'s host may put its next frame on its NIC.
    Bulk { id: u32 },
}

/// What an application is told (times in virtual ns since the start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Connection `conn` is open (the SYN-ACK reached its connecting end).
    Connected { conn: ConnId, at: u64 },
    /// End `end` of `conn` holds all of the peer's message `tag`.
    Message {
        conn: ConnId,
        end: usize,
        tag: u64,
        at: u64,
    },
    /// Every byte end `end` of `conn` has written is acknowledged.
    Acked { conn: ConnId, end: usize, at: u64 },
    /// The application's timer `tag`.
    Timer { tag: u64, at: u64 },
    /// Every byte of bulk flow `tag` ([`Sim::send_bulk`]) has reached its
    /// destination host.
    Bulk { tag: u64, at: u64 },
}

/// A bulk flow as Opera's RotorLB hosts send one ([`Sim::send_bulk`]).
struct BulkFlow {
    src: usize,
    dst: usize,
    size: u64,
    sent: u64,
    got: u64,
    tag: u64,
}

/// An application of hosts in virtual time, driven by [`Sim::run_app`].
pub trait App {
    /// Called once at the start.
    fn start(&mut self, sim: &mut Sim);
    fn event(&mut self, sim: &mut Sim, ev: Event);
    /// Nothing more to wait for.
    fn done(&self) -> bool;
}

/// One simulated network.
pub struct Sim {
    e: Engine<MemPort>,
    /// Virtual time (the engine's clock: slice 0 of cycle 0 starts at
    /// [`swtor::testing::EPOCH`]).
    now: u64,
    start: u64,
    events: Queue<Ev>,
    tcp: Tcp,
    /// Events for the application, in order.
    app_events: Vec<Event>,
    /// When each host's NIC is free to start its next frame (index n-1).
    nic_free: Vec<u64>,
    /// When each host's receive path last passed a frame up (index n-1).
    rx_last: Vec<u64>,
    /// Draws the receive delays (`SimOptions::host_rx_ns`).
    rx_rng: SmallRng,
    /// No receive delay: each frame goes up at its last bit, as it comes.
    rx_ideal: bool,
    host_bps: u64,
    step: u64,
    opts: SimOptions,
    names: Vec<String>,
    /// Echo requests in flight: (src, dst, seq) -> sent at.
    echoes: BTreeMap<(usize, usize, u16), u64>,
    /// Replies received: (src, dst, seq) -> RTT in ns.
    replies: BTreeMap<(usize, usize, u16), u64>,
    ping_seq: u16,
    stats: Stats,
    /// Bulk flows, by id.
    bulk: Vec<BulkFlow>,
    /// Hosts per ToR (host `n` from 1 is on ToR `(n - 1) / hosts_per_tor`).
    hosts_per_tor: usize,
    /// The slice duration, ns.
    slice: u64,
    /// RotorLB's bulk threshold, when the config has RotorLB.
    bulk_threshold: Option<u64>,
    /// A front end's progress display ([`Sim::on_progress`]).
    progress: Option<Box<dyn FnMut(Stats)>>,
}

/// Engine polls between two calls of [`Sim::on_progress`]'s function: a
/// few dozen a second at millions of frame-hops a second, so the check
/// costs nothing measurable.
pub const PROGRESS_POLLS: u64 = 1 << 14;

/// Payload bytes of a bulk frame (a TCP segment's MSS at a 1500-byte MTU).
pub const BULK_PAYLOAD: u64 = 1460;

impl Sim {
    /// The compiled fabric in virtual time, every ToR native, with the
    /// config's ToR features, as a live run starts it.
    pub fn new(c: &Compiled, opts: SimOptions) -> Result<Sim, SimError> {
        let spec = swtor::testing::compiled_spec(c);
        let clock = swtor::testing::clock(&spec);
        let eopts = swtor::EngineOptions {
            // Frames stand for memory here (RotorLB's relays hold a cycle
            // of bulk): the pool grows rather than refuse one.
            pool_grows: true,
            ..swtor::EngineOptions::from_config(&c.config)
        };
        let e = swtor::testing::mem_engine(&spec, clock, eopts)?;
        let tors = &c.config.tors;
        let hosts = tors.count as usize * tors.hosts_per_tor as usize;
        let slice = c.config.slice.duration.0.max(1);
        let mtu_ns = 1514 * 8 * 1_000_000_000 / tors.link_rate.0.max(1);
        let step = opts
            .step_ns
            .unwrap_or_else(|| (slice / 50).min(mtu_ns).max(100))
            .max(1);
        let plan = lh_emu::plan::Plan::from_config(&c.config);
        Ok(Sim {
            e,
            now: clock.epoch,
            start: clock.epoch,
            events: Queue::default(),
            tcp: Tcp::default(),
            app_events: Vec::new(),
            nic_free: vec![0; hosts],
            rx_last: vec![0; hosts],
            rx_rng: SmallRng::seed_from_u64(opts.host_rx_seed),
            rx_ideal: opts.host_rx_ns.iter().all(|&d| d == 0),
            host_bps: tors.host_link_rate.0.max(1),
            step,
            opts,
            names: plan.hosts.iter().map(|h| h.name.clone()).collect(),
            echoes: BTreeMap::new(),
            replies: BTreeMap::new(),
            ping_seq: 0,
            stats: Stats::default(),
            bulk: Vec::new(),
            hosts_per_tor: tors.hosts_per_tor.max(1) as usize,
            slice,
            bulk_threshold: (c.config.routing.bulk == lh_ctrl::config::BulkTransport::Rotorlb)
                .then(|| c.routes.classes.as_ref()?.thresholds.last().copied())
                .flatten(),
            progress: None,
        })
    }

    /// Calls `f` with the loop's [`Stats`] every [`PROGRESS_POLLS`] engine
    /// polls, for a front end's progress display (the library draws
    /// nothing). It only observes: the results are the same with it.
    pub fn on_progress(&mut self, f: impl FnMut(Stats) + 'static) {
        self.progress = Some(Box::new(f));
    }

    /// Virtual ns since the start.
    pub fn now(&self) -> u64 {
        self.now - self.start
    }

    pub fn hosts(&self) -> usize {
        self.nic_free.len()
    }

    pub fn stats(&self) -> Stats {
        Stats {
            frame_hops: self.e.c.frame_hops(),
            simulated_ns: self.now(),
            ..self.stats
        }
    }

    /// The data plane's counters (drops by reason, conservation terms).
    pub fn counters(&mut self) -> swtor::Counters {
        self.e.counters()
    }

    /// A frame's serialisation time on a host link.
    fn host_tx_ns(&self, len: usize) -> u64 {
        len as u64 * 8 * 1_000_000_000 / self.host_bps
    }

    /// One batch's receive delay at a host (`SimOptions::host_rx_ns`).
    fn rx_delay(&mut self) -> u64 {
        match self.opts.host_rx_ns.as_slice() {
            [] => 0,
            [d] => *d,
            ds => ds[self.rx_rng.gen_range(0..ds.len())],
        }
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.events.push(at, ev);
    }

    /// Host `src` (from 1) sends `frame` (and `pad` bytes more on the
    /// wire): it leaves when its NIC is free, one frame after another at
    /// the host link rate, and reaches the ToR when its last bit has
    /// (store and forward).
    fn send(&mut self, src: usize, at: u64, frame: Vec<u8>, pad: u16) {
        let tx = self.host_tx_ns(frame.len() + pad as usize);
        let free = &mut self.nic_free[src - 1];
        let start = at.max(*free);
        *free = start + tx;
        // A NIC's frames leave in order: its lane of the queue.
        self.events.push_lane(
            src - 1,
            start + tx,
            Ev::Inject {
                ifindex: src as i32,
                pad,
                frame,
            },
        );
    }

    /// Host `e.src` sends echo `e` at `at`.
    fn send_echo(&mut self, at: u64, e: &Echo) {
        let mut f = self.e.port_mut().buffer();
        echo_frame_into(&mut f, e);
        self.send(e.src, at, f, 0);
    }

    /// Runs until virtual time `until` (absolute) or until `done` holds
    /// after a step.
    fn run(&mut self, until: u64, done: &mut dyn FnMut(&Sim) -> bool) -> Result<(), SimError> {
        while self.now < until {
            let busy = self.step()?;
            // No application listens here (pings): its events are moot.
            self.app_events.clear();
            if done(self) {
                return Ok(());
            }
            self.advance(until, busy);
        }
        Ok(())
    }

    /// One step of the loop: the host events due, an engine poll if it has
    /// something to do, the frames it sent; whether the engine was busy.
    fn step(&mut self) -> Result<bool, SimError> {
        let mut injected = false;
        while let Some((at, ev)) = self.events.pop_due(self.now) {
            match ev {
                Ev::Inject {
                    ifindex,
                    pad,
                    frame,
                } => {
                    self.e.port_mut().inject_owned(ifindex, at, frame, pad);
                    injected = true;
                }
                Ev::Arrive { host, frame } => {
                    self.arrive(host, at, &frame);
                    self.e.port_mut().recycle(frame);
                }
                Ev::Tcp { conn, end } => {
                    self.tcp.timer(at, conn, end);
                    self.flush_tcp();
                }
                Ev::App { tag } => self.app_events.push(Event::Timer {
                    tag,
                    at: at - self.start,
                }),
                Ev::Bulk { id } => self.bulk_next(id, at),
            }
        }
        // Only host events were due (a frame reaching a host, a timer):
        // the engine has nothing to do before its own next event.
        let due = injected
            || self.opts.fixed_step
            || self.e.port().pending() > 0
            || self.e.poll_at().is_some_and(|t| t <= self.now);
        let busy = if due {
            self.stats.polls += 1;
            if self.stats.polls.is_multiple_of(PROGRESS_POLLS) && self.progress.is_some() {
                let s = self.stats();
                if let Some(f) = self.progress.as_mut() {
                    f(s);
                }
            }
            self.e.poll(self.now)?
        } else {
            false
        };
        for f in self.e.port_mut().take_sent() {
            // The host has the frame once its last bit has arrived and
            // its receive path has passed it up. The path wakes once per
            // batch, as a kernel's NAPI poll does: a frame that arrives
            // while earlier ones wait goes up with them; one that finds
            // the path idle waits a (fixed or drawn) delay.
            let host = f.ifindex as usize;
            let last_bit = f.t + self.host_tx_ns(f.data.len() + f.pad as usize);
            let at = if self.rx_ideal {
                last_bit
            } else if last_bit <= self.rx_last[host - 1] {
                self.rx_last[host - 1]
            } else {
                last_bit + self.rx_delay()
            };
            self.rx_last[host - 1] = at;
            self.push(
                at,
                Ev::Arrive {
                    host,
                    frame: f.data,
                },
            );
        }
        Ok(busy)
    }

    /// Moves virtual time to the next step's: the engine's next event or
    /// the next host event, whichever is first (not past `until`).
    fn advance(&mut self, until: u64, busy: bool) {
        let next_event = self.events.next_at();
        if next_event.is_some_and(|t| t <= self.now) {
            // Something was queued for this instant (an application's
            // action): it runs before time passes.
            return;
        }
        let next = if self.opts.fixed_step {
            if busy || self.e.c.queued > 0 || self.e.port().pending() > 0 {
                self.now + self.step
            } else {
                next_event.unwrap_or(until)
            }
        } else {
            match self.e.poll_at() {
                _ if self.e.port().pending() > 0 => self.now + self.step,
                Some(t) if t > self.now => t,
                Some(_) => self.now + self.step,
                // Nothing in the fabric: the next host event.
                None => next_event.unwrap_or(until),
            }
        };
        self.now = next
            .min(next_event.unwrap_or(u64::MAX))
            .min(until)
            .max(self.now + 1);
    }

    /// Host `host` has `frame` (its last bit) at `at`.
    fn arrive(&mut self, host: usize, at: u64, frame: &[u8]) {
        if let Some(e) = parse_echo(frame) {
            if e.dst != host {
                return;
            }
            if e.reply {
                if let Some(t0) = self.echoes.remove(&(e.dst, e.src, e.seq)) {
                    self.replies.insert((e.dst, e.src, e.seq), at - t0);
                }
            } else {
                let r = Echo {
                    src: e.dst,
                    dst: e.src,
                    reply: true,
                    ..e
                };
                self.send_echo(at + self.opts.turnaround_ns, &r);
            }
        } else if let Some((dst, id, n)) = parse_bulk(frame) {
            let Some(b) = self
                .bulk
                .get_mut(id as usize)
                .filter(|b| b.dst == host && dst == host)
            else {
                return;
            };
            b.got += n;
            if b.got == b.size {
                let tag = b.tag;
                self.app_events.push(Event::Bulk {
                    tag,
                    at: at - self.start,
                });
            }
        } else if let Some(s) = tcp::parse(frame)
            && s.dst == host
        {
            self.tcp.receive(at, &s);
            self.flush_tcp();
        }
    }

    /// Puts what the TCP produced on the NICs, the timer queue and the
    /// application's event list.
    fn flush_tcp(&mut self) {
        let mut out = std::mem::take(&mut self.tcp.out);
        for o in out.drain(..) {
            let mut f = self.e.port_mut().buffer();
            let pad = tcp::frame_into(&mut f, &o.seg);
            self.send(o.seg.src, o.at, f, pad);
        }
        // The list's memory goes back for the next segments.
        if self.tcp.out.is_empty() {
            self.tcp.out = out;
        }
        for t in std::mem::take(&mut self.tcp.timers) {
            self.push(
                t.at,
                Ev::Tcp {
                    conn: t.conn,
                    end: t.end,
                },
            );
        }
        let start = self.start;
        for e in self.tcp.events.drain(..) {
            self.app_events.push(match e {
                TcpEvent::Connected { conn, at } => Event::Connected {
                    conn,
                    at: at - start,
                },
                TcpEvent::Message { conn, end, tag, at } => Event::Message {
                    conn,
                    end,
                    tag,
                    at: at - start,
                },
                TcpEvent::Acked { conn, end, at } => Event::Acked {
                    conn,
                    end,
                    at: at - start,
                },
            });
        }
    }

    /// Runs `app` until it is done or `for_ns` of virtual time has passed;
    /// whether it finished.
    pub fn run_app(&mut self, app: &mut dyn App, for_ns: u64) -> Result<bool, SimError> {
        let until = self.now + for_ns;
        app.start(self);
        loop {
            let busy = self.step()?;
            let evs = std::mem::take(&mut self.app_events);
            for ev in evs {
                app.event(self, ev);
            }
            if app.done() {
                return Ok(true);
            }
            if self.now >= until {
                return Ok(false);
            }
            self.advance(until, busy);
        }
    }

    /// Host `src` (from 1) opens a TCP connection to `dst`'s `port` now.
    pub fn connect(&mut self, src: usize, dst: usize, port: u16, cfg: TcpConfig) -> ConnId {
        let c = self.tcp.connect(self.now, src, dst, port, cfg);
        self.flush_tcp();
        c
    }

    /// End `end` of `conn` writes a message of `bytes` now.
    pub fn write(&mut self, conn: ConnId, end: usize, bytes: u64, tag: u64) {
        self.tcp.send(self.now, conn, end, bytes, tag);
        self.flush_tcp();
    }

    /// RotorLB's bulk threshold in bytes when the config sends bulk over
    /// RotorLB (`routing.bulk: rotorlb`): flows of this size and more go
    /// by [`Sim::send_bulk`], as the Opera authors' hosts send them.
    pub fn bulk_threshold(&self) -> Option<u64> {
        self.bulk_threshold
    }

    /// Host `src` (from 1) sends `bytes` to `dst` now as Opera's RotorLB
    /// hosts send bulk (the Opera authors' simulator, `RlbSrc`): no
    /// handshake, no congestion control, no acknowledgements, frames of
    /// [`BULK_PAYLOAD`] marked bulk (DSCP CS1) back to back at the host
    /// link's rate, while the ToR's RotorLB queue for `dst`'s ToR holds
    /// less than two slices of a host link; the rest waits in the host's
    /// memory, as it does at the authors' hosts. RotorLB never drops, so
    /// nothing is resent. [`Event::Bulk`] with `tag` says when every byte
    /// has arrived.
    pub fn send_bulk(&mut self, src: usize, dst: usize, bytes: u64, tag: u64) {
        let id = self.bulk.len() as u32;
        self.bulk.push(BulkFlow {
            src,
            dst,
            size: bytes,
            sent: 0,
            got: 0,
            tag,
        });
        if bytes == 0 {
            let at = self.now - self.start;
            self.app_events.push(Event::Bulk { tag, at });
            return;
        }
        self.push(self.now, Ev::Bulk { id });
    }

    /// Bulk flow `id`'s next frame, at `at`, if its ToR's queue has room;
    /// else again after the next slot start, when RotorLB has sent some.
    fn bulk_next(&mut self, id: u32, at: u64) {
        let b = &self.bulk[id as usize];
        let (src, dst) = (b.src, b.dst);
        let left = b.size - b.sent;
        if left == 0 {
            return;
        }
        let tor = ((src - 1) / self.hosts_per_tor) as lh_ctrl::TorId;
        let limit = 2 * self.host_bps.saturating_mul(self.slice) / 8_000_000_000;
        if self.e.bulk_backlog(tor, dst - 1) >= limit.max(2 * 1514) {
            let rel = at - self.start;
            let next = self.start + (rel / self.slice + 1) * self.slice + 1;
            self.push(next, Ev::Bulk { id });
            return;
        }
        let n = left.min(BULK_PAYLOAD);
        self.bulk[id as usize].sent += n;
        let mut f = self.e.port_mut().buffer();
        let pad = bulk_frame_into(&mut f, src, dst, id, n as usize, BULK_HEADER);
        self.send(src, at, f, pad);
        if n < left {
            // The next frame when this one has left the NIC.
            let free = self.nic_free[src - 1];
            self.push(free, Ev::Bulk { id });
        }
    }

    /// Forgets `conn` (its counters are kept in the totals).
    pub fn close(&mut self, conn: ConnId) {
        self.tcp.close(conn);
    }

    /// `conn`'s counters (end 0, end 1).
    pub fn tcp_stats(&self, conn: ConnId) -> [TcpStats; 2] {
        self.tcp.stats(conn)
    }

    /// The application's timer `tag` at `at` ns since the start.
    pub fn timer(&mut self, at: u64, tag: u64) {
        let at = (at + self.start).max(self.now);
        self.push(at, Ev::App { tag });
    }

    /// Mininet's pingall in virtual time: each host in turn pings every
    /// other at once (its NIC spaces them), waiting up to `timeout_ns` for
    /// the replies; the same value as the live network's `pingall`.
    pub fn pingall(&mut self, timeout_ns: u64) -> Result<PingAll, SimError> {
        let all: Vec<usize> = (1..=self.hosts()).collect();
        self.ping_among(&all, timeout_ns)
    }

    /// [`Sim::pingall`] among `hosts` only (numbers from 1): the live
    /// network's `ping(hosts)`.
    pub fn ping_among(&mut self, hosts: &[usize], timeout_ns: u64) -> Result<PingAll, SimError> {
        let n = hosts.len();
        let (mut sent, mut received) = (0u64, 0u64);
        let mut rows = Vec::with_capacity(n);
        for &src in hosts {
            let dsts: Vec<usize> = hosts.iter().copied().filter(|&d| d != src).collect();
            let pairs: Vec<(usize, usize)> = dsts.iter().map(|&d| (src, d)).collect();
            let rtts = self.ping_set(&pairs, timeout_ns)?;
            let mut row = PingRow {
                src: self.names[src - 1].clone(),
                results: Vec::with_capacity(n - 1),
            };
            for (dst, rtt) in dsts.into_iter().zip(rtts) {
                sent += 1;
                received += u64::from(rtt.is_some());
                row.results.push(PingResult {
                    dst: self.names[dst - 1].clone(),
                    rtt_ms: rtt.map(|ns| ns as f64 / 1e6),
                });
            }
            rows.push(row);
        }
        Ok(PingAll {
            rows,
            sent,
            received,
            all: n == self.hosts(),
            full: false,
        })
    }

    /// One echo for each `(src, dst)` pair (host numbers from 1), all sent
    /// now (each source's NIC spaces its own), waited for up to
    /// `timeout_ns`: their RTTs in ns, in the pairs' order.
    pub fn ping_set(
        &mut self,
        pairs: &[(usize, usize)],
        timeout_ns: u64,
    ) -> Result<Vec<Option<u64>>, SimError> {
        self.ping_seq = self.ping_seq.wrapping_add(1);
        let seq = self.ping_seq;
        let t0 = self.now;
        for &(src, dst) in pairs {
            self.request(src, dst, seq);
        }
        self.run(t0 + timeout_ns, &mut |s| {
            !s.echoes.keys().any(|k| k.2 == seq)
        })?;
        Ok(pairs
            .iter()
            .map(|&(src, dst)| {
                self.echoes.remove(&(src, dst, seq));
                self.replies.remove(&(src, dst, seq))
            })
            .collect())
    }

    /// `count` echoes from `src` to `dst` (host numbers from 1), one every
    /// `interval_ns`, each waited for up to `timeout_ns`: their RTTs in ns.
    pub fn ping(
        &mut self,
        src: usize,
        dst: usize,
        count: usize,
        interval_ns: u64,
        timeout_ns: u64,
    ) -> Result<Vec<Option<u64>>, SimError> {
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            self.ping_seq = self.ping_seq.wrapping_add(1);
            let seq = self.ping_seq;
            let t0 = self.now;
            self.request(src, dst, seq);
            self.run(t0 + timeout_ns, &mut |s| {
                !s.echoes.contains_key(&(src, dst, seq))
            })?;
            self.echoes.remove(&(src, dst, seq));
            out.push(self.replies.remove(&(src, dst, seq)));
            let next = t0 + interval_ns;
            if self.now < next {
                self.run(next, &mut |_| false)?;
            }
        }
        Ok(out)
    }

    /// Host `src` sends echo request `seq` to `dst` now; its RTT runs from
    /// when it leaves the NIC.
    fn request(&mut self, src: usize, dst: usize, seq: u16) {
        let e = Echo {
            src,
            dst,
            reply: false,
            id: src as u16,
            seq,
        };
        let leave = self.now.max(self.nic_free[src - 1]);
        self.echoes.insert((src, dst, seq), leave);
        self.send_echo(self.now, &e);
    }

    /// Lets the fabric drain for `ns` of virtual time.
    pub fn idle(&mut self, ns: u64) -> Result<(), SimError> {
        let until = self.now + ns;
        self.run(until, &mut |_| false)
    }
}
