//! The Mininet-compatible CLI (Mininet 2.3 commands and output text) plus
//! the optical verbs: schedule, slice, table, queues, drops, pcap.
//!
//! Like Mininet, everything the CLI itself prints goes to stderr (`out`);
//! the output of `<node> <cmd>` and `sh` is the program's own stdout.

use crate::format;
use crate::netns;
use crate::probe;
use crate::signals;
use crate::topo::{HostPlan, Plan};
use lh_ctrl::compile::Compiled;
use lh_ctrl::tables::{Action, Ingress};
use lh_ctrl::{SliceId, TorId};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use swtor::FabricHandle;

pub const PROMPT: &str = "lighthouse> ";

/// Default per-ping timeout, seconds (Mininet leaves ping's own default;
/// we bound it so a broken fabric does not take minutes to report).
pub const DEFAULT_PING_TIMEOUT: &str = "1";

/// External tools found on PATH; the built-in prober replaces them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tools {
    pub ping: bool,
    pub iperf3: bool,
}

impl Tools {
    pub fn detect() -> Tools {
        Tools {
            ping: on_path("ping"),
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

/// What the CLI works on. Kernel names come from `prefix` + node name.
pub struct Cli<'a> {
    pub plan: &'a Plan,
    pub prefix: String,
    pub compiled: Option<&'a Compiled>,
    pub fabric: Option<&'a FabricHandle>,
    /// ToRs running the P4 program on BMv2 (`--tor bmv2`).
    pub p4: Option<&'a crate::p4tor::P4Tors>,
    pub tools: Tools,
    pub out: Box<dyn Write + 'a>,
    pub pid: u32,
    pcaps: Vec<PcapJob>,
    /// Summed over every ping command so far: (sent, received).
    pub ping_totals: (u64, u64),
    /// Told the pid of every process the CLI starts in a namespace.
    pub on_spawn: Option<Box<dyn FnMut(u32) + 'a>>,
    /// Nesting of `time`/`noecho`/`source` in the command being run.
    depth: usize,
    /// Lines of scripts or stdin that could not be read (invalid UTF-8):
    /// the run then ends with a failure status.
    pub input_errors: u64,
    /// For fuzzing the command parser: commands check their arguments but
    /// never start a shell, create or read a file, or touch the terminal.
    pub sandbox: bool,
}

/// Longest input line (script or stdin); a longer one ends the input with
/// an error (`source /dev/zero` must not eat all memory).
pub const MAX_LINE: usize = 1 << 20;

/// Deepest nesting of `time`, `noecho` and `source` in one command (a
/// 100 KB line of `time time ...` or a script sourcing itself would
/// otherwise overflow the stack).
pub const MAX_NESTING: usize = 32;
/// Longest duration a command accepts (flow, pingall timeout), seconds.
pub const MAX_SECONDS: f64 = 86_400.0;
/// Largest byte count `flow` accepts (1 TB).
pub const MAX_BYTES: f64 = 1e12;
/// Largest number `parse_bw` accepts (1e15: 1 Pbit/s); iperfudp is further
/// capped at the host link rate.
pub const MAX_BPS: f64 = 1e15;
/// iperfudp's cap without a compiled config (no host link rate known).
pub const MAX_UDP_BPS_NO_FABRIC: f64 = 10e9;
/// Mininet's iperf/iperfudp duration, seconds.
pub const IPERF_SECONDS: f64 = 5.0;

enum PcapJob {
    Iface {
        what: String,
        stop: Arc<AtomicBool>,
        /// Shared with an exit hook, which stops and joins the capture (so
        /// the file is flushed) if the run ends by a signal or a panic.
        join: Arc<std::sync::Mutex<Option<CaptureJoin>>>,
        hook: u64,
    },
    Uplink {
        what: String,
        tor: TorId,
        port: lh_ctrl::PortId,
    },
}

type CaptureJoin = std::thread::JoinHandle<std::io::Result<u64>>;

/// Whether the loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Exit,
}

/// Result of one ping: sent, received, rtt ms [min avg max mdev].
pub type PingOutcome = (u64, u64, [f64; 4]);

const COMMANDS: &[(&str, &str)] = &[
    ("EOF", "Exit"),
    (
        "drops",
        "Data-plane counters by drop reason, and the conservation check.",
    ),
    ("dump", "Dump node info."),
    ("exit", "Exit"),
    (
        "flow",
        "One TCP flow with the built-in flow tool: throughput and completion time.\n       Usage: flow src dst SIZE|SECONDSs   (SIZE in bytes, K/M/G suffixes; 2s = for 2 seconds)",
    ),
    ("help", "Describe available CLI commands."),
    ("intfs", "List interfaces."),
    (
        "iperf",
        "Simple iperf TCP test between two (optionally specified) hosts.\n       Usage: iperf node1 node2",
    ),
    (
        "iperfudp",
        "Simple iperf UDP test between two (optionally specified) hosts.\n       Usage: iperfudp bw node1 node2",
    ),
    (
        "link",
        "Bring a host's link up or down (both ends, like Mininet).\n       Usage: link <host> <tor> up|down",
    ),
    ("links", "Report on links"),
    ("net", "List network connections."),
    ("nodes", "List all nodes."),
    (
        "noecho",
        "Run an interactive command with echoing turned off.\n       Usage: noecho [cmd args]",
    ),
    (
        "pcap",
        "Capture a port to a pcap file in the background.\n       Usage: pcap [--readable] <tor|host> <port> FILE | pcap stop\n       FILE is created mode 0600 (0644 with --readable), never through a symlink\n       ToR ports: an uplink number (as the OCS sees it) or sN-ethJ (host port)",
    ),
    (
        "pingall",
        "Ping between all hosts.\n       Usage: pingall [timeout]",
    ),
    (
        "pingallfull",
        "Ping between all hosts, returns all ping results.",
    ),
    (
        "pingpair",
        "Ping between first two hosts, useful for testing.",
    ),
    (
        "pingpairfull",
        "Ping between first two hosts, returns all ping results.",
    ),
    ("ports", "display ports and interfaces for each switch"),
    (
        "buffer_usage",
        "Bytes in the calendar queues of ToR uplinks now (paper Table 1).\n       Usage: buffer_usage [tor] [port]",
    ),
    (
        "bw_usage",
        "Uplink bandwidth used over an interval, as a fraction of the link rate.\n       Usage: bw_usage [tor] [port] [interval, default 1ms]",
    ),
    (
        "queues",
        "Bytes in each calendar queue of a ToR, per uplink.\n       Usage: queues <tor>",
    ),
    ("quit", "Exit"),
    (
        "schedule",
        "Circuits of a slice (default: the current one).\n       Usage: schedule [ts]",
    ),
    (
        "sh",
        "Run an external shell command\n       Usage: sh [cmd args]",
    ),
    (
        "slice",
        "The current slice and cycle of the optical schedule.",
    ),
    (
        "source",
        "Read commands from an input file.\n       Usage: source <file>",
    ),
    (
        "table",
        "A ToR's time-flow table.\n       Usage: table <tor>",
    ),
    ("time", "Measure time taken for any command in Mininet."),
];

const HELP_TAIL: &str = "You may also send a command to a node using:\n  <node> command {args}\nFor example:\n  lighthouse> h1 ifconfig\n\nThe interpreter automatically substitutes IP addresses\nfor node names when a node is the first arg, so commands\nlike\n  lighthouse> h2 ping h3\nshould work.\n\nSome character-oriented interactive commands require\nnoecho:\n  lighthouse> noecho h2 vi foo.py\n";

impl<'a> Cli<'a> {
    pub fn new(plan: &'a Plan, prefix: &str, out: Box<dyn Write + 'a>) -> Cli<'a> {
        Cli {
            plan,
            prefix: prefix.to_string(),
            compiled: None,
            fabric: None,
            p4: None,
            tools: Tools::detect(),
            out,
            pid: std::process::id(),
            pcaps: Vec::new(),
            ping_totals: (0, 0),
            on_spawn: None,
            depth: 0,
            input_errors: 0,
            sandbox: false,
        }
    }

    fn say(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
        let _ = self.out.flush();
    }

    fn say_part(&mut self, s: &str) {
        let _ = write!(self.out, "{s}");
        let _ = self.out.flush();
    }

