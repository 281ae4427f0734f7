//! The experiments' applications on the simulated hosts' TCP, with the
//! live ones' patterns and outputs: memcached SETs (one server, a client
//! per host, each SET a request and its `STORED` reply on a persistent
//! connection), Gloo's ring allreduce, and the workload generator's open
//! loop flows (each a new connection; the FCT runs from the connect to the
//! receiver holding every byte). Arrival times, sizes and patterns come
//! from the same generators as the live runs (`lh_emu::traffic`).

use crate::driver::{App, Event, Sim, SimError};
use crate::tcp::{ConnId, TcpConfig};
use lh_emu::traffic::apps::memcached::SetLoad;
use lh_emu::traffic::workload::arrivals::FlowSpec;
use lh_emu::traffic::workload::fct::FlowRecord;

/// Bytes of a SET request beyond its value: `set <key> 0 0 <n>\r\n` and
/// the value's `\r\n`, as memslap sends it.
pub const SET_OVERHEAD: u64 = 30;
/// `STORED\r\n`.
pub const STORED: u64 = 8;
const MEMCACHED_PORT: u16 = 11211;
const ALLREDUCE_PORT: u16 = 5402;
const FLOW_PORT: u16 = 5001;

/// Memcached SETs from `clients` to `server` (host indices from 0, as the
/// plan's), each client on its own connection, at `load`'s start times
/// (a late SET starts when the previous one ends): one record per SET,
/// as [`lh_emu::net::Network::memcached_records`] gives them.
pub fn memcached(
    sim: &mut Sim,
    server: usize,
    clients: &[usize],
    load: &SetLoad,
    tcp: TcpConfig,
    timeout_ns: u64,
) -> Result<Vec<FlowRecord>, SimError> {
    struct Client {
        host: usize,
        conn: ConnId,
        starts: Vec<u64>,
        next: usize,
        /// The SET in flight: its index and start.
        busy: Option<(usize, u64)>,
        fct: Vec<Option<(u64, u64)>>,
    }
    struct Sets {
        server: usize,
        clients: Vec<Client>,
        connected: usize,
        t0: u64,
        size: u64,
        tcp: TcpConfig,
    }
    impl Sets {
        fn issue(&mut self, sim: &mut Sim, c: usize, now: u64) {
            let cl = &mut self.clients[c];
            if cl.busy.is_some() || cl.next >= cl.starts.len() {
                return;
            }
            let at = self.t0 + cl.starts[cl.next];
            if at > now {
                sim.timer(at, c as u64);
                return;
            }
            cl.busy = Some((cl.next, now));
            cl.next += 1;
            sim.write(cl.conn, 0, self.size + SET_OVERHEAD, 0);
        }
    }
    impl App for Sets {
        fn start(&mut self, sim: &mut Sim) {
            for i in 0..self.clients.len() {
                let h = self.clients[i].host;
                self.clients[i].conn =
                    sim.connect(h + 1, self.server + 1, MEMCACHED_PORT, self.tcp);
            }
        }
        fn event(&mut self, sim: &mut Sim, ev: Event) {
            match ev {
                Event::Connected { .. } => {
                    self.connected += 1;
                    if self.connected == self.clients.len() {
                        // Every client starts once all are connected, as
                        // memslap's threads do.
                        self.t0 = sim.now();
                        for c in 0..self.clients.len() {
                            self.issue(sim, c, self.t0);
                        }
                    }
                }
                Event::Timer { tag, at } => self.issue(sim, tag as usize, at),
                Event::Message { conn, end: 1, .. } => {
                    // The server stores the value and replies.
                    sim.write(conn, 1, STORED, 0);
                }
                Event::Message {
                    conn, end: 0, at, ..
                } => {
                    let c = self
                        .clients
                        .iter()
                        .position(|c| c.conn == conn)
                        .expect("a client's connection");
                    let cl = &mut self.clients[c];
                    if let Some((i, t)) = cl.busy.take() {
                        cl.fct[i] = Some((t - self.t0, at - t));
                    }
                    self.issue(sim, c, at);
                }
                Event::Message { .. } | Event::Acked { .. } | Event::Bulk { .. } => {}
            }
        }
        fn done(&self) -> bool {
            self.clients
                .iter()
                .all(|c| c.busy.is_none() && c.next >= c.starts.len())
        }
    }
    let mut app = Sets {
        server,
        clients: clients
            .iter()
            .enumerate()
            .map(|(me, &host)| Client {
                host,
                conn: 0,
                starts: load
                    .starts(me)
                    .iter()
                    .map(|d| d.as_nanos() as u64)
                    .collect(),
                next: 0,
                busy: None,
                fct: vec![None; load.count],
            })
            .collect(),
        connected: 0,
        t0: 0,
        size: load.size as u64,
        tcp,
    };
    sim.run_app(&mut app, timeout_ns)?;
    let mut out = Vec::with_capacity(clients.len() * load.count);
    for cl in &app.clients {
        let [s, r] = sim.tcp_stats(cl.conn);
        let n = cl.fct.len();
        for (i, f) in cl.fct.iter().enumerate() {
            let last = i + 1 == n;
            out.push(FlowRecord {
                flow: FlowSpec {
                    id: out.len() as u32,
                    src: cl.host,
                    dst: server,
                    size: load.size as u64,
                    start_ns: f.map_or(0, |x| x.0),
                },
                fct_ns: f.map(|x| x.1),
                data_fct_ns: None,
                retrans: if last { s.retrans } else { 0 },
                reord_seen: 0,
                ooo_pkts: if last { r.ooo_pkts } else { 0 },
                timeouts: if last { s.timeouts } else { 0 },
            });
        }
        sim.close(cl.conn);
    }
    Ok(out)
}

