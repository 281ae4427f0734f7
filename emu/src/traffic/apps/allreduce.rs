//! Ring allreduce between host namespaces over the kernel's TCP, as Gloo's
//! ring algorithm does it (paper §9.1 runs Gloo with 800 KB to 20 MB):
//! every host holds a float32 vector of the same length, cut into N chunks;
//! N-1 reduce-scatter steps (send chunk `r-s`, receive chunk `r-s-1` from
//! the previous host and add it in) leave host r with the sum of chunk
//! `r+1`, and N-1 all-gather steps pass the summed chunks around the ring.
//! Each host sends to the next one on one TCP connection and receives from
//! the previous one on another; within a step the send runs on its own
//! thread so the two directions overlap.
//!
//! The completion time of one allreduce runs from the barrier every host
//! leaves together to the last host holding the whole sum, on one clock.
//! After each one every host's vector is compared with the elementwise sum
//! computed independently here; a mismatch is an error.

use crate::netns;
use crate::traffic::workload::run::Endpoint;
use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// The port each host listens on for its ring predecessor.
pub const PORT: u16 = 5402;
/// Longest one allreduce may take before it is abandoned.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Completion time of each allreduce, ns.
    pub times_ns: Vec<u64>,
    /// float32 elements per host.
    pub elements: usize,
}

/// Element `i` of host `r`'s input in iteration `it`: small integers, so
/// every partial sum is exact in float32 and the result can be compared
/// for equality.
pub fn input(r: usize, it: usize, i: usize) -> f32 {
    (((r + it) % 7 + 1) * (i % 251 + 1)) as f32
}

/// The expected sum at element `i` over `n` hosts.
pub fn expected(n: usize, it: usize, i: usize) -> f32 {
    let w: usize = (0..n).map(|r| (r + it) % 7 + 1).sum();
    (w * (i % 251 + 1)) as f32
}

/// Element range of chunk `k` of `n` over `len` elements.
pub fn chunk(len: usize, n: usize, k: usize) -> std::ops::Range<usize> {
    (k * len / n)..((k + 1) * len / n)
}

