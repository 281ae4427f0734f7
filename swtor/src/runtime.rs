//! The running data plane: [`start`] opens the host-port socket in the
//! fabric namespace and [`spawn`] runs an [`Engine`] on its busy-polling OS
//! thread; [`FabricHandle`], [`ControlHandle`] and [`UsageProbe`] talk to it
//! over a command channel; [`capture_iface`] taps an interface into a pcap.

use crate::engine::{CapturePoint, Engine, EngineOptions, Port};
use crate::error::io_err;
use crate::spec::check_spec;
use crate::{
    Counters, ExternalIfindexes, FabricError, FabricSpec, Ifindexes, PortUsage, SliceClock,
    SwitchPort, afpacket, monotonic_ns, pcap, sched,
};
use lh_ctrl::schedule::Schedule;
use lh_ctrl::tables::FlatTables;
use lh_ctrl::{SliceId, TorId};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A cloneable, thread-safe handle that only reads telemetry from a
/// running data plane ([`FabricHandle::usage_probe`]).
#[derive(Clone)]
pub struct UsageProbe {
    cmd: mpsc::Sender<Cmd>,
}

impl UsageProbe {
    /// `[tor][uplink]` telemetry, read between two loop iterations.
    pub fn usage(&self) -> Result<Vec<Vec<PortUsage>>, FabricError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.cmd
            .send(Cmd::Usage(tx))
            .map_err(|_| FabricError::Stopped)?;
        rx.recv().map_err(|_| FabricError::Stopped)
    }
}

/// A cloneable handle for a controller thread: counters, the live traffic
/// matrix and runtime reconfiguration ([`FabricHandle::control`]).
#[derive(Clone)]
pub struct ControlHandle {
    cmd: mpsc::Sender<Cmd>,
}

/// Sends the command `make` builds to the data-plane thread and waits up to
/// [`REPLY_TIMEOUT`] for its reply.
fn ask<T>(
    cmd: &mpsc::Sender<Cmd>,
    make: impl FnOnce(mpsc::SyncSender<T>) -> Cmd,
) -> Result<T, FabricError> {
    let (tx, rx) = mpsc::sync_channel(1);
    cmd.send(make(tx)).map_err(|_| FabricError::Stopped)?;
    rx.recv_timeout(REPLY_TIMEOUT)
        .map_err(|_| FabricError::Stopped)
}

impl ControlHandle {
    fn ask<T>(&self, make: impl FnOnce(mpsc::SyncSender<T>) -> Cmd) -> Result<T, FabricError> {
        ask(&self.cmd, make)
    }
    /// A consistent snapshot of the counters.
    pub fn counters(&self) -> Result<Counters, FabricError> {
        self.ask(Cmd::Counters)
    }
    /// See [`FabricHandle::traffic_matrix`].
    pub fn traffic_matrix(&self) -> Result<Vec<Vec<u64>>, FabricError> {
        self.ask(Cmd::TrafficMatrix)
    }
    /// See [`FabricHandle::reconfigure`].
    pub fn reconfigure(
        &self,
        schedule: Schedule,
        tables: impl Into<Arc<FlatTables>>,
    ) -> Result<(), FabricError> {
        let tables = tables.into();
        self.ask(|r| Cmd::Reconfigure(Box::new((schedule, tables)), r))?
    }
}

pub(crate) enum Cmd {
    TrafficMatrix(mpsc::SyncSender<Vec<Vec<u64>>>),
    Usage(mpsc::SyncSender<Vec<Vec<PortUsage>>>),
    Counters(mpsc::SyncSender<Counters>),
    Queues(TorId, mpsc::SyncSender<Vec<Vec<u64>>>),
    /// Start (with the file, already created, and its absolute path: a
    /// data plane in another process opens the path itself) or stop.
    Capture(
        TorId,
        CapturePoint,
        Option<(std::fs::File, std::path::PathBuf)>,
        mpsc::SyncSender<io::Result<()>>,
    ),
    Reconfigure(
        Box<(Schedule, Arc<FlatTables>)>,
        mpsc::SyncSender<Result<(), FabricError>>,
    ),
    SetLink(TorId, TorId, bool, mpsc::SyncSender<Result<(), String>>),
    SetSwitchLink(u16, u16, bool, mpsc::SyncSender<Result<(), String>>),
    SetHostLink(
        u16,
        bool,
        Option<lh_ctrl::config::HostLinkCfg>,
        mpsc::SyncSender<Result<(), String>>,
    ),
    SwitchPorts(mpsc::SyncSender<Vec<SwitchPort>>),
}