    pub fn host_ns(&self, h: &HostPlan) -> PathBuf {
        netns::ns_path(&format!("{}-{}", self.prefix, h.name))
    }

    pub fn fabric_ns(&self) -> PathBuf {
        netns::ns_path(&format!("{}-fab", self.prefix))
    }

    /// A BMv2 ToR's own namespace (its simple_switch and ports).
    pub fn tor_ns(&self, t: usize) -> PathBuf {
        netns::ns_path(&format!("{}-{}", self.prefix, crate::topo::tor_name(t)))
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

    fn is_node(&self, name: &str) -> bool {
        self.plan.host(name).is_some() || self.plan.tor(name).is_some()
    }

    /// Run one command line.
    pub fn onecmd(&mut self, line: &str) -> Flow {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Flow::Continue;
        }
        let (first, rest) = match line.split_once(char::is_whitespace) {
            Some((f, r)) => (f, r.trim()),
            None => (line, ""),
        };
        match first {
            "help" => self.help(rest),
            "nodes" => {
                let s = format::nodes(&self.plan.node_names());
                self.say(&s)
            }
            "net" => self.net(),
            "links" => self.links(),
            "link" => self.link(rest),
            "dump" => self.dump(),
            "intfs" => self.intfs(),
            "ports" => self.ports(),
            "pingall" => {
                if rest.split_whitespace().count() > 1 {
                    self.say("*** Error: usage: pingall [timeout]");
                } else if !rest.is_empty() && parse_seconds(rest).is_none() {
                    self.say(&format!(
                        "*** Error: pingall: bad timeout {rest} (seconds, > 0 and at most {MAX_SECONDS})"
                    ));
                } else {
                    let t = (!rest.is_empty()).then_some(rest);
                    self.ping(None, t, false);
                }
            }
            "pingallfull" => {
                self.ping(None, None, true);
            }
            "pingpair" => {
                let hs = self.first_two();
                self.ping(hs.as_deref(), None, false);
            }
            "pingpairfull" => {
                let hs = self.first_two();
                self.ping(hs.as_deref(), None, true);
            }
            "iperf" => self.iperf_cmd(rest),
            "iperfudp" => self.iperfudp_cmd(rest),
            "flow" => self.flow_cmd(rest),
            "sh" if self.sandbox => {}
            "sh" => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(rest);
                self.wait_child(c.spawn());
            }
            "time" | "noecho" | "source" if self.depth >= MAX_NESTING => {
                self.say(&format!(
                    "*** Error: {first}: commands nested deeper than {MAX_NESTING} (a script that sources itself?)"
                ));
            }
            "time" => {
                let t = Instant::now();
                let f = self.nested(rest);
                let s = format::elapsed(t.elapsed().as_secs_f64());
                self.say(&s);
                return f;
            }
            "source" if self.sandbox => {}
            "noecho" if self.sandbox => return self.nested(rest),
            "source" => {
                self.depth += 1;
                let f = self.source(rest);
                self.depth -= 1;
                return f;
            }
            "noecho" => {
                let tty = is_tty();
                if tty {
                    stty("-echo");
                }
                let f = self.nested(rest);
                if tty {
                    stty("echo");
                }
                return f;
            }
            "exit" | "quit" => return Flow::Exit,
            "EOF" => {
                self.say("");
                return Flow::Exit;
            }
            "schedule" => self.schedule(rest),
            "slice" => self.slice(),
            "table" => self.table(rest),
            "queues" => self.queues(rest),
            "buffer_usage" | "bw_usage" => self.usage_cmd(first, rest),
            "drops" => self.drops(),
            "pcap" => self.pcap(rest),
            _ if self.is_node(first) => self.node_cmd(first, rest),
            _ => self.say(&format!("*** Unknown command: {line}")),
        }
        Flow::Continue
    }

    fn nested(&mut self, line: &str) -> Flow {
        self.depth += 1;
        let f = self.onecmd(line);
        self.depth -= 1;
        f
    }

    fn first_two(&self) -> Option<Vec<usize>> {
        (self.plan.hosts.len() >= 2).then(|| vec![0, 1])
    }

    fn help(&mut self, topic: &str) {
        if !topic.is_empty() {
            match COMMANDS.iter().find(|(n, _)| *n == topic) {
                Some((_, d)) => {
                    let d = d.to_string();
                    self.say(&d)
                }
                None => self.say(&format!("*** No help on {topic}")),
            }
            return;
        }
        let names: Vec<&str> = COMMANDS.iter().map(|(n, _)| *n).collect();
        let header = "Documented commands (type help <topic>):";
        let mut s = format!("\n{header}\n{}\n", "=".repeat(header.len()));
        for r in format::columnize(&names, 79) {
            s.push_str(&r);
            s.push('\n');
        }
        s.push('\n');
        s.push_str(HELP_TAIL);
        self.say(&s);
    }

    /// Interfaces of a node with their far ends, Mininet order.
    fn intf_list(&self, node: &str) -> Vec<(String, Option<String>)> {
        if let Some(h) = self.plan.host(node) {
            return vec![(h.host_if.clone(), Some(h.tor_if.clone()))];
        }
        let Some(t) = self.plan.tor(node) else {
            return Vec::new();
        };
        let mut v = vec![("lo".to_string(), None)];
        v.extend(
            self.plan
                .hosts_of(t)
                .iter()
                .map(|h| (h.tor_if.clone(), Some(h.host_if.clone()))),
        );
        if self.plan.is_bmv2(t) {
            // A BMv2 ToR's uplinks and CPU port are real interfaces in its
            // namespace; their other ends are swtor's (the OCS).
            v.extend((0..self.plan.uplinks).map(|p| (crate::topo::uplink_if(t, p), None)));
            v.push((crate::topo::cpu_if(t), None));
        }
        v
    }

    fn net(&mut self) {
        for n in self.plan.node_names() {
            let l = self.intf_list(&n);
            let refs: Vec<(&str, Option<&str>)> =
                l.iter().map(|(a, b)| (a.as_str(), b.as_deref())).collect();
            let s = format::net_line(&n, &refs);
            self.say(&s);
        }
    }

    fn links(&mut self) {
        let present = self.present_links();
        for h in &self.plan.hosts {
            let a_ok = present.0.get(h.k - 1).copied().unwrap_or(false);
            let b_ok = present.1.contains(&h.tor_if);
            let s = format::link_line(&h.host_if, &h.tor_if, a_ok, b_ok);
            let _ = writeln!(self.out, "{s}");
        }
        let _ = self.out.flush();
    }

    /// Mininet's `link h1 s1 down|up`: both ends of the host's veth go
    /// down (up), so pings to and from that host fail (work) again.
    fn link(&mut self, rest: &str) {
        let a: Vec<&str> = rest.split_whitespace().collect();
        let [x, y, state] = a[..] else {
            self.say("invalid number of args: link end1 end2 [up down]");
            return;
        };
        if state != "up" && state != "down" {
            self.say(&format!(
                "*** Error: link state must be up or down, not {state}"
            ));
            return;
        }
        let (host, tor) = match (self.plan.host(x), self.plan.host(y)) {
            (Some(h), None) => (h.clone(), y),
            (None, Some(h)) => (h.clone(), x),
            _ => {
                if self.plan.tor(x).is_some() && self.plan.tor(y).is_some() {
                    self.say("*** Error: optical uplinks between ToRs cannot be failed yet; link takes a host and its ToR");
                } else {
                    self.say(&format!("*** Error: no link between {x} and {y}"));
                }
                return;
            }
        };
        if self.plan.tor(tor) != Some(host.tor as usize) {
            self.say(&format!("*** Error: no link between {x} and {y}"));
            return;
        }
        let tor_ns = if self.plan.is_bmv2(host.tor as usize) {
            self.tor_ns(host.tor as usize)
        } else {
            self.fabric_ns()
        };
        let up = state == "up";
        for (ns, ifn) in [
            (self.host_ns(&host), host.host_if.clone()),
            (tor_ns, host.tor_if.clone()),
        ] {
            let r = crate::links::with_netlink(Some(&ns), |h| async move {
                if up {
                    crate::links::set_up(&h, &ifn, None).await
                } else {
                    crate::links::set_down(&h, &ifn).await
                }
            });
            if let Err(e) = r {
                self.say(&format!("*** Error: {e}"));
                return;
            }
        }
    }

    /// Which host ends exist (per host) and which fabric ends exist.
    fn present_links(&self) -> (Vec<bool>, Vec<String>) {
        use crate::links;
        let hosts = self
            .plan
            .hosts
            .iter()
            .map(|h| {
                let ifn = h.host_if.clone();
                links::with_netlink(Some(&self.host_ns(h)), |nl| async move {
                    Ok(links::link_names(&nl).await?.contains(&ifn))
                })
                .unwrap_or(false)
            })
            .collect();
        let mut fab = links::with_netlink(Some(&self.fabric_ns()), |nl| async move {
            links::link_names(&nl).await
        })
        .unwrap_or_default();
        for t in self.plan.bmv2_tors() {
            fab.extend(
                links::with_netlink(Some(&self.tor_ns(t)), |nl| async move {
                    links::link_names(&nl).await
                })
                .unwrap_or_default(),
            );
        }
        (hosts, fab)
    }

    fn dump(&mut self) {
        for h in &self.plan.hosts {
            let s = format::dump_line(
                "Host",
                &h.name,
                &[(&h.host_if, Some(h.ip.to_string()))],
                self.pid,
            );
            let _ = writeln!(self.out, "{s}");
        }
        for t in 0..self.plan.tors {
            let name = crate::topo::tor_name(t);
            let l = self.intf_list(&name);
            let ifs: Vec<(&str, Option<String>)> = l
                .iter()
                .map(|(i, _)| (i.as_str(), (i == "lo").then(|| "127.0.0.1".to_string())))
                .collect();
            // A BMv2 ToR is its own process.
            let (class, pid) = match self.p4.and_then(|p| p.get(t)) {
                Some(p) => ("P4ToR", p.switch.pid()),
                None => ("OpticalToR", self.pid),
            };
            let s = format::dump_line(class, &name, &ifs, pid);
            let _ = writeln!(self.out, "{s}");
        }
        let _ = self.out.flush();
    }

    fn intfs(&mut self) {
        for n in self.plan.node_names() {
            let l: Vec<String> = self.intf_list(&n).into_iter().map(|(i, _)| i).collect();
            let s = format!("{n}: {}", l.join(","));
            self.say(&s);
        }
    }

    fn ports(&mut self) {
        for t in 0..self.plan.tors {
            let name = crate::topo::tor_name(t);
            let l = self.intf_list(&name);
            let p: Vec<(&str, usize)> = l
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.as_str(), i))
                .collect();
            let s = format::ports_line(&name, &p);
            self.say(&s);
        }
    }

    /// One ping from host `src` to host `dst`.
    pub fn ping_once(&self, src: &HostPlan, dst: &HostPlan, timeout: &str) -> PingOutcome {
        let ns = self.host_ns(src);
        if self.tools.ping {
            let mut c = Command::new("ping");
            c.args(["-c1", "-W", timeout, &dst.ip.to_string()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            return match netns::spawn_in(&ns, &mut c).and_then(|ch| ch.wait_with_output()) {
                Ok(o) => {
                    let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
                    s.push_str(&String::from_utf8_lossy(&o.stderr));
                    format::parse_ping(&s)
                }
                Err(_) => (1, 0, [0.0; 4]),
            };
        }
        let t = parse_seconds(timeout).unwrap_or(1.0);
        match probe::ping(Some(&ns), dst.ip, Duration::from_secs_f64(t.max(0.001))) {
            Ok(Some(rtt)) => {
                let ms = rtt.as_secs_f64() * 1e3;
                (1, 1, [ms, ms, ms, 0.0])
            }
            _ => (1, 0, [0.0; 4]),
        }
    }

    /// Mininet's `ping`/`pingFull`: all hosts (with the header) or the given
    /// ones. Returns (sent, received).
    pub fn ping(
        &mut self,
        hosts: Option<&[usize]>,
        timeout: Option<&str>,
        full: bool,
    ) -> (u64, u64) {
        let all: Vec<usize> = (0..self.plan.hosts.len()).collect();
        let idx: Vec<usize> = match hosts {
            Some(h) => h.to_vec(),
            None => {
                self.say("*** Ping: testing ping reachability");
                all
            }
        };
        let timeout = timeout.unwrap_or(DEFAULT_PING_TIMEOUT).to_string();
        let (mut sent, mut recv) = (0u64, 0u64);
        let mut fulls = Vec::new();
        let plan = self.plan;
        for &i in &idx {
            let src = &plan.hosts[i];
            self.say_part(&format!("{} -> ", src.name));
            for &j in &idx {
                if i == j {
                    continue;
                }
                if signals::take_interrupt() || signals::terminating() {
                    self.say("\nInterrupt");
                    return (sent, recv);
                }
                let dst = &plan.hosts[j];
                let (s, r, rtt) = self.ping_once(src, dst, &timeout);
                sent += s;
                recv += r.min(s);
                fulls.push((src.name.clone(), dst.name.clone(), s, r, rtt));
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

    fn two_hosts(&mut self, args: &[&str]) -> Option<(usize, usize)> {
        let mut v = Vec::new();
        let mut err = false;
        for a in args {
            match self.plan.host(a) {
                Some(h) => v.push(h.k - 1),
                None => {
                    self.say(&format!("node '{a}' not in network"));
                    err = true;
                }
            }
        }
        (!err && v.len() == 2).then(|| (v[0], v[1]))
    }

    fn default_pair(&self) -> Option<(usize, usize)> {
        let n = self.plan.hosts.len();
        (n >= 2).then(|| (0, n - 1))
    }

    fn iperf_cmd(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let pair = match args.len() {
            0 => self.default_pair(),
            2 => self.two_hosts(&args),
            _ => {
                self.say("invalid number of args: iperf src dst");
                return;
            }
        };
        if let Some((c, s)) = pair {
            self.iperf(c, s, 5.0);
        }
    }

    /// TCP throughput from host `c` to host `s` for `secs`; returns
    /// [server, client] bits/s.
    pub fn iperf(&mut self, c: usize, s: usize, secs: f64) -> Option<[f64; 2]> {
        let (client, server) = (&self.plan.hosts[c], &self.plan.hosts[s]);
        let hdr = format::iperf_header("TCP", &client.name, &server.name);
        self.say(&hdr);
        let r = if self.tools.iperf3 {
            self.iperf3(client, server, secs)
        } else {
            probe::tcp_flow(
                Some(&self.host_ns(client)),
                Some(&self.host_ns(server)),
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
            let o = netns::spawn_in(&self.host_ns(client), &mut c)
                .and_then(|ch| ch.wait_with_output())
                .map_err(|e| e.to_string())?;
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

    fn iperfudp_cmd(&mut self, rest: &str) {
        let _ = self.iperfudp(rest);
    }

    /// Mininet's `iperfudp [bw src dst]`: the received and sent rates (bit/s).
    pub fn iperfudp(&mut self, rest: &str) -> Option<(f64, f64)> {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let (bw, pair) = match args.len() {
            0 => ("10M".to_string(), self.default_pair()),
            3 => (args[0].to_string(), self.two_hosts(&args[1..])),
            _ => {
                self.say("invalid number of args: iperfudp bw src dst\nbw examples: 10M");
                return None;
            }
        };
        let (c, s) = pair?;
        let Some(mut bps) = parse_bw(&bw) else {
            self.say(&format!(
                "*** Error: bad bandwidth {bw} (examples: 10M, 1G)"
            ));
            return None;
        };
        // Like Mininet (iperf -u -b BW -t 5) the test runs for a time; a
        // bandwidth beyond what the host link carries is capped to it.
        let cap = self
            .compiled
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
        let (client, server) = (&self.plan.hosts[c], &self.plan.hosts[s]);
        let hdr = format::iperf_header("UDP", &client.name, &server.name);
        self.say(&hdr);
        match probe::udp_flow(
            Some(&self.host_ns(client)),
            Some(&self.host_ns(server)),
            server.ip,
            bps,
            IPERF_SECONDS,
        ) {
            Ok((srv, cli)) => {
                let s = format::iperf_results(&[bw, format::rate(srv), format::rate(cli)]);
                self.say(&s);
                Some((srv, cli))
            }
            Err(e) => {
                self.say(&format!("*** Error: iperfudp: {e}"));
                None
            }
        }
    }

    fn flow_cmd(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.len() != 3 {
            self.say("usage: flow src dst SIZE|SECONDSs (e.g. flow h1 h2 10M, flow h1 h2 2s)");
            return;
        }
        let Some((c, s)) = self.two_hosts(&args[..2]) else {
            return;
        };
        let Some(amount) = parse_amount(args[2]) else {
            self.say(&format!(
                "*** Error: bad amount {} (examples: 1500, 10M, 2s)",
                args[2]
            ));
            return;
        };
        let (client, server) = (&self.plan.hosts[c], &self.plan.hosts[s]);
        match probe::tcp_flow(
            Some(&self.host_ns(client)),
            Some(&self.host_ns(server)),
            server.ip,
            amount,
        ) {
            Ok(f) => {
                let line = format_flow(&client.name, &server.name, &f);
                self.say(&line);
            }
            Err(e) => self.say(&format!("*** Error: flow: {e}")),
        }
    }

    /// `<node> <cmd>`: later words that are node names become their IPs.
    fn node_cmd(&mut self, node: &str, rest: &str) {
        if rest.is_empty() {
            self.say(&format!(
                "*** Please enter a command for node: {node} <cmd>"
            ));
            return;
        }
        let words: Vec<String> = rest
            .split(' ')
            .map(|w| match self.plan.ip_of(w) {
                Some(ip) => ip.to_string(),
                None => w.to_string(),
            })
            .collect();
        let cmdline = words.join(" ");
        let Some(ns) = self.node_ns(node) else { return };
        let mut c = Command::new("sh");
        c.arg("-c").arg(&cmdline);
        // Mininet prints a node command's output with its logger, on stderr.
        c.stdout(std::process::Stdio::from(std::io::stderr()));
        let r = netns::spawn_in(&ns, &mut c);
        if let (Ok(ch), Some(f)) = (&r, self.on_spawn.as_mut()) {
            f(ch.id());
        }
        self.wait_child(r);
    }

    fn wait_child(&mut self, r: std::io::Result<std::process::Child>) {
        match r {
            Ok(mut ch) => {
                let _ = ch.wait();
            }
            Err(e) => self.say(&format!("*** Error: {e}")),
        }
    }

    fn source(&mut self, rest: &str) -> Flow {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.len() != 1 {
            self.say("usage: source <file>");
            return Flow::Continue;
        }
        let Ok(f) = std::fs::File::open(args[0]) else {
            self.say(&format!("error reading file {}", args[0]));
            return Flow::Continue;
        };
        if f.metadata().is_ok_and(|m| m.is_dir()) {
            self.say(&format!("*** Error: source: {} is a directory", args[0]));
            self.input_errors += 1;
            return Flow::Continue;
        }
        let what = args[0].to_string();
        self.run_lines(std::io::BufReader::new(f), &what)
    }

    /// Run every line of `input`. A line that is not UTF-8 is reported by
    /// number and skipped (and counted in `input_errors`); the lines after
    /// it still run. A read error stops with a message, never silently.
    pub fn run_lines(&mut self, mut input: impl BufRead, what: &str) -> Flow {
        let mut buf = Vec::new();
        let mut n = 0u64;
        loop {
            buf.clear();
            match std::io::Read::take(&mut input, MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
                Ok(0) => return Flow::Continue,
                Ok(_) if buf.len() > MAX_LINE => {
                    self.say(&format!(
                        "*** Error: {what} line {}: longer than {MAX_LINE} bytes; stopped reading",
                        n + 1
                    ));
                    self.input_errors += 1;
                    return Flow::Continue;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    if signals::terminating() {
                        return Flow::Exit;
                    }
                    continue;
                }
                Err(e) => {
                    self.say(&format!("*** Error: {what}: {e}"));
                    self.input_errors += 1;
                    return Flow::Continue;
                }
            }
            n += 1;
            if signals::terminating() {
                return Flow::Exit;
            }
            let line = match std::str::from_utf8(&buf) {
                Ok(l) => l,
                Err(e) => {
                    self.say(&format!(
                        "*** Error: {what} line {n}: invalid UTF-8 at byte {}; line skipped",
                        e.valid_up_to() + 1
                    ));
                    self.input_errors += 1;
                    continue;
                }
            };
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            if self.onecmd(&line) == Flow::Exit {
                return Flow::Exit;
            }
        }
    }

    fn need_compiled(&mut self) -> Option<&'a Compiled> {
        if self.compiled.is_none() {
            self.say("*** No compiled schedule in this run");
        }
        self.compiled
    }

    fn need_fabric(&mut self) -> Option<&'a FabricHandle> {
        if self.fabric.is_none() {
            self.say("*** No data plane in this run");
        }
        self.fabric
    }

    fn parse_tor(&mut self, arg: &str) -> Option<TorId> {
        let t = self
            .plan
            .tor(arg)
            .or_else(|| arg.parse::<usize>().ok().filter(|t| *t < self.plan.tors));
        if t.is_none() {
            self.say(&format!(
                "*** No such ToR: {arg} (use s1..s{} or 0..{})",
                self.plan.tors,
                self.plan.tors.saturating_sub(1)
            ));
        }
        t.map(|t| t as TorId)
    }

    fn schedule(&mut self, rest: &str) {
        let Some(c) = self.need_compiled() else {
            return;
        };
        let s = &c.schedule;
        let ts: SliceId = if rest.is_empty() {
            self.fabric.map(|f| f.now_slice().0).unwrap_or(0)
        } else {
            match rest.parse::<SliceId>() {
                Ok(t) if (t as usize) < s.slices() => t,
                _ => {
                    self.say(&format!(
                        "*** Bad slice {rest}: expected 0..{}",
                        s.slices() - 1
                    ));
                    return;
                }
            }
        };
        let out = slice_text(c, ts);
        self.say_part(&out);
    }

    fn slice(&mut self) {
        let Some(f) = self.need_fabric() else { return };
        let (ts, cycle) = f.now_slice();
        let n = self.compiled.map(|c| c.schedule.slices()).unwrap_or(0);
        self.say(&format!("*** Slice {ts} of {n}, cycle {cycle}"));
    }

    fn table(&mut self, rest: &str) {
        let Some(c) = self.need_compiled() else {
            return;
        };
        let Some(t) = self.parse_tor(rest) else {
            return;
        };
        let Some(out) = table_text(c, t) else {
            self.say(&format!(
                "*** {} has no table",
                crate::topo::tor_name(t as usize)
            ));
            return;
        };
        self.say_part(&out);
        if let Some(p) = self.p4.and_then(|p| p.get(t as usize)) {
            let n = p
                .client
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .table_num_entries("time_flow");
            let loaded = n.map_or_else(|e| format!("? ({e})"), |n| n.to_string());
            self.say(&format!(
                "*** {} runs the P4 program on BMv2: {} P4 entries loaded, {loaded} in time_flow (thrift port {} in its namespace)",
                crate::topo::tor_name(t as usize),
                p.entries,
                crate::p4tor::THRIFT_PORT
            ));
        }
    }

    /// `buffer_usage [tor] [port]` and `bw_usage [tor] [port] [interval]`
    /// (telemetry, paper Table 1; the same records as `--telemetry`).
    fn usage_cmd(&mut self, verb: &str, rest: &str) {
        use lh_ctrl::config::{Metric, Monitor};
        let args: Vec<&str> = rest.split_whitespace().collect();
        let tor = match args.first() {
            Some(a) => match self.parse_tor(a) {
                Some(t) => Some(t),
                None => return,
            },
            None => None,
        };
        let port = match args.get(1).map(|p| p.parse::<u8>()) {
            Some(Ok(p)) if (p as usize) < self.plan.uplinks => Some(p),
            Some(_) => {
                self.say(&format!("*** {verb}: bad port {:?}", args[1]));
                return;
            }
            None => None,
        };
        let interval = match args.get(2).map(|i| i.parse::<lh_ctrl::units::Nanos>()) {
            Some(Ok(i)) if i.0 > 0 => i,
            Some(_) => {
                self.say(&format!("*** {verb}: bad interval {:?}", args[2]));
                return;
            }
            None => lh_ctrl::units::Nanos(1_000_000),
        };
        let Some(f) = self.need_fabric() else { return };
        let metric = if verb == "bw_usage" {
            Metric::BwUsage
        } else {
            Metric::BufferUsage
        };
        let m = Monitor {
            metric,
            tor,
            port,
            interval,
        };
        let t0 = std::time::Instant::now();
        let read = |f: &FabricHandle| f.usage().map_err(|e| e.to_string());
        let prev = match read(f) {
            Ok(u) => u,
            Err(e) => return self.say(&format!("*** {verb}: {e}")),
        };
        let cur = if metric == Metric::BwUsage {
            std::thread::sleep(std::time::Duration::from_nanos(interval.0));
            match read(f) {
                Ok(u) => u,
                Err(e) => return self.say(&format!("*** {verb}: {e}")),
            }
        } else {
            prev.clone()
        };
        let dt = t0.elapsed().as_nanos() as u64;
        let mut out = String::new();
        for r in crate::telemetry::records(&m, &prev, &cur, dt, 0) {
            let name = crate::topo::tor_name(r.tor as usize);
            out.push_str(&match metric {
                Metric::BufferUsage => format!(
                    "{name} up{}: {} bytes (offloaded {})\n",
                    r.port, r.value, r.extra
                ),
                Metric::BwUsage => format!(
                    "{name} up{}: {:.1}% of the link ({:.1} Mb/s over {})\n",
                    r.port,
                    r.value * 100.0,
                    r.extra / 1e6,
                    interval
                ),
            });
        }
        self.say_part(&out);
    }

    fn queues(&mut self, rest: &str) {
        let Some(t) = self.parse_tor(rest) else {
            return;
        };
        let Some(f) = self.need_fabric() else { return };
        let q = f.queues(t);
        let mut out = format!(
            "*** {} calendar queues (bytes; column = departure slice)\n",
            crate::topo::tor_name(t as usize)
        );
        for (p, row) in q.iter().enumerate() {
            let cells: Vec<String> = row.iter().map(|b| b.to_string()).collect();
            out.push_str(&format!("up{p}: {}\n", cells.join(" ")));
        }
        let slices = q.first().map_or(0, Vec::len);
        if let Some(est) = self
            .p4
            .and_then(|p| p.estimates(t as usize, q.len(), slices))
        {
            out.push_str("*** the P4 program's occupancy estimate (registers occ_bytes, §6.2)\n");
            for (p, row) in est.iter().enumerate() {
                let cells: Vec<String> = row.iter().map(|b| b.to_string()).collect();
                out.push_str(&format!("up{p}: {}\n", cells.join(" ")));
            }
        }
        self.say_part(&out);
    }

    fn drops(&mut self) {
        let Some(f) = self.need_fabric() else { return };
        let c = f.counters();
        let mut s = match self.p4 {
            None => format_counters(&c),
            Some(p) => match p.counters() {
                Ok(pc) => format_totals(&c, &pc),
                Err(e) => format!(
                    "*** Error reading the P4 ToRs' counters: {e}\n{}",
                    format_counters(&c)
                ),
            },
        };
        // Loss the data plane cannot count itself: frames the kernel
        // dropped on the veths (either end) before or after the ToRs. A
        // BMv2 ToR's host ports are in its own namespace.
        let fab = self.fabric_ns();
        let tor_ifs: Vec<String> = self
            .plan
            .hosts
            .iter()
            .filter(|h| !self.plan.is_bmv2(h.tor as usize))
            .map(|h| h.tor_if.clone())
            .collect();
        let mut kernel = Vec::new();
        if let Ok(Ok(mut v)) = netns::run_in(Some(&fab), || iface_drops(&tor_ifs)) {
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
        s.push_str(&format_kernel_drops(c.port_drops, &kernel));
        self.say_part(&s);
    }

    fn pcap(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.first() == Some(&"stop") {
            let n = self.stop_pcaps();
            self.say(&format!("*** Stopped {n} capture(s)"));
            return;
        }
        let (mode, args) = match args.split_first() {
            Some((&"--readable", rest)) => (crate::securefs::READABLE_MODE, rest),
            _ => (crate::securefs::FILE_MODE, &args[..]),
        };
        if args.len() != 3 {
            self.say("usage: pcap [--readable] <tor|host> <port> FILE | pcap stop");
            return;
        }
        let (node, port, file) = (args[0], args[1], Path::new(args[2]));
        // Check the node and port first: a bad one must not create a file.
        enum Target {
            Iface(PathBuf, String),
            Uplink(usize, lh_ctrl::PortId),
        }
        let target = if let Some(h) = self.plan.host(node) {
            let ifn = h.host_if.clone();
            if port != ifn && port != "eth0" && port != "0" {
                self.say(&format!("*** {node} has one port: eth0 ({ifn})"));
                return;
            }
            Target::Iface(self.host_ns(h), ifn)
        } else if let Some(t) = self.plan.tor(node) {
            let tname = crate::topo::tor_name(t);
            let num = port.strip_prefix("up").unwrap_or(port);
            if let Ok(p) = num.parse::<lh_ctrl::PortId>() {
                if self.need_fabric().is_none() {
                    return;
                }
                Target::Uplink(t, p)
            } else {
                let ifn = if port.starts_with(&format!("{tname}-")) {
                    port.to_string()
                } else {
                    format!("{tname}-{port}")
                };
                if !self.plan.hosts_of(t).iter().any(|h| h.tor_if == ifn) {
                    self.say(&format!("*** {tname} has no port {port}"));
                    return;
                }
                let ns = if self.plan.is_bmv2(t) {
                    self.tor_ns(t)
                } else {
                    self.fabric_ns()
                };
                Target::Iface(ns, ifn)
            }
        } else {
            self.say(&format!("*** No such node: {node}"));
            return;
        };
        if self.sandbox {
            return;
        }
        // Root opens the file itself, without following a symlink, and
        // hands the open file to the capture through /proc/self/fd.
        let opened = match crate::securefs::create_file(file, mode) {
            Ok(f) => f,
            Err(e) => {
                self.say(&format!("*** Error: pcap: {e}"));
                return;
            }
        };
        let fd_file = crate::securefs::fd_path(&opened);
        match target {
            Target::Iface(ns, ifn) => {
                self.start_iface_pcap(format!("{ifn} -> {}", file.display()), &ns, &ifn, &fd_file);
            }
            Target::Uplink(t, p) => {
                let Some(f) = self.fabric else { return };
                let tname = crate::topo::tor_name(t);
                match f.capture(t as TorId, swtor::CapturePoint::Uplink(p), &fd_file) {
                    Ok(()) => {
                        self.pcaps.push(PcapJob::Uplink {
                            what: format!("{tname} up{p} -> {}", file.display()),
                            tor: t as TorId,
                            port: p,
                        });
                        self.say(&format!(
                            "*** Capturing {tname} uplink {p} to {}",
                            file.display()
                        ));
                    }
                    Err(e) => self.say(&format!("*** Error: {e}")),
                }
            }
        }
    }

    fn start_iface_pcap(&mut self, what: String, ns: &Path, ifn: &str, file: &Path) {
        let stop = Arc::new(AtomicBool::new(false));
        match swtor::capture_iface(Some(ns), ifn, file, stop.clone()) {
            Ok(join) => {
                self.say(&format!("*** Capturing {what}"));
                let join = Arc::new(std::sync::Mutex::new(Some(join)));
                let (s2, j2) = (stop.clone(), join.clone());
                let hook = crate::exitguard::register(move || {
                    s2.store(true, Ordering::Relaxed);
                    let j = j2.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(j) = j {
                        let _ = j.join();
                    }
                });
                self.pcaps.push(PcapJob::Iface {
                    what,
                    stop,
                    join,
                    hook,
                });
            }
            Err(e) => self.say(&format!("*** Error: {e}")),
        }
    }

    /// Stop every capture; returns how many there were.
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
                    crate::exitguard::unregister(hook);
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
                    if let Some(f) = self.fabric {
                        let _ = f.stop_capture(tor, swtor::CapturePoint::Uplink(port));
                    }
                    self.say(&format!("*** {what}: closed"));
                }
            }
        }
        n
    }

    /// Read commands until exit: interactive with rustyline on a terminal,
    /// else line by line from stdin.
    pub fn run_interactive(&mut self) {
        if !is_tty() {
            let stdin = std::io::stdin();
            if self.run_lines(stdin.lock(), "stdin") == Flow::Exit {
                return;
            }
            self.onecmd("EOF");
            return;
        }
        let Ok(mut rl) = rustyline::DefaultEditor::new() else {
            self.say("*** Error: cannot open the terminal");
            return;
        };
        signals::INTERACTIVE.store(true, Ordering::Relaxed);
        loop {
            if signals::terminating() {
                break;
            }
            match rl.readline(PROMPT) {
                Ok(line) => {
                    let _ = rl.add_history_entry(line.as_str());
                    signals::take_interrupt();
                    if self.onecmd(&line) == Flow::Exit {
                        break;
                    }
                }
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    if !signals::terminating() {
                        self.say("\nInterrupt");
                    }
                }
                Err(rustyline::error::ReadlineError::Eof) => {
                    self.onecmd("EOF");
                    break;
                }
                Err(_) => break,
            }
        }
        signals::INTERACTIVE.store(false, Ordering::Relaxed);
    }
}

impl Drop for Cli<'_> {
    fn drop(&mut self) {
        self.stop_pcaps();
    }
}

