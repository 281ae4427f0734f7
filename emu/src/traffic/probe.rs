//! Built-in prober and flow tool, so `pingall`/`iperf` work without ping or
//! iperf3 installed. Each socket is opened inside the right namespace on a
//! short-lived thread ([`netns::run_in`]) and then used from the caller: a
//! socket stays in the namespace it was created in.

use crate::netns::{self, NsError};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Ns(#[from] NsError),
    #[error("{0}: {1}")]
    Io(&'static str, io::Error),
}

fn io(what: &'static str) -> impl FnOnce(io::Error) -> ProbeError {
    move |e| ProbeError::Io(what, e)
}

/// RFC 1071 Internet checksum.
pub fn inet_checksum(b: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for c in b.chunks(2) {
        let w = if c.len() == 2 {
            u16::from_be_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], 0])
        };
        sum += w as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An ICMP echo request like `ping`'s: 8 header bytes + 56 payload bytes.
pub fn echo_request(id: u16, seq: u16) -> [u8; 64] {
    let mut p = [0u8; 64];
    p[0] = 8;
    p[4..6].copy_from_slice(&id.to_be_bytes());
    p[6..8].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in p[8..].iter_mut().enumerate() {
        *b = i as u8;
    }
    let c = inet_checksum(&p);
    p[2..4].copy_from_slice(&c.to_be_bytes());
    p
}

/// Does this raw IPv4 datagram carry the echo reply we wait for?
pub fn is_reply(pkt: &[u8], from: Ipv4Addr, id: u16, seq: u16) -> bool {
    if pkt.len() < 20 || pkt[0] >> 4 != 4 {
        return false;
    }
    let ihl = (pkt[0] & 0x0f) as usize * 4;
    let src = Ipv4Addr::new(pkt[12], pkt[13], pkt[14], pkt[15]);
    let icmp = &pkt[ihl.min(pkt.len())..];
    icmp.len() >= 8
        && src == from
        && icmp[0] == 0
        && icmp[4..6] == id.to_be_bytes()
        && icmp[6..8] == seq.to_be_bytes()
}

/// A raw ICMP socket opened inside a namespace. Opening it (entering the
/// namespace) can take milliseconds, so timing-sensitive callers open first
/// and then [`Pinger::echo`].
/// If `pkt` answers one of the `waiting` echoes (index into `dsts`, send
/// time; sequence number index + 1), records its RTT in `out`.
fn match_reply(
    pkt: &[u8],
    dsts: &[Ipv4Addr],
    id: u16,
    waiting: &mut Vec<(usize, Instant)>,
    out: &mut [Option<Duration>],
) {
    if let Some(pos) = waiting
        .iter()
        .position(|&(i, _)| is_reply(pkt, dsts[i], id, (i as u16).wrapping_add(1)))
    {
        let (i, t0) = waiting.swap_remove(pos);
        out[i] = Some(t0.elapsed());
    }
}

pub struct Pinger {
    sock: Socket,
}

impl Pinger {
    pub fn open(ns: Option<&Path>) -> Result<Pinger, ProbeError> {
        let sock = netns::run_in(ns, || {
            Socket::new(Domain::IPV4, Type::RAW, Some(Protocol::ICMPV4))
        })?
        .map_err(io("raw ICMP socket"))?;
        Ok(Pinger { sock })
    }

    /// One echo to `dst`; `Some(rtt)` if answered within `timeout`.
    pub fn echo(&self, dst: Ipv4Addr, timeout: Duration) -> Result<Option<Duration>, ProbeError> {
        self.echo_sent(dst, timeout).map(|(rtt, _)| rtt)
    }

    /// [`Pinger::echo`], also returning when the request left:
    /// CLOCK_MONOTONIC ns as the send call returned (the request is then on
    /// the far side of the host's veth).
    pub fn echo_sent(
        &self,
        dst: Ipv4Addr,
        timeout: Duration,
    ) -> Result<(Option<Duration>, u64), ProbeError> {
        let id: u16 = rand::random();
        let seq: u16 = 1;
        let req = echo_request(id, seq);
        let to = SockAddr::from(SocketAddrV4::new(dst, 0));
        let t0 = Instant::now();
        self.sock.send_to(&req, &to).map_err(io("send echo"))?;
        let sent = swtor::monotonic_ns();
        let rtt = self.await_reply(dst, id, seq, t0, timeout)?;
        Ok((rtt, sent))
    }

