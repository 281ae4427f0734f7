//! The network object, like Mininet's `net.py`: one value that owns a run
//! (namespaces and veths, the P4 ToRs on BMv2, the native data plane,
//! telemetry and live TA updates) and offers its operations (ping, iperf,
//! flows, node commands, links, captures, queues, drops, tables).
//!
//! ```no_run
//! use lh_emu::network::{Network, NetworkOptions};
//! use lh_emu::topo::Plan;
//! let cfg = lh_ctrl::config::Config::load("topologies/rotornet-8-1ms.json".as_ref())?;
//! let compiled = lh_ctrl::compile::compile(&cfg)?;
//! let mut net = Network::bring_up(Plan::from_config(&cfg), Some(compiled), NetworkOptions::default())?;
//! net.start()?;
//! let (sent, received) = net.pingall(None);
//! assert_eq!(sent, received);
//! let ok = net.stop(); // conservation checked; also done by Drop
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! Everything it reports goes to its output (stderr by default, like
//! Mininet's logger); [`Network::set_output`] redirects it. The CLI
//! ([`crate::cli`]) is a parser over this type. See docs/network.md.

use crate::kernel::bringup::{Net, NetOptions, OrchError};
use crate::netns;
use crate::plan::{HostPlan, Plan, tor_name, uplink_if};
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

/// Default per-ping timeout, seconds (Mininet leaves ping's own default;
/// we bound it so a broken fabric does not take minutes to report).
pub const DEFAULT_PING_TIMEOUT: &str = "1";

/// Pings in flight at once from one source in `pingall`.
pub const PING_WINDOW: usize = 32;
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

pub fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            let f = d.join(prog);
            f.metadata().is_ok_and(|m| m.is_file())
        })
    })
}

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
}

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error(transparent)]
    Orch(#[from] OrchError),
    #[error("starting the P4 ToRs: {0}")]
    P4(String),
    #[error("starting the data plane: {0}")]
    Fabric(String),
}

enum PcapJob {
    Iface {
        what: String,
        stop: Arc<AtomicBool>,
        /// Shared with an exit hook, which stops and joins the capture (so
        /// the file is flushed) if the run ends by a signal or a panic.
        join: Arc<Mutex<Option<CaptureJoin>>>,
        hook: u64,
    },
    Uplink {
        what: String,
        tor: TorId,
        port: lh_ctrl::PortId,
    },
}

type CaptureJoin = std::thread::JoinHandle<std::io::Result<u64>>;

