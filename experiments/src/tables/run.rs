//! The virtual-time run of Tables 2 and 3: synthetic open-loop traffic
//! through the native engine on an in-memory port, and what it measured.

use super::*;

/// Synthetic traffic.
#[derive(Clone, Debug, Serialize)]
pub struct Workload {
    /// Offered load (Poisson part plus bursts) as a fraction of every
    /// ToR's uplink capacity.
    pub load: f64,
    /// Fraction of the load sent as incast bursts.
    pub incast_share: f64,
    /// Hosts (on other ToRs) in each burst, each sending `incast_bytes` to
    /// one host at its link rate.
    pub incast_senders: usize,
    pub incast_bytes: u64,
    pub frame_len: usize,
    /// Traffic time, then drain time (no new traffic), in ns.
    pub duration_ns: u64,
    pub drain_ns: u64,
    /// ToR buffers are sampled from this long after traffic starts until
    /// it stops (steady state, not the fill-up or the drain).
    pub warmup_ns: u64,
    /// Engine step (virtual time between iterations).
    pub step_ns: u64,
    pub seed: u64,
    /// Only this ToR's hosts send (the paper's one observed ToR, §9.3):
    /// `load` is then a fraction of its uplink capacity alone, and its
    /// hosts send the bursts too. None: every host sends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_tor: Option<usize>,
    /// With `observed_tor`: the other ToRs send the observed ToR's transit
    /// too, the frames of the every-host run whose path (for the slice
    /// they arrive in) crosses it. They are drawn as that run draws its
    /// arrivals and kept by their path; the rest of the other ToRs'
    /// traffic is not simulated, so their own queues are nearly empty.
    /// The observed ToR's own arrivals are the same with and without
    /// (a generator of their own); with push-back and a trace, when its
    /// blocked hosts send them may differ.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub transit: bool,
    /// Frames store their headers alone ([`STORED`] bytes), and count
    /// their whole length on the wire (`MemPort::inject_padded`): small slots,
    /// so millions of frames in flight (100 Gb/s) fit in memory. The
    /// engine reads headers only, so the results are the same.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub compact: bool,
    /// Frame slots of each run's pool. When they are all in use, new
    /// frames wait at their hosts outside the fabric
    /// (`RunResult::pool_waits` counts the steps when that happened).
    pub pool_frames: usize,
    /// The Poisson part as flows of a trace (a shipped distribution of
    /// `workloads/`: hadoop, kvstore, websearch): each host's flows arrive
    /// as a Poisson process, take their sizes from the trace, and are sent
    /// one after the other, each whole, at the host's link rate
    /// ([`FlowSender`]). None: Poisson frames, each to a random host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
}

impl Workload {
    /// What the traffic is, for a table's heading.
    pub fn traffic(&self) -> String {
        let incast = format!(
            "{:.0}% as incast bursts of {} senders x {} B",
            self.incast_share * 100.0,
            self.incast_senders,
            self.incast_bytes
        );
        match &self.trace {
            None => incast,
            Some(t) if self.incast_share == 0.0 => {
                format!("flows of the {t} trace, each sent whole at its host's link rate")
            }
            Some(t) => format!(
                "flows of the {t} trace, each sent whole at its host's link rate, and {incast}"
            ),
        }
    }
}

/// Bytes of a compact frame that are stored: Ethernet, IPv4 and UDP
/// headers and the start of the payload.
pub const STORED: usize = 64;

impl Default for Workload {
    fn default() -> Self {
        Workload {
            load: 0.7,
            incast_share: 0.3,
            incast_senders: 8,
            incast_bytes: 60_000,
            frame_len: 1500,
            duration_ns: 20_000_000,
            drain_ns: 10_000_000,
            warmup_ns: 0,
            step_ns: 500,
            seed: 1,
            observed_tor: None,
            transit: false,
            compact: false,
            pool_frames: 256 * 1024,
            trace: None,
        }
    }
}

