//! The hosts' TCP in virtual time (docs/virtual-time.md, "TCP"): a NewReno
//! sender (RFC 5681 slow start and congestion avoidance, RFC 6582 fast
//! retransmit and recovery with partial ACKs) with the knobs the
//! experiments turn — the duplicate-ACK threshold (Linux's
//! `tcp_reordering`), RTO min/max/initial (RFC 6298 estimator, OTCP's
//! per-route parameters), the initial window and a window cap — and a
//! receiver that ACKs every segment cumulatively and queues out-of-order
//! data. smoltcp 0.13's TCP fixes its initial window, its RTO bounds and
//! its duplicate-ACK threshold, which are exactly these knobs, so the
//! stack is our own.
//!
//! The wire format is real Ethernet/IPv4/TCP (no options, so an MSS of
//! 1460 makes 1514-byte frames): the fabric parses, hashes and routes it
//! as it would the kernel's. Payload bytes are zero and the TCP checksum
//! is not computed (nothing on the path checks it). Byte offsets are kept
//! as u64 and put on the wire modulo 2^32; the receiver unwraps them
//! against what it expects. Connections open with SYN, SYN-ACK, ACK and are
//! dropped without FIN once an application is done with them.

use std::collections::{BTreeMap, HashMap, VecDeque};

mod wire;
pub use wire::{frame, frame_into, parse};

/// Ethernet + IPv4 + TCP header bytes (no options).
pub const HEADERS: usize = 54;
const ETH_IPV4: u16 = 0x0800;
const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const PSH: u8 = 0x08;

/// The parameters of every connection (Linux's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TcpConfig {
    /// Payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window, segments (Linux: 10).
    pub init_cwnd: u32,
    /// Largest congestion window, segments (OTCP's cap; `None`: none).
    pub max_cwnd: Option<u32>,
    /// Duplicate ACKs that trigger fast retransmit (`tcp_reordering`: 3).
    pub dupthresh: u32,
    /// RTO bounds and the RTO before the first RTT sample (Linux: 200 ms,
    /// 120 s, 1 s).
    pub rto_min_ns: u64,
    pub rto_max_ns: u64,
    pub rto_init_ns: u64,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            init_cwnd: 10,
            max_cwnd: None,
            dupthresh: 3,
            rto_min_ns: 200_000_000,
            rto_max_ns: 120_000_000_000,
            rto_init_ns: 1_000_000_000,
        }
    }
}

impl TcpConfig {
    /// The config's `hosts.tcp` as the simulated stack takes it: Linux's
    /// defaults where a field is absent. A field the stack does not model
    /// is refused with its JSON path rather than ignored: SACK, another
    /// congestion control than Reno's, a threshold that adapts
    /// (`max_reordering` above `reordering`), the receive buffer, OTCP.
    pub fn from_host_tcp(
        t: Option<&lh_ctrl::config::HostTcp>,
    ) -> Result<TcpConfig, crate::SimError> {
        let mut c = TcpConfig::default();
        let Some(t) = t else { return Ok(c) };
        let no = |field: &str, why: &str| crate::SimError::Unsupported {
            field: format!("$.hosts.tcp.{field}"),
            why: format!(
                "{why} (virtual time's TCP is NewReno without SACK: docs/virtual-time.md)"
            ),
        };
        if t.sack == Some(true) {
            return Err(no(
                "sack",
                "true: the simulated stack has no selective ACKs",
            ));
        }
        if let Some(cc) = t.congestion_control.as_deref().filter(|cc| *cc != "reno") {
            return Err(no(
                "congestion_control",
                &format!("{cc:?}: only \"reno\" is simulated"),
            ));
        }
        if let Some(m) = t
            .max_reordering
            .filter(|&m| m != t.reordering.unwrap_or(c.dupthresh))
        {
            return Err(no(
                "max_reordering",
                &format!(
                    "{m}: the simulated threshold does not adapt; leave it out or make it equal reordering"
                ),
            ));
        }
        if t.receive_buffer.is_some() {
            return Err(no(
                "receive_buffer",
                "no receive window is simulated; use max_window",
            ));
        }
        if t.otcp.is_some() {
            return Err(no("otcp", "per-route parameters are not simulated"));
        }
        c.dupthresh = t.reordering.unwrap_or(c.dupthresh);
        c.init_cwnd = t.initial_window.unwrap_or(c.init_cwnd);
        c.max_cwnd = t.max_window.or(c.max_cwnd);
        c.rto_min_ns = t.rto_min.map_or(c.rto_min_ns, |r| r.0);
        c.rto_max_ns = t.rto_max.map_or(c.rto_max_ns, |r| r.0);
        c.rto_init_ns = t.rto_initial.map_or(c.rto_init_ns, |r| r.0);
        Ok(c)
    }
}