/// One live (or, for tests and fuzzing, offline) emulated network.
pub struct Network {
    pub plan: Plan,
    pub prefix: String,
    pub compiled: Option<Compiled>,
    /// The kernel side; `None` for an offline network.
    net: Option<Net>,
    fabric: Option<Arc<FabricHandle>>,
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
    /// One persistent shell per node for `<node> <cmd>` (nodeshell.rs).
    pub shells: crate::host::shell::NodeShells,
    sampler: Option<crate::control::telemetry::Sampler>,
    live: Option<crate::control::ta_live::LiveTa>,
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
            && c.config.fabric == lh_ctrl::config::FabricKind::FatTree
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
        let p = n.prefix.clone();
        let hosts: Vec<&str> = n.plan.hosts.iter().map(|h| h.name.as_str()).collect();
        let s = format!(
            "*** Run {p}: namespaces {p}-h1..h{} and {p}-fab\n*** Adding hosts:\n{} \n*** Adding ToRs:\n{} ",
            hosts.len(),
            hosts.join(" "),
            n.plan.tor_names().join(" ")
        );
        n.say(&s);
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
            let _ = writeln!(
                self.out,
                "*** Starting P4 ToRs on BMv2: {}",
                names.join(" ")
            );
            let t = P4Tors::start(net, c, &self.opts.p4, self.opts.p4_log)
                .map_err(|e| NetworkError::P4(e.to_string()))?;
            for s in &t.tors {
                net.add_child(s.switch.pid());
            }
            self.p4 = Some(t);
        }
        let _ = match crate::link::fattree::fat_tree(Some(c)) {
            Some(t) => writeln!(
                self.out,
                "*** Starting fat tree: k={}, {} edge, {} aggregation, {} core switches, routing {:?}",
                t.k(),
                t.edges(),
                t.aggs(),
                t.cores(),
                c.config.routing.algorithm
            ),
            None => writeln!(
                self.out,
                "*** Starting optical fabric: {} slices of {} (guardband {})",
                c.schedule.slices(),
                c.config.slice.duration,
                c.config.slice.guardband
            ),
        };
        let f = Arc::new(
            crate::tor::fabric::start(net, c).map_err(|e| NetworkError::Fabric(e.to_string()))?,
        );
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
        self.stop_pcaps();
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
        self.say("*** Stopping network");
        self.shells.stop_all();
        if let Some(id) = self.uplink_hook.take() {
            crate::kernel::exitguard::unregister(id);
        }
        let mut ok = true;
        if let Some(f) = self.fabric.take().and_then(|f| Arc::try_unwrap(f).ok()) {
            ok = self.report_drained(&f);
            f.stop();
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
        self.say("*** Done");
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
        self.say(&s);
        good
    }

    /// Where everything the network reports goes (default: stderr).
    pub fn set_output(&mut self, out: Box<dyn Write + Send>) {
        self.out = out;
    }

    /// A line on the network's output.
    pub fn say(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
        let _ = self.out.flush();
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

    /// The namespace a node's commands run in (native ToRs share the fabric
    /// one, a BMv2 ToR has its own).
    pub fn node_ns(&self, node: &str) -> Option<PathBuf> {
        if let Some(h) = self.plan.host(node) {
            return Some(self.host_ns(h));
        }
        let t = self.plan.tor(node)?;
        Some(if self.plan.is_bmv2(t) {
            self.tor_ns(t)
        } else {
            self.fabric_ns()
        })
    }

    pub fn is_node(&self, name: &str) -> bool {
        self.plan.host(name).is_some() || self.plan.tor(name).is_some()
    }

    /// Run `cmdline` with `sh -c` in `node`'s namespace and wait for it; its
    /// output goes to stderr, like Mininet's logger. The one place node
    /// commands run (a persistent shell per node hooks in here).
    pub fn node_cmd(&mut self, node: &str, cmdline: &str) {
        let Some(ns) = self.node_ns(node) else { return };
        // The node's persistent shell (nodeshell.rs); its output goes to the
        // network's output (stderr), like Mininet's logger.
        let net = &mut self.net;
        let mut record = |pid: u32| {
            if let Some(n) = net.as_mut() {
                n.add_child(pid);
            }
        };
        let r = self
            .shells
            .run(node, &ns, cmdline, &mut *self.out, Some(&mut record));
        if let Err(e) = r {
            self.say(&format!("*** Error: {e}"));
        }
    }

    /// `sh CMD`: a shell command outside the network.
    pub fn sh(&mut self, cmdline: &str) {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmdline);
        self.wait_child(c.spawn());
    }

    fn wait_child(&mut self, r: std::io::Result<Child>) {
        match r {
            Ok(mut ch) => {
                let _ = ch.wait();
            }
            Err(e) => self.say(&format!("*** Error: {e}")),
        }
    }

    /// A pid for `dump`: a BMv2 ToR's simple_switch, the data-plane thread
    /// for a native ToR, a process in a host's namespace for a host (one
    /// is started the first time it is asked for).
    pub fn node_pid(&mut self, node: &str) -> u32 {
        if self.inner_switches().iter().any(|n| n == node) {
            return self
                .fabric
                .as_ref()
                .and_then(|f| f.dataplane_tid())
                .unwrap_or(self.pid);
        }
        if let Some(t) = self.plan.tor(node) {
            return match (self.p4.as_ref().and_then(|p| p.get(t)), &self.fabric) {
                (Some(p), _) => p.switch.pid(),
                (None, Some(f)) => f.dataplane_tid().unwrap_or(self.pid),
                (None, None) => self.pid,
            };
        }
        if let Some(p) = self.shells.pid(node) {
            return p;
        }
        let Some(i) = self.plan.host(node).map(|h| h.k - 1) else {
            return self.pid;
        };
        if let Some(Some(c)) = self.holders.get(i) {
            return c.id();
        }
        if self.net.is_none() || i >= self.holders.len() {
            return self.pid;
        }
        let ns = self.host_ns(&self.plan.hosts[i]);
        let mut c = Command::new("sleep");
        c.arg("infinity")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match netns::spawn_in(&ns, &mut c) {
            Ok(ch) => {
                let pid = ch.id();
                self.add_child(pid);
                self.holders[i] = Some(ch);
                pid
            }
            Err(_) => self.pid,
        }
    }

    /// The far ends of ToR `t`'s uplinks: for an optical uplink the ToR
    /// uplinks the OCS connects it to over the cycle (first-seen order), for
    /// an electrical one the packet switch. Empty without a schedule.
    pub fn uplink_peers(&self, t: usize) -> Vec<(String, Vec<String>)> {
        let Some(c) = &self.compiled else {
            return Vec::new();
        };
        let s = &c.schedule;
        let mut v: Vec<(String, Vec<String>)> = (0..s.uplinks())
            .map(|p| (uplink_if(t, p), Vec::new()))
            .collect();
        for ts in 0..s.slices() {
            for (a, b) in s.circuits(ts as SliceId) {
                if a.tor as usize != t {
                    continue;
                }
                let peer = uplink_if(b.tor as usize, b.port as usize);
                if let Some((_, l)) = v.get_mut(a.port as usize)
                    && !l.contains(&peer)
                {
                    l.push(peer);
                }
            }
        }
        for (_, l) in v.iter_mut().skip(s.optical_uplinks()) {
            l.push(ELECTRICAL_PEER.to_string());
        }
        v
    }

    /// Interfaces of a node with their far ends, Mininet order: host ports,
    /// then uplinks (their peers joined by commas), then a BMv2 CPU port.
    pub fn intf_list(&self, node: &str) -> Vec<(String, Option<String>)> {
        if let Some(h) = self.plan.host(node) {
            return vec![(h.host_if.clone(), Some(h.tor_if.clone()))];
        }
        let fat = crate::link::fattree::fat_tree(self.compiled.as_ref());
        let fat_ports = fat
            .as_ref()
            .and_then(|t| crate::link::fattree::switch_ports(t, node))
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| (a, Some(b)));
        let Some(t) = self.plan.tor(node) else {
            // A fat tree's aggregation or core switch.
            let mut v = vec![("lo".to_string(), None)];
            let before = v.len();
            v.extend(fat_ports);
            return if v.len() > before { v } else { Vec::new() };
        };
        let mut v = vec![("lo".to_string(), None)];
        v.extend(
            self.plan
                .hosts_of(t)
                .iter()
                .map(|h| (h.tor_if.clone(), Some(h.host_if.clone()))),
        );
        if fat.is_some() {
            // Its uplinks are the fat tree's (no ToR uplinks or OCS).
            v.extend(fat_ports);
            return v;
        }
        let peers = self.uplink_peers(t);
        if !peers.is_empty() {
            v.extend(
                peers
                    .into_iter()
                    .map(|(i, l)| (i, (!l.is_empty()).then(|| l.join(",")))),
            );
        } else if self.plan.is_bmv2(t) {
            v.extend((0..self.plan.uplinks).map(|p| (uplink_if(t, p), None)));
        }
        if self.plan.is_bmv2(t) {
            // A BMv2 ToR's uplinks and CPU port are real interfaces in its
            // namespace; their other ends are swtor's (the OCS).
            v.push((crate::plan::cpu_if(t), None));
        }
        v
    }

    /// A fat tree's aggregation and core switches (none otherwise): they
    /// run in the fabric's data plane, beside the edge switches (the ToRs).
    fn inner_switches(&self) -> Vec<String> {
        crate::link::fattree::fat_tree(self.compiled.as_ref())
            .map(|t| crate::link::fattree::inner_switches(&t))
            .unwrap_or_default()
    }

    /// Every switch: the ToRs, then a fat tree's aggregation and core
    /// switches.
    pub fn switch_names(&self) -> Vec<String> {
        let mut v = self.plan.tor_names();
        v.extend(self.inner_switches());
        v
    }

    /// Every node: hosts, then [`Network::switch_names`].
    pub fn node_names(&self) -> Vec<String> {
        let mut v = self.plan.node_names();
        v.extend(self.inner_switches());
        v
    }

    /// `net`: each node's interfaces and their far ends.
    pub fn net_text(&self) -> String {
        let mut s = String::new();
        for n in self.node_names() {
            let l = self.intf_list(&n);
            let refs: Vec<(&str, Option<&str>)> =
                l.iter().map(|(a, b)| (a.as_str(), b.as_deref())).collect();
            s.push_str(&format::net_line(&n, &refs));
            s.push('\n');
        }
        s
    }

    /// `links`: host links with the state of both veth ends, then the ToR
    /// uplinks: each circuit pair of the cycle once, and electrical ports.
    pub fn links_text(&self) -> String {
        let (hosts, fab) = self.present_links();
        let mut s = String::new();
        for h in &self.plan.hosts {
            let a_ok = hosts.get(h.k - 1).copied().unwrap_or(false);
            let b_ok = fab.contains(&h.tor_if);
            s.push_str(&format::link_line(&h.host_if, &h.tor_if, a_ok, b_ok));
            s.push('\n');
        }
        if let Some(t) = crate::link::fattree::fat_tree(self.compiled.as_ref()) {
            s.push_str(&crate::link::fattree::links_text(&t, self.fabric.is_some()));
            return s;
        }
        // A native uplink is a port of the running data plane; a BMv2 one a
        // veth in its namespace.
        let up = |i: &str, t: usize| {
            if self.plan.is_bmv2(t) {
                fab.iter().any(|f| f == i)
            } else {
                self.fabric.is_some()
            }
        };
        for t in 0..self.plan.tors {
            for (i, peers) in self.uplink_peers(t) {
                for p in peers {
                    if p == ELECTRICAL_PEER {
                        s.push_str(&format::link_line(&i, &p, up(&i, t), self.fabric.is_some()));
                        s.push('\n');
                        continue;
                    }
                    let pt = self
                        .plan
                        .tor(p.split('-').next().unwrap_or(""))
                        .unwrap_or(0);
                    if (pt, p.as_str()) < (t, i.as_str()) {
                        continue;
                    }
                    s.push_str(&format::link_line(&i, &p, up(&i, t), up(&p, pt)));
                    s.push('\n');
                }
            }
        }
        s
    }

    /// Which host ends exist (per host) and which ToR-side interfaces exist.
    fn present_links(&self) -> (Vec<bool>, Vec<String>) {
        use crate::kernel::netlink;
        let hosts = self
            .plan
            .hosts
            .iter()
            .map(|h| {
                let ifn = h.host_if.clone();
                netlink::with_netlink(Some(&self.host_ns(h)), |nl| async move {
                    Ok(netlink::link_names(&nl).await?.contains(&ifn))
                })
                .unwrap_or(false)
            })
            .collect();
        let mut fab = netlink::with_netlink(Some(&self.fabric_ns()), |nl| async move {
            netlink::link_names(&nl).await
        })
        .unwrap_or_default();
        for t in self.plan.bmv2_tors() {
            fab.extend(
                netlink::with_netlink(Some(&self.tor_ns(t)), |nl| async move {
                    netlink::link_names(&nl).await
                })
                .unwrap_or_default(),
            );
        }
        (hosts, fab)
    }

    /// `dump`: Mininet's node reprs with per-node pids.
    pub fn dump_text(&mut self) -> String {
        let mut s = String::new();
        for i in 0..self.plan.hosts.len() {
            let h = self.plan.hosts[i].clone();
            let pid = self.node_pid(&h.name);
            let ifs = [(h.host_if.as_str(), Some(h.ip.to_string()))];
            s.push_str(&format::dump_line("Host", &h.name, &ifs, pid));
            s.push('\n');
        }
        let fat = !self.inner_switches().is_empty();
        let switches = (0..self.plan.tors).map(|t| {
            let class = if self.plan.is_bmv2(t) && self.p4.is_some() {
                "P4ToR"
            } else if fat {
                "FatTreeSwitch"
            } else {
                "OpticalToR"
            };
            (class, tor_name(t))
        });
        let inner = self.inner_switches().into_iter();
        let switches: Vec<_> = switches
            .chain(inner.map(|n| ("FatTreeSwitch", n)))
            .collect();
        for (class, name) in switches {
            let l = self.intf_list(&name);
            let ifs: Vec<(&str, Option<String>)> = l
                .iter()
                .map(|(i, _)| (i.as_str(), (i == "lo").then(|| "127.0.0.1".to_string())))
                .collect();
            let pid = self.node_pid(&name);
            s.push_str(&format::dump_line(class, &name, &ifs, pid));
            s.push('\n');
        }
        s
    }

    /// Mininet's `link X Y up|down` for a host and its ToR: both ends of the
    /// host's veth go down (up). The one place the `link` verb acts (ToR
    /// uplinks in the OCS hook in here). `Err` is the message to show.
    pub fn link(&mut self, x: &str, y: &str, up: bool) -> Result<(), String> {
        let (host, tor) = match (self.plan.host(x), self.plan.host(y)) {
            (Some(h), None) => (h.clone(), y),
            (None, Some(h)) => (h.clone(), x),
            _ if self.plan.tor(x).is_some() && self.plan.tor(y).is_some() => {
                // ToR-ToR: the optical circuits in the OCS (optlink.rs).
                return crate::link::optical::set_tor_link(
                    &self.plan,
                    self.compiled.as_ref(),
                    self.fabric.as_deref(),
                    x,
                    y,
                    up,
                )
                .map_err(|e| format!("*** Error: {e}"));
            }
            // Switch-switch in a fat tree (fatlink.rs).
            _ if crate::link::fattree::fat_tree(self.compiled.as_ref()).is_some() => {
                let t = crate::link::fattree::fat_tree(self.compiled.as_ref());
                return crate::link::fattree::set_switch_link(
                    t,
                    self.fabric.as_deref(),
                    (x, y),
                    up,
                )
                .map_err(|e| format!("*** Error: {e}"));
            }
            _ => return Err(format!("*** Error: no link between {x} and {y}")),
        };
        if self.plan.tor(tor) != Some(host.tor as usize) {
            return Err(format!("*** Error: no link between {x} and {y}"));
        }
        let tor_ns = self.node_ns(tor).unwrap_or_else(|| self.fabric_ns());
        for (ns, ifn) in [
            (self.host_ns(&host), host.host_if.clone()),
            (tor_ns, host.tor_if.clone()),
        ] {
            crate::kernel::netlink::with_netlink(Some(&ns), |h| async move {
                if up {
                    crate::kernel::netlink::set_up(&h, &ifn, None).await
                } else {
                    crate::kernel::netlink::set_down(&h, &ifn).await
                }
            })
            .map_err(|e| format!("*** Error: {e}"))?;
        }
        Ok(())
    }

    /// Mininet's `pingAll`: every host pair, with the header and summary.
    pub fn pingall(&mut self, timeout: Option<&str>) -> (u64, u64) {
        self.ping(None, timeout, false)
    }

    /// Mininet's `ping`/`pingFull`: all hosts (with the header) or the given
    /// ones (indices into `plan.hosts`). Returns (sent, received).
    pub fn ping(
        &mut self,
        hosts: Option<&[usize]>,
        timeout: Option<&str>,
        full: bool,
    ) -> (u64, u64) {
        let idx: Vec<usize> = match hosts {
            Some(h) => h.to_vec(),
            None => {
                self.say("*** Ping: testing ping reachability");
                (0..self.plan.hosts.len()).collect()
            }
        };
        let timeout = timeout.unwrap_or(DEFAULT_PING_TIMEOUT).to_string();
        let (mut sent, mut recv) = (0u64, 0u64);
        let mut fulls = Vec::new();
        let secs = format::parse_seconds(&timeout).unwrap_or(1.0).max(0.001);
        let interrupted = std::cell::Cell::new(false);
        let stop = || {
            if crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating() {
                interrupted.set(true);
            }
            interrupted.get()
        };
        for &i in &idx {
            let src = self.plan.hosts[i].clone();
            if stop() {
                self.say("\nInterrupt");
                return (sent, recv);
            }
            self.say_part(&format!("{} -> ", src.name));
            let dsts: Vec<HostPlan> = idx
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| self.plan.hosts[j].clone())
                .collect();
            let ips: Vec<std::net::Ipv4Addr> = dsts.iter().map(|d| d.ip).collect();
            // One row's pings run concurrently (bounded): each waits for its
            // circuits, so one after another a large fabric takes minutes.
            let rtts = probe::Pinger::open(Some(&self.host_ns(&src)))
                .and_then(|p| p.echo_many(&ips, Duration::from_secs_f64(secs), PING_WINDOW, &stop))
                .unwrap_or_else(|_| vec![None; ips.len()]);
            if interrupted.get() {
                self.say("\nInterrupt");
                return (sent, recv);
            }
            for (dst, rtt) in dsts.iter().zip(&rtts) {
                let r = u64::from(rtt.is_some());
                let ms = rtt.map_or(0.0, |d| d.as_secs_f64() * 1e3);
                sent += 1;
                recv += r;
                fulls.push((src.name.clone(), dst.name.clone(), 1, r, [ms, ms, ms, 0.0]));
                let cell = format::ping_row("", &[(&dst.name, r > 0)]);
                self.say_part(cell.trim_start_matches(" -> "));
            }
            self.say("");
        }
        if full {
            self.say("*** Results: ");
            for (a, b, s, r, rtt) in fulls {
                self.say(&format::ping_full_line(&a, &b, s, r, rtt));
            }
        } else {
            let s = format::ping_results(sent, recv);
            self.say(&s);
        }
        self.ping_totals.0 += sent;
        self.ping_totals.1 += recv;
        (sent, recv)
    }

    /// TCP throughput from host `c` to host `s` for `secs`; returns
    /// [server, client] bits/s.
    pub fn iperf(&mut self, c: usize, s: usize, secs: f64) -> Option<[f64; 2]> {
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        self.say(&format::iperf_header("TCP", &client.name, &server.name));
        let r = if self.tools.iperf3 {
            self.iperf3(&client, &server, secs)
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
                let s = format::iperf_results(&[format::rate(v[0]), format::rate(v[1])]);
                self.say(&s);
                Some(v)
            }
            Err(e) if e == crate::kernel::interrupt::MESSAGE => {
                self.say("\nInterrupt");
                None
            }
            Err(e) => {
                self.say(&format!("*** Error: iperf: {e}"));
                None
            }
        }
    }

    fn iperf3(&self, client: &HostPlan, server: &HostPlan, secs: f64) -> Result<[f64; 2], String> {
        let port = 5201 + (rand::random::<u16>() % 1000);
        let mut srv = Command::new("iperf3");
        srv.args(["-s", "-1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
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
            .arg(format!("{secs}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
            let o = match netns::spawn_in(&self.host_ns(client), &mut c)
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

    /// Mininet's iperf UDP test at `bw` (text like `10M`, already checked
    /// to parse as `bps`) from host `c` to host `s`: the received and sent
    /// rates (bit/s). A rate beyond the host link is capped to it.
    pub fn iperfudp(&mut self, bw: &str, mut bps: f64, c: usize, s: usize) -> Option<(f64, f64)> {
        let cap = self
            .compiled
            .as_ref()
            .map(|c| c.config.tors.host_link_rate.0 as f64)
            .filter(|r| *r > 0.0)
            .unwrap_or(MAX_UDP_BPS_NO_FABRIC);
        if bps > cap {
            self.say(&format!(
                "*** iperfudp: {bw} is more than the host link carries; sending at {}",
                format::rate(cap)
            ));
            bps = cap;
        }
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        self.say(&format::iperf_header("UDP", &client.name, &server.name));
        match probe::udp_flow(
            Some(&self.host_ns(&client)),
            Some(&self.host_ns(&server)),
            server.ip,
            bps,
            IPERF_SECONDS,
        ) {
            Ok((srv, cli)) => {
                let s =
                    format::iperf_results(&[bw.to_string(), format::rate(srv), format::rate(cli)]);
                self.say(&s);
                Some((srv, cli))
            }
            Err(e) => {
                self.say(&format!("*** Error: iperfudp: {e}"));
                None
            }
        }
    }

    /// One TCP flow with the built-in flow tool.
    pub fn flow(&mut self, c: usize, s: usize, amount: probe::Amount) -> Option<probe::FlowResult> {
        let (client, server) = (self.plan.hosts[c].clone(), self.plan.hosts[s].clone());
        match probe::tcp_flow(
            Some(&self.host_ns(&client)),
            Some(&self.host_ns(&server)),
            server.ip,
            amount,
        ) {
            Ok(f) => {
                self.say(&render::format_flow(&client.name, &server.name, &f));
                Some(f)
            }
            Err(e) => {
                self.say(&format!("*** Error: flow: {e}"));
                None
            }
        }
    }

    /// Trace-driven TCP flows between the hosts (`flows` in the CLI);
    /// returns the FCT summary and prints it.
    pub fn flows(&mut self, req: &crate::traffic::workload::Request) -> Result<String, String> {
        let hosts = self.endpoints();
        let r = crate::traffic::workload::run_request(req, &hosts, &|| {
            crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating()
        })
        .map_err(|e| format!("*** Error: flows: {e:#}"))?;
        self.say(r.trim_end());
        Ok(r)
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

    /// The paper's memcached application (`memcached` in the CLI): a real
    /// memcached server in the server host's namespace (recorded as a
    /// child of the run, stopped before this returns) and the SET load
    /// generator on each client host. Prints and returns the per-SET
    /// latency percentiles.
    pub fn memcached(
        &mut self,
        req: &crate::traffic::apps::MemcachedRequest,
    ) -> Result<String, String> {
        let t = std::time::Instant::now();
        let rec = self.memcached_records(req)?;
        let s = crate::traffic::workload::fct::summarize(
            &rec,
            crate::traffic::workload::fct::Buckets::default(),
        );
        let times: Vec<u64> = rec.iter().filter_map(|r| r.fct_ns).collect();
        let out = format!(
            "{}\n{}*** memcached: {} SETs stored in {:.1} s\n",
            crate::traffic::apps::percentile_line("SET latency", &times),
            s.table(),
            times.len(),
            t.elapsed().as_secs_f64()
        );
        self.say(out.trim_end());
        Ok(out)
    }

    /// [`Network::memcached`]'s measurement: the server started, the
    /// clients run and the server stopped; one record per SET (as
    /// [`crate::traffic::apps::memcached::run_clients`] returns them).
    pub fn memcached_records(
        &mut self,
        req: &crate::traffic::apps::MemcachedRequest,
    ) -> Result<Vec<crate::traffic::workload::fct::FlowRecord>, String> {
        use crate::traffic::apps::memcached as mc;
        let err = |e: String| format!("*** Error: memcached: {e}");
        mc::check_installed().map_err(err)?;
        if self.net.is_none() {
            return Err(err("no host namespaces in this run".into()));
        }
        let hosts = self.endpoints();
        let srv = &hosts[req.server];
        let mut child = netns::spawn_in(&srv.ns, &mut mc::server_command(srv))
            .map_err(|e| err(format!("starting {}: {e}", mc::PROGRAM)))?;
        self.add_child(child.id());
        let (server, clients, load) = (req.server, req.clients.clone(), req.load);
        let names = |v: &[usize]| {
            v.iter()
                .map(|&h| self.plan.hosts[h].name.clone())
                .collect::<Vec<_>>()
                .join(" ")
        };
        self.say(&format!(
            "*** memcached on {} ({}:{}), {} client(s) {}: {} SETs of {} B each, one every {:?}",
            self.plan.hosts[server].name,
            srv.ip,
            mc::PORT,
            clients.len(),
            names(&clients),
            load.count,
            load.size,
            load.interval
        ));
        let r = mc::run_clients(&hosts, server, &clients, &load, &|| {
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

    /// Ring allreduce between hosts (`allreduce` in the CLI): checks every
    /// host's result against the elementwise sum, prints and returns the
    /// completion-time percentiles.
    pub fn allreduce(
        &mut self,
        req: &crate::traffic::apps::AllreduceRequest,
    ) -> Result<String, String> {
        let err = |e: String| format!("*** Error: allreduce: {e}");
        if self.net.is_none() {
            return Err(err("no host namespaces in this run".into()));
        }
        let all = self.endpoints();
        let ring: Vec<_> = req.hosts.iter().map(|&h| all[h].clone()).collect();
        let names: Vec<&str> = req
            .hosts
            .iter()
            .map(|&h| self.plan.hosts[h].name.as_str())
            .collect();
        let head = format!(
            "*** Allreduce (ring, reduce-scatter + all-gather) over {} hosts {}: {} B ({} float32) x {} iteration(s)",
            names.len(),
            names.join(" "),
            req.bytes,
            req.bytes / 4,
            req.iters
        );
        self.say(&head);
        let o = crate::traffic::apps::allreduce::run(&ring, req.bytes, req.iters, &|| {
            crate::kernel::signals::take_interrupt() || crate::kernel::signals::terminating()
        })
        .map_err(|e| err(format!("{e:#}")))?;
        let n = ring.len() as f64;
        let bytes = (o.elements * 4) as f64;
        let mut best = o.times_ns.clone();
        best.sort_unstable();
        let p50 = crate::traffic::workload::fct::percentile(&best, 50.0).unwrap_or(0) as f64 / 1e9;
        // Bus bandwidth as NCCL/Gloo benchmarks report it: what each host
        // sent, 2(N-1)/N of the vector, over the time.
        let bus = if p50 > 0.0 {
            2.0 * (n - 1.0) / n * bytes * 8.0 / p50
        } else {
            0.0
        };
        let out = format!(
            "*** Allreduce result checked: every host holds the elementwise sum\n{}\nbus bandwidth at p50 {:.1} Mb/s\n",
            crate::traffic::apps::percentile_line("completion", &o.times_ns),
            bus / 1e6
        );
        self.say(out.trim_end());
        Ok(out)
    }

    /// The host link rate in bits/s (1 Gb/s without a compiled config).
    pub fn host_bps(&self) -> f64 {
        self.compiled
            .as_ref()
            .map(|c| c.config.tors.host_link_rate.0 as f64)
            .filter(|r| *r > 0.0)
            .unwrap_or(1e9)
    }

    fn need_compiled(&self) -> Result<&Compiled, String> {
        self.compiled
            .as_ref()
            .ok_or_else(|| "*** No compiled schedule in this run".into())
    }

    fn need_fabric(&self) -> Result<&FabricHandle, String> {
        self.fabric
            .as_deref()
            .ok_or_else(|| "*** No data plane in this run".into())
    }

    /// `schedule [ts]`: the circuits of slice `ts` (default: the current one).
    pub fn schedule(&self, ts: Option<&str>) -> Result<String, String> {
        let c = self.need_compiled()?;
        let s = &c.schedule;
        let ts: SliceId = match ts {
            None => self.fabric.as_ref().map(|f| f.now_slice().0).unwrap_or(0),
            Some(t) => match t.parse::<SliceId>() {
                Ok(t) if (t as usize) < s.slices() => t,
                _ => return Err(format!("*** Bad slice {t}: expected 0..{}", s.slices() - 1)),
            },
        };
        Ok(render::slice_text(c, ts))
    }

    /// `slice`: the current slice and cycle.
    pub fn slice(&self) -> Result<String, String> {
        let (ts, cycle) = self.need_fabric()?.now_slice();
        let n = self
            .compiled
            .as_ref()
            .map(|c| c.schedule.slices())
            .unwrap_or(0);
        Ok(format!("*** Slice {ts} of {n}, cycle {cycle}\n"))
    }

    /// `table <tor>`: a ToR's time-flow table (and, for a BMv2 ToR, what
    /// its program has loaded).
    pub fn table(&self, t: TorId) -> Result<String, String> {
        let c = self.need_compiled()?;
        let name = tor_name(t as usize);
        let mut out = render::table_text(c, t).ok_or_else(|| format!("*** {name} has no table"))?;
        if let Some(p) = self.p4.as_ref().and_then(|p| p.get(t as usize)) {
            let n = p
                .client
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .table_num_entries("time_flow");
            let loaded = n.map_or_else(|e| format!("? ({e})"), |n| n.to_string());
            out.push_str(&format!(
                "*** {name} runs the P4 program on BMv2: {} P4 entries loaded, {loaded} in time_flow (thrift port {} in its namespace)\n",
                p.entries,
                crate::tor::bmv2::THRIFT_PORT
            ));
        }
        Ok(out)
    }

    /// `buffer_usage`/`bw_usage` (telemetry, paper Table 1; the same
    /// records as `--telemetry`).
    pub fn usage(&self, m: &lh_ctrl::config::Monitor) -> Result<String, String> {
        use lh_ctrl::config::Metric;
        let verb = match m.metric {
            Metric::BwUsage => "bw_usage",
            Metric::BufferUsage => "buffer_usage",
        };
        let f = self.need_fabric()?;
        let t0 = std::time::Instant::now();
        let read = || f.usage().map_err(|e| format!("*** {verb}: {e}"));
        let prev = read()?;
        let cur = if m.metric == Metric::BwUsage {
            std::thread::sleep(Duration::from_nanos(m.interval.0));
            read()?
        } else {
            prev.clone()
        };
        let dt = t0.elapsed().as_nanos() as u64;
        let mut out = String::new();
        for r in crate::control::telemetry::records(m, &prev, &cur, dt, 0) {
            let name = tor_name(r.tor as usize);
            out.push_str(&match m.metric {
                Metric::BufferUsage => {
                    format!(
                        "{name} up{}: {} bytes (offloaded {})\n",
                        r.port, r.value, r.extra
                    )
                }
                Metric::BwUsage => format!(
                    "{name} up{}: {:.1}% of the link ({:.1} Mb/s over {})\n",
                    r.port,
                    r.value * 100.0,
                    r.extra / 1e6,
                    m.interval
                ),
            });
        }
        Ok(out)
    }

    /// `queues <tor>`: bytes in each calendar queue, per uplink (and a BMv2
    /// ToR's occupancy estimate).
    pub fn queues(&self, t: TorId) -> Result<String, String> {
        let q = self.need_fabric()?.queues(t);
        let mut out = format!(
            "*** {} calendar queues (bytes; column = departure slice)\n",
            tor_name(t as usize)
        );
        let row = |p: usize, r: &[u64]| {
            let cells: Vec<String> = r.iter().map(|b| b.to_string()).collect();
            format!("up{p}: {}\n", cells.join(" "))
        };
        for (p, r) in q.iter().enumerate() {
            out.push_str(&row(p, r));
        }
        let slices = q.first().map_or(0, Vec::len);
        if let Some(est) = self
            .p4
            .as_ref()
            .and_then(|p| p.estimates(t as usize, q.len(), slices))
        {
            out.push_str("*** the P4 program's occupancy estimate (registers occ_bytes, §6.2)\n");
            for (p, r) in est.iter().enumerate() {
                out.push_str(&row(p, r));
            }
        }
        Ok(out)
    }

    /// The OTCP table the hosts got (`otcp` verb, docs/otcp.md).
    pub fn otcp(&self) -> Result<String, String> {
        let c = self
            .compiled
            .as_ref()
            .ok_or("*** No compiled network (--no-fabric)")?;
        lh_ctrl::otcp::table(c)
            .map(|t| t.render())
            .ok_or_else(|| "*** OTCP is off (config hosts.tcp.otcp)".to_string())
    }

    /// `drops`: the data plane's counters by reason with the conservation
    /// check, then the kernel's drop counters on the veths.
    pub fn drops(&self) -> Result<String, String> {
        use render::{IfaceDrops, iface_drops};
        let f = self.need_fabric()?;
        let c = f.counters();
        let mut s = match &self.p4 {
            None => render::format_counters(&c),
            Some(p) => match p.counters() {
                Ok(pc) => render::format_totals(&c, &pc),
                Err(e) => format!(
                    "*** Error reading the P4 ToRs' counters: {e}\n{}",
                    render::format_counters(&c)
                ),
            },
        };
        // Loss the data plane cannot count itself: frames the kernel
        // dropped on the veths (either end) before or after the ToRs. A
        // BMv2 ToR's host ports are in its own namespace.
        let tor_ifs: Vec<String> = self
            .plan
            .hosts
            .iter()
            .filter(|h| !self.plan.is_bmv2(h.tor as usize))
            .map(|h| h.tor_if.clone())
            .collect();
        let mut kernel = Vec::new();
        if let Ok(Ok(mut v)) = netns::run_in(Some(&self.fabric_ns()), || iface_drops(&tor_ifs)) {
            for t in self.plan.bmv2_tors() {
                let ifs: Vec<String> = self
                    .plan
                    .hosts_of(t)
                    .iter()
                    .map(|h| h.tor_if.clone())
                    .collect();
                if let Ok(Ok(w)) = netns::run_in(Some(&self.tor_ns(t)), || iface_drops(&ifs)) {
                    v.add(&w);
                }
            }
            kernel.push(("ToR-side veths", v));
        }
        let mut hosts = IfaceDrops::default();
        for h in &self.plan.hosts {
            let ifs = [h.host_if.clone()];
            if let Ok(Ok(v)) = netns::run_in(Some(&self.host_ns(h)), || iface_drops(&ifs)) {
                hosts.add(&v);
            }
        }
        kernel.push(("host-side veths", hosts));
        s.push_str(&render::format_kernel_drops(c.port_drops, &kernel));
        Ok(s)
    }

    /// Where `pcap <node> <port>` captures, checked before any file exists.
    pub fn pcap_target(&self, node: &str, port: &str) -> Result<PcapTarget, String> {
        if let Some(h) = self.plan.host(node) {
            let ifn = h.host_if.clone();
            if port != ifn && port != "eth0" && port != "0" {
                return Err(format!("*** {node} has one port: eth0 ({ifn})"));
            }
            return Ok(PcapTarget::Iface(self.host_ns(h), ifn));
        }
        let Some(t) = self.plan.tor(node) else {
            return Err(format!("*** No such node: {node}"));
        };
        let tname = tor_name(t);
        let num = port.strip_prefix("up").unwrap_or(port);
        if let Ok(p) = num.parse::<lh_ctrl::PortId>() {
            self.need_fabric()?;
            return Ok(PcapTarget::Uplink(t, p));
        }
        let ifn = if port.starts_with(&format!("{tname}-")) {
            port.to_string()
        } else {
            format!("{tname}-{port}")
        };
        if !self.plan.hosts_of(t).iter().any(|h| h.tor_if == ifn) {
            return Err(format!("*** {tname} has no port {port}"));
        }
        let ns = self.node_ns(node).unwrap_or_else(|| self.fabric_ns());
        Ok(PcapTarget::Iface(ns, ifn))
    }

    /// Capture `target` into `file` (created with `mode`, never through a
    /// symlink) in the background until [`Network::stop_pcaps`].
    pub fn pcap(&mut self, target: PcapTarget, file: &Path, mode: u32) -> Result<String, String> {
        // Root opens the file itself, without following a symlink, and
        // hands the open file to the capture through /proc/self/fd.
        let opened = crate::kernel::securefs::create_file(file, mode)
            .map_err(|e| format!("*** Error: pcap: {e}"))?;
        let fd_file = crate::kernel::securefs::fd_path(&opened);
        match target {
            PcapTarget::Iface(ns, ifn) => {
                let what = format!("{ifn} -> {}", file.display());
                let stop = Arc::new(AtomicBool::new(false));
                let join = swtor::capture_iface(Some(&ns), &ifn, &fd_file, stop.clone())
                    .map_err(|e| format!("*** Error: {e}"))?;
                let join = Arc::new(Mutex::new(Some(join)));
                let (s2, j2) = (stop.clone(), join.clone());
                let hook = crate::kernel::exitguard::register(move || {
                    s2.store(true, Ordering::Relaxed);
                    let j = j2.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(j) = j {
                        let _ = j.join();
                    }
                });
                let msg = format!("*** Capturing {what}");
                self.pcaps.push(PcapJob::Iface {
                    what,
                    stop,
                    join,
                    hook,
                });
                Ok(msg)
            }
            PcapTarget::Uplink(t, p) => {
                let f = self.need_fabric()?;
                let tname = tor_name(t);
                f.capture(t as TorId, swtor::CapturePoint::Uplink(p), &fd_file)
                    .map_err(|e| format!("*** Error: {e}"))?;
                self.pcaps.push(PcapJob::Uplink {
                    what: format!("{tname} up{p} -> {}", file.display()),
                    tor: t as TorId,
                    port: p,
                });
                Ok(format!(
                    "*** Capturing {tname} uplink {p} to {}",
                    file.display()
                ))
            }
        }
    }

    /// Stop every capture, reporting each; returns how many there were.
    pub fn stop_pcaps(&mut self) -> usize {
        let n = self.pcaps.len();
        for j in std::mem::take(&mut self.pcaps) {
            match j {
                PcapJob::Iface {
                    what,
                    stop,
                    join,
                    hook,
                } => {
                    crate::kernel::exitguard::unregister(hook);
                    stop.store(true, Ordering::Relaxed);
                    let j = join.lock().unwrap_or_else(|e| e.into_inner()).take();
                    match j.map(|j| j.join()) {
                        Some(Ok(Ok(frames))) => self.say(&format!("*** {what}: {frames} frames")),
                        Some(Ok(Err(e))) => self.say(&format!("*** {what}: {e}")),
                        Some(Err(_)) => self.say(&format!("*** {what}: capture thread panicked")),
                        None => self.say(&format!("*** {what}: closed")),
                    }
                }
                PcapJob::Uplink { what, tor, port } => {
                    if let Some(f) = &self.fabric {
                        let _ = f.stop_capture(tor, swtor::CapturePoint::Uplink(port));
                    }
                    self.say(&format!("*** {what}: closed"));
                }
            }
        }
        n
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

/// Where a capture reads: an interface in a namespace, or a native ToR's
/// uplink inside the data plane.
pub enum PcapTarget {
    Iface(PathBuf, String),
    Uplink(usize, lh_ctrl::PortId),
}

impl Drop for Network {
    fn drop(&mut self) {
        if self.net.is_some() && !self.stopped {
            let mut out: Box<dyn Write + Send> = Box::new(std::io::sink());
            std::mem::swap(&mut out, &mut self.out);
            self.stop();
        } else {
            self.stop_pcaps();
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
