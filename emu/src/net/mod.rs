//! The network object, like Mininet's `net.py`: one value that owns a run
//! (namespaces and veths, the P4 ToRs on BMv2, the native data plane,
//! telemetry and live TA updates) and offers its operations (ping, iperf,
//! flows, node commands, links, captures, queues, drops, tables).
//!
//! ```no_run
//! use lh_emu::net::{Network, NetworkOptions};
//! use lh_emu::plan::Plan;
//! let cfg = lh_ctrl::config::Config::load("topologies/rotornet-8-1ms.json".as_ref())?;
//! let compiled = lh_ctrl::compile::compile(&cfg)?;
//! let mut net = Network::bring_up(Plan::from_config(&cfg), Some(compiled), NetworkOptions::default())?;
//! net.start()?;
//! let p = net.pingall(None)?; // a value: rows, sent, received
//! assert_eq!(p.sent, p.received);
//! let ok = net.stop(); // conservation checked; also done by Drop
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! Operations return values ([`values`]) or a [`NetworkError`]; only the
//! run's own progress (bring-up, teardown, node command output) goes to
//! its output (stderr by default, like Mininet's logger;
//! [`Network::set_output`] redirects it). The CLI
//! ([`crate::cli`]) is a parser over this type. See docs/network.md.

use crate::netns;
use crate::plan::{HostPlan, Plan, tor_name, uplink_if};
use crate::run::bringup::{Net, NetOptions, OrchError};
use crate::text::format;
use crate::text::render;
use crate::tor::bmv2::{P4Source, P4Tors};
use crate::traffic::probe;
use lh_ctrl::compile::Compiled;
use lh_ctrl::{SliceId, TorId};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use swtor::FabricHandle;

mod capture;
mod intf;
mod node;
mod nodes;
mod observe;
mod traffic;
mod views;

pub use crate::values::{self, NetworkError};
pub use node::Node;
pub use observe::{Observer, Tap};

use capture::PcapJob;
pub use capture::PcapTarget;

/// Default per-ping timeout, seconds (Mininet leaves ping's own default;
/// we bound it so a broken fabric does not take minutes to report).
pub const DEFAULT_PING_TIMEOUT: &str = "1";

/// Pings in flight at once from one source in `pingall`.
pub const PING_WINDOW: usize = 32;

/// Sources whose rows a `pingall` runs at once (native ToRs; with BMv2
/// ToRs one, as before: BMv2 takes tens of microseconds a frame, and
/// swtor paces what it hands it).
pub const PING_ROWS: usize = 8;
/// iperfudp's cap without a compiled config (no host link rate known).
pub const MAX_UDP_BPS_NO_FABRIC: f64 = 10e9;
/// Mininet's iperf/iperfudp duration, seconds.
pub const IPERF_SECONDS: f64 = 5.0;
/// The far end `net`/`links` name for an electrical (packet-switched) uplink.
pub const ELECTRICAL_PEER: &str = "eswitch";

/// External tools found on PATH; the built-in prober replaces them. Pings
/// always use the built-in prober: it keeps many in flight on one socket.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tools {
    pub iperf3: bool,
}

impl Tools {
    pub fn detect() -> Tools {
        Tools {
            iperf3: on_path("iperf3"),
        }
    }
    pub fn none() -> Tools {
        Tools::default()
    }
}

pub use crate::kernel::on_path;

/// What [`Network::start`] starts besides the data plane.
#[derive(Clone, Debug, Default)]
pub struct NetworkOptions {
    /// Kernel side: `--mac`, `--arp`, the prefix, the config path.
    pub net: NetOptions,
    /// The P4 program of BMv2 ToRs (`plan.targets`).
    pub p4: P4Source,
    /// BMv2's per-packet log into the run's state directory.
    pub p4_log: bool,
    /// Sample the config's `monitoring` section into this file (`-`: stdout).
    pub telemetry: Option<PathBuf>,
    /// TA mode: recompute the topology from the live traffic matrix.
    pub ta_live: bool,
    /// Pace every host's interface at `tors.host_link_rate` (a `tbf`), as
    /// a fat tree's are: Mininet's `--link tc,bw=N` and `TCLink(bw=N)`.
    pub pace_hosts: bool,
    /// Run the data plane (the OCS, the external ToRs' calendar queues and
    /// any native ToRs) as its own process, `lighthouse ocs`, from this
    /// `lighthouse` executable (`crate::tor::ocs`); `None`: a thread of
    /// this process. `lighthouse run` sets it when a ToR is on BMv2 or with
    /// `--ocs-process`.
    pub ocs_process: Option<PathBuf>,
    /// Hosts with a CPU limit or private directories (Mininet's
    /// `CPULimitedHost`, `privateDirs`), by name (host/confine.rs).
    pub confine: std::collections::BTreeMap<String, crate::host::confine::HostConfinement>,
}