/// `iters` ring allreduces of `bytes` per host over `ring` (host indices
/// from 0, in ring order), as Gloo's ring does them: 2(N-1) steps, in each
/// every host sends one chunk to the next and waits for the previous
/// host's; a step's send starts once the step before it has received.
/// Each allreduce's time, from all hosts starting together to the last
/// one holding the sum.
pub fn allreduce(
    sim: &mut Sim,
    ring: &[usize],
    bytes: u64,
    iters: usize,
    tcp: TcpConfig,
    timeout_ns: u64,
) -> Result<Vec<Option<u64>>, SimError> {
    let n = ring.len();
    struct Ring {
        hosts: Vec<usize>,
        /// conns[r]: host r to host r+1.
        conns: Vec<ConnId>,
        connected: usize,
        chunk: Vec<u64>,
        steps: usize,
        /// Steps host r has received.
        got: Vec<usize>,
        t0: Option<u64>,
        end: Option<u64>,
        tcp: TcpConfig,
    }
    impl Ring {
        fn begin(&mut self, sim: &mut Sim, at: u64) {
            self.t0 = Some(at);
            for r in 0..self.hosts.len() {
                self.step(sim, r, 0);
            }
        }
        /// Host r sends its chunk of step `s`.
        fn step(&mut self, sim: &mut Sim, r: usize, s: usize) {
            let n = self.hosts.len();
            // Reduce-scatter step s sends chunk r-s; all-gather step s'
            // (s = n-1+s') sends chunk r+1-s'.
            let k = if s < n - 1 {
                (r + n - s) % n
            } else {
                (r + 1 + n - (s - (n - 1))) % n
            };
            let bytes = self.chunk[k].max(1);
            if sim.bulk_threshold().is_some_and(|t| bytes >= t) {
                // Bulk over RotorLB, as Opera's hosts send it (tag: the
                // sender's place in the ring).
                let (a, b) = (self.hosts[r], self.hosts[(r + 1) % n]);
                sim.send_bulk(a + 1, b + 1, bytes, r as u64);
                return;
            }
            sim.write(self.conns[r], 0, bytes, s as u64);
        }
        /// Host r+1 has received its step from host `from`, at `at`.
        fn received(&mut self, sim: &mut Sim, from: usize, at: u64) {
            let n = self.hosts.len();
            let r = (from + 1) % n;
            self.got[r] += 1;
            if self.got[r] < self.steps {
                self.step(sim, r, self.got[r]);
            } else if self.got.iter().all(|&g| g >= self.steps) {
                self.end = Some(at);
            }
        }
    }
    impl App for Ring {
        fn start(&mut self, sim: &mut Sim) {
            let n = self.hosts.len();
            for r in 0..n {
                let (a, b) = (self.hosts[r], self.hosts[(r + 1) % n]);
                self.conns
                    .push(sim.connect(a + 1, b + 1, ALLREDUCE_PORT, self.tcp));
            }
        }
        fn event(&mut self, sim: &mut Sim, ev: Event) {
            let n = self.hosts.len();
            match ev {
                Event::Connected { at, .. } => {
                    self.connected += 1;
                    if self.connected == n {
                        self.begin(sim, at);
                    }
                }
                Event::Message {
                    conn, end: 1, at, ..
                } => {
                    // Host r+1 received step got[r+1] from host r.
                    let from = self.conns.iter().position(|&c| c == conn).expect("ring");
                    self.received(sim, from, at);
                }
                Event::Bulk { tag, at } => self.received(sim, tag as usize, at),
                _ => {}
            }
        }
        fn done(&self) -> bool {
            self.end.is_some()
        }
    }
    let chunks: Vec<u64> = (0..n as u64)
        .map(|k| bytes * (k + 1) / n as u64 - bytes * k / n as u64)
        .collect();
    let mut app = Ring {
        hosts: ring.to_vec(),
        conns: Vec::new(),
        connected: 0,
        chunk: chunks,
        steps: 2 * (n - 1),
        got: vec![0; n],
        t0: None,
        end: None,
        tcp,
    };
    let mut out = Vec::with_capacity(iters);
    for it in 0..iters {
        if it == 0 {
            if !sim.run_app(&mut app, timeout_ns)? {
                out.push(None);
                break;
            }
        } else {
            // The connections stay; every host starts together again.
            struct Again<'a>(&'a mut Ring);
            impl App for Again<'_> {
                fn start(&mut self, sim: &mut Sim) {
                    let now = sim.now();
                    self.0.begin(sim, now);
                }
                fn event(&mut self, sim: &mut Sim, ev: Event) {
                    self.0.event(sim, ev)
                }
                fn done(&self) -> bool {
                    self.0.done()
                }
            }
            app.got.iter_mut().for_each(|g| *g = 0);
            app.end = None;
            if !sim.run_app(&mut Again(&mut app), timeout_ns)? {
                out.push(None);
                break;
            }
        }
        out.push(app.end.zip(app.t0).map(|(e, s)| e - s));
    }
    for &c in &app.conns {
        sim.close(c);
    }
    Ok(out)
}