/// A connection, and one of its two ends (0: the side that connected).
pub type ConnId = usize;

/// What a connection did for its application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpEvent {
    /// The connecting end got the SYN-ACK.
    Connected { conn: ConnId, at: u64 },
    /// End `end` holds every byte of the peer's message `tag`.
    Message {
        conn: ConnId,
        end: usize,
        tag: u64,
        at: u64,
    },
    /// Every byte end `end` has written is acknowledged.
    Acked { conn: ConnId, end: usize, at: u64 },
}

/// Per-connection counters, as `TCP_INFO` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TcpStats {
    /// Segments retransmitted (fast retransmits and after timeouts).
    pub retrans: u32,
    /// Retransmission timeouts.
    pub timeouts: u32,
    /// Segments the receiver queued out of order.
    pub ooo_pkts: u32,
    /// Fast retransmits (duplicate-ACK threshold reached).
    pub fast_retrans: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// End 0 has sent its SYN.
    SynSent,
    Established,
}

#[derive(Debug)]
struct End {
    host: usize,
    port: u16,
    // Sender.
    snd_una: u64,
    snd_nxt: u64,
    /// The highest offset sent (`snd_nxt` goes back after a timeout).
    snd_max: u64,
    /// Bytes the application has written.
    snd_end: u64,
    cwnd: u64,
    /// Congestion avoidance's fraction of a segment, bytes x cwnd.
    cwnd_acc: u64,
    ssthresh: u64,
    dupacks: u32,
    recovery: Option<u64>,
    srtt: Option<u64>,
    rttvar: u64,
    rto: u64,
    /// One segment being timed (Karn: none after a retransmission):
    /// (offset its ACK reaches, sent at).
    probe: Option<(u64, u64)>,
    /// The RTO deadline (`None`: nothing in flight), and the earliest timer
    /// event queued for it.
    deadline: Option<u64>,
    queued_timer: Option<u64>,
    // Receiver.
    rcv_nxt: u64,
    /// Out-of-order data: start -> end.
    ooo: BTreeMap<u64, u64>,
    /// The peer's messages to this end: (last byte's offset + 1, tag).
    inbox: VecDeque<(u64, u64)>,
    stats: TcpStats,
}

impl End {
    fn new(host: usize, port: u16, cfg: &TcpConfig) -> End {
        End {
            host,
            port,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            snd_end: 0,
            cwnd: u64::from(cfg.init_cwnd.max(1)) * u64::from(cfg.mss),
            cwnd_acc: 0,
            ssthresh: u64::MAX,
            dupacks: 0,
            recovery: None,
            srtt: None,
            rttvar: 0,
            rto: cfg.rto_init_ns,
            probe: None,
            deadline: None,
            queued_timer: None,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            inbox: VecDeque::new(),
            stats: TcpStats::default(),
        }
    }
}

#[derive(Debug)]
struct Conn {
    state: State,
    /// The server end exists once the SYN has reached it.
    open: [bool; 2],
    ends: [End; 2],
    cfg: TcpConfig,
}

/// A segment, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub src: usize,
    pub dst: usize,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub len: usize,
}