/// What one run measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunResult {
    /// Bytes delivered while traffic was offered, as Gb/s.
    pub throughput_gbps: f64,
    /// Dropped / sent at the end of the drain.
    pub loss_rate: f64,
    /// Fabric delay (first ToR to the destination host's egress).
    pub mean_delay_us: f64,
    pub p95_delay_us: f64,
    pub p99_delay_us: f64,
    /// One ToR's buffer (bytes in its calendar queues, host-held bytes
    /// not included), sampled every 10 us of steady state on every ToR: the
    /// 99.9th percentile of those samples (the paper's statistic for its
    /// one observed ToR; every ToR here is one observation of it), and the
    /// largest sample.
    pub tor_buffer_p999_bytes: u64,
    pub tor_buffer_max_bytes: u64,
    /// Bytes the ToRs put on their uplinks while traffic was offered, as a
    /// fraction of the uplinks' capacity (the paper's "core link
    /// utilization"; a two-hop path counts twice).
    pub core_utilization: f64,
    /// With an observed ToR: the bytes its own hosts sent while traffic
    /// was offered, as a fraction of its uplinks' capacity (what the load
    /// asked for, as measured: a trace's heavy tail makes it vary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_offered: Option<f64>,
    /// Largest total of bytes held at host NICs.
    pub host_held_max_bytes: u64,
    /// Engine steps after which frames still waited at their hosts for a
    /// free slot of the pool (`Workload::pool_frames`): 0, or the run
    /// measured a smaller fabric buffer than the one configured.
    pub pool_waits: u64,
    /// Frame ledgers when traffic stopped and after the drain.
    pub at_traffic_end: Ledger,
    pub at_drain_end: Ledger,
    pub counters: swtor::Counters,
    /// Frames the generator injected, by the source's and by the
    /// destination's ToR (tests; not in the JSON).
    #[serde(skip)]
    pub sent_from_tor: Vec<u64>,
    #[serde(skip)]
    pub sent_to_tor: Vec<u64>,
}

/// Where every frame sent is at one instant: conservation is
/// `sent == delivered + dropped + queued_at_tors + held_at_hosts`.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Ledger {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub queued_at_tors: u64,
    /// Frames at host NICs: paused, pushed back or offloaded.
    pub held_at_hosts: u64,
}

impl Ledger {
    fn of(c: &swtor::Counters) -> Ledger {
        Ledger {
            sent: c.sent,
            delivered: c.delivered,
            dropped: c.dropped_total(),
            queued_at_tors: c.queued,
            held_at_hosts: c.held,
        }
    }
}

/// The fabric of `c` on a MemPort, hosts `10.0.0.K` in plan order,
/// ifindex `K`.
pub(super) fn engine(
    c: &Compiled,
    tor: TorFeatures,
    epoch: u64,
    w: &Workload,
) -> anyhow::Result<Engine<MemPort>> {
    let spec = swtor::testing::compiled_spec(c);
    let clock = SliceClock {
        epoch,
        ..swtor::testing::clock(&spec)
    };
    let opts = EngineOptions {
        pool_frames: w.pool_frames,
        // A full pool is a run condition of the tables (the buffer measured
        // would shrink): it stays fixed.
        pool_grows: false,
        pool_slot: if w.compact {
            swtor::pool::HEADROOM + STORED
        } else {
            swtor::pool::SLOT
        },
        host_queue_bytes: 64 << 20,
        epoch: Some(epoch),
        tor,
        fattree: None,
        promiscuous_external: false,
        host_link: None,
        circuit_loss: None,
        circuit_jitter: None,
        cpu: None,
    };
    swtor::testing::mem_engine(&spec, clock, opts).context("building the engine")
}

