//! memcached as the paper runs it (§9.1): one real `memcached` server (the
//! Debian package) in a host namespace, and on each client host a load
//! generator that SETs values of a fixed size at a fixed interval over one
//! persistent TCP connection (like memslap's), timing every request from
//! its first byte written to the server's `STORED` line. Each SET is
//! recorded as a flow of its value size, so the FCT statistics of
//! [`crate::traffic::workload::fct`] apply.

use crate::netns;
use crate::traffic::workload::arrivals::FlowSpec;
use crate::traffic::workload::fct::FlowRecord;
use crate::traffic::workload::run::Endpoint;
use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// memcached's port.
pub const PORT: u16 = 11211;
/// memcached's default item size limit (`-I 1m`), less room for the key.
pub const MAX_VALUE: usize = 1_000_000;
/// The program and the Debian package that has it.
pub const PROGRAM: &str = "memcached";
pub const PACKAGE: &str = "memcached";
/// How long a client keeps trying to reach a server that is starting.
pub const CONNECT_WAIT: Duration = Duration::from_secs(5);
/// How long one SET may take before the client gives up.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What each client sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetLoad {
    /// SETs per client.
    pub count: usize,
    /// Value bytes per SET.
    pub size: usize,
    /// From one SET's start to the next's (a late SET starts at once); the
    /// mean gap when `poisson` is set.
    pub interval: Duration,
    /// Exponential gaps (a Poisson process) from this seed, each client its
    /// own stream: a fixed interval can lock to the optical cycle (2 ms is
    /// 20 slices of 100 µs, so every SET of a client lands at one offset
    /// into its slice) and then one run measures one phase of the cycle;
    /// Poisson arrivals see the cycle's time average (PASTA).
    pub poisson: Option<u64>,
}