/// A segment to send at `at` (ns): the driver puts it in a frame
/// ([`frame_into`]) on host `seg.src`'s NIC.
pub struct Out {
    pub at: u64,
    pub seg: Segment,
}

/// A timer the driver must fire: connection `conn`'s end `end` at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimerReq {
    pub at: u64,
    pub conn: ConnId,
    pub end: usize,
}

/// Every host's TCP connections.
#[derive(Default)]
pub struct Tcp {
    conns: Vec<Option<Conn>>,
    /// (local host, remote host, local port, remote port) -> (conn, end).
    by_key: HashMap<(usize, usize, u16, u16), (ConnId, usize)>,
    /// The next ephemeral port of each host.
    next_port: HashMap<usize, u16>,
    /// Frames, timers and events the last calls produced.
    pub out: Vec<Out>,
    pub timers: Vec<TimerReq>,
    pub events: Vec<TcpEvent>,
    /// Counters of connections already closed.
    pub closed: TcpStats,
}

const EPHEMERAL: std::ops::Range<u16> = 32768..61000;

impl Tcp {
    /// Host `src` connects to `dst`'s `port` now: the SYN leaves.
    pub fn connect(
        &mut self,
        now: u64,
        src: usize,
        dst: usize,
        port: u16,
        cfg: TcpConfig,
    ) -> ConnId {
        let sport = loop {
            let p = self.next_port.entry(src).or_insert(EPHEMERAL.start);
            let cur = *p;
            *p = if cur + 1 >= EPHEMERAL.end {
                EPHEMERAL.start
            } else {
                cur + 1
            };
            if !self.by_key.contains_key(&(src, dst, cur, port)) {
                break cur;
            }
        };
        let id = self.conns.len();
        let conn = Conn {
            state: State::SynSent,
            open: [true, false],
            ends: [End::new(src, sport, &cfg), End::new(dst, port, &cfg)],
            cfg,
        };
        self.conns.push(Some(conn));
        self.by_key.insert((src, dst, sport, port), (id, 0));
        self.by_key.insert((dst, src, port, sport), (id, 1));
        self.syn(id, 0, now);
        id
    }

    /// The application at end `end` writes a message of `bytes` (tagged
    /// `tag` for the peer's [`TcpEvent::Message`]).
    pub fn send(&mut self, now: u64, conn: ConnId, end: usize, bytes: u64, tag: u64) {
        let Some(c) = self.conns[conn].as_mut() else {
            return;
        };
        let e = &mut c.ends[end];
        e.snd_end += bytes.max(1);
        let last = e.snd_end;
        c.ends[1 - end].inbox.push_back((last, tag));
        if c.state == State::Established {
            self.pump(conn, end, now);
        }
    }

    /// Forgets a connection (no FIN: nothing waits for it); its counters go
    /// to `closed`.
    pub fn close(&mut self, conn: ConnId) {
        if let Some(c) = self.conns[conn].take() {
            for e in &c.ends {
                let s = e.stats;
                self.closed.retrans += s.retrans;
                self.closed.timeouts += s.timeouts;
                self.closed.ooo_pkts += s.ooo_pkts;
                self.closed.fast_retrans += s.fast_retrans;
            }
            let [a, b] = &c.ends;
            self.by_key.remove(&(a.host, b.host, a.port, b.port));
            self.by_key.remove(&(b.host, a.host, b.port, a.port));
        }
    }

    /// Both ends' counters of `conn` (sender side of end 0 first).
    pub fn stats(&self, conn: ConnId) -> [TcpStats; 2] {
        self.conns[conn]
            .as_ref()
            .map_or([TcpStats::default(); 2], |c| {
                [c.ends[0].stats, c.ends[1].stats]
            })
    }

    /// Connections open.
    pub fn open(&self) -> usize {
        self.conns.iter().filter(|c| c.is_some()).count()
    }