/// One live (or, for tests and fuzzing, offline) emulated network.
pub struct Network {
    pub plan: Plan,
    pub prefix: String,
    pub compiled: Option<Compiled>,
    /// The kernel side; `None` for an offline network.
    net: Option<Net>,
    fabric: Option<Arc<FabricHandle>>,
    /// The `lighthouse ocs` process serving `fabric`, if it is one.
    ocs: Option<crate::tor::ocs::OcsProcess>,
    p4: Option<P4Tors>,
    pub tools: Tools,
    /// The pid `dump` shows for a node without a process of its own.
    pub pid: u32,
    /// Summed over every ping so far: (sent, received).
    pub ping_totals: (u64, u64),
    out: Box<dyn Write + Send>,
    opts: NetworkOptions,
    pcaps: Vec<PcapJob>,
    /// A process per host namespace, started by the first `dump` (index K-1).
    holders: Vec<Option<Child>>,
    uplink_hook: Option<u64>,
    /// One persistent shell per node for `<node> <cmd>` (host/shell.rs).
    pub shells: crate::host::shell::NodeShells,
    sampler: Option<crate::control::telemetry::Sampler>,
    live: Option<crate::control::ta_live::LiveTa>,
    /// Where operations' values are published ([`Network::set_tap`]).
    tap: Option<Tap>,
    /// Switch-switch links `link X Y down` failed (node names, ordered).
    failed: std::collections::BTreeSet<(String, String)>,
    stopped: bool,
}

impl Network {
    /// A network that is only described (no namespaces, no data plane):
    /// commands that need the kernel report errors. For tests and fuzzing.
    pub fn offline(plan: Plan, prefix: &str) -> Network {
        Network {
            holders: Vec::new(),
            plan,
            prefix: prefix.to_string(),
            compiled: None,
            net: None,
            fabric: None,
            ocs: None,
            p4: None,
            tools: Tools::detect(),
            pid: std::process::id(),
            ping_totals: (0, 0),
            out: Box::new(std::io::stderr()),
            opts: NetworkOptions::default(),
            pcaps: Vec::new(),
            uplink_hook: None,
            shells: crate::host::shell::NodeShells::new(prefix),
            sampler: None,
            live: None,
            tap: None,
            failed: Default::default(),
            stopped: false,
        }
    }

    /// Mininet's build: the kernel side of `plan` (namespaces, veths,
    /// addresses). On error nothing is left behind. [`Network::start`]
    /// then starts the ToRs.
    pub fn bring_up(
        plan: Plan,
        compiled: Option<Compiled>,
        opts: NetworkOptions,
    ) -> Result<Network, NetworkError> {
        let mut opts = opts;
        if opts.net.host_tcp.is_none() {
            opts.net.host_tcp = compiled
                .as_ref()
                .and_then(|c| c.config.hosts.as_ref()?.tcp.clone());
        }
        let net = Net::bring_up(plan, &opts.net)?;
        // On an error `net` is dropped, which tears the run down.
        if let Some(t) = compiled.as_ref().and_then(lh_ctrl::otcp::table) {
            push_otcp(&net, &t).map_err(OrchError::from)?;
        }
        if let Some(c) = compiled.as_ref()
            && (c.config.fabric == lh_ctrl::config::FabricKind::FatTree || opts.pace_hosts)
        {
            for h in &net.plan.hosts {
                crate::host::pacing::pace(
                    &net.host_ns(h),
                    &h.host_if,
                    c.config.tors.host_link_rate,
                )
                .map_err(|e| OrchError::Io(e.to_string()))?;
            }
        }
        let mut n = Network::offline(net.plan.clone(), &net.prefix);
        n.holders = (0..n.plan.hosts.len()).map(|_| None).collect();
        n.net = Some(net);
        n.compiled = compiled;
        n.opts = opts;
        // On an error `n` is dropped, which releases what was made.
        for (name, c) in n.opts.confine.clone() {
            let Some(h) = n.plan.hosts.iter().find(|h| h.name == name) else {
                return Err(NetworkError::NoSuchNode(name));
            };
            let conf = crate::host::confine::Confined::create(&n.prefix, &name, &n.host_ns(h), &c)
                .map_err(|e| NetworkError::Failed(e.to_string()))?;
            if let Some(pid) = conf.holder_pid() {
                n.add_child(pid);
            }
            n.shells.confine(&name, conf);
        }
        let p = n.prefix.clone();
        let hosts: Vec<&str> = n.plan.hosts.iter().map(|h| h.name.as_str()).collect();
        let s = format!(
            "*** Run {p}: namespaces {p}-{}..{} and {p}-fab\n*** Adding hosts:\n{} \n*** Adding ToRs:\n{} ",
            hosts.first().copied().unwrap_or("h1"),
            hosts.last().copied().unwrap_or("h1"),
            hosts.join(" "),
            n.plan.tor_names().join(" ")
        );
        n.info(&s);
        Ok(n)
    }