/// Runs workload `w` on the compiled fabric `c` with `tor` features.
pub fn run(c: &Compiled, tor: TorFeatures, w: &Workload) -> anyhow::Result<RunResult> {
    let cfg = &c.config;
    let epoch = 1_000_000_000;
    let mut e = engine(c, tor, epoch, w)?;
    let tors = cfg.tors.count as usize;
    let hpt = cfg.tors.hosts_per_tor as usize;
    let n = tors * hpt;
    let uplink_bps = cfg.tors.link_rate.0 as f64 * cfg.tors.uplinks as f64;
    let host_bps = cfg.tors.host_link_rate.0 as f64;
    let mut rng = SmallRng::seed_from_u64(w.seed);
    // Poisson part: per host, frames per ns.
    let poisson_bps = w.load * (1.0 - w.incast_share) * uplink_bps / hpt as f64;
    let lambda = poisson_bps / 8.0 / w.frame_len as f64 / 1e9;
    // The sending hosts: all, or the observed ToR's.
    let senders = match w.observed_tor {
        Some(k) => {
            anyhow::ensure!(k < tors, "observed ToR {k}: the fabric has {tors}");
            k * hpt..(k + 1) * hpt
        }
        None => 0..n,
    };
    let sending_tors = if w.observed_tor.is_some() { 1 } else { tors };
    let trace = w
        .trace
        .as_deref()
        .map(lh_emu::traffic::workload::load_cdf)
        .transpose()
        .map_err(|e| anyhow::anyhow!("trace: {e}"))?;
    // Flows a ns per host, for the same bytes as the Poisson frames.
    let flows = trace.as_ref().map(|cdf| {
        let flow_lambda = poisson_bps / 8.0 / cdf.mean() / 1e9;
        Flows {
            cdf,
            lambda: flow_lambda,
            host_bps,
            frame_len: w.frame_len,
            n,
        }
    });
    let mut next: Vec<f64> = senders
        .clone()
        .map(|_| epoch as f64 + exp(&mut rng, lambda))
        .collect();
    let mut flow_senders: Vec<FlowSender> = match &flows {
        Some(fl) => senders
            .clone()
            .map(|_| FlowSender::new(epoch, fl, &mut rng))
            .collect(),
        None => Vec::new(),
    };
    // Bursts: total burst bytes per ns over the fabric.
    let burst_bytes = (w.incast_senders as u64 * w.incast_bytes) as f64;
    let burst_rate =
        w.load * w.incast_share * uplink_bps * sending_tors as f64 / 8.0 / 1e9 / burst_bytes;
    let mut next_burst = epoch as f64 + exp(&mut rng, burst_rate);
    // Burst senders: (host, bytes left, next frame time).
    let mut bursting: Vec<(usize, usize, u64, f64)> = Vec::new();
    let frame_ns = w.frame_len as f64 * 8.0 / host_bps * 1e9;
    let mut transit = match w.observed_tor {
        Some(k) if w.transit => Some(Transit::new(
            c,
            w,
            k,
            epoch,
            lambda * hpt as f64,
            flows.as_ref(),
        )),
        _ => None,
    };

    let mut rooms = vec![u64::MAX; n];
    let end = epoch + w.duration_ns;
    let stop = end + w.drain_ns;
    let mut t = epoch;
    let mut buf_samples: Vec<u64> = Vec::new();
    let mut held_max = 0u64;
    let mut pool_waits = 0u64;
    let mut at_end = None;
    let mut core_tx = 0u64;
    let mut sent = Sent {
        sport: 0,
        hpt,
        from_tor: vec![0; tors],
        from_tor_bytes: vec![0; tors],
        to_tor: vec![0; tors],
        f: Vec::with_capacity(w.frame_len),
    };
    while t < stop {
        if t < end {
            if let Some(fl) = &flows {
                for (h, fs) in senders.clone().zip(flow_senders.iter_mut()) {
                    let room = e.host_hold_room(h);
                    fs.due(t, h, fl, &mut rng, room, &mut |d, len| {
                        sent.frame(&mut e, w, (h, d), len, t, None)
                    });
                }
            } else {
                for (h, nx) in senders.clone().zip(next.iter_mut()) {
                    while *nx <= t as f64 {
                        let mut d = rng.gen_range(0..n - 1);
                        if d >= h {
                            d += 1;
                        }
                        sent.frame(&mut e, w, (h, d), w.frame_len, t, None);
                        *nx += exp(&mut rng, lambda);
                    }
                }
            }
            while next_burst <= t as f64 {
                if let Some(k) = w.observed_tor {
                    // From the observed ToR's hosts to one host elsewhere.
                    let mut dst = rng.gen_range(0..n - hpt);
                    if dst / hpt >= k {
                        dst += hpt;
                    }
                    for _ in 0..w.incast_senders {
                        let s = senders.start + rng.gen_range(0..hpt);
                        bursting.push((s, dst + 1, w.incast_bytes, t as f64));
                    }
                } else {
                    let dst = rng.gen_range(0..n);
                    let dt = dst / hpt;
                    for _ in 0..w.incast_senders {
                        let mut s = rng.gen_range(0..n - hpt);
                        if s / hpt >= dt {
                            s += hpt;
                        }
                        bursting.push((s, dst + 1, w.incast_bytes, t as f64));
                    }
                }
                next_burst += exp(&mut rng, burst_rate);
            }
            if let Some(tr) = transit.as_mut() {
                if flows.is_some() {
                    for (h, r) in rooms.iter_mut().enumerate() {
                        *r = e.host_hold_room(h);
                    }
                }
                tr.arrivals(t, n, hpt, flows.as_ref(), &rooms, &mut |s, d, len| {
                    sent.frame(&mut e, w, (s, d), len, t, None)
                });
                tr.bursts(t, n, hpt, w, &mut bursting);
            }
            bursting.retain_mut(|(s, dst, left, nx)| {
                while *left > 0 && *nx <= t as f64 {
                    sent.frame(&mut e, w, (*s, *dst - 1), w.frame_len, t, Some(4000));
                    *left = left.saturating_sub(w.frame_len as u64);
                    *nx += frame_ns;
                }
                *left > 0
            });
        } else if at_end.is_none() {
            at_end = Some(e.counters());
            core_tx = uplink_bytes(&e);
        }
        // The engine takes, and sends to hosts, a batch of frames a poll:
        // at high rates a step injects and delivers more, and all of them
        // move now (or wait at the hosts while the frame pool is full). A
        // poll that moves nothing ends the step.
        for polls in 0.. {
            anyhow::ensure!(polls < 1_000_000, "the engine kept moving frames at {t} ns");
            let before = e.port().pending();
            let moved = e.poll(t)?;
            let after = e.port().pending();
            if !moved && (after == 0 || after == before) {
                pool_waits += u64::from(after > 0);
                break;
            }
        }
        e.port_mut().recycle_sent();
        if (t - epoch) % 10_000 < w.step_ns {
            if t >= epoch + w.warmup_ns && t < end {
                for k in 0..tors as u16 {
                    if samples(w.observed_tor, k as usize) {
                        buf_samples.push(e.queues(k).iter().flatten().sum::<u64>());
                    }
                }
            }
            held_max = held_max.max(e.c.held_bytes);
        }
        t += w.step_ns;
    }
    let c_end = e.counters();
    anyhow::ensure!(c_end.conservation_holds(), "conservation broken: {c_end}");
    let during = at_end.unwrap_or_else(|| c_end.clone());
    anyhow::ensure!(
        during.conservation_holds(),
        "conservation broken when traffic stopped: {during}"
    );
    if w.drain_ns == 0 {
        core_tx = uplink_bytes(&e);
    }
    let d = e.fabric_delay();
    buf_samples.sort_unstable();
    let p999 = buf_samples
        .get(((buf_samples.len() as f64 * 0.999).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0);
    Ok(RunResult {
        throughput_gbps: during.delivered_bytes as f64 * 8.0 / w.duration_ns as f64,
        loss_rate: c_end.dropped_total() as f64 / c_end.sent.max(1) as f64,
        mean_delay_us: d.mean_ns() / 1e3,
        p95_delay_us: d.quantile_ns(0.95) as f64 / 1e3,
        p99_delay_us: d.quantile_ns(0.99) as f64 / 1e3,
        tor_buffer_p999_bytes: p999,
        tor_buffer_max_bytes: buf_samples.last().copied().unwrap_or(0),
        core_utilization: core_tx as f64 * 8.0
            / (uplink_bps * tors as f64 * w.duration_ns as f64 / 1e9),
        observed_offered: w.observed_tor.map(|k| {
            sent.from_tor_bytes[k] as f64 * 8.0 / (uplink_bps * w.duration_ns as f64 / 1e9)
        }),
        host_held_max_bytes: held_max,
        pool_waits,
        at_traffic_end: Ledger::of(&during),
        at_drain_end: Ledger::of(&c_end),
        counters: c_end,
        sent_from_tor: sent.from_tor,
        sent_to_tor: sent.to_tor,
    })
}

/// What the generator sent: frames by the source's and the destination's
/// ToR, bytes by the source's; the last UDP source port it chose, and one
/// buffer for every frame (the port copies it).
struct Sent {
    sport: u16,
    hpt: usize,
    from_tor: Vec<u64>,
    from_tor_bytes: Vec<u64>,
    to_tor: Vec<u64>,
    f: Vec<u8>,
}

impl Sent {
    /// Sends a UDP frame of `len` bytes from host `s` to host `d` (hosts
    /// from 0) at `t`, from port `sport` or, None, the next of 64 ports.
    fn frame(
        &mut self,
        e: &mut Engine<MemPort>,
        w: &Workload,
        (s, d): (usize, usize),
        len: usize,
        t: u64,
        sport: Option<u16>,
    ) {
        let port = sport.unwrap_or_else(|| {
            self.sport = self.sport.wrapping_add(1);
            1024 + self.sport % 64
        });
        swtor::testing::udp_into(&mut self.f, s + 1, d + 1, port, len);
        inject(e, w, s, t, &self.f);
        self.from_tor[s / self.hpt] += 1;
        self.from_tor_bytes[s / self.hpt] += len as u64;
        self.to_tor[d / self.hpt] += 1;
    }
}

/// Injects `f`, from host `h` (from 0), whole or as its headers
/// (`Workload::compact`).
fn inject(e: &mut Engine<MemPort>, w: &Workload, h: usize, t: u64, f: &[u8]) {
    let port = e.port_mut();
    if w.compact && f.len() > STORED {
        port.inject_padded(h as i32 + 1, t, &f[..STORED], f.len());
    } else {
        port.inject(h as i32 + 1, t, f);
    }
}

/// How much the loop did over `runs` (the benchmark's figures): each
/// run's traffic and drain, and its frame-hops.
pub fn work<'a>(
    runs: impl IntoIterator<Item = (&'a Workload, &'a RunResult)>,
) -> crate::at_scale::Work {
    let mut k = crate::at_scale::Work::default();
    for (w, r) in runs {
        k.frame_hops += r.counters.frame_hops();
        k.simulated_ns += w.duration_ns + w.drain_ns;
    }
    k
}