fn is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

fn stty(arg: &str) {
    let _ = Command::new("stty").arg(arg).status();
}

/// `10M` (bytes, decimal suffixes) or `2s` / `0.5s` (seconds).
pub fn parse_amount(s: &str) -> Option<probe::Amount> {
    if let Some(secs) = s.strip_suffix('s') {
        return parse_seconds(secs).map(probe::Amount::Seconds);
    }
    let b = parse_bw(s)?;
    (1.0..=MAX_BYTES)
        .contains(&b)
        .then_some(probe::Amount::Bytes(b as u64))
}

/// Seconds: a finite number > 0 and at most [`MAX_SECONDS`] (so `inf`,
/// `nan`, `1e30` or `-1` are errors, never a panic or a run forever).
pub fn parse_seconds(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    (v.is_finite() && v > 0.0 && v <= MAX_SECONDS).then_some(v)
}

/// `*** Flow h1 -> h2: 10000000 bytes in 81.234 ms, 985 Mbits/sec (receiver), 990 Mbits/sec (sender)`
pub fn format_flow(src: &str, dst: &str, f: &probe::FlowResult) -> String {
    format!(
        "*** Flow {src} -> {dst}: {} bytes in {:.3} ms, {} (receiver), {} (sender)",
        f.bytes,
        f.fct.as_secs_f64() * 1e3,
        format::rate(f.server_bps),
        format::rate(f.client_bps)
    )
}