    /// Mininet's start: the P4 ToRs (BMv2), the native data plane and OCS,
    /// then telemetry and live TA updates if asked for. On error the caller
    /// drops the network, which tears it down.
    pub fn start(&mut self) -> Result<(), NetworkError> {
        let (Some(net), Some(c)) = (self.net.as_mut(), self.compiled.as_ref()) else {
            self.say("*** No data plane (--no-fabric)");
            return Ok(());
        };
        if !net.plan.bmv2_tors().is_empty() {
            let names: Vec<String> = net.plan.bmv2_tors().into_iter().map(tor_name).collect();
            if crate::text::level::banners() {
                let _ = writeln!(
                    self.out,
                    "*** Starting P4 ToRs on BMv2: {}",
                    names.join(" ")
                );
            }
            let t = P4Tors::start(net, c, &self.opts.p4, self.opts.p4_log)
                .map_err(|e| NetworkError::P4(e.to_string()))?;
            for s in &t.tors {
                net.add_child(s.switch.pid());
            }
            self.p4 = Some(t);
        }
        let banner = match crate::link::fattree::fat_tree(Some(c)) {
            Some(t) => format!(
                "*** Starting fat tree: k={}, {} edge, {} aggregation, {} core switches, routing {:?}",
                t.k(),
                t.edges(),
                t.aggs(),
                t.cores(),
                c.config.routing.algorithm
            ),
            None => format!(
                "*** Starting optical fabric: {} slices of {} (guardband {})",
                c.schedule.slices(),
                c.config.slice.duration,
                c.config.slice.guardband
            ),
        };
        if crate::text::level::banners() {
            let _ = writeln!(self.out, "{banner}");
        }
        let pace = self
            .p4
            .as_ref()
            .map(|t| t.pace_from(net))
            .unwrap_or_default();
        let f = match &self.opts.ocs_process {
            Some(exe) => {
                let (p, h) = crate::tor::ocs::OcsProcess::start(net, c, exe, &pace)
                    .map_err(|e| NetworkError::Fabric(e.to_string()))?;
                net.add_child(p.pid);
                if crate::text::level::banners() {
                    let _ = writeln!(
                        self.out,
                        "*** OCS process: pid {}, control socket {}",
                        p.pid,
                        crate::tor::ocs::socket_path(&self.prefix).display()
                    );
                }
                self.ocs = Some(p);
                Arc::new(h)
            }
            None => Arc::new(
                crate::tor::fabric::start_paced(net, c, &pace)
                    .map_err(|e| NetworkError::Fabric(e.to_string()))?,
            ),
        };
        // Uplink captures live in the data-plane thread: on a signal or a
        // panic close them all so their files are complete.
        let (f2, tors, ups) = (f.clone(), c.schedule.tors(), c.schedule.uplinks());
        self.uplink_hook = Some(crate::kernel::exitguard::register(move || {
            for t in 0..tors {
                for p in 0..ups {
                    let _ = f2.stop_capture(
                        t as TorId,
                        swtor::CapturePoint::Uplink(p as lh_ctrl::PortId),
                    );
                }
            }
        }));
        self.fabric = Some(f);
        let capped = c
            .config
            .hosts
            .as_ref()
            .and_then(|h| h.tcp.as_ref())
            .is_some_and(|t| t.max_window.is_some())
            || lh_ctrl::otcp::table(c).is_some();
        if capped {
            let hosts: Vec<_> = net
                .plan
                .hosts
                .iter()
                .map(|h| (net.host_ns(h), h.ip))
                .collect();
            self.seed_tcp_metrics(&hosts)?;
        }
        if let Some(target) = self.opts.telemetry.clone() {
            // A telemetry failure must not stop the run.
            match self.start_telemetry(&target) {
                Ok(s) => self.sampler = Some(s),
                Err(e) => self.say(&format!("*** Telemetry off: {e}")),
            }
        }
        if self.opts.ta_live
            && let (Some(f), Some(c)) = (&self.fabric, &self.compiled)
        {
            self.live = crate::control::ta_live::LiveTa::start(f.control(), c.config.clone());
            if self.live.is_none() {
                self.say("*** --ta-live: not a TA config, ignored");
            }
        }
        Ok(())
    }