/// Runs each `(fabric, features, workload)` as [`run`] does, on up to as
/// many threads as the machine has cores, and returns the results in the
/// order given. Each run is a function of its inputs alone (its own
/// engine, its own seeded generator), so the results do not depend on the
/// threads: the same as one after the other, to the byte.
pub fn run_all(jobs: &[(&Compiled, TorFeatures, Workload)]) -> anyhow::Result<Vec<RunResult>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len())
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<anyhow::Result<RunResult>>> = (0..jobs.len()).map(|_| None).collect();
    let done = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((c, f, w)) = jobs.get(i) else { break };
                    let r = run(c, *f, w);
                    done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    out.into_iter().map(|r| r.expect("every job ran")).collect()
}

/// The observed ToR's transit (`Workload::transit`): the other ToRs'
/// arrivals of the every-host run, drawn with a generator of their own (so
/// the observed ToR's own traffic is the same with and without), kept when
/// their path for the current slice crosses ToR `k`.
struct Transit {
    k: usize,
    tors: usize,
    slices: u64,
    slice_ns: u64,
    epoch: u64,
    /// `via[(a * slices + s) * tors + b]`: a frame from ToR `a` to ToR `b`
    /// arriving in slice `s` crosses ToR `k`.
    via: Vec<bool>,
    rng: SmallRng,
    /// Each ToR's next Poisson arrival (all its hosts together).
    next: Vec<f64>,
    tor_lambda: f64,
    frame_len: usize,
    /// With a trace: every other ToR's hosts' flows, by host.
    flows: Vec<FlowSender>,
    next_burst: f64,
    burst_rate: f64,
}