/// `10M` / `1G` / `500K` / `1000000` -> bits/s.
pub fn parse_bw(s: &str) -> Option<f64> {
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1e3),
        'M' | 'm' => (&s[..s.len() - 1], 1e6),
        'G' | 'g' => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    let v = v * mult;
    (v.is_finite() && v > 0.0 && v <= MAX_BPS).then_some(v)
}

fn fmt_action(a: &Action) -> String {
    let step = |s: &lh_ctrl::tables::Step| match s.depart {
        Some(d) => format!("up{}@{d}", s.port),
        None => format!("up{}@now", s.port),
    };
    match a {
        Action::Hop(s) => step(s),
        Action::Source(v) => {
            let l: Vec<String> = v.iter().map(step).collect();
            format!("source[{}]", l.join(" "))
        }
    }
}

/// `schedule [ts]` text: the circuits of one slice (also `lighthouse show --slice`).
pub fn slice_text(c: &lh_ctrl::compile::Compiled, ts: SliceId) -> String {
    let s = &c.schedule;
    let mut out = format!(
        "*** Slice {ts} of {} ({}, guardband {})\n",
        s.slices(),
        c.config.slice.duration,
        c.config.slice.guardband
    );
    let circuits = s.circuits(ts);
    if circuits.is_empty() && s.optical_uplinks() > 0 {
        out.push_str("(no circuits)\n");
    }
    for (a, b) in circuits {
        let ch = if s.changed(ts, a) {
            " (reconfigured)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{} up{} -> {} up{}{ch}\n",
            crate::topo::tor_name(a.tor as usize),
            a.port,
            crate::topo::tor_name(b.tor as usize),
            b.port
        ));
    }
    // Electrical uplinks (Clos, or the packet fabric of a hybrid) reach
    // every ToR in every slice.
    for p in s.optical_uplinks()..s.uplinks() {
        let rate = lh_ctrl::schedule::timing::port_rate(&c.config, s, p as lh_ctrl::PortId);
        out.push_str(&format!(
            "every ToR up{p} -> electrical switch -> any ToR ({rate})\n"
        ));
    }
    out
}