    /// Every host's locked `cwnd` (`hosts.tcp.max_window`, OTCP) holds
    /// from its first connection to each peer on
    /// ([`crate::host::tcp::seed_metrics`]); past
    /// [`crate::host::tcp::SEED_MAX_HOSTS`] hosts a note says that it does
    /// not.
    fn seed_tcp_metrics(
        &mut self,
        hosts: &[(std::path::PathBuf, std::net::Ipv4Addr)],
    ) -> Result<(), NetworkError> {
        use crate::host::tcp::{SEED_MAX_HOSTS, seed_metrics};
        if hosts.len() > SEED_MAX_HOSTS {
            self.say(&format!(
                "*** Note: {} hosts: a host's first connection to each peer is not window-capped (the kernel's TCP metrics are seeded up to {SEED_MAX_HOSTS} hosts)",
                hosts.len()
            ));
            return Ok(());
        }
        let want = hosts.len() * hosts.len().saturating_sub(1);
        let got = seed_metrics(hosts, Duration::from_secs(5))
            .map_err(|e| NetworkError::Fabric(e.to_string()))?;
        if got < want {
            self.say(&format!(
                "*** Note: {} of {want} host pairs did not connect in 5 s: their first connection is not window-capped",
                want - got
            ));
        }
        Ok(())
    }

    /// The config's monitors (default: both metrics on every uplink every
    /// millisecond) into `target`.
    fn start_telemetry(
        &mut self,
        target: &Path,
    ) -> Result<crate::control::telemetry::Sampler, String> {
        use lh_ctrl::config::{Metric, Monitor};
        let (Some(f), Some(c)) = (&self.fabric, &self.compiled) else {
            return Err("no data plane".into());
        };
        let mut monitors = c.config.monitoring.clone();
        if monitors.is_empty() {
            for metric in [Metric::BufferUsage, Metric::BwUsage] {
                monitors.push(Monitor {
                    metric,
                    tor: None,
                    port: None,
                    interval: lh_ctrl::units::Nanos(1_000_000),
                });
            }
        }
        let out = crate::control::telemetry::open(target)
            .map_err(|e| format!("opening {}: {e}", target.display()))?;
        let n = monitors.len();
        let s = crate::control::telemetry::Sampler::start(f.usage_probe(), monitors, out)
            .map_err(|e| e.to_string())?;
        self.say(&format!(
            "*** Telemetry: {n} monitor(s) into {}",
            target.display()
        ));
        Ok(s)
    }