    fn await_reply(
        &self,
        dst: Ipv4Addr,
        id: u16,
        seq: u16,
        t0: Instant,
        timeout: Duration,
    ) -> Result<Option<Duration>, ProbeError> {
        let mut buf = [0u8; 2048];
        loop {
            let left = timeout.saturating_sub(t0.elapsed());
            if left.is_zero() {
                return Ok(None);
            }
            self.sock
                .set_read_timeout(Some(left))
                .map_err(io("timeout"))?;
            match (&self.sock).read(&mut buf) {
                Ok(n) => {
                    if is_reply(&buf[..n], dst, id, seq) {
                        return Ok(Some(t0.elapsed()));
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ProbeError::Io("receive echo", e)),
            }
        }
    }
}

impl Pinger {
    /// One echo to each of `dsts`, at most `window` in flight at a time, each
    /// answered within `timeout` of its own send or counted lost. Results are
    /// in `dsts` order. One socket serves them all: replies are told apart by
    /// source address, id and sequence number, like `ping`'s. `stop` is
    /// polled every 50 ms (Ctrl-C); on `true` the unanswered rest is `None`.
    pub fn echo_many(
        &self,
        dsts: &[Ipv4Addr],
        timeout: Duration,
        window: usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<Option<Duration>>, ProbeError> {
        let id: u16 = rand::random();
        let window = window.max(1);
        let mut out: Vec<Option<Duration>> = vec![None; dsts.len()];
        // (index, send time) of the echoes still waiting for a reply.
        let mut waiting: Vec<(usize, Instant)> = Vec::with_capacity(window);
        let mut next = 0usize;
        let mut buf = [0u8; 2048];
        while next < dsts.len() || !waiting.is_empty() {
            while next < dsts.len() && waiting.len() < window {
                // Sequence numbers start at 1 and stay unique within the call.
                let req = echo_request(id, (next as u16).wrapping_add(1));
                let to = SockAddr::from(SocketAddrV4::new(dsts[next], 0));
                self.sock.send_to(&req, &to).map_err(io("send echo"))?;
                waiting.push((next, Instant::now()));
                next += 1;
            }
            // Replies already queued are matched before any echo expires: a
            // prober descheduled past an echo's timeout must not count a
            // reply that came in time as lost.
            self.sock
                .set_nonblocking(true)
                .map_err(io("non-blocking"))?;
            let drained = loop {
                match (&self.sock).read(&mut buf) {
                    Ok(n) => match_reply(&buf[..n], dsts, id, &mut waiting, &mut out),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(()),
                    Err(e) => break Err(ProbeError::Io("receive echo", e)),
                }
            };
            self.sock.set_nonblocking(false).map_err(io("blocking"))?;
            drained?;
            let now = Instant::now();
            waiting.retain(|&(_, t0)| now.duration_since(t0) < timeout);
            if waiting.is_empty() {
                continue;
            }
            if stop() {
                return Ok(out);
            }
            let oldest = waiting.iter().map(|w| w.1).min().unwrap_or(now);
            let left = timeout
                .saturating_sub(now.duration_since(oldest))
                .clamp(Duration::from_millis(1), Duration::from_millis(50));
            self.sock
                .set_read_timeout(Some(left))
                .map_err(io("timeout"))?;
            match (&self.sock).read(&mut buf) {
                Ok(n) => match_reply(&buf[..n], dsts, id, &mut waiting, &mut out),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(ProbeError::Io("receive echo", e)),
            }
        }
        Ok(out)
    }
}

/// One ICMP echo from namespace `ns` to `dst`; `Some(rtt)` if answered
/// within `timeout`.
pub fn ping(
    ns: Option<&Path>,
    dst: Ipv4Addr,
    timeout: Duration,
) -> Result<Option<Duration>, ProbeError> {
    Pinger::open(ns)?.echo(dst, timeout)
}

/// How much a flow sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    Bytes(u64),
    Seconds(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    pub bytes: u64,
    /// Receiver's goodput, bits/s (first accepted byte to end of stream).
    pub server_bps: f64,
    /// Sender's rate, bits/s (connect to last write).
    pub client_bps: f64,
    /// Flow completion time: connect start until the receiver has every byte.
    pub fct: Duration,
}

/// One TCP flow from namespace `src` to `dst_ip` (in namespace `dst`).
pub fn tcp_flow(
    src: Option<&Path>,
    dst: Option<&Path>,
    dst_ip: Ipv4Addr,
    amount: Amount,
) -> Result<FlowResult, ProbeError> {
    let listener = netns::run_in(dst, || TcpListener::bind((dst_ip, 0)))?.map_err(io("listen"))?;
    let port = listener.local_addr().map_err(io("listen"))?.port();
    let server = std::thread::spawn(move || -> io::Result<(u64, Duration)> {
        let (mut s, _) = listener.accept()?;
        let t0 = Instant::now();
        let mut buf = vec![0u8; 256 * 1024];
        let mut n = 0u64;
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => n += k as u64,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok((n, t0.elapsed()))
    });
    let t0 = Instant::now();
    let addr = SocketAddrV4::new(dst_ip, port).into();
    let mut c = netns::run_in(src, || {
        TcpStream::connect_timeout(&addr, Duration::from_secs(5))
    })?
    .map_err(io("connect"))?;
    let buf = vec![0x5au8; 128 * 1024];
    let mut sent = 0u64;
    match amount {
        Amount::Bytes(total) => {
            while sent < total {
                let k = ((total - sent) as usize).min(buf.len());
                c.write_all(&buf[..k]).map_err(io("send"))?;
                sent += k as u64;
            }
        }
        Amount::Seconds(secs) => {
            let d = Duration::try_from_secs_f64(secs.min(86_400.0)).unwrap_or(Duration::ZERO);
            let end = t0 + d;
            while Instant::now() < end {
                c.write_all(&buf).map_err(io("send"))?;
                sent += buf.len() as u64;
            }
        }
    }
    let t_sent = t0.elapsed();
    c.shutdown(std::net::Shutdown::Write)
        .map_err(io("shutdown"))?;
    let (got, t_srv) = server
        .join()
        .map_err(|_| ProbeError::Io("receiver", io::Error::other("thread panicked")))?
        .map_err(io("receive"))?;
    let fct = t0.elapsed();
    Ok(FlowResult {
        bytes: got,
        server_bps: got as f64 * 8.0 / t_srv.as_secs_f64().max(1e-9),
        client_bps: sent as f64 * 8.0 / t_sent.as_secs_f64().max(1e-9),
        fct,
    })
}

/// A paced UDP flow at `bps` for `secs`; returns (receiver bps, sender bps).
pub fn udp_flow(
    src: Option<&Path>,
    dst: Option<&Path>,
    dst_ip: Ipv4Addr,
    bps: f64,
    secs: f64,
) -> Result<(f64, f64), ProbeError> {
    const PAYLOAD: usize = 1470;
    let rx = netns::run_in(dst, || UdpSocket::bind((dst_ip, 0)))?.map_err(io("bind"))?;
    let port = rx.local_addr().map_err(io("bind"))?.port();
    rx.set_read_timeout(Some(Duration::from_millis(500)))
        .map_err(io("bind"))?;
    let server = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let (mut n, mut first, mut last) = (0u64, None, Instant::now());
        while let Ok(k) = rx.recv(&mut buf) {
            let now = Instant::now();
            first.get_or_insert(now);
            last = now;
            if k == 1 {
                break; // end marker
            }
            n += k as u64;
        }
        let dur = first.map(|f| last - f).unwrap_or_default();
        n as f64 * 8.0 / dur.as_secs_f64().max(1e-3)
    });
    let tx =
        netns::run_in(src, || UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)))?.map_err(io("bind"))?;
    tx.connect((dst_ip, port)).map_err(io("connect"))?;
    let buf = [0u8; PAYLOAD];
    let gap = Duration::try_from_secs_f64(PAYLOAD as f64 * 8.0 / bps.clamp(1.0, 1e12))
        .unwrap_or(Duration::from_millis(1));
    let t0 = Instant::now();
    let end = t0 + Duration::try_from_secs_f64(secs.min(86_400.0)).unwrap_or(Duration::ZERO);
    let (mut next, mut sent) = (t0, 0u64);
    // Bounded by the clock, not by a packet count: a sender slower than
    // the requested rate still stops at `end`.
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if now < next {
            std::thread::sleep((next - now).min(end - now));
            continue;
        }
        if tx.send(&buf).is_ok() {
            sent += PAYLOAD as u64;
        }
        // Never bank more than a millisecond of credit after a stall.
        next = (next + gap).max(now.checked_sub(Duration::from_millis(1)).unwrap_or(now));
    }
    let t_sent = t0.elapsed();
    for _ in 0..3 {
        let _ = tx.send(&[0u8]);
    }
    let server_bps = server
        .join()
        .map_err(|_| ProbeError::Io("receiver", io::Error::other("thread panicked")))?;
    Ok((
        server_bps,
        sent as f64 * 8.0 / t_sent.as_secs_f64().max(1e-9),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_echo_request_verifies() {
        let p = echo_request(0x1234, 7);
        assert_eq!(inet_checksum(&p), 0);
        assert_eq!(p[0], 8);
        assert_eq!(&p[4..8], &[0x12, 0x34, 0, 7]);
        // RFC 1071 example bytes.
        assert_eq!(
            inet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            !0xddf2
        );
    }

    #[test]
    fn reply_matching_checks_source_type_id_seq() {
        let mut pkt = vec![0u8; 28];
        pkt[0] = 0x45;
        pkt[12..16].copy_from_slice(&[10, 0, 0, 2]);
        pkt[24..26].copy_from_slice(&5u16.to_be_bytes());
        pkt[26..28].copy_from_slice(&1u16.to_be_bytes());
        let from = Ipv4Addr::new(10, 0, 0, 2);
        assert!(is_reply(&pkt, from, 5, 1));
        assert!(!is_reply(&pkt, from, 6, 1));
        assert!(!is_reply(&pkt, Ipv4Addr::new(10, 0, 0, 3), 5, 1));
        pkt[20] = 8; // an echo request, not a reply
        assert!(!is_reply(&pkt, from, 5, 1));
    }
}