/// `table <tor>` text (also `lighthouse show --tor`); `None` for no such ToR.
pub fn table_text(c: &lh_ctrl::compile::Compiled, t: TorId) -> Option<String> {
    let tbl = c.tables.tors.iter().find(|x| x.tor == t)?;
    let mut out = format!(
        "*** {} time-flow table: {} entries ({:?} lookup)\n",
        crate::topo::tor_name(t as usize),
        tbl.len(),
        c.tables.lookup
    );
    for e in tbl.iter() {
        out.push_str(&format_entry(&e.to_entry()));
        out.push('\n');
    }
    Some(out)
}

/// One table entry, human readable:
/// `dst=s3 arrival=2 from=host class=* bucket=* -> up1@4 (alt up0@5)`.
pub fn format_entry(e: &lh_ctrl::tables::Entry) -> String {
    let opt = |o: Option<String>| o.unwrap_or_else(|| "*".into());
    let m = &e.m;
    let ing = match m.ingress {
        Ingress::Any => "any",
        Ingress::Host => "host",
        Ingress::Fabric => "fabric",
    };
    let mut s = format!(
        "dst={} arrival={} from={ing} class={} bucket={} -> {}",
        crate::topo::tor_name(m.dst as usize),
        opt(m.arrival.map(|a| a.to_string())),
        opt(m.class.map(|a| a.to_string())),
        opt(m.bucket.map(|a| a.to_string())),
        fmt_action(&e.action)
    );
    if !e.alternates.is_empty() {
        let l: Vec<String> = e.alternates.iter().map(fmt_action).collect();
        s.push_str(&format!(" (alt {})", l.join(", ")));
    }
    s
}