    /// Mininet's stop: TA updates and telemetry end (with a summary), the
    /// captures close, the data plane drains and reports conservation, the
    /// P4 ToRs stop and the kernel side is removed. Returns whether
    /// conservation held and teardown had no errors. Idempotent.
    pub fn stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.stopped = true;
        let stopped = self.stop_pcaps();
        for c in &stopped.captures {
            self.say(&crate::text::view::capture_stopped(c));
        }
        if let Some(l) = self.live.take() {
            let r = l.stop();
            let applied: Vec<_> = r.iter().filter(|u| u.applied).collect();
            let s = format!(
                "*** TA updates: {} applied of {} ticks; lost {} deferred {} carried over {} across them",
                applied.len(),
                r.len(),
                applied.iter().map(|u| u.lost).sum::<u64>(),
                applied.iter().map(|u| u.deferred).sum::<u64>(),
                applied.iter().map(|u| u.carried_over).sum::<u64>()
            );
            self.say(&s);
        }
        if let Some(s) = self.sampler.take() {
            match s.stop() {
                Ok(n) => self.say(&format!("*** Telemetry: {n} records")),
                Err(e) => self.say(&format!("*** Telemetry: {e}")),
            }
        }
        if self.net.is_none() {
            return true;
        }
        self.info("*** Stopping network");
        self.shells.stop_all();
        if let Some(id) = self.uplink_hook.take() {
            crate::kernel::exitguard::unregister(id);
        }
        let mut ok = true;
        if let Some(f) = self.fabric.take().and_then(|f| Arc::try_unwrap(f).ok()) {
            ok = self.report_drained(&f);
            f.stop();
        }
        if let Some(p) = self.ocs.take() {
            // It exits once its handle stopped it.
            p.wait(Duration::from_secs(3));
        }
        if let Some(mut t) = self.p4.take() {
            t.stop();
        }
        for mut h in self.holders.drain(..).flatten() {
            let _ = h.kill();
            let _ = h.wait();
        }
        if let Some(mut net) = self.net.take() {
            let rep = net.teardown();
            for e in &rep.errors {
                self.say(&format!("*** Error: {e}"));
            }
            ok &= rep.errors.is_empty();
        }
        // After the teardown killed what still ran in the hosts'
        // namespaces (a popen'd server): a cgroup goes only once empty.
        for e in self.shells.release_confined() {
            self.say(&format!("*** Error: {e}"));
            ok = false;
        }
        self.info("*** Done");
        ok
    }

    /// The `*** Fabric:` line once the traffic has drained; whether
    /// conservation holds.
    fn report_drained(&mut self, f: &FabricHandle) -> bool {
        let (c, p4c) = drained_counters(f, self.p4.as_ref());
        let t = crate::tor::fabric::Totals::of(&c, p4c.as_ref());
        // Frames that entered a BMv2 ToR's ports and never reached its
        // program or came out (a full packet-socket buffer or BMv2 queue):
        // after the drain they are lost, with that reason.
        let lost = t.in_bmv2.max(0) as u64;
        let good = c.conservation_holds()
            && t.on_veths == 0
            && t.in_bmv2 >= 0
            && t.sent == t.delivered + t.dropped + lost + t.queued;
        let mut s = format!(
            "*** Fabric: sent {} delivered {} dropped {} queued {} (conservation {})",
            t.sent,
            t.delivered,
            t.dropped + lost,
            t.queued,
            if good { "OK" } else { "VIOLATED" }
        );
        if lost > 0 {
            s.push_str(&format!("\n*** Lost inside BMv2: {lost} frames its program never saw or that never left it (packet-socket or BMv2 queue overflow)"));
        }
        if t.on_veths != 0 || t.in_bmv2 < 0 {
            s.push_str(&format!(
                "\n*** Unaccounted: inside BMv2 {}, on BMv2's uplink veths {}",
                t.in_bmv2, t.on_veths
            ));
        }
        // A violation is printed at every level.
        if good {
            self.info(&s);
        } else {
            self.say(&s);
        }
        good
    }

    /// Where everything the network reports goes (default: stderr).
    pub fn set_output(&mut self, out: Box<dyn Write + Send>) {
        self.out = out;
    }

    /// The output, leaving a sink in its place (give it back with
    /// [`Network::set_output`]): for progress written while an operation
    /// holds the network.
    pub fn take_output(&mut self) -> Box<dyn Write + Send> {
        std::mem::replace(&mut self.out, Box::new(std::io::sink()))
    }

    /// A line on the network's output.
    pub fn say(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
        let _ = self.out.flush();
    }

    /// A banner (Mininet's `info`): not printed at `-v output` and above.
    pub fn info(&mut self, s: &str) {
        if crate::text::level::banners() {
            self.say(s);
        }
    }

    /// Text without a newline on the network's output.
    pub fn say_part(&mut self, s: &str) {
        let _ = write!(self.out, "{s}");
        let _ = self.out.flush();
    }

    /// The kernel side (namespaces, state), if brought up.
    pub fn kernel(&self) -> Option<&Net> {
        self.net.as_ref()
    }

    /// The native data plane, once started.
    pub fn fabric(&self) -> Option<&FabricHandle> {
        self.fabric.as_deref()
    }

    /// The BMv2 ToRs, once started.
    pub fn p4(&self) -> Option<&P4Tors> {
        self.p4.as_ref()
    }

    /// Uses an already started data plane (tests that build the fabric
    /// from hand-made tables).
    pub fn attach_fabric(&mut self, f: FabricHandle) {
        self.fabric = Some(Arc::new(f));
    }

    /// Remember a process started inside the run (for `clean`'s report).
    pub fn add_child(&mut self, pid: u32) {
        if let Some(n) = self.net.as_mut() {
            n.add_child(pid);
        }
    }

    pub fn host_ns(&self, h: &HostPlan) -> PathBuf {
        netns::ns_path(&format!("{}-{}", self.prefix, h.name))
    }

    pub fn fabric_ns(&self) -> PathBuf {
        netns::ns_path(&format!("{}-fab", self.prefix))
    }

    /// A BMv2 ToR's own namespace (its simple_switch and ports).
    pub fn tor_ns(&self, t: usize) -> PathBuf {
        netns::ns_path(&format!("{}-{}", self.prefix, tor_name(t)))
    }

    /// The `lighthouse ocs` process serving the data plane, if it is one:
    /// (pid, start time, log) to watch for it dying.
    pub fn ocs_process(&self) -> Option<(u32, u64, PathBuf)> {
        self.ocs
            .as_ref()
            .map(|p| (p.pid, p.start_time, p.log.clone()))
    }

    /// Every BMv2 ToR's name and process record (to watch for one dying).
    pub fn p4_switches(&self) -> Vec<(String, bmv2_thrift::ProcessRecord)> {
        self.p4
            .iter()
            .flat_map(|t| &t.tors)
            .map(|s| (tor_name(s.tor), s.switch.record().clone()))
            .collect()
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        if self.net.is_some() && !self.stopped {
            let mut out: Box<dyn Write + Send> = Box::new(std::io::sink());
            std::mem::swap(&mut out, &mut self.out);
            self.stop();
        } else {
            let _ = self.stop_pcaps();
        }
    }
}

