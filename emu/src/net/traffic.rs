//! Traffic through a run: ping, iperf (TCP and UDP), single flows,
//! trace-driven flows and the applications (memcached, allreduce).

use super::values::{
    Allreduce, Flow, FlowSummary, Iperf, Memcached, PingAll, PingEvent, PingResult, PingRow,
};
use super::*;

impl Network {
    /// Mininet's `pingAll`: every host pair.
    pub fn pingall(&mut self, timeout: Option<f64>) -> Result<PingAll, NetworkError> {
        self.ping(None, timeout, false, &mut |_| {})
    }

    /// Mininet's `ping`/`pingFull`: all hosts or the given ones (indices
    /// into `plan.hosts`), `timeout` seconds per echo. `progress` sees each
    /// source start and each row end (a row waits for circuits).
    pub fn ping(
        &mut self,
        hosts: Option<&[usize]>,
        timeout: Option<f64>,
        full: bool,
        progress: &mut dyn FnMut(PingEvent<'_>),
    ) -> Result<PingAll, NetworkError> {
        let idx: Vec<usize> = match hosts {
            Some(h) => h.to_vec(),
            None => (0..self.plan.hosts.len()).collect(),
        };
        let (mut sent, mut recv) = (0u64, 0u64);
        let secs = timeout
            .or_else(|| format::parse_seconds(DEFAULT_PING_TIMEOUT))
            .unwrap_or(1.0)
            .max(0.001);
        let interrupted = AtomicBool::new(false);
        let stop = || {
            if crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating() {
                interrupted.store(true, Ordering::Relaxed);
            }
            interrupted.load(Ordering::Relaxed)
        };
        // Rows run PING_ROWS at a time, each with PING_WINDOW echoes in
        // flight on its own socket: one row's pings wait for circuits (up
        // to a cycle), so a large fabric one row at a time is bound by
        // its round trips, not by the fabric (648 hosts: 419,256 pings).
        // Rows are reported (`progress`, the result) in Mininet's order.
        let all = hosts.is_none();
        let hosts: Vec<HostPlan> = idx.iter().map(|&i| self.plan.hosts[i].clone()).collect();
        let nss: Vec<PathBuf> = hosts.iter().map(|h| self.host_ns(h)).collect();
        let ips: Vec<std::net::Ipv4Addr> = hosts.iter().map(|h| h.ip).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<Option<Duration>>)>();
        // (`LH_PING_ROWS` overrides it, for the benchmark's reference run:
        // scripts/bench/pingall-scale.sh.)
        let at_once = std::env::var("LH_PING_ROWS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(if self.p4.is_some() { 1 } else { PING_ROWS });
        // Rows done, for a front end's bar (NetOptions::progress).
        let bar = self.opts.net.progress.clone();
        let rows = std::thread::scope(|s| {
            for _ in 0..at_once.min(hosts.len()) {
                let tx = tx.clone();
                let (next, nss, ips, stop) = (&next, &nss, &ips, &stop);
                s.spawn(move || {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= nss.len() || stop() {
                            break;
                        }
                        let dsts: Vec<std::net::Ipv4Addr> =
                            (0..ips.len()).filter(|&j| j != k).map(|j| ips[j]).collect();
                        let rtts = probe::Pinger::open(Some(&nss[k]))
                            .and_then(|p| {
                                p.echo_many(&dsts, Duration::from_secs_f64(secs), PING_WINDOW, stop)
                            })
                            .unwrap_or_else(|_| vec![None; dsts.len()]);
                        if tx.send((k, rtts)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            // Rows that ended before the ones above them wait here.
            let mut done: std::collections::BTreeMap<usize, Vec<Option<Duration>>> =
                Default::default();
            let mut rows = Vec::with_capacity(hosts.len());
            for (k, src) in hosts.iter().enumerate() {
                progress(PingEvent::Source(&src.name));
                let rtts = loop {
                    if let Some(r) = done.remove(&k) {
                        break Some(r);
                    }
                    match rx.recv() {
                        Ok((j, r)) => {
                            done.insert(j, r);
                        }
                        // Every prober stopped (Ctrl-C) before this row.
                        Err(_) => break None,
                    }
                };
                let Some(rtts) = rtts else { break };
                if interrupted.load(Ordering::Relaxed) {
                    break;
                }
                let mut row = PingRow {
                    src: src.name.clone(),
                    results: Vec::with_capacity(rtts.len()),
                };
                let dsts = hosts.iter().enumerate().filter(|&(j, _)| j != k);
                for ((_, dst), rtt) in dsts.zip(&rtts) {
                    sent += 1;
                    recv += u64::from(rtt.is_some());
                    row.results.push(PingResult {
                        dst: dst.name.clone(),
                        rtt_ms: rtt.map(|d| d.as_secs_f64() * 1e3),
                    });
                }
                progress(PingEvent::Row(&row));
                rows.push(row);
                bar.report("pingall", rows.len() as u64, hosts.len() as u64);
            }
            // A stop lets the probers end at their next poll (50 ms).
            interrupted.store(true, Ordering::Relaxed);
            rows
        });
        if rows.len() < hosts.len() {
            // The operation is over: its last step (done == total) ends a
            // front end's bar.
            bar.report("pingall", hosts.len() as u64, hosts.len() as u64);
            return Err(NetworkError::Interrupted);
        }
        self.ping_totals.0 += sent;
        self.ping_totals.1 += recv;
        let v = PingAll {
            rows,
            sent,
            received: recv,
            all,
            full,
        };
        self.publish(if v.all { "pingall" } else { "pingpair" }, &v);
        Ok(v)
    }

    /// TCP throughput from host `c` to host `s` for `secs`.
    /// iperf3 counts whole seconds (`-t 0.5` would be `-t 0`: forever), so
    /// a fractional time is rounded up for it.
    pub fn iperf(&mut self, c: usize, s: usize, secs: f64) -> Result<Iperf, NetworkError> {
        if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
            return Err(NetworkError::op(
                "iperf",
                format!("{secs} seconds: more than 0 and at most 86400"),
            ));
        }
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        let r = if self.tools.iperf3 {
            self.iperf3(&client, &server, secs, None)
        } else {
            probe::tcp_flow(
                Some(&self.host_ns(&client)),
                Some(&self.host_ns(&server)),
                server.ip,
                probe::Amount::Seconds(secs),
            )
            .map(|f| [f.server_bps, f.client_bps])
            .map_err(|e| e.to_string())
        };
        match r {
            Ok(v) => {
                let v = Iperf {
                    l4: "TCP",
                    client: client.name,
                    server: server.name,
                    bw: None,
                    server_bps: v[0],
                    client_bps: v[1],
                };
                self.publish("iperf", &v);
                Ok(v)
            }
            Err(e) if e == crate::kernel::interrupt::MESSAGE => Err(NetworkError::Interrupted),
            Err(e) => Err(NetworkError::op("iperf", e)),
        }
    }

    /// iperf3 between two hosts for `secs`, TCP or (`udp`, bit/s) UDP,
    /// each end in its host's cgroup and mount namespace: [received, sent]
    /// bit/s.
    fn iperf3(
        &self,
        client: &HostPlan,
        server: &HostPlan,
        secs: f64,
        udp: Option<f64>,
    ) -> Result<[f64; 2], String> {
        let port = 5201 + (rand::random::<u16>() % 1000);
        let mut srv = Command::new("iperf3");
        srv.args(["-s", "-1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(x) = self.shells.confined(&server.name) {
            x.apply(&mut srv).map_err(|e| e.to_string())?;
        }
        let mut srv =
            netns::spawn_in(&self.host_ns(server), &mut srv).map_err(|e| e.to_string())?;
        let mut last = String::new();
        let mut out = None;
        // The server needs a moment to listen; iperf3 refuses fast, so retry.
        for _ in 0..50 {
            let mut c = Command::new("iperf3");
            c.args([
                "-J",
                "-c",
                &server.ip.to_string(),
                "-p",
                &port.to_string(),
                "-t",
            ])
            .arg(format!("{}", secs.ceil() as u64))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
            if let Some(b) = udp {
                c.args(["-u", "-b"]).arg(format!("{}", b.round() as u64));
            }
            let confined = match self.shells.confined(&client.name) {
                Some(x) => x.apply(&mut c),
                None => Ok(()),
            };
            let o = match confined
                .and_then(|()| netns::spawn_in(&self.host_ns(client), &mut c))
                .and_then(crate::kernel::interrupt::output)
            {
                Ok(o) => o,
                Err(e) => {
                    // Interrupted (or no client): the server must not stay.
                    let _ = srv.kill();
                    let _ = srv.wait();
                    return Err(e.to_string());
                }
            };
            // iperf3 -J may exit 0 with {"error": "...Connection refused"}.
            let refused = String::from_utf8_lossy(&o.stdout).contains("\"error\"");
            if o.status.success() && !refused {
                out = Some(o.stdout);
                break;
            }
            last = String::from_utf8_lossy(&o.stdout).into_owned();
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = srv.kill();
        let _ = srv.wait();
        let out = out.ok_or_else(|| format!("iperf3 client failed: {}", last.trim()))?;
        let v: serde_json::Value = serde_json::from_slice(&out).map_err(|e| e.to_string())?;
        let get = |k: &str| v["end"][k]["bits_per_second"].as_f64();
        match (get("sum_received"), get("sum_sent")) {
            (Some(r), Some(s)) => Ok([r, s]),
            _ => Err(format!(
                "could not parse iperf3 output: {}",
                v.get("error")
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| String::from_utf8_lossy(&out).chars().take(300).collect())
            )),
        }
    }

    /// The rate `iperfudp` sends at for `bps` asked: at most what the host
    /// link carries (`Some(cap)` when it is capped).
    pub fn udp_cap(&self, bps: f64) -> Option<f64> {
        let cap = self
            .compiled
            .as_ref()
            .map(|c| c.config.tors.host_link_rate.0 as f64)
            .filter(|r| *r > 0.0)
            .unwrap_or(MAX_UDP_BPS_NO_FABRIC);
        (bps > cap).then_some(cap)
    }

    /// Mininet's iperf UDP test at `bw` (text like `10M`, already checked
    /// to parse as `bps`) from host `c` to host `s`: the received and sent
    /// rates (bit/s). A rate beyond the host link is capped to it
    /// ([`Network::udp_cap`]).
    pub fn iperfudp(
        &mut self,
        bw: &str,
        bps: f64,
        c: usize,
        s: usize,
    ) -> Result<Iperf, NetworkError> {
        let bps = self.udp_cap(bps).unwrap_or(bps);
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        // A CPU-limited host's ends run in its cgroup: iperf3's processes,
        // not the built-in flow's threads, which are Lighthouse's own.
        let confined = [&client, &server]
            .iter()
            .any(|h| self.shells.confined(&h.name).is_some());
        let (srv, cli) = if confined {
            if !self.tools.iperf3 {
                return Err(NetworkError::op(
                    "iperfudp",
                    format!(
                        "{} or {} is confined (CPULimitedHost, privateDirs) and its UDP test runs in it with iperf3, which is not installed (apt install iperf3)",
                        client.name, server.name
                    ),
                ));
            }
            let v = match self.iperf3(&client, &server, IPERF_SECONDS, Some(bps)) {
                Err(e) if e == crate::kernel::interrupt::MESSAGE => {
                    return Err(NetworkError::Interrupted);
                }
                r => r.map_err(|e| NetworkError::op("iperfudp", e))?,
            };
            (v[0], v[1])
        } else {
            probe::udp_flow(
                Some(&self.host_ns(&client)),
                Some(&self.host_ns(&server)),
                server.ip,
                bps,
                IPERF_SECONDS,
            )
            .map_err(|e| NetworkError::op("iperfudp", e))?
        };
        let v = Iperf {
            l4: "UDP",
            client: client.name,
            server: server.name,
            bw: Some(bw.to_string()),
            server_bps: srv,
            client_bps: cli,
        };
        self.publish("iperfudp", &v);
        Ok(v)
    }

    /// One TCP flow with the built-in flow tool.
    pub fn flow(
        &mut self,
        c: usize,
        s: usize,
        amount: probe::Amount,
    ) -> Result<Flow, NetworkError> {
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        let f = probe::tcp_flow(
            Some(&self.host_ns(&client)),
            Some(&self.host_ns(&server)),
            server.ip,
            amount,
        )
        .map_err(|e| NetworkError::op("flow", e))?;
        let v = Flow {
            client: client.name,
            server: server.name,
            bytes: f.bytes,
            server_bps: f.server_bps,
            client_bps: f.client_bps,
            fct_ns: f.fct.as_nanos() as u64,
        };
        self.publish("flow", &v);
        Ok(v)
    }

    /// Trace-driven TCP flows between the hosts (`flows` in the CLI).
    pub fn flows(
        &mut self,
        req: &crate::traffic::workload::Request,
    ) -> Result<FlowSummary, NetworkError> {
        let hosts = self.endpoints();
        crate::traffic::workload::run_request(req, &hosts, &|| {
            crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating()
        })
        .map_err(|e| NetworkError::op("flows", format!("{e:#}")))
        .inspect(|v| self.publish("flows", v))
    }

    /// Every host as the workload runner sees it (namespace and address),
    /// in `plan.hosts` order.
    pub fn endpoints(&self) -> Vec<crate::traffic::workload::run::Endpoint> {
        self.plan
            .hosts
            .iter()
            .map(|h| crate::traffic::workload::run::Endpoint {
                ns: self.host_ns(h),
                ip: h.ip,
            })
            .collect()
    }

    /// Whether `memcached` can run: the program is installed and the run
    /// has host namespaces.
    pub fn memcached_check(&self) -> Result<(), NetworkError> {
        crate::traffic::apps::memcached::check_installed()
            .map_err(|e| NetworkError::op("memcached", e))?;
        self.need_kernel("memcached")
    }

    /// The paper's memcached application (`memcached` in the CLI): a real
    /// memcached server in the server host's namespace (recorded as a
    /// child of the run, stopped before this returns) and the SET load
    /// generator on each client host; the per-SET records and latencies.
    pub fn memcached(
        &mut self,
        req: &crate::traffic::apps::MemcachedRequest,
    ) -> Result<Memcached, NetworkError> {
        let t = std::time::Instant::now();
        let records = self.memcached_records(req)?;
        let summary = crate::traffic::workload::fct::summarize(
            &records,
            crate::traffic::workload::fct::Buckets::default(),
        );
        let latencies_ns = records.iter().filter_map(|r| r.fct_ns).collect();
        let name = |h: usize| self.plan.hosts[h].name.clone();
        let v = Memcached {
            server: name(req.server),
            clients: req.clients.iter().map(|&h| name(h)).collect(),
            records,
            latencies_ns,
            summary,
            elapsed_s: t.elapsed().as_secs_f64(),
        };
        self.publish("memcached", &v);
        Ok(v)
    }

    /// [`Network::memcached`]'s measurement: the server started, the
    /// clients run and the server stopped; one record per SET (as
    /// [`crate::traffic::apps::memcached::run_clients`] returns them).
    pub fn memcached_records(
        &mut self,
        req: &crate::traffic::apps::MemcachedRequest,
    ) -> Result<Vec<crate::traffic::workload::fct::FlowRecord>, NetworkError> {
        use crate::traffic::apps::memcached as mc;
        let err = |e: String| NetworkError::op("memcached", e);
        self.memcached_check()?;
        let hosts = self.endpoints();
        let srv = &hosts[req.server];
        let mut child = netns::spawn_in(&srv.ns, &mut mc::server_command(srv))
            .map_err(|e| err(format!("starting {}: {e}", mc::PROGRAM)))?;
        self.add_child(child.id());
        let r = mc::run_clients(&hosts, req.server, &req.clients, &req.load, &|| {
            crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating()
        });
        // The server must be gone whatever happened; if it died early, its
        // own words say why.
        let early = child.try_wait().ok().flatten();
        let _ = child.kill();
        let _ = child.wait();
        let mut why = String::new();
        if early.is_some()
            && let Some(mut e) = child.stderr.take()
        {
            let _ = std::io::Read::read_to_string(&mut e, &mut why);
        }
        r.map_err(|e| match early {
            Some(st) => err(format!("{e:#}; memcached exited ({st}): {}", why.trim())),
            None => err(format!("{e:#}")),
        })
    }

    /// An operation that needs host namespaces (an offline network has
    /// none).
    pub fn need_kernel(&self, verb: &'static str) -> Result<(), NetworkError> {
        match self.net {
            Some(_) => Ok(()),
            None => Err(NetworkError::NeedsKernel(verb)),
        }
    }

    /// Ring allreduce between hosts (`allreduce` in the CLI): checks every
    /// host's result against the elementwise sum; the completion times.
    pub fn allreduce(
        &mut self,
        req: &crate::traffic::apps::AllreduceRequest,
    ) -> Result<Allreduce, NetworkError> {
        self.need_kernel("allreduce")?;
        let all = self.endpoints();
        let ring: Vec<_> = req.hosts.iter().map(|&h| all[h].clone()).collect();
        let o = crate::traffic::apps::allreduce::run(&ring, req.bytes, req.iters, &|| {
            crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating()
        })
        .map_err(|e| NetworkError::op("allreduce", format!("{e:#}")))?;
        let n = ring.len() as f64;
        let bytes = (o.elements * 4) as f64;
        let mut best = o.times_ns.clone();
        best.sort_unstable();
        let p50 = crate::traffic::workload::fct::percentile(&best, 50.0).unwrap_or(0) as f64 / 1e9;
        // Bus bandwidth as NCCL/Gloo benchmarks report it: what each host
        // sent, 2(N-1)/N of the vector, over the time.
        let bus_bps = if p50 > 0.0 {
            2.0 * (n - 1.0) / n * bytes * 8.0 / p50
        } else {
            0.0
        };
        let v = Allreduce {
            hosts: req
                .hosts
                .iter()
                .map(|&h| self.plan.hosts[h].name.clone())
                .collect(),
            bytes: req.bytes as u64,
            iterations: req.iters,
            times_ns: o.times_ns,
            bus_bps,
        };
        self.publish("allreduce", &v);
        Ok(v)
    }

    /// The host link rate in bits/s (1 Gb/s without a compiled config).
    pub fn host_bps(&self) -> f64 {
        self.compiled
            .as_ref()
            .map(|c| c.config.tors.host_link_rate.0 as f64)
            .filter(|r| *r > 0.0)
            .unwrap_or(1e9)
    }
}