impl Transit {
    fn new(
        c: &Compiled,
        w: &Workload,
        k: usize,
        epoch: u64,
        tor_lambda: f64,
        flows: Option<&Flows>,
    ) -> Transit {
        let tors = c.config.tors.count as usize;
        let slices = c.schedule.slices().max(1) as u64;
        let mut via = vec![false; tors * slices as usize * tors];
        for p in c.routes.paths.iter() {
            let (a, b) = (p.src as usize, p.dst as usize);
            if a == k || b == k || !p.hops.iter().skip(1).any(|h| h.tor as usize == k) {
                continue;
            }
            let arrivals = match p.arrival {
                Some(s) => s as u64..s as u64 + 1,
                None => 0..slices,
            };
            for s in arrivals {
                via[(a * slices as usize + s as usize) * tors + b] = true;
            }
        }
        // Its own stream ("transit" in ASCII), apart from the observed ToR's.
        let mut rng = SmallRng::seed_from_u64(w.seed ^ 0x0074_7261_6e73_6974);
        let next = (0..tors)
            .map(|a| {
                if a == k {
                    f64::INFINITY
                } else {
                    epoch as f64 + exp(&mut rng, tor_lambda)
                }
            })
            .collect();
        let flows = match flows {
            Some(fl) => (0..fl.n)
                .map(|_| FlowSender::new(epoch, fl, &mut rng))
                .collect(),
            None => Vec::new(),
        };
        let uplink_bps = c.config.tors.link_rate.0 as f64 * c.config.tors.uplinks as f64;
        let burst_bytes = (w.incast_senders as u64 * w.incast_bytes) as f64;
        let burst_rate =
            w.load * w.incast_share * uplink_bps * tors as f64 / 8.0 / 1e9 / burst_bytes;
        Transit {
            k,
            tors,
            slices,
            slice_ns: c.config.slice.duration.0.max(1),
            epoch,
            via,
            next_burst: epoch as f64 + exp(&mut rng, burst_rate),
            rng,
            next,
            tor_lambda,
            frame_len: w.frame_len,
            flows,
            burst_rate,
        }
    }