/// The workload generator's flows (`lh_emu::traffic::workload::arrivals`),
/// each on a new connection from `flow.src` to `flow.dst` (host indices
/// from 0) at its start time; waits up to `drain_ns` after the last start.
pub fn flows(
    sim: &mut Sim,
    specs: &[FlowSpec],
    tcp: TcpConfig,
    drain_ns: u64,
) -> Result<Vec<FlowRecord>, SimError> {
    /// One flow's progress: when its data began to leave (the connection
    /// open), when the receiver held it all, when the sender held the last
    /// ACK.
    #[derive(Clone, Copy, Default)]
    struct Progress {
        data_at: Option<u64>,
        received: Option<u64>,
        acked: Option<u64>,
    }
    struct Flows<'a> {
        specs: &'a [FlowSpec],
        t0: u64,
        /// conn -> flow index.
        by_conn: std::collections::BTreeMap<ConnId, usize>,
        p: Vec<Progress>,
        stats: Vec<crate::tcp::TcpStats>,
        left: usize,
        tcp: TcpConfig,
    }
    impl Flows<'_> {
        /// Received and acknowledged: the flow's connection is done.
        fn maybe_close(&mut self, sim: &mut Sim, conn: ConnId, i: usize) {
            let p = self.p[i];
            if p.received.is_some() && p.acked.is_some() {
                self.by_conn.remove(&conn);
                self.stats[i] = merged(sim.tcp_stats(conn));
                sim.close(conn);
                self.left -= 1;
            }
        }
    }
    impl App for Flows<'_> {
        fn start(&mut self, sim: &mut Sim) {
            self.t0 = sim.now();
            for (i, f) in self.specs.iter().enumerate() {
                sim.timer(self.t0 + f.start_ns, i as u64);
            }
        }
        fn event(&mut self, sim: &mut Sim, ev: Event) {
            match ev {
                Event::Timer { tag, at } => {
                    let f = &self.specs[tag as usize];
                    if sim.bulk_threshold().is_some_and(|t| f.size >= t) {
                        // Over RotorLB, as the Opera authors' hosts send
                        // bulk: data from the first frame, no handshake.
                        self.p[tag as usize].data_at = Some(at);
                        sim.send_bulk(f.src + 1, f.dst + 1, f.size, tag);
                        return;
                    }
                    let c = sim.connect(f.src + 1, f.dst + 1, FLOW_PORT, self.tcp);
                    self.by_conn.insert(c, tag as usize);
                }
                Event::Bulk { tag, at } => {
                    // htsim's RotorLB sink: done at the last byte (no ACK).
                    let p = &mut self.p[tag as usize];
                    p.received = Some(at);
                    p.acked = Some(at);
                    self.left -= 1;
                }
                Event::Connected { conn, at } => {
                    let i = self.by_conn[&conn];
                    self.p[i].data_at = Some(at);
                    sim.write(conn, 0, self.specs[i].size, i as u64);
                }
                Event::Message {
                    conn, end: 1, at, ..
                } => {
                    let i = self.by_conn[&conn];
                    self.p[i].received = Some(at);
                    self.maybe_close(sim, conn, i);
                }
                Event::Acked { conn, end: 0, at } => {
                    let i = self.by_conn[&conn];
                    self.p[i].acked.get_or_insert(at);
                    self.maybe_close(sim, conn, i);
                }
                _ => {}
            }
        }
        fn done(&self) -> bool {
            self.left == 0
        }
    }
    let last = specs.iter().map(|f| f.start_ns).max().unwrap_or(0);
    let mut app = Flows {
        specs,
        t0: 0,
        by_conn: Default::default(),
        p: vec![Progress::default(); specs.len()],
        stats: vec![Default::default(); specs.len()],
        left: specs.len(),
        tcp,
    };
    sim.run_app(&mut app, last + drain_ns)?;
    for (&c, &i) in &app.by_conn {
        app.stats[i] = merged(sim.tcp_stats(c));
        sim.close(c);
    }
    let t0 = app.t0;
    Ok(specs
        .iter()
        .zip(app.p.iter().zip(&app.stats))
        .map(|(f, (p, s))| FlowRecord {
            flow: *f,
            fct_ns: p.received.map(|at| at - t0 - f.start_ns),
            // As htsim measures an NDP flow, which has no handshake: from
            // its first data leaving to the sender holding the last ACK.
            data_fct_ns: p.acked.zip(p.data_at).map(|(a, d)| a - d),
            retrans: s.retrans,
            reord_seen: 0,
            ooo_pkts: s.ooo_pkts,
            timeouts: s.timeouts,
        })
        .collect())
}

/// The sender's retransmissions and timeouts with the receiver's
/// out-of-order count.
fn merged([s, r]: [crate::tcp::TcpStats; 2]) -> crate::tcp::TcpStats {
    crate::tcp::TcpStats {
        ooo_pkts: r.ooo_pkts,
        ..s
    }
}