/// Kernel drop counters of some interfaces (summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IfaceDrops {
    pub rx_dropped: u64,
    pub tx_dropped: u64,
    pub rx_errors: u64,
    pub tx_errors: u64,
}

impl IfaceDrops {
    fn add(&mut self, o: &IfaceDrops) {
        self.rx_dropped += o.rx_dropped;
        self.tx_dropped += o.tx_dropped;
        self.rx_errors += o.rx_errors;
        self.tx_errors += o.tx_errors;
    }
}

/// Sum the drop/error counters of `ifs` in /proc/net/dev text.
pub fn parse_net_dev(text: &str, ifs: &[String]) -> IfaceDrops {
    let mut d = IfaceDrops::default();
    for line in text.lines().skip(2) {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if !ifs.iter().any(|i| i == name.trim()) {
            continue;
        }
        let v: Vec<u64> = rest
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        if v.len() >= 12 {
            d.add(&IfaceDrops {
                rx_errors: v[2],
                rx_dropped: v[3],
                tx_errors: v[10],
                tx_dropped: v[11],
            });
        }
    }
    d
}

/// The calling thread's namespace's counters for `ifs`.
fn iface_drops(ifs: &[String]) -> std::io::Result<IfaceDrops> {
    // thread-self: the namespace this (run_in) thread entered.
    let t = std::fs::read_to_string("/proc/thread-self/net/dev")?;
    Ok(parse_net_dev(&t, ifs))
}

/// The part of `drops` about loss outside the data plane's own counters.
pub fn format_kernel_drops(port_drops: u64, ifs: &[(&str, IfaceDrops)]) -> String {
    let mut s = format!(
        "*** outside the data plane (not in the conservation check):\n  {:<16} {port_drops}   (kernel socket drops on host ports: never entered `sent`)\n",
        "port_drops"
    );
    for (what, d) in ifs {
        s.push_str(&format!(
            "  {what}: rx_dropped {} tx_dropped {} rx_errors {} tx_errors {}\n",
            d.rx_dropped, d.tx_dropped, d.rx_errors, d.tx_errors
        ));
    }
    s
}