    /// A segment reached host `at_host` at `now`.
    pub fn receive(&mut self, now: u64, s: &Segment) {
        let Some(&(id, end)) = self.by_key.get(&(s.dst, s.src, s.dport, s.sport)) else {
            return;
        };
        let Some(c) = self.conns[id].as_mut() else {
            return;
        };
        if s.flags & SYN != 0 {
            if end == 1 {
                // SYN (or its retransmission): answer with SYN-ACK.
                c.open[1] = true;
                self.syn(id, 1, now);
            } else if c.state == State::SynSent {
                c.state = State::Established;
                let e = &mut c.ends[0];
                if e.probe.is_some() {
                    // The SYN's RTT is the first sample.
                    let (_, t0) = e.probe.take().expect("checked");
                    sample(e, now - t0, &c.cfg);
                }
                e.deadline = None;
                self.events.push(TcpEvent::Connected { conn: id, at: now });
                self.ack_now(id, 0, now);
                self.pump(id, 0, now);
                self.pump(id, 1, now);
            } else {
                // A duplicate SYN-ACK: our ACK was lost.
                self.ack_now(id, 0, now);
            }
            return;
        }
        if c.state == State::SynSent {
            return;
        }
        if end == 1 && !c.open[1] {
            return;
        }
        // Data first (it may complete messages), then the ACK it carries.
        if s.len > 0 {
            let e = &mut c.ends[end];
            let off = unwrap(e.rcv_nxt, s.seq);
            let top = off + s.len as u64;
            if top > e.rcv_nxt {
                if off <= e.rcv_nxt {
                    e.rcv_nxt = top;
                    while let Some((&a, &b)) = e.ooo.first_key_value() {
                        if a > e.rcv_nxt {
                            break;
                        }
                        e.rcv_nxt = e.rcv_nxt.max(b);
                        e.ooo.pop_first();
                    }
                } else {
                    e.stats.ooo_pkts += 1;
                    let b = e.ooo.entry(off).or_insert(top);
                    *b = (*b).max(top);
                }
            }
            while e.inbox.front().is_some_and(|&(last, _)| last <= e.rcv_nxt) {
                let (_, tag) = e.inbox.pop_front().expect("checked");
                self.events.push(TcpEvent::Message {
                    conn: id,
                    end,
                    tag,
                    at: now,
                });
            }
            self.ack_now(id, end, now);
        }
        if s.flags & ACK != 0 {
            self.on_ack(id, end, now, s.ack, s.len == 0);
        }
    }

    /// Connection `conn`'s end `end` timer, requested for `at`, is due.
    pub fn timer(&mut self, now: u64, conn: ConnId, end: usize) {
        let Some(c) = self.conns[conn].as_mut() else {
            return;
        };
        let e = &mut c.ends[end];
        if e.queued_timer.is_some_and(|t| t <= now) {
            e.queued_timer = None;
        }
        let Some(d) = e.deadline else { return };
        if d > now {
            // Re-armed later since: one timer at the new deadline.
            if e.queued_timer.is_none_or(|t| t > d) {
                e.queued_timer = Some(d);
                self.timers.push(TimerReq { at: d, conn, end });
            }
            return;
        }
        // The retransmission timeout.
        e.stats.timeouts += 1;
        e.rto = (e.rto * 2).min(c.cfg.rto_max_ns);
        e.probe = None;
        e.deadline = None;
        if c.state == State::SynSent {
            self.syn(conn, end, now);
            return;
        }
        let mss = u64::from(c.cfg.mss);
        let flight = e.snd_nxt - e.snd_una;
        e.ssthresh = (flight / 2).max(2 * mss);
        e.cwnd = mss;
        e.cwnd_acc = 0;
        e.dupacks = 0;
        e.recovery = None;
        e.snd_nxt = e.snd_una;
        self.pump(conn, end, now);
    }