/// A running data plane.
pub struct FabricHandle {
    cmd: mpsc::Sender<Cmd>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Counters>>,
    clock: SliceClock,
    /// The data-plane thread's kernel thread id (0 until it has started).
    tid: Arc<std::sync::atomic::AtomicU32>,
}

/// Opens the packet socket inside `netns` (None: the current namespace) on
/// a short-lived thread, then spawns the data-plane OS thread.
pub fn start(spec: FabricSpec, netns: Option<&Path>) -> Result<FabricHandle, FabricError> {
    start_with(spec, netns, EngineOptions::default())
}

/// [`start`] with engine tunables.
pub fn start_with(
    spec: FabricSpec,
    netns: Option<&Path>,
    opts: EngineOptions,
) -> Result<FabricHandle, FabricError> {
    check_spec(&spec)?;
    if opts.pool_slot != crate::pool::SLOT {
        return Err(FabricError::Spec(format!(
            "pool_slot {}: a socket receives into full {}-byte slots",
            opts.pool_slot,
            crate::pool::SLOT
        )));
    }
    if opts.pool_grows {
        return Err(FabricError::Spec(
            "pool_grows: a live engine's pool is fixed (socket code points into it)".into(),
        ));
    }
    // Hosts of external ToRs are not attached: no name to resolve.
    let names: Vec<Option<String>> = spec
        .hosts
        .iter()
        .map(|h| (!spec.is_external(h.tor)).then(|| h.ifname.clone()))
        .collect();
    let ext = spec.external.clone();
    let promisc = opts.promiscuous_external;
    let ring = receive_ring(opts.cpu);
    let (sock, ifindex) = lh_netns::try_run_in(netns, move || {
        let s = if ring {
            HostSocket::Ring(afpacket::RingSocket::open(
                afpacket::SocketOptions::default(),
            )?)
        } else {
            HostSocket::Mmsg(afpacket::RawSocket::open(
                afpacket::SocketOptions::default(),
            )?)
        };
        let named = |n: &String| {
            afpacket::if_nametoindex(n)
                .map_err(|e| io::Error::new(e.kind(), format!("interface {n}: {e}")))
        };
        let hosts = names
            .iter()
            .map(|n| n.as_ref().map_or(Ok(0), named))
            .collect::<io::Result<Vec<i32>>>()?;
        let external = ext
            .iter()
            .map(|x| {
                Ok(ExternalIfindexes {
                    uplinks: x.uplinks.iter().map(named).collect::<io::Result<_>>()?,
                    cpu: named(&x.cpu)?,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        if promisc {
            for x in &external {
                for &ix in x.uplinks.iter().chain([&x.cpu]) {
                    s.add_promiscuous(ix)?;
                }
            }
        }
        Ok((s, Ifindexes { hosts, external }))
    })
    .map_err(io_err(format!(
        "opening the host-port socket in {}",
        netns.map_or("the current namespace".into(), |p| p.display().to_string())
    )))?;
    let clock = match opts.epoch {
        Some(epoch) => SliceClock {
            epoch,
            slice: spec.timing.model.slice.0,
            slices: spec.schedule.slices() as u64,
        },
        None => SliceClock::aligned(
            monotonic_ns(),
            spec.timing.model.slice.0,
            spec.schedule.slices() as u64,
        ),
    };
    let cpu = opts.cpu;
    match sock {
        HostSocket::Mmsg(sock) => spawn_on(
            Engine::with_ports(&spec, &ifindex, sock, clock, opts)?,
            clock,
            cpu,
        ),
        HostSocket::Ring(sock) => spawn_on(
            Engine::with_ports(&spec, &ifindex, sock, clock, opts)?,
            clock,
            cpu,
        ),
    }
}

/// Whether the host-port socket receives through a ring
/// ([`afpacket::RingSocket`]) rather than `recvmmsg`: when the data plane
/// shares the CPUs with the hosts. There the kernel copies each frame into
/// the ring in the sender's softirq, on the other CPU, beside the data
/// plane: TCP over a circuit 0.48-0.49 of a bridge against 0.41-0.43.
/// When the data plane keeps a CPU to itself (`cpu`, `--own-cpu`) the
/// hosts' CPU is the one that runs out, and moving the copy there costs:
/// 0.79-0.83 against 0.94-0.98 (docs/performance.md). `SWTOR_RX_RING=1`
/// or `=0` forces either, for measurements.
fn receive_ring(cpu: Option<usize>) -> bool {
    match std::env::var("SWTOR_RX_RING").as_deref() {
        Ok("0") => false,
        Ok(_) => true,
        Err(_) => cpu.is_none(),
    }
}

/// The fabric namespace's host-port socket, by how it receives.
enum HostSocket {
    Mmsg(afpacket::RawSocket),
    Ring(afpacket::RingSocket),
}

impl HostSocket {
    fn add_promiscuous(&self, ifindex: i32) -> io::Result<()> {
        match self {
            HostSocket::Mmsg(s) => s.add_promiscuous(ifindex),
            HostSocket::Ring(s) => s.socket().add_promiscuous(ifindex),
        }
    }
}

/// Whether the idle data-plane thread calls sched_yield (measured: it adds
/// multi-ms gaps under load, see docs/dataplane.md).
const YIELD_WHEN_IDLE: bool = false;

/// Idle iterations the data plane spins before it may sleep
/// ([`Engine::idle_until`]): back-to-back frames cost no wake-up. (Spinning
/// 300 us after the last frame instead, so that a ping's reply would find
/// the loop awake, measured worse with `bench_idle`: same-ToR ping RTT p50
/// 50-72 us and p99 288-347 us against 57-60 and 97-154 us.)
const IDLE_SPINS_BEFORE_SLEEP: u32 = 64;
/// How early a sleep ends before the deadline it is for (ppoll's timer
/// slack is 50 us by default), and its longest stretch.
const WAKE_MARGIN_NS: u64 = 150_000;
const MAX_SLEEP_NS: u64 = 1_000_000;

/// Nice value of the data-plane thread (see `sched`); the environment
/// variable SWTOR_NICE overrides it (for measurements).
pub const DATAPLANE_NICE: i32 = -10;

/// Runs an engine on its own OS thread (also used with custom ports).
pub fn spawn<P: Port + 'static>(
    eng: Engine<P>,
    clock: SliceClock,
) -> Result<FabricHandle, FabricError> {
    spawn_on(eng, clock, None)
}

/// [`spawn`], the thread pinned to `cpu` if given.
fn spawn_on<P: Port + 'static>(
    mut eng: Engine<P>,
    clock: SliceClock,
    cpu: Option<usize>,
) -> Result<FabricHandle, FabricError> {
    let (tx, rx) = mpsc::channel::<Cmd>();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let tid = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let tid2 = tid.clone();
    let thread = std::thread::Builder::new()
        .name("swtor-dataplane".into())
        .spawn(move || {
            tid2.store(sched::thread_id(), Ordering::Relaxed);
            let nice = std::env::var("SWTOR_NICE")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(DATAPLANE_NICE);
            if !sched::set_thread_nice(nice) {
                tracing::debug!("could not raise the data-plane thread's priority");
            }
            if let Some(cpu) = cpu
                && !sched::pin_thread(cpu)
            {
                tracing::debug!("could not pin the data-plane thread to CPU {cpu}");
            }
            // `SWTOR_IDLE_SPIN=1`: never sleep (the loop before idle
            // sleeping; for measurements, docs/benchmarks.md).
            let may_sleep = std::env::var("SWTOR_IDLE_SPIN").as_deref() != Ok("1");
            let mut iter: u32 = 0;
            let mut idle: u32 = 0;
            let mut last_slot = eng.clock().slot(monotonic_ns());
            loop {
                let now = monotonic_ns();
                let clock = eng.clock();
                let slot = clock.slot(now);
                if slot != last_slot {
                    // Boundaries passed since the last poll; all but the
                    // first 64 of a long deschedule are booked as late as
                    // the first one (an overestimate, cheap).
                    let n = slot.saturating_sub(last_slot);
                    for k in 1..=n.min(64) {
                        let late = now - clock.start_of_slot(last_slot + k);
                        eng.c.record_boundary(
                            late,
                            if k == 1 {
                                n.saturating_sub(63).max(1)
                            } else {
                                1
                            },
                        );
                    }
                    last_slot = slot;
                }
                let busy = match eng.poll(now) {
                    Ok(b) => b,
                    Err(e) => {
                        tracing::error!("data plane: {e}");
                        false
                    }
                };
                if busy {
                    // CPU time spent moving frames (an iteration longer than
                    // 1 ms was preempted and is not counted).
                    let spent = monotonic_ns().saturating_sub(now);
                    if spent < 1_000_000 {
                        eng.c.busy_ns += spent;
                    }
                }
                iter = iter.wrapping_add(1);
                let mut slept = false;
                if !busy
                    && may_sleep
                    && idle >= IDLE_SPINS_BEFORE_SLEEP
                    && let Some(until) = eng.idle_until(now)
                {
                    let left = until.saturating_sub(monotonic_ns());
                    if left > WAKE_MARGIN_NS {
                        slept = eng.wait_for_input((left - WAKE_MARGIN_NS).min(MAX_SLEEP_NS));
                    }
                }
                if slept || iter.is_multiple_of(64) {
                    if stop2.load(Ordering::Relaxed) {
                        break;
                    }
                    while let Ok(c) = rx.try_recv() {
                        handle_cmd(&mut eng, c);
                    }
                    if iter.is_multiple_of(64 * 1024) {
                        eng.flush_captures();
                    }
                }
                if busy {
                    idle = 0;
                } else {
                    idle = idle.saturating_add(1);
                    // Give the hosts' core a chance only when nothing waits
                    // for a deadline here; otherwise keep spinning.
                    if YIELD_WHEN_IDLE && idle > 1024 && eng.c.queued == 0 {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
            }
            eng.flush_captures();
            eng.counters()
        })
        .map_err(io_err("spawning the data-plane thread"))?;
    Ok(FabricHandle {
        cmd: tx,
        stop,
        thread: Some(thread),
        clock,
        tid,
    })
}

fn handle_cmd<P: Port>(eng: &mut Engine<P>, c: Cmd) {
    match c {
        Cmd::Usage(r) => {
            let _ = r.send(eng.usage());
        }
        Cmd::TrafficMatrix(r) => {
            let _ = r.send(eng.traffic_matrix());
        }
        Cmd::Counters(r) => {
            let _ = r.send(eng.counters());
        }
        Cmd::Queues(t, r) => {
            let _ = r.send(eng.queues(t));
        }
        Cmd::Capture(t, at, Some((f, _)), r) => {
            let _ = r.send(eng.start_capture(t, at, f));
        }
        Cmd::Capture(t, at, None, r) => {
            let _ = r.send(eng.stop_capture(t, at));
        }
        Cmd::Reconfigure(st, r) => {
            let _ = r.send(eng.reconfigure(&st.0, st.1.clone(), monotonic_ns()));
        }
        Cmd::SetLink(a, b, up, r) => {
            let _ = r.send(eng.set_link(a, b, up));
        }
        Cmd::SetSwitchLink(a, b, up, r) => {
            let _ = r.send(eng.set_switch_link(a, b, up, monotonic_ns()));
        }
        Cmd::SetHostLink(h, to_tor, cfg, r) => {
            let _ = r.send(eng.set_host_link(h, to_tor, cfg.as_ref()));
        }
        Cmd::SwitchPorts(r) => {
            let _ = r.send(eng.switch_ports());
        }
    }
}

const REPLY_TIMEOUT: Duration = Duration::from_secs(2);

impl FabricHandle {
    /// A handle whose commands another thread answers (`remote`: a proxy
    /// for a data plane in another process); `thread` returns the final
    /// counters once `stop` is set.
    pub(crate) fn from_parts(
        cmd: mpsc::Sender<Cmd>,
        stop: Arc<AtomicBool>,
        thread: JoinHandle<Counters>,
        clock: SliceClock,
        tid: Option<u32>,
    ) -> FabricHandle {
        FabricHandle {
            cmd,
            stop,
            thread: Some(thread),
            clock,
            tid: Arc::new(std::sync::atomic::AtomicU32::new(tid.unwrap_or(0))),
        }
    }

    /// The kernel thread id of the busy-polling data-plane thread (the
    /// native ToRs' and the OCS's "process"), once it has started.
    pub fn dataplane_tid(&self) -> Option<u32> {
        let t = self.tid.load(Ordering::Relaxed);
        (t != 0).then_some(t)
    }

    /// A control handle for another thread (live TA updates).
    pub fn control(&self) -> ControlHandle {
        ControlHandle {
            cmd: self.cmd.clone(),
        }
    }

    /// A telemetry reader for another thread (a sampler).
    pub fn usage_probe(&self) -> UsageProbe {
        UsageProbe {
            cmd: self.cmd.clone(),
        }
    }

    /// `[tor][uplink]` telemetry now.
    pub fn usage(&self) -> Result<Vec<Vec<PortUsage>>, FabricError> {
        self.usage_probe().usage()
    }

    /// Bytes hosts of each ToR sent towards each other ToR since the
    /// start, `[src][dst]` (the live traffic matrix, §8).
    pub fn traffic_matrix(&self) -> Result<Vec<Vec<u64>>, FabricError> {
        self.control().traffic_matrix()
    }

    fn ask<T>(&self, make: impl FnOnce(mpsc::SyncSender<T>) -> Cmd) -> Result<T, FabricError> {
        ask(&self.cmd, make)
    }

    /// A consistent snapshot of the counters.
    pub fn try_counters(&self) -> Result<Counters, FabricError> {
        self.ask(Cmd::Counters)
    }

    /// A consistent snapshot of the counters (default if the thread died).
    pub fn counters(&self) -> Counters {
        self.try_counters().unwrap_or_default()
    }

    /// Bytes per `[uplink][calendar queue index = departure slice]`.
    pub fn queues(&self, tor: TorId) -> Vec<Vec<u64>> {
        self.ask(|r| Cmd::Queues(tor, r)).unwrap_or_default()
    }

    /// The current (slice, cycle) by the OCS's clock.
    pub fn now_slice(&self) -> (SliceId, u64) {
        self.clock.slice_of(monotonic_ns())
    }

    /// CLOCK_MONOTONIC ns of slice 0 of cycle 0.
    pub fn epoch(&self) -> u64 {
        self.clock.epoch
    }

    pub fn clock(&self) -> SliceClock {
        self.clock
    }

    /// Starts writing a pcap (ns timestamps) of an uplink, as the OCS sees
    /// it, until [`FabricHandle::stop_capture`] or [`FabricHandle::stop`].
    pub fn capture(&self, tor: TorId, port: CapturePoint, file: &Path) -> Result<(), FabricError> {
        let f =
            std::fs::File::create(file).map_err(io_err(format!("creating {}", file.display())))?;
        // A path another process (the OCS process) can open: absolute, and
        // `/proc/self/fd/N` (how a caller hands over a file it opened
        // itself) as this process's `/proc/PID/fd/N`.
        let path = match file.strip_prefix("/proc/self") {
            Ok(rest) => Path::new("/proc")
                .join(std::process::id().to_string())
                .join(rest),
            Err(_) => std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf()),
        };
        self.ask(|r| Cmd::Capture(tor, port, Some((f, path)), r))?
            .map_err(io_err(format!("capture on ToR {tor} {port:?}")))
    }

    pub fn stop_capture(&self, tor: TorId, port: CapturePoint) -> Result<(), FabricError> {
        self.ask(|r| Cmd::Capture(tor, port, None, r))?
            .map_err(io_err(format!("closing capture on ToR {tor} {port:?}")))
    }

    /// Replaces the schedule and tables now (a traffic-aware topology
    /// update): circuits that change are dark for
    /// `max(guardband, reconfiguration)` from this moment, queued frames
    /// stay queued. ToRs, uplinks and slices must stay the same.
    pub fn reconfigure(
        &self,
        schedule: Schedule,
        tables: impl Into<Arc<FlatTables>>,
    ) -> Result<(), FabricError> {
        self.control().reconfigure(schedule, tables)
    }

    /// Fails (`up == false`) or restores the optical circuits between ToRs
    /// `a` and `b` in the OCS, every slice, both directions (`link sX sY
    /// down|up`). The ToRs are not told: their frames for those circuits
    /// are dropped by the OCS as `link_down`.
    pub fn set_link(&self, a: TorId, b: TorId, up: bool) -> Result<(), FabricError> {
        self.ask(|r| Cmd::SetLink(a, b, up, r))?
            .map_err(FabricError::Link)
    }

    /// Fails (`up == false`) or restores the fat-tree link between
    /// switches `a` and `b` (`lh_ctrl::fattree` ids): frames sent on it are
    /// dropped as `link_down` at once, its paths withdrawn after
    /// `routing.failure_detection`.
    pub fn set_switch_link(&self, a: u16, b: u16, up: bool) -> Result<(), FabricError> {
        self.ask(|r| Cmd::SetSwitchLink(a, b, up, r))?
            .map_err(FabricError::Link)
    }

    /// Changes netem's options of one direction of host `h`'s link (index
    /// in `FabricSpec::hosts`): towards its ToR (`to_tor`) or towards the
    /// host; None: no delay, jitter, loss or frame limit.
    pub fn set_host_link(
        &self,
        h: u16,
        to_tor: bool,
        cfg: Option<lh_ctrl::config::HostLinkCfg>,
    ) -> Result<(), FabricError> {
        self.ask(|r| Cmd::SetHostLink(h, to_tor, cfg, r))?
            .map_err(FabricError::Link)
    }

    /// Every port of every fat-tree switch (empty for other fabrics).
    pub fn switch_ports(&self) -> Result<Vec<SwitchPort>, FabricError> {
        self.ask(Cmd::SwitchPorts)
    }

    /// Stops and joins the data-plane thread (closing its socket) and
    /// returns the final counters.
    pub fn stop(mut self) -> Counters {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Counters {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for FabricHandle {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.shutdown();
        }
    }
}

/// Captures every frame seen on interface `ifname` (both directions) into a
/// pcap file with ns timestamps, until `stop` is set. The socket is opened
/// inside `netns` (None: the current namespace). The thread returns the
/// number of frames written.
pub fn capture_iface(
    netns: Option<&Path>,
    ifname: &str,
    file: &Path,
    stop: Arc<AtomicBool>,
) -> Result<JoinHandle<io::Result<u64>>, FabricError> {
    let name = ifname.to_string();
    let mut sock = lh_netns::try_run_in(netns, move || {
        let ix = afpacket::if_nametoindex(&name)?;
        afpacket::RawSocket::open(afpacket::SocketOptions {
            ifindex: Some(ix),
            ignore_outgoing: false,
            qdisc_bypass: false,
            buffer: 4 << 20,
        })
    })
    .map_err(io_err(format!("opening a capture socket on {ifname}")))?;
    let f = std::fs::File::create(file).map_err(io_err(format!("creating {}", file.display())))?;
    let mut w = pcap::PcapWriter::new(io::BufWriter::new(f), true, 65535)
        .map_err(io_err(format!("writing {}", file.display())))?;
    std::thread::Builder::new()
        .name(format!("capture-{ifname}"))
        .spawn(move || {
            let off = pcap::monotonic_to_unix_offset();
            let mut buf = vec![0u8; 65535];
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if let Some((cap, orig, _, _)) = sock.recv_one(&mut buf, 50)? {
                    let ts = (monotonic_ns() as i64 + off).max(0) as u64;
                    w.write(ts, &buf[..cap], orig)?;
                    n += 1;
                }
            }
            // Frames that arrived before the stop but were not read yet
            // (the thread may not have run at all on a loaded machine)
            // belong in the file too.
            while let Some((cap, orig, _, _)) = sock.recv_one(&mut buf, 0)? {
                let ts = (monotonic_ns() as i64 + off).max(0) as u64;
                w.write(ts, &buf[..cap], orig)?;
                n += 1;
            }
            w.flush()?;
            Ok(n)
        })
        .map_err(io_err("spawning the capture thread"))
}