/// Counters once the traffic has drained: with P4 ToRs, frames can still be
/// inside BMv2 or on its veths for a moment after the last command.
fn drained_counters(
    f: &FabricHandle,
    p4: Option<&P4Tors>,
) -> (swtor::Counters, Option<crate::tor::bmv2::P4Counters>) {
    let read = || (f.counters(), p4.and_then(|t| t.counters().ok()));
    let mut last = read();
    let t0 = std::time::Instant::now();
    while p4.is_some() && t0.elapsed() < Duration::from_secs(2) {
        let t = crate::tor::fabric::Totals::of(&last.0, last.1.as_ref());
        if t.in_bmv2 == 0 && t.on_veths == 0 && last.0.queued == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        last = read();
    }
    last
}

/// OTCP (docs/otcp.md): every host gets one /32 route per other host with
/// the controller's parameters for that pair, and the socket-level RTOmax.
fn push_otcp(
    net: &Net,
    t: &lh_ctrl::otcp::OtcpTable,
) -> Result<(), crate::host::tcp::HostTcpError> {
    for h in &net.plan.hosts {
        let a = h.tor as usize;
        let routes: Vec<crate::host::tcp::OtcpRoute> = net
            .plan
            .hosts
            .iter()
            .filter(|d| d.k != h.k)
            .map(|d| {
                let b = d.tor as usize;
                crate::host::tcp::OtcpRoute::new(d.ip, t.for_tors(a, b).1, t.for_tors(b, a).1)
            })
            .collect();
        crate::host::tcp::apply_otcp(&net.host_ns(h), &h.host_if, &routes, t.socket_rto_max_ms)?;
    }
    Ok(())
}