impl SetLoad {
    /// Each SET's start, from the first one's, for client `me`.
    pub fn starts(&self, me: usize) -> Vec<Duration> {
        use rand::SeedableRng;
        let Some(seed) = self.poisson else {
            return (0..self.count).map(|i| self.interval * i as u32).collect();
        };
        let mut rng = rand::rngs::SmallRng::seed_from_u64(
            seed ^ (me as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let rate = 1.0 / self.interval.as_secs_f64().max(1e-9);
        let mut at = 0.0;
        (0..self.count)
            .map(|_| {
                let t = Duration::from_secs_f64(at);
                at += crate::traffic::workload::arrivals::exponential_gap(&mut rng, rate);
                t
            })
            .collect()
    }
}

impl Default for SetLoad {
    /// The paper's: 4.2 KB SETs at millisecond intervals.
    fn default() -> Self {
        SetLoad {
            count: 100,
            size: 4200,
            interval: Duration::from_millis(1),
            poisson: None,
        }
    }
}

/// The error when memcached is not on PATH, naming the package.
pub fn check_installed() -> Result<(), String> {
    if crate::kernel::on_path(PROGRAM) {
        Ok(())
    } else {
        Err(format!(
            "{PROGRAM} is not installed: install the Debian package `{PACKAGE}` (apt-get install {PACKAGE}; scripts/setup.sh does)"
        ))
    }
}

/// The server's command line: listening on the host's address only, TCP
/// only, as root (the emulator runs as root and memcached refuses that
/// without `-u`).
pub fn server_command(server: &Endpoint) -> Command {
    let mut c = Command::new(PROGRAM);
    c.args(["-u", "root", "-U", "0", "-t", "2", "-m", "64", "-c", "1024"])
        .args(["-l", &server.ip.to_string(), "-p", &PORT.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// What one client measured.
#[derive(Clone, Debug, Default)]
struct ClientRun {
    /// (start offset from t0, latency) per SET that got `STORED`.
    sets: Vec<Option<(u64, u64)>>,
    counters: crate::host::tcpinfo::TcpCounters,
    error: Option<String>,
}

/// Runs `load` from every client host against the server; one record per
/// SET, client by client (`flow.src` the client's index into `hosts`,
/// `flow.dst` the server's). A client's TCP counters are on its last
/// record. Errors if any client failed.
pub fn run_clients(
    hosts: &[Endpoint],
    server: usize,
    clients: &[usize],
    load: &SetLoad,
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<Vec<FlowRecord>> {
    let dst = SocketAddrV4::new(hosts[server].ip, PORT);
    let t0 = Instant::now();
    let runs: Vec<ClientRun> = std::thread::scope(|s| {
        let handles: Vec<_> = clients
            .iter()
            .map(|&c| {
                let ns = hosts[c].ns.clone();
                s.spawn(move || {
                    // The socket is made inside the client's namespace and
                    // keeps it; the SETs run on this thread.
                    match netns::run_in(Some(&ns), || connect(dst, stop)) {
                        Ok(Ok(conn)) => client(conn, c, load, t0, stop),
                        Ok(Err(e)) => ClientRun {
                            error: Some(format!("h{}: {e}", c + 1)),
                            ..Default::default()
                        },
                        Err(e) => ClientRun {
                            error: Some(format!("h{}: {e}", c + 1)),
                            ..Default::default()
                        },
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if let Some(e) = runs.iter().find_map(|r| r.error.clone()) {
        anyhow::bail!("{e}");
    }
    let mut out = Vec::with_capacity(clients.len() * load.count);
    for (&c, r) in clients.iter().zip(&runs) {
        let n = r.sets.len();
        for (i, s) in r.sets.iter().enumerate() {
            let last = i + 1 == n;
            let tc = if last { r.counters } else { Default::default() };
            out.push(FlowRecord {
                flow: FlowSpec {
                    id: out.len() as u32,
                    src: c,
                    dst: server,
                    size: load.size as u64,
                    start_ns: s.map_or(0, |x| x.0),
                },
                fct_ns: s.map(|x| x.1),
                data_fct_ns: None,
                retrans: tc.total_retrans,
                reord_seen: tc.reord_seen,
                ooo_pkts: tc.rcv_ooopack,
                timeouts: tc.total_rto,
            });
        }
    }
    Ok(out)
}

/// Connects to a server that may still be starting.
fn connect(dst: SocketAddrV4, stop: &(dyn Fn() -> bool + Sync)) -> Result<TcpStream, String> {
    let until = Instant::now() + CONNECT_WAIT;
    loop {
        match TcpStream::connect_timeout(&dst.into(), Duration::from_secs(1)) {
            Ok(c) => return Ok(c),
            Err(e) if Instant::now() >= until || stop() => {
                return Err(format!("cannot reach memcached at {dst}: {e}"));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// One client's SETs on one connection. Buffers are made once.
fn client(
    mut c: TcpStream,
    me: usize,
    load: &SetLoad,
    t0: Instant,
    stop: &(dyn Fn() -> bool + Sync),
) -> ClientRun {
    let mut run = ClientRun {
        sets: vec![None; load.count],
        ..Default::default()
    };
    let _ = c.set_nodelay(true);
    let _ = c.set_read_timeout(Some(Duration::from_millis(100)));
    // "set KEY 0 0 SIZE\r\n" + value + "\r\n", the key rewritten per SET.
    let mut req = Vec::with_capacity(load.size + 64);
    let mut reply = [0u8; 256];
    let starts = load.starts(me);
    let begin = Instant::now();
    for (i, &offset) in starts.iter().enumerate() {
        let at = begin + offset;
        while Instant::now() < at {
            if stop() {
                run.error = Some("interrupted".into());
                return run;
            }
            std::thread::sleep(
                at.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(5)),
            );
        }
        req.clear();
        let _ = write!(req, "set lh:h{}:{i} 0 0 {}\r\n", me + 1, load.size);
        req.resize(req.len() + load.size, b'v');
        req.extend_from_slice(b"\r\n");
        let start = Instant::now();
        if let Err(e) = c.write_all(&req) {
            run.error = Some(format!("h{}: SET {i}: {e}", me + 1));
            return run;
        }
        match read_line(&mut c, &mut reply, start + REQUEST_TIMEOUT, stop) {
            Ok(line) if line == b"STORED" => {
                let done = Instant::now();
                run.sets[i] = Some((
                    start.saturating_duration_since(t0).as_nanos() as u64,
                    done.saturating_duration_since(start).as_nanos() as u64,
                ));
            }
            Ok(line) => {
                run.error = Some(format!(
                    "h{}: SET {i}: memcached answered {:?}",
                    me + 1,
                    String::from_utf8_lossy(line)
                ));
                return run;
            }
            Err(e) => {
                run.error = Some(format!("h{}: SET {i}: {e}", me + 1));
                return run;
            }
        }
    }
    run.counters = crate::host::tcpinfo::read(&c).unwrap_or_default();
    run
}

/// Reads one `\r\n`-terminated reply line into `buf` (without the CRLF).
fn read_line<'b>(
    c: &mut TcpStream,
    buf: &'b mut [u8],
    deadline: Instant,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<&'b [u8], String> {
    let mut n = 0;
    loop {
        if n >= 2 && buf[n - 2..n] == *b"\r\n" {
            return Ok(&buf[..n - 2]);
        }
        if n == buf.len() {
            return Err("reply line too long".into());
        }
        // One byte at a time would be a syscall per byte; replies are one
        // short line per request, so read what is there.
        match c.read(&mut buf[n..]) {
            Ok(0) => return Err("memcached closed the connection".into()),
            Ok(k) => n += k,
            Err(e) if crate::traffic::workload::run::is_timeout(&e) => {
                if Instant::now() >= deadline {
                    return Err(format!("no reply within {REQUEST_TIMEOUT:?}"));
                }
                if stop() {
                    return Err("interrupted".into());
                }
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many of 10 equal bins of a 100 µs slice the starts fall in.
    fn phases(starts: &[Duration]) -> usize {
        let mut bins = [0usize; 10];
        for s in starts {
            bins[(s.as_nanos() % 100_000 / 10_000) as usize] += 1;
        }
        bins.iter().filter(|&&n| n * 20 >= starts.len()).count()
    }

    #[test]
    fn poisson_starts_sample_every_phase_of_a_slice_and_fixed_ones_do_not() {
        let fixed = SetLoad {
            count: 500,
            size: 4200,
            interval: Duration::from_millis(2),
            poisson: None,
        };
        let s = fixed.starts(3);
        assert_eq!(s[1], Duration::from_millis(2));
        assert_eq!(
            phases(&s),
            1,
            "a 2 ms interval lands at one offset of a 100 us slice"
        );
        let p = SetLoad {
            poisson: Some(7),
            ..fixed
        };
        let s = p.starts(3);
        assert_eq!(s.len(), 500);
        assert_eq!(s[0], Duration::ZERO);
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            phases(&s),
            10,
            "every tenth of the slice gets at least 5% of the SETs"
        );
        let mean = s[499].as_secs_f64() / 499.0;
        assert!((0.0017..0.0023).contains(&mean), "mean gap {mean}");
        // Deterministic per seed and client, and clients differ.
        assert_eq!(p.starts(3), s);
        assert_ne!(p.starts(4), s);
    }
}