/// Runs `iters` allreduces of `bytes` (float32 elements, rounded down)
/// over `hosts` in ring order.
pub fn run(
    hosts: &[Endpoint],
    bytes: usize,
    iters: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<Outcome> {
    let n = hosts.len();
    anyhow::ensure!(n >= 2, "allreduce needs at least 2 hosts");
    let len = bytes / 4;
    anyhow::ensure!(len >= n, "allreduce needs at least one element per host");
    // Listeners first; the ring connections complete from the backlog.
    let mut listeners = Vec::with_capacity(n);
    for h in hosts {
        let ip = h.ip;
        let l = netns::run_in(Some(&h.ns), move || {
            TcpListener::bind(SocketAddrV4::new(ip, PORT))
        })?
        .map_err(|e| anyhow::anyhow!("listen on {ip}:{PORT}: {e}"))?;
        listeners.push(l);
    }
    let mut to_next = Vec::with_capacity(n);
    for (r, h) in hosts.iter().enumerate() {
        let next = SocketAddrV4::new(hosts[(r + 1) % n].ip, PORT);
        let c = netns::run_in(Some(&h.ns), move || {
            TcpStream::connect_timeout(&next.into(), Duration::from_secs(10))
        })?
        .map_err(|e| anyhow::anyhow!("connect {} -> {next}: {e}", h.ip))?;
        to_next.push(c);
    }
    let mut from_prev = Vec::with_capacity(n);
    for l in &listeners {
        let (c, _) = l.accept()?;
        from_prev.push(c);
    }
    drop(listeners);
    for c in to_next.iter().chain(&from_prev) {
        c.set_nodelay(true)?;
        c.set_read_timeout(Some(Duration::from_millis(200)))?;
        c.set_write_timeout(Some(Duration::from_millis(200)))?;
    }
    let barrier = Barrier::new(n);
    let quit = AtomicBool::new(false);
    let spans: Mutex<Vec<Vec<(Instant, Instant)>>> = Mutex::new(vec![Vec::new(); iters]);
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for (r, (tx, rx)) in to_next.into_iter().zip(from_prev).enumerate() {
            let ctx = Ctx {
                r,
                n,
                len,
                barrier: &barrier,
                quit: &quit,
                stop,
            };
            let (spans, errors) = (&spans, &errors);
            s.spawn(move || {
                let mut waited = 0;
                if let Err(e) = ctx.host(tx, rx, iters, spans, &mut waited) {
                    ctx.quit.store(true, Ordering::Relaxed);
                    if let Ok(mut v) = errors.lock() {
                        v.push(format!("{} (ring position {r}): {e}", hosts[r].ip));
                    }
                    // Do not leave the others waiting at the barrier.
                    for _ in waited..iters {
                        ctx.barrier.wait();
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if let Some(e) = errors.first() {
        anyhow::bail!("{e}");
    }
    let spans = spans.into_inner().unwrap_or_default();
    let times_ns = spans
        .iter()
        .map(|v| {
            let a = v.iter().map(|x| x.0).min();
            let b = v.iter().map(|x| x.1).max();
            match (a, b) {
                (Some(a), Some(b)) => b.saturating_duration_since(a).as_nanos() as u64,
                _ => 0,
            }
        })
        .collect();
    Ok(Outcome {
        times_ns,
        elements: len,
    })
}

/// One host's part.
struct Ctx<'a> {
    r: usize,
    n: usize,
    len: usize,
    barrier: &'a Barrier,
    quit: &'a AtomicBool,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl Ctx<'_> {
    fn host(
        &self,
        mut tx: TcpStream,
        mut rx: TcpStream,
        iters: usize,
        spans: &Mutex<Vec<Vec<(Instant, Instant)>>>,
        waited: &mut usize,
    ) -> Result<(), String> {
        let (r, n, len) = (self.r, self.n, self.len);
        let mut data = vec![0f32; len];
        let biggest = (0..n).map(|k| chunk(len, n, k).len()).max().unwrap_or(0);
        let mut sendbuf = vec![0u8; biggest * 4];
        let mut recvbuf = vec![0u8; biggest * 4];
        for it in 0..iters {
            for (i, x) in data.iter_mut().enumerate() {
                *x = input(r, it, i);
            }
            self.barrier.wait();
            *waited += 1;
            if self.quit.load(Ordering::Relaxed) {
                return Err("another host failed".into());
            }
            let start = Instant::now();
            let deadline = start + TIMEOUT;
            // Reduce-scatter, then all-gather.
            for phase in 0..2 {
                for step in 0..n - 1 {
                    let (send_k, recv_k) = if phase == 0 {
                        ((r + n - step) % n, (r + 2 * n - step - 1) % n)
                    } else {
                        ((r + 1 + n - step) % n, (r + n - step) % n)
                    };
                    let sc = chunk(len, n, send_k);
                    let rc = chunk(len, n, recv_k);
                    let sb = &mut sendbuf[..sc.len() * 4];
                    for (b, x) in sb.chunks_exact_mut(4).zip(&data[sc]) {
                        b.copy_from_slice(&x.to_le_bytes());
                    }
                    let rb = &mut recvbuf[..rc.len() * 4];
                    self.exchange(&mut tx, sb, &mut rx, rb, deadline)?;
                    for (x, b) in data[rc].iter_mut().zip(rb.chunks_exact(4)) {
                        let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        if phase == 0 {
                            *x += v;
                        } else {
                            *x = v;
                        }
                    }
                }
            }
            let end = Instant::now();
            if let Ok(mut s) = spans.lock() {
                s[it].push((start, end));
            }
            if let Some(i) = (0..len).find(|&i| data[i] != expected(n, it, i)) {
                return Err(format!(
                    "wrong result in iteration {it}: element {i} is {} instead of {}",
                    data[i],
                    expected(n, it, i)
                ));
            }
        }
        Ok(())
    }

    /// Sends `out` to the next host while receiving `inb` from the previous.
    fn exchange(
        &self,
        tx: &mut TcpStream,
        out: &[u8],
        rx: &mut TcpStream,
        inb: &mut [u8],
        deadline: Instant,
    ) -> Result<(), String> {
        std::thread::scope(|s| {
            let w = s.spawn(|| self.io(out.len(), deadline, |off| tx.write(&out[off..])));
            let got = self.io(inb.len(), deadline, |off| rx.read(&mut inb[off..]));
            let sent = w.join().unwrap_or(Err("sender panicked".into()));
            got.map_err(|e| format!("receiving: {e}"))?;
            sent.map_err(|e| format!("sending: {e}"))
        })
    }

    /// Moves `total` bytes with `op` (given the offset so far), retrying on
    /// timeouts until `deadline`, Ctrl-C or another host's failure.
    fn io(
        &self,
        total: usize,
        deadline: Instant,
        mut op: impl FnMut(usize) -> std::io::Result<usize>,
    ) -> Result<(), String> {
        let mut off = 0;
        while off < total {
            match op(off) {
                Ok(0) => return Err("connection closed".into()),
                Ok(k) => off += k,
                Err(e) if crate::traffic::workload::run::is_timeout(&e) => {
                    if self.quit.load(Ordering::Relaxed) {
                        return Err("another host failed".into());
                    }
                    if (self.stop)() {
                        self.quit.store(true, Ordering::Relaxed);
                        return Err("interrupted".into());
                    }
                    if Instant::now() >= deadline {
                        return Err(format!("not done within {TIMEOUT:?}"));
                    }
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_vector_once() {
        for (len, n) in [(10, 3), (8, 8), (1000, 7), (9, 2)] {
            let mut next = 0;
            for k in 0..n {
                let c = chunk(len, n, k);
                assert_eq!(c.start, next);
                assert!(!c.is_empty());
                next = c.end;
            }
            assert_eq!(next, len);
        }
    }

    #[test]
    fn expected_is_the_sum_of_the_inputs() {
        for n in [2, 3, 8] {
            for it in 0..3 {
                for i in [0, 1, 250, 251, 9999] {
                    let s: f32 = (0..n).map(|r| input(r, it, i)).sum();
                    assert_eq!(s, expected(n, it, i));
                }
            }
        }
        // Hand-computed: 3 hosts, iteration 0, element 2: (1+2+3) x 3.
        assert_eq!(expected(3, 0, 2), 18.0);
    }
}