    fn on_ack(&mut self, id: ConnId, end: usize, now: u64, wire: u32, pure: bool) {
        let c = self.conns[id].as_mut().expect("live");
        let cfg = c.cfg;
        let mss = u64::from(cfg.mss);
        let e = &mut c.ends[end];
        let ack = unwrap(e.snd_una, wire);
        if ack > e.snd_max {
            return;
        }
        if ack > e.snd_una {
            let acked = ack - e.snd_una;
            e.snd_una = ack;
            // After a timeout's go-back, the receiver may hold more.
            e.snd_nxt = e.snd_nxt.max(ack);
            if let Some((top, t0)) = e.probe
                && ack >= top
            {
                e.probe = None;
                sample(e, now - t0, &cfg);
            }
            match e.recovery {
                Some(recover) if ack >= recover => {
                    // Full ACK: recovery ends (RFC 6582).
                    e.recovery = None;
                    e.cwnd = e.ssthresh.min((e.snd_nxt - e.snd_una) + mss).max(mss);
                    e.dupacks = 0;
                }
                Some(_) => {
                    // Partial ACK: the next hole is lost too.
                    e.cwnd = e.cwnd.saturating_sub(acked).max(mss) + mss;
                    e.stats.retrans += 1;
                    let seq = e.snd_una;
                    let len = mss.min(e.snd_end - seq);
                    self.segment(id, end, now, seq, len);
                }
                None => {
                    e.dupacks = 0;
                    if e.cwnd < e.ssthresh {
                        e.cwnd += acked.min(2 * mss);
                    } else {
                        e.cwnd_acc += acked * mss;
                        while e.cwnd_acc >= e.cwnd {
                            e.cwnd_acc -= e.cwnd;
                            e.cwnd += mss;
                        }
                    }
                }
            }
            let e = &mut self.conns[id].as_mut().expect("live").ends[end];
            if let Some(m) = cfg.max_cwnd {
                e.cwnd = e.cwnd.min(u64::from(m) * mss);
            }
            if e.snd_una == e.snd_end {
                self.events.push(TcpEvent::Acked {
                    conn: id,
                    end,
                    at: now,
                });
            }
            e.deadline = None;
            if e.snd_max > e.snd_una {
                let at = now + e.rto;
                self.arm(id, end, at);
            }
        } else if pure && ack == e.snd_una && e.snd_max > e.snd_una {
            e.dupacks += 1;
            if e.recovery.is_none() && e.dupacks == cfg.dupthresh {
                let flight = e.snd_nxt - e.snd_una;
                e.ssthresh = (flight / 2).max(2 * mss);
                e.cwnd = e.ssthresh + u64::from(cfg.dupthresh) * mss;
                e.recovery = Some(e.snd_nxt);
                e.probe = None;
                e.stats.retrans += 1;
                e.stats.fast_retrans += 1;
                let seq = e.snd_una;
                let len = mss.min(e.snd_end - seq);
                self.segment(id, end, now, seq, len);
            } else if e.recovery.is_some() {
                e.cwnd += mss;
            }
        }
        self.pump(id, end, now);
    }

    /// Sends what the window allows.
    fn pump(&mut self, id: ConnId, end: usize, now: u64) {
        let c = self.conns[id].as_mut().expect("live");
        if c.state != State::Established || !c.open[end] {
            return;
        }
        let mss = u64::from(c.cfg.mss);
        loop {
            let e = &mut self.conns[id].as_mut().expect("live").ends[end];
            if e.snd_nxt >= e.snd_end {
                break;
            }
            let len = mss.min(e.snd_end - e.snd_nxt);
            let flight = e.snd_nxt - e.snd_una;
            if flight > 0 && flight + len > e.cwnd {
                break;
            }
            let seq = e.snd_nxt;
            e.snd_nxt += len;
            if seq < e.snd_max {
                // Resent after a timeout.
                e.stats.retrans += 1;
            }
            e.snd_max = e.snd_max.max(e.snd_nxt);
            if e.probe.is_none() {
                e.probe = Some((seq + len, now));
            }
            self.segment(id, end, now, seq, len);
        }
    }