    fn crosses(&self, t: u64, a: usize, b: usize) -> bool {
        let s = (t - self.epoch) / self.slice_ns % self.slices;
        self.via[(a * self.slices as usize + s as usize) * self.tors + b]
    }

    /// The Poisson arrivals due by `t`: `send(src host, dst host, length)`
    /// for each one kept (hosts from 0, `n` of them, `hpt` per ToR); with
    /// a trace, the frames of the flows due.
    fn arrivals(
        &mut self,
        t: u64,
        n: usize,
        hpt: usize,
        flows: Option<&Flows>,
        rooms: &[u64],
        send: &mut dyn FnMut(usize, usize, usize),
    ) {
        if let Some(fl) = flows {
            let s = ((t - self.epoch) / self.slice_ns % self.slices) as usize;
            let (slices, tors, via) = (self.slices as usize, self.tors, &self.via);
            for (h, (fs, &room)) in self.flows.iter_mut().zip(rooms).enumerate().take(n) {
                let a = h / hpt;
                if a == self.k {
                    continue;
                }
                fs.due(t, h, fl, &mut self.rng, room, &mut |d, len| {
                    if via[(a * slices + s) * tors + d / hpt] {
                        send(h, d, len);
                    }
                });
            }
            return;
        }
        for a in 0..self.tors {
            while self.next[a] <= t as f64 {
                let s = a * hpt + self.rng.gen_range(0..hpt);
                let mut d = self.rng.gen_range(0..n - 1);
                if d >= s {
                    d += 1;
                }
                if self.crosses(t, a, d / hpt) {
                    send(s, d, self.frame_len);
                }
                self.next[a] += exp(&mut self.rng, self.tor_lambda);
            }
        }
    }

    /// The every-host run's bursts due by `t`, each sender kept when its
    /// ToR's path to the burst's crosses ToR `k` (as `bursting` holds them).
    fn bursts(
        &mut self,
        t: u64,
        n: usize,
        hpt: usize,
        w: &Workload,
        bursting: &mut Vec<(usize, usize, u64, f64)>,
    ) {
        while self.next_burst <= t as f64 {
            let dst = self.rng.gen_range(0..n);
            let dt = dst / hpt;
            for _ in 0..w.incast_senders {
                let mut s = self.rng.gen_range(0..n - hpt);
                if s / hpt >= dt {
                    s += hpt;
                }
                if s / hpt != self.k && self.crosses(t, s / hpt, dt) {
                    bursting.push((s, dst + 1, w.incast_bytes, t as f64));
                }
            }
            self.next_burst += exp(&mut self.rng, self.burst_rate);
        }
    }
}