/// `drops` text: totals, every drop reason, and the conservation line.
pub fn format_counters(c: &swtor::Counters) -> String {
    let mut s = format!(
        "*** sent {} delivered {} queued {} dropped {}\n",
        c.sent,
        c.delivered,
        c.queued,
        c.dropped_total()
    );
    for r in swtor::DropReason::ALL {
        let n = c.dropped(r);
        s.push_str(&format!("  {:<16} {n}\n", r.name()));
    }
    s.push_str(&format!(
        "*** conservation: sent {} = delivered {} + dropped {} + queued {}: {}\n",
        c.sent,
        c.delivered,
        c.dropped_total(),
        c.queued,
        if c.conservation_holds() {
            "OK"
        } else {
            "VIOLATED"
        }
    ));
    s
}

/// `drops` with P4 ToRs: swtor's counters (native ToRs, calendar queues,
/// OCS) and the P4 program's, added up; frames still inside BMv2 or on its
/// veths show as in flight.
pub fn format_totals(c: &swtor::Counters, p: &crate::p4tor::P4Counters) -> String {
    let t = crate::fabric::Totals::of(c, Some(p));
    let mut s = format!(
        "*** sent {} delivered {} queued {} dropped {} (native ToRs and OCS + P4 ToRs)\n",
        t.sent, t.delivered, t.queued, t.dropped
    );
    for r in swtor::DropReason::ALL {
        let (n, m) = (c.dropped(r), p.dropped[r as usize]);
        s.push_str(&format!("  {:<16} {}", r.name(), n + m));
        if m > 0 {
            s.push_str(&format!(" ({m} at P4 ToRs)"));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "*** P4 ToRs: from hosts {} to hosts {} to uplinks {} rerouted {} deferred {} late rotations {}\n",
        p.host_rx, p.host_tx, p.uplink_tx, p.rerouted, p.deferred, p.late_slice
    ));
    s.push_str(&format!(
        "*** swtor: from P4 uplinks {} to P4 uplinks {} late departure tags {} port_drops {}\n",
        c.from_external, c.to_external, c.late_from_tor, c.port_drops
    ));
    s.push_str(&format!(
        "*** conservation: sent {} = delivered {} + dropped {} + queued {} + in flight {}: {}\n",
        t.sent,
        t.delivered,
        t.dropped,
        t.queued,
        t.in_bmv2 + t.on_veths,
        if c.conservation_holds()
            && t.sent as i64 == (t.delivered + t.dropped + t.queued) as i64 + t.in_bmv2 + t.on_veths
        {
            "OK"
        } else {
            "VIOLATED"
        }
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Buf {
        fn take(&self) -> String {
            String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
        }
    }

    fn cli(plan: &Plan) -> (Cli<'_>, Buf) {
        let b = Buf::default();
        let mut c = Cli::new(plan, "lh0000", Box::new(b.clone()));
        c.pid = 99;
        (c, b)
    }

    #[test]
    fn topology_commands_print_mininet_text() {
        let plan = Plan::new(2, 2);
        let (mut c, b) = cli(&plan);
        c.onecmd("nodes");
        assert_eq!(b.take(), "available nodes are: \nh1 h2 h3 h4 s1 s2\n");
        c.onecmd("net");
        assert_eq!(
            b.take(),
            "h1 h1-eth0:s1-eth1\nh2 h2-eth0:s1-eth2\nh3 h3-eth0:s2-eth1\nh4 h4-eth0:s2-eth2\n\
             s1 lo:  s1-eth1:h1-eth0 s1-eth2:h2-eth0\ns2 lo:  s2-eth1:h3-eth0 s2-eth2:h4-eth0\n"
        );
        c.onecmd("intfs");
        assert!(b.take().contains("h1: h1-eth0\n"));
        c.onecmd("dump");
        let d = b.take();
        assert!(
            d.starts_with("<Host h1: h1-eth0:10.0.0.1 pid=99> \n"),
            "{d}"
        );
        assert!(
            d.contains("<OpticalToR s2: lo:127.0.0.1,s2-eth1:None,s2-eth2:None pid=99> \n"),
            "{d}"
        );
        c.onecmd("ports");
        assert_eq!(
            b.take(),
            "s1 lo:0 s1-eth1:1 s1-eth2:2 \ns2 lo:0 s2-eth1:1 s2-eth2:2 \n"
        );
    }

    #[test]
    fn errors_and_flow_control() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        assert_eq!(c.onecmd("bogus"), Flow::Continue);
        assert_eq!(b.take(), "*** Unknown command: bogus\n");
        c.onecmd("bogus  with args");
        assert_eq!(b.take(), "*** Unknown command: bogus  with args\n");
        c.onecmd("h1");
        assert_eq!(b.take(), "*** Please enter a command for node: h1 <cmd>\n");
        c.onecmd("iperf h1 h9");
        assert_eq!(b.take(), "node 'h9' not in network\n");
        c.onecmd("iperf h1");
        assert_eq!(b.take(), "invalid number of args: iperf src dst\n");
        c.onecmd("drops");
        assert_eq!(b.take(), "*** No data plane in this run\n");
        c.onecmd("schedule");
        assert_eq!(b.take(), "*** No compiled schedule in this run\n");
        assert_eq!(c.onecmd("exit"), Flow::Exit);
        assert_eq!(c.onecmd("quit"), Flow::Exit);
        assert_eq!(c.onecmd("EOF"), Flow::Exit);
        assert_eq!(b.take(), "\n");
        assert_eq!(c.onecmd("time nodes"), Flow::Continue);
        let t = b.take();
        assert!(
            t.starts_with("available nodes are: \nh1 h2 s1 s2\n*** Elapsed time: 0.0"),
            "{t}"
        );
        assert!(t.ends_with(" secs\n"));
    }

    #[test]
    fn source_runs_a_file_and_stops_at_exit() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "nodes\n# comment\n\nexit\nnet").unwrap();
        let flow = c.onecmd(&format!("source {}", f.path().display()));
        assert_eq!(flow, Flow::Exit);
        assert_eq!(b.take(), "available nodes are: \nh1 h2 s1 s2\n");
        c.onecmd("source /nonexistent/x");
        assert_eq!(b.take(), "error reading file /nonexistent/x\n");
    }

    #[test]
    fn help_lists_commands_in_python_cmd_columns() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        c.onecmd("help");
        let h = b.take();
        assert!(h.starts_with("\nDocumented commands (type help <topic>):\n========================================\nEOF  "), "{h}");
        assert!(h.contains("You may also send a command to a node using:"));
        c.onecmd("help pingall");
        assert!(b.take().starts_with("Ping between all hosts."));
    }

    /// A hand-made compiled network: 4 ToRs, 1 uplink, 3 slices.
    fn small_compiled() -> Compiled {
        use lh_ctrl::config::{Config, Lookup, Multipath};
        use lh_ctrl::schedule::{Endpoint, Schedule};
        use lh_ctrl::tables::{Entry, Match, Step, Tables, TimeFlowTable};
        let config = Config::from_json(
            r#"{"mode": "TO",
              "tors": {"count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
              "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto"},
              "slice": {"duration": "100us", "guardband": "10us"},
              "topology": {"kind": "round_robin"}, "routing": {"algorithm": "direct"}}"#,
            "t.json",
        )
        .unwrap();
        let mut schedule = Schedule::new(4, 1, 3);
        let e = |t| Endpoint::new(t, 0);
        schedule.connect(e(0), e(1), 0).unwrap();
        schedule.connect(e(2), e(3), 0).unwrap();
        schedule.connect(e(0), e(2), 1).unwrap();
        schedule.connect(e(1), e(3), 1).unwrap();
        let entry = Entry {
            m: Match {
                dst: 2,
                arrival: Some(0),
                ingress: Ingress::Host,
                class: None,
                bucket: None,
            },
            action: Action::Hop(Step {
                port: 0,
                depart: Some(1),
            }),
            alternates: vec![Action::Hop(Step {
                port: 0,
                depart: Some(4),
            })],
        };
        let tables = Tables {
            slices: 3,
            lookup: Lookup::Hop,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![entry],
            }],
        };
        Compiled {
            config,
            schedule,
            routes: Default::default(),
            tables: tables.into(),
            timings: Vec::new(),
        }
    }

    #[test]
    fn hybrid_schedule_text_lists_circuits_and_the_electrical_port() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/c-through-8.json");
        let cfg = lh_ctrl::config::Config::load(&path).unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap();
        let t = slice_text(&c, 0);
        assert!(t.contains("s1 up0 -> s5 up0\n"), "{t}");
        assert!(
            t.ends_with("every ToR up1 -> electrical switch -> any ToR (100Mbps)\n"),
            "{t}"
        );
        assert!(!t.contains("no circuits"), "{t}");
    }

    #[test]
    fn optical_verbs_show_schedule_and_tables() {
        let c = small_compiled();
        let plan = Plan::from_config(&c.config);
        let (mut cli, b) = cli(&plan);
        cli.compiled = Some(&c);
        cli.onecmd("schedule 1");
        assert_eq!(
            b.take(),
            "*** Slice 1 of 3 (100us, guardband 10us)\n\
             s1 up0 -> s3 up0 (reconfigured)\ns2 up0 -> s4 up0 (reconfigured)\n\
             s3 up0 -> s1 up0 (reconfigured)\ns4 up0 -> s2 up0 (reconfigured)\n"
        );
        cli.onecmd("schedule 2");
        assert!(b.take().ends_with("(no circuits)\n"));
        cli.onecmd("schedule 3");
        assert_eq!(b.take(), "*** Bad slice 3: expected 0..2\n");
        cli.onecmd("table s1");
        assert_eq!(
            b.take(),
            "*** s1 time-flow table: 1 entries (Hop lookup)\n\
             dst=s3 arrival=0 from=host class=* bucket=* -> up0@1 (alt up0@4)\n"
        );
        cli.onecmd("table 0");
        assert!(b.take().starts_with("*** s1 time-flow table"));
        cli.onecmd("table s9");
        assert!(b.take().starts_with("*** No such ToR: s9"));
        cli.onecmd("table s2");
        assert_eq!(b.take(), "*** s2 has no table\n");
        cli.onecmd("slice");
        assert_eq!(b.take(), "*** No data plane in this run\n");
    }

    #[test]
    fn flow_amounts_and_text() {
        assert_eq!(parse_amount("10M"), Some(probe::Amount::Bytes(10_000_000)));
        assert_eq!(parse_amount("1500"), Some(probe::Amount::Bytes(1500)));
        assert_eq!(parse_amount("2s"), Some(probe::Amount::Seconds(2.0)));
        assert_eq!(parse_amount("0s"), None);
        assert_eq!(parse_amount("x"), None);
        let f = probe::FlowResult {
            bytes: 10_000_000,
            server_bps: 985e6,
            client_bps: 990e6,
            fct: Duration::from_micros(81_234),
        };
        assert_eq!(
            format_flow("h1", "h2", &f),
            "*** Flow h1 -> h2: 10000000 bytes in 81.234 ms, 985 Mbits/sec (receiver), 990 Mbits/sec (sender)"
        );
    }

    #[test]
    fn bandwidths_parse_like_iperf() {
        assert_eq!(parse_bw("10M"), Some(10e6));
        assert_eq!(parse_bw("1.5G"), Some(1.5e9));
        assert_eq!(parse_bw("500k"), Some(500e3));
        assert_eq!(parse_bw("x"), None);
        assert_eq!(parse_bw("0M"), None);
        assert_eq!(parse_bw("infG"), None);
        assert_eq!(parse_bw("NaN"), None);
        assert_eq!(parse_bw("-5M"), None);
    }

    #[test]
    fn kernel_drops_are_parsed_and_shown() {
        let dev = "Inter-|   Receive                                                |  Transmit\n \
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n\
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n\
s1-eth1:  1000      10    1    2    0     0          0         0     2000      20    3    4    0     0       0          0\n\
s1-eth2:  1000      10    0    5    0     0          0         0     2000      20    0    6    0     0       0          0\n";
        let ifs = vec!["s1-eth1".to_string(), "s1-eth2".to_string()];
        let d = parse_net_dev(dev, &ifs);
        assert_eq!(
            d,
            IfaceDrops {
                rx_dropped: 7,
                tx_dropped: 10,
                rx_errors: 1,
                tx_errors: 3
            }
        );
        let t = format_kernel_drops(42, &[("ToR-side veths", d)]);
        assert!(t.contains("  port_drops       42 "), "{t}");
        assert!(
            t.contains("ToR-side veths: rx_dropped 7 tx_dropped 10 rx_errors 1 tx_errors 3"),
            "{t}"
        );
    }

    #[test]
    fn durations_and_sizes_are_range_checked() {
        for bad in ["1e30s", "infs", "1e19s", "nans", "-1s", "0s", "1e13", "0"] {
            assert_eq!(parse_amount(bad), None, "{bad}");
        }
        assert_eq!(parse_seconds("86400"), Some(86400.0));
        assert_eq!(parse_seconds("86401"), None);
        assert_eq!(parse_seconds("-1"), None);
    }

    #[test]
    fn nesting_is_limited() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        let line = format!("{}nodes", "time noecho ".repeat(10_000));
        assert_eq!(c.onecmd(&line), Flow::Continue);
        let out = b.take();
        assert!(out.contains("nested deeper than 32"), "{out}");
        assert!(!out.contains("available nodes"), "{out}");
        c.onecmd("time time nodes");
        assert!(b.take().starts_with("available nodes"));
    }

    #[test]
    fn lines_with_invalid_utf8_are_reported_and_skipped() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        let input: &[u8] = b"bogus1\n\xc3\x28 x\nbogus3";
        assert_eq!(c.run_lines(input, "in"), Flow::Continue);
        assert_eq!(
            b.take(),
            "*** Unknown command: bogus1\n*** Error: in line 2: invalid UTF-8 at byte 1; line skipped\n*** Unknown command: bogus3\n"
        );
        assert_eq!(c.input_errors, 1);
        let d = tempfile::tempdir().unwrap();
        c.onecmd(&format!("source {}", d.path().display()));
        assert!(b.take().contains("is a directory"));
        c.onecmd("pingall -1");
        assert!(b.take().starts_with("*** Error: pingall: bad timeout -1"));
        // An endless line (`source /dev/zero`) stops the input, bounded.
        let long = vec![b'x'; MAX_LINE + 10];
        assert_eq!(c.run_lines(&long[..], "z"), Flow::Continue);
        assert_eq!(
            b.take(),
            format!("*** Error: z line 1: longer than {MAX_LINE} bytes; stopped reading\n")
        );
    }

    #[test]
    fn sandbox_starts_nothing() {
        let plan = Plan::new(2, 1);
        let (mut c, b) = cli(&plan);
        c.sandbox = true;
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x.pcap");
        let touched = d.path().join("touched");
        c.onecmd(&format!("sh touch {}", touched.display()));
        c.onecmd(&format!("pcap h1 eth0 {}", f.display()));
        c.onecmd(&format!("noecho time sh touch {}", touched.display()));
        assert!(!f.exists() && !touched.exists());
        let _ = b.take();
        // Outside the sandbox too: a bad node or port creates no file.
        c.sandbox = false;
        c.onecmd(&format!("pcap h9 eth0 {}", f.display()));
        c.onecmd(&format!("pcap h1 eth7 {}", f.display()));
        c.onecmd(&format!("pcap s1 eth9 {}", f.display()));
        c.onecmd(&format!("pcap s1 0 {}", f.display()));
        assert!(!f.exists());
        assert_eq!(
            b.take(),
            "*** No such node: h9\n*** h1 has one port: eth0 (h1-eth0)\n*** s1 has no port eth9\n*** No data plane in this run\n"
        );
    }

    #[test]
    fn counters_text_has_reasons_and_conservation() {
        let mut c = swtor::Counters {
            sent: 10,
            delivered: 7,
            queued: 1,
            ..Default::default()
        };
        c.drop_one(swtor::DropReason::NoCircuit);
        c.drop_one(swtor::DropReason::NoCircuit);
        let s = format_counters(&c);
        assert!(
            s.starts_with("*** sent 10 delivered 7 queued 1 dropped 2\n"),
            "{s}"
        );
        assert!(s.contains("  no_circuit       2\n"), "{s}");
        assert!(
            s.ends_with("*** conservation: sent 10 = delivered 7 + dropped 2 + queued 1: OK\n")
        );
        c.sent = 11;
        assert!(format_counters(&c).contains("VIOLATED"));
    }
}