    /// One data segment of `len` bytes at offset `seq`.
    fn segment(&mut self, id: ConnId, end: usize, now: u64, seq: u64, len: u64) {
        let c = self.conns[id].as_ref().expect("live");
        let (me, peer) = (&c.ends[end], &c.ends[1 - end]);
        let seg = Segment {
            src: me.host,
            dst: peer.host,
            sport: me.port,
            dport: peer.port,
            seq: seq as u32,
            ack: me.rcv_nxt as u32,
            flags: ACK | PSH,
            len: len as usize,
        };
        let need = me.deadline.is_none();
        let at = now + me.rto;
        self.out.push(Out { at: now, seg });
        if need {
            self.arm(id, end, at);
        }
    }

    /// A pure ACK from end `end`.
    fn ack_now(&mut self, id: ConnId, end: usize, now: u64) {
        let c = self.conns[id].as_ref().expect("live");
        let (me, peer) = (&c.ends[end], &c.ends[1 - end]);
        let seg = Segment {
            src: me.host,
            dst: peer.host,
            sport: me.port,
            dport: peer.port,
            seq: me.snd_nxt as u32,
            ack: me.rcv_nxt as u32,
            flags: ACK,
            len: 0,
        };
        self.out.push(Out { at: now, seg });
    }

    /// SYN (end 0) or SYN-ACK (end 1), timed by the RTO.
    fn syn(&mut self, id: ConnId, end: usize, now: u64) {
        let c = self.conns[id].as_mut().expect("live");
        let (a, b) = c.ends.split_at_mut(1);
        let (me, peer) = if end == 0 {
            (&mut a[0], &b[0])
        } else {
            (&mut b[0], &a[0])
        };
        let flags = if end == 0 { SYN } else { SYN | ACK };
        let seg = Segment {
            src: me.host,
            dst: peer.host,
            sport: me.port,
            dport: peer.port,
            seq: 0,
            ack: 0,
            flags,
            len: 0,
        };
        self.out.push(Out { at: now, seg });
        if end == 0 {
            me.probe = Some((0, now));
            let at = now + me.rto;
            me.deadline = None;
            self.arm(id, 0, at);
        }
    }

    /// Sets end `end`'s RTO deadline, queueing a timer only when none is
    /// queued earlier (one re-arm per ACK would otherwise queue one).
    fn arm(&mut self, id: ConnId, end: usize, at: u64) {
        let e = &mut self.conns[id].as_mut().expect("live").ends[end];
        e.deadline = Some(at);
        if e.queued_timer.is_none_or(|t| t > at) {
            e.queued_timer = Some(at);
            self.timers.push(TimerReq { at, conn: id, end });
        }
    }
}

/// An RTT sample (RFC 6298).
fn sample(e: &mut End, r: u64, cfg: &TcpConfig) {
    match e.srtt {
        None => {
            e.srtt = Some(r);
            e.rttvar = r / 2;
        }
        Some(s) => {
            e.rttvar = (3 * e.rttvar + s.abs_diff(r)) / 4;
            e.srtt = Some((7 * s + r) / 8);
        }
    }
    let s = e.srtt.expect("set");
    e.rto = (s + (4 * e.rttvar).max(1)).clamp(cfg.rto_min_ns, cfg.rto_max_ns);
}

/// The u64 offset nearest `near` whose low 32 bits are `wire`.
fn unwrap(near: u64, wire: u32) -> u64 {
    let d = wire.wrapping_sub(near as u32) as i32;
    (near as i64 + i64::from(d)).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_unwrap_across_the_32_bit_wrap() {
        assert_eq!(unwrap(0, 5), 5);
        assert_eq!(unwrap((1 << 32) - 10, 5), (1 << 32) + 5);
        assert_eq!(unwrap((1 << 32) + 5, u32::MAX - 2), (1 << 32) - 3);
        assert_eq!(unwrap(3, u32::MAX), 0, "never below 0");
    }
}