/// A trace's flows ([`Workload::trace`]): sizes, arrival rate per host
/// (flows a ns), the hosts' link rate, frame length and host count.
pub struct Flows<'a> {
    pub cdf: &'a lh_emu::traffic::workload::cdf::SizeCdf,
    pub lambda: f64,
    pub host_bps: f64,
    pub frame_len: usize,
    pub n: usize,
}

/// One host's flows: Poisson arrivals, each to a random other host with a
/// size from the trace, queued and sent one after the other, each whole,
/// in frames of `frame_len` bytes (the last one shorter) back to back at
/// the host's link rate. Open loop, as the tables' frames are: no
/// congestion control, no retransmission.
pub struct FlowSender {
    next_flow: f64,
    /// When the link is free for the next frame.
    next_frame: f64,
    /// (destination host from 0, bytes left), the first one being sent.
    queue: std::collections::VecDeque<(usize, u64)>,
}

/// The shortest frame sent: Ethernet, IPv4 and UDP headers with a payload.
const MIN_FRAME: usize = 64;

/// Room a host's NIC keeps free for the frames a step sends before the
/// engine takes them (the engine counts held bytes when it polls).
pub const ROOM: u64 = 64 * 1024;

impl FlowSender {
    pub fn new(epoch: u64, fl: &Flows, rng: &mut SmallRng) -> FlowSender {
        FlowSender {
            next_flow: epoch as f64 + exp(rng, fl.lambda),
            next_frame: epoch as f64,
            queue: std::collections::VecDeque::new(),
        }
    }

    /// Everything host `h` does by `t`, in time order: the flows that
    /// arrive, and `send(destination, frame length)` for each frame due.
    /// `room`: bytes its NIC can still hold (`Engine::host_hold_room`);
    /// the host stops sending for this step while less than [`ROOM`] of it
    /// would be left, as an application blocks on a full socket, instead
    /// of sending past a pause.
    pub fn due(
        &mut self,
        t: u64,
        h: usize,
        fl: &Flows,
        rng: &mut SmallRng,
        room: u64,
        send: &mut dyn FnMut(usize, usize),
    ) {
        let t = t as f64;
        let mut room = room;
        loop {
            let frame_due = if self.queue.is_empty() {
                f64::INFINITY
            } else {
                self.next_frame
            };
            if self.next_flow <= t && self.next_flow <= frame_due {
                if self.queue.is_empty() {
                    self.next_frame = self.next_frame.max(self.next_flow);
                }
                let mut d = rng.gen_range(0..fl.n - 1);
                if d >= h {
                    d += 1;
                }
                let size = fl.cdf.quantile(rng.gen_range(0.0..1.0)).max(1);
                self.queue.push_back((d, size));
                self.next_flow += exp(rng, fl.lambda);
            } else if frame_due <= t {
                if room < ROOM + fl.frame_len as u64 {
                    // Blocked: the link's time passes unused.
                    self.next_frame = self.next_frame.max(t);
                    break;
                }
                let (d, left) = self.queue.front_mut().expect("a flow is queued");
                let bytes = (*left).min(fl.frame_len as u64);
                *left -= bytes;
                let dst = *d;
                if *left == 0 {
                    self.queue.pop_front();
                }
                let len = (bytes as usize).max(MIN_FRAME);
                room = room.saturating_sub(len as u64);
                self.next_frame += len as f64 * 8.0 / fl.host_bps * 1e9;
                send(dst, len);
            } else {
                break;
            }
        }
    }
}

/// Whether ToR `k`'s buffer is sampled: the observed ToR's alone, or
/// every ToR's (each one an observation of the paper's one ToR).
pub(super) fn samples(observed: Option<usize>, k: usize) -> bool {
    observed.is_none_or(|o| o == k)
}

/// Bytes every ToR has put on its uplinks so far.
fn uplink_bytes(e: &Engine<MemPort>) -> u64 {
    e.usage().iter().flatten().map(|u| u.tx_bytes).sum()
}

fn exp(rng: &mut SmallRng, rate: f64) -> f64 {
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    let u: f64 = rng.gen_range(f64::EPSILON..1.0);
    -u.ln() / rate
}
