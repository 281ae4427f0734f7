//! Runs a generated workload through the kernel's TCP: a listener in each
//! receiving host's namespace, and per sending host a dispatcher thread
//! that enters the host's namespace once and starts each flow on its own
//! thread (threads inherit the namespace) at its arrival time. A flow is
//! complete when its receiver has read every byte; its FCT runs from the
//! connect call to then, on one clock.

use super::arrivals::FlowSpec;
use super::fct::FlowRecord;
use crate::host::tcpinfo;
use crate::netns;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A host as the runner sees it.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub ns: PathBuf,
    pub ip: Ipv4Addr,
}

/// The TCP port the receivers listen on.
pub const PORT: u16 = 5301;

#[derive(Default)]
struct Outcome {
    started: Option<Instant>,
    done: Option<Instant>,
    sender: tcpinfo::TcpCounters,
    receiver: tcpinfo::TcpCounters,
}

type Shared = Arc<Mutex<Vec<Outcome>>>;

/// Runs `flows` between `hosts` and returns one record per flow (in
/// `flows` order). Flows not complete `grace` after the last arrival are
/// recorded as incomplete. `stop` is polled (Ctrl-C).
pub fn run(
    hosts: &[Endpoint],
    flows: &[FlowSpec],
    grace: Duration,
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<Vec<FlowRecord>> {
    run_with(hosts, flows, grace, None, stop)
}

/// [`run`], each sender's socket with congestion control `cc` (the
/// kernel's `TCP_CONGESTION`; `None`: the namespace's default). Per socket
/// because a namespace's default can only be one of the machine's
/// `net.ipv4.tcp_allowed_congestion_control`, while a socket of a process
/// with CAP_NET_ADMIN may take any loaded algorithm.
pub fn run_with(
    hosts: &[Endpoint],
    flows: &[FlowSpec],
    grace: Duration,
    cc: Option<&str>,
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<Vec<FlowRecord>> {
    let n = flows.len();
    let out: Shared = Arc::new(Mutex::new((0..n).map(|_| Outcome::default()).collect()));
    let quit = Arc::new(AtomicBool::new(false));
    let last = flows.iter().map(|f| f.start_ns).max().unwrap_or(0);
    let mut receivers: Vec<usize> = flows.iter().map(|f| f.dst).collect();
    receivers.sort_unstable();
    receivers.dedup();
    // Listeners first, so no flow connects to a closed port.
    let mut listeners = Vec::new();
    for &d in &receivers {
        let h = hosts
            .get(d)
            .ok_or_else(|| anyhow::anyhow!("flow to h{}: no such host", d + 1))?;
        let ip = h.ip;
        let l = netns::run_in(Some(&h.ns), move || {
            TcpListener::bind(SocketAddrV4::new(ip, PORT))
        })??;
        l.set_nonblocking(true)?;
        listeners.push(l);
    }
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_nanos(last) + grace;
    std::thread::scope(|s| -> anyhow::Result<()> {
        for l in listeners {
            let (out, quit) = (out.clone(), quit.clone());
            s.spawn(move || serve(l, out, quit, n));
        }
        let mut by_src: Vec<Vec<FlowSpec>> = vec![Vec::new(); hosts.len()];
        for f in flows {
            let b = by_src
                .get_mut(f.src)
                .ok_or_else(|| anyhow::anyhow!("flow from h{}: no such host", f.src + 1))?;
            b.push(*f);
        }
        for (src, fl) in by_src
            .into_iter()
            .enumerate()
            .filter(|(_, f)| !f.is_empty())
        {
            let ns = hosts[src].ns.clone();
            let (out, quit) = (out.clone(), quit.clone());
            let dsts: Vec<Ipv4Addr> = hosts.iter().map(|h| h.ip).collect();
            s.spawn(move || {
                let _ = netns::run_in(Some(&ns), move || {
                    dispatch(fl, dsts, cc, t0, deadline, out, quit)
                });
            });
        }
        // Wait for every flow or the deadline, then release the threads.
        while Instant::now() < deadline && !quit.load(Ordering::Relaxed) {
            if stop() {
                break;
            }
            let done = out
                .lock()
                .map(|o| o.iter().all(|x| x.done.is_some()))
                .unwrap_or(true);
            if done {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        quit.store(true, Ordering::Relaxed);
        Ok(())
    })?;
    let o = out
        .lock()
        .map_err(|_| anyhow::anyhow!("a flow thread panicked"))?;
    Ok(flows
        .iter()
        .zip(o.iter())
        .map(|(f, x)| FlowRecord {
            flow: *f,
            fct_ns: match (x.started, x.done) {
                (Some(a), Some(b)) => Some(b.saturating_duration_since(a).as_nanos() as u64),
                _ => None,
            },
            data_fct_ns: None,
            retrans: x.sender.total_retrans,
            reord_seen: x.sender.reord_seen,
            ooo_pkts: x.receiver.rcv_ooopack,
            timeouts: x.sender.total_rto,
        })
        .collect())
}

/// Starts `flows` (one source, sorted by start) at their arrival times.
fn dispatch(
    flows: Vec<FlowSpec>,
    dsts: Vec<Ipv4Addr>,
    cc: Option<&str>,
    t0: Instant,
    deadline: Instant,
    out: Shared,
    quit: Arc<AtomicBool>,
) {
    std::thread::scope(|s| {
        for f in flows {
            let at = t0 + Duration::from_nanos(f.start_ns);
            while Instant::now() < at {
                if quit.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(
                    at.saturating_duration_since(Instant::now())
                        .min(Duration::from_millis(5)),
                );
            }
            let (out, quit) = (out.clone(), &quit);
            let dst = SocketAddrV4::new(dsts[f.dst], PORT);
            s.spawn(move || send(f, dst, cc, deadline, out, quit));
        }
    });
}

/// One flow's sender: connect, an 8-byte header (flow id), the payload,
/// half-close, then wait for the receiver's close.
fn send(
    f: FlowSpec,
    dst: SocketAddrV4,
    cc: Option<&str>,
    deadline: Instant,
    out: Shared,
    quit: &AtomicBool,
) {
    let started = Instant::now();
    if let Ok(mut o) = out.lock() {
        o[f.id as usize].started = Some(started);
    }
    let left = deadline
        .saturating_duration_since(started)
        .max(Duration::from_millis(1));
    let Ok(mut c) = connect(dst, cc, left) else {
        return;
    };
    let _ = c.set_write_timeout(Some(Duration::from_millis(50)));
    let _ = c.set_read_timeout(Some(Duration::from_millis(50)));
    // Like an RPC library: no Nagle delay, and the header goes out in the
    // same write as the payload's start (two small writes would wait for a
    // delayed ACK).
    let _ = c.set_nodelay(true);
    let mut buf = [0u8; 65536];
    buf[..8].copy_from_slice(&u64::from(f.id).to_be_bytes());
    let mut left = f.size + 8;
    let mut first = true;
    while left > 0 {
        let k = (left as usize).min(buf.len());
        if !write_all(&mut c, &buf[..k], quit) {
            return;
        }
        if first {
            buf[..8].fill(0);
            first = false;
        }
        left -= k as u64;
    }
    let _ = c.shutdown(std::net::Shutdown::Write);
    let mut b = [0u8; 64];
    loop {
        match c.read(&mut b) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if is_timeout(&e) && !quit.load(Ordering::Relaxed) => {}
            Err(_) => break,
        }
    }
    if let (Ok(ti), Ok(mut o)) = (tcpinfo::read(&c), out.lock()) {
        o[f.id as usize].sender = ti;
    }
}

/// A connected socket to `dst`, with congestion control `cc` from its SYN
/// on.
fn connect(dst: SocketAddrV4, cc: Option<&str>, timeout: Duration) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    if let Some(cc) = cc {
        s.set_tcp_congestion(cc.as_bytes())?;
    }
    s.connect_timeout(&dst.into(), timeout)?;
    Ok(s.into())
}

/// `write_all` that gives up on `quit` or an error.
fn write_all(c: &mut TcpStream, mut b: &[u8], quit: &AtomicBool) -> bool {
    while !b.is_empty() {
        if quit.load(Ordering::Relaxed) {
            return false;
        }
        match c.write(b) {
            Ok(0) => return false,
            Ok(w) => b = &b[w..],
            Err(e) if is_timeout(&e) => {}
            Err(_) => return false,
        }
    }
    true
}

/// A socket timeout or interruption: try again.
pub fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

/// A receiver: accepts flows and drains each on its own thread.
fn serve(l: TcpListener, out: Shared, quit: Arc<AtomicBool>, flows: usize) {
    std::thread::scope(|s| {
        while !quit.load(Ordering::Relaxed) {
            match l.accept() {
                Ok((c, _)) => {
                    let (out, quit) = (out.clone(), &quit);
                    s.spawn(move || drain(c, out, quit, flows));
                }
                Err(e) if is_timeout(&e) => std::thread::sleep(Duration::from_millis(1)),
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    });
}

fn drain(mut c: TcpStream, out: Shared, quit: &AtomicBool, flows: usize) {
    let _ = c.set_nonblocking(false);
    let _ = c.set_read_timeout(Some(Duration::from_millis(50)));
    let mut hdr = [0u8; 8];
    let mut got = 0;
    let mut buf = [0u8; 65536];
    while got < 8 {
        match c.read(&mut hdr[got..]) {
            Ok(0) => return,
            Ok(k) => got += k,
            Err(e) if is_timeout(&e) && !quit.load(Ordering::Relaxed) => {}
            Err(_) => return,
        }
    }
    let id = u64::from_be_bytes(hdr) as usize;
    if id >= flows {
        return;
    }
    loop {
        match c.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if is_timeout(&e) && !quit.load(Ordering::Relaxed) => {}
            Err(_) => return,
        }
    }
    let done = Instant::now();
    let ti = tcpinfo::read(&c).unwrap_or_default();
    if let Ok(mut o) = out.lock() {
        o[id].done = Some(done);
        o[id].receiver = ti;
    }
}
