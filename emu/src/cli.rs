//! The Mininet-compatible CLI (Mininet 2.3 commands and output text) plus
//! the optical verbs: schedule, slice, table, queues, drops, pcap. A parser
//! over [`Network`], which does the work.
//!
//! Like Mininet, what the CLI and the network report goes to the network's
//! output (stderr); `time`'s line goes to stdout, and the output of
//! `<node> <cmd>` to stderr, as Mininet's logger prints it.

mod compat;
mod help;
mod line;
mod py;
#[cfg(test)]
mod tests;

pub use py::PyHook;

pub use crate::net::{DEFAULT_PING_TIMEOUT, IPERF_SECONDS, MAX_UDP_BPS_NO_FABRIC, Tools, on_path};
pub use crate::text::format::{
    MAX_BPS, MAX_BYTES, MAX_SECONDS, parse_amount, parse_bw, parse_seconds,
};
pub use crate::text::render::{
    IfaceDrops, format_counters, format_entry, format_kernel_drops, format_totals, parse_net_dev,
};
pub use crate::text::view::{format_flow, slice_text, table_text};

use crate::kernel::signals;
use crate::net::{Network, NetworkError, PcapTarget};
use crate::text::{format, view};
use lh_ctrl::TorId;
use serde::Serialize;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Instant;

pub const PROMPT: &str = "lighthouse> ";
/// Mininet's prompt: the Mininet-compatible entry points print it
/// (`lighthouse run --topo/--custom/--topo-json`, `lighthouse.mininet`'s
/// `CLI`), since Mininet's own tests and course scripts wait for it.
pub const MININET_PROMPT: &str = "mininet> ";

/// Longest input line (script or stdin); a longer one ends the input with
/// an error (`source /dev/zero` must not eat all memory).
pub const MAX_LINE: usize = 1 << 20;

/// Deepest nesting of `time`, `noecho` and `source` in one command (a
/// 100 KB line of `time time ...` or a script sourcing itself would
/// otherwise overflow the stack).
pub const MAX_NESTING: usize = 32;

/// Whether the loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Exit,
}

/// The command loop over one network.
pub struct Cli<'a> {
    pub net: &'a mut Network,
    /// Where `time` writes its line (Mininet: the cmd module's stdout).
    pub stdout: Box<dyn Write + 'a>,
    /// Nesting of `time`/`noecho`/`source` in the command being run.
    depth: usize,
    /// Lines of scripts or stdin that could not be read (invalid UTF-8):
    /// the run then ends with a failure status.
    pub input_errors: u64,
    /// For fuzzing the command parser: commands check their arguments but
    /// never start a shell, create or read a file, or touch the terminal.
    pub sandbox: bool,
    /// `--json`: each operation's value (or error) as one JSON line here.
    pub json: Option<Box<dyn Write + 'a>>,
    /// The command line being run (for `--json` records).
    line: String,
    /// `py`/`px` in a host language ([`Cli::set_py`]).
    py: Option<PyHook<'a>>,
    /// The interactive prompt: [`PROMPT`], or [`MININET_PROMPT`].
    pub prompt: &'static str,
}

/// One `--json` line: the command, and its value or its error.
#[derive(Serialize)]
struct Record<'r, T: Serialize> {
    line: &'r str,
    verb: &'r str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<&'r T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'r NetworkError>,
}

impl<'a> Cli<'a> {
    pub fn new(net: &'a mut Network) -> Cli<'a> {
        Cli {
            net,
            stdout: Box::new(std::io::stdout()),
            depth: 0,
            input_errors: 0,
            sandbox: false,
            json: None,
            line: String::new(),
            py: None,
            prompt: PROMPT,
        }
    }

    pub(crate) fn say(&mut self, s: &str) {
        self.net.say(s);
    }

    /// Write `--json`'s record of an operation.
    fn record<T: Serialize>(&mut self, verb: &str, r: Result<&T, &NetworkError>) {
        let Some(j) = self.json.as_mut() else { return };
        let (ok, error) = match r {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e)),
        };
        let rec = Record {
            line: &self.line,
            verb,
            ok,
            error,
        };
        if let Ok(s) = serde_json::to_string(&rec) {
            let _ = writeln!(j, "{s}");
            let _ = j.flush();
        }
    }

    /// Show and record an operation's error (no value to show).
    fn fail(&mut self, verb: &str, e: NetworkError) {
        self.show::<()>(verb, Err(e), |_| String::new());
    }

    /// Show an operation's value with `text` (or its error), and record it.
    fn show<T: Serialize>(
        &mut self,
        verb: &str,
        r: Result<T, NetworkError>,
        text: impl Fn(&T) -> String,
    ) -> Option<T> {
        self.record(verb, r.as_ref());
        match r {
            Ok(v) => {
                self.net.say_part(&text(&v));
                Some(v)
            }
            Err(e) => {
                self.say(&view::error(&e));
                None
            }
        }
    }

    /// Run one command line.
    pub fn onecmd(&mut self, line: &str) -> Flow {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Flow::Continue;
        }
        self.line = line.to_string();
        let (first, rest) = match line.split_once(char::is_whitespace) {
            Some((f, r)) => (f, r.trim()),
            None => (line, ""),
        };
        match first {
            "help" => {
                // Its examples show the prompt this CLI prints.
                let text = help::help_text(rest).replace(PROMPT, self.prompt);
                self.say(&text)
            }
            "nodes" => {
                let n = self.net.nodes();
                self.show(first, Ok(n), |n| view::nodes(n) + "\n");
            }
            "net" => {
                let v = self.net.net_view();
                self.show(first, Ok(v), view::net);
            }
            "links" => {
                let v = self.net.links();
                self.show(first, Ok(v), view::links);
            }
            "link" => self.link(rest),
            "dump" => {
                let d = self.net.dump();
                self.show(first, Ok(d), view::dump);
            }
            "intfs" => {
                let v = self.net.net_view();
                self.show(first, Ok(v), view::intfs);
            }
            "ports" => {
                let v = self.net.ports();
                self.show(first, Ok(v), view::ports);
            }
            "pingall" => {
                if rest.split_whitespace().count() > 1 {
                    self.say("*** Error: usage: pingall [timeout]");
                } else if !rest.is_empty() && parse_seconds(rest).is_none() {
                    self.say(&format!(
                        "*** Error: pingall: bad timeout {rest} (seconds, > 0 and at most {MAX_SECONDS})"
                    ));
                } else {
                    self.ping(first, None, parse_seconds(rest), false);
                }
            }
            "pingallfull" => {
                self.ping(first, None, None, true);
            }
            "pingpair" | "pingpairfull" => {
                let hs = (self.net.plan.hosts.len() >= 2).then(|| vec![0, 1]);
                self.ping(first, hs.as_deref(), None, first == "pingpairfull");
            }
            "iperf" => self.iperf(rest),
            "iperfudp" => {
                let _ = self.iperfudp(rest);
            }
            "flow" => self.flow(rest),
            "flows" => self.flows(rest),
            "memcached" | "allreduce" => self.app(first, rest),
            "sh" if self.sandbox => {}
            "sh" => {
                if let Err(e) = self.net.sh(rest, self.json.is_some()) {
                    self.say(&view::error(&e));
                }
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
                let _ = writeln!(self.stdout, "{s}");
                let _ = self.stdout.flush();
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
            "schedule" => {
                let r = self.net.schedule((!rest.is_empty()).then_some(rest));
                let names = self.net.plan.labeler();
                self.show(first, r, |v| view::slice_named(v, &names));
            }
            "slice" => {
                let r = self.net.slice();
                self.show(first, r, view::slice_now);
            }
            "table" => {
                if let Some(t) = self.parse_tor(rest) {
                    let r = self.net.table(t);
                    let names = self.net.plan.labeler();
                    self.show(first, r, |v| view::table_named(v, &names));
                }
            }
            "queues" => {
                if let Some(t) = self.parse_tor(rest) {
                    let r = self.net.queues(t);
                    let names = self.net.plan.labeler();
                    self.show(first, r, |v| view::queues(v, &names));
                }
            }
            "buffer_usage" | "bw_usage" => self.usage(first, rest),
            "drops" => {
                let r = self.net.drops();
                self.show(first, r, view::drops);
            }
            "otcp" => {
                let r = self.net.otcp();
                self.show(first, r, view::otcp);
            }
            "pcap" => self.pcap(rest),
            "py" | "px" => self.py(first, rest),
            "xterm" | "gterm" | "dpctl" | "switch" | "wait" => self.compat(first, rest),
            _ if self.net.has_shell(first) => self.node_cmd(first, rest),
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

    /// Mininet's ping verbs: the header for all hosts, each row as it
    /// completes, then the summary.
    pub fn ping(
        &mut self,
        verb: &str,
        hosts: Option<&[usize]>,
        timeout: Option<f64>,
        full: bool,
    ) -> Option<crate::net::values::PingAll> {
        if hosts.is_none() {
            self.say(view::PING_HEADER);
        }
        let mut out = self.net.take_output();
        let r = self.net.ping(hosts, timeout, full, &mut |ev| {
            let s = match ev {
                crate::net::values::PingEvent::Source(src) => view::ping_source(src),
                crate::net::values::PingEvent::Row(row) => view::ping_row_rest(row),
            };
            let _ = out.write_all(s.as_bytes());
            let _ = out.flush();
        });
        self.net.set_output(out);
        self.show(verb, r, view::ping_summary)
    }

    /// `link end1 end2 up|down` (Mininet's checks, then [`Network::link`]).
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
        let r = self.net.link(x, y, state == "up");
        // Success prints nothing (as Mininet); the record is written either way.
        self.show("link", r, |_| String::new());
    }

    /// Host indices of `args` (by name), or None after saying which is not
    /// a host.
    fn two_hosts(&mut self, args: &[&str]) -> Option<(usize, usize)> {
        let mut v = Vec::new();
        let mut err = false;
        for a in args {
            match self.net.node(a).as_ref().and_then(crate::net::Node::host) {
                Some(i) => v.push(i),
                None => {
                    self.say(&format!("node '{a}' not in network"));
                    err = true;
                }
            }
        }
        (!err && v.len() == 2).then(|| (v[0], v[1]))
    }

    fn default_pair(&self) -> Option<(usize, usize)> {
        let n = self.net.plan.hosts.len();
        (n >= 2).then(|| (0, n - 1))
    }

    fn iperf(&mut self, rest: &str) {
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
            self.iperf_pair(c, s, IPERF_SECONDS);
        }
    }

    /// `iperf` between hosts `c` and `s` for `secs`.
    pub fn iperf_pair(
        &mut self,
        c: usize,
        s: usize,
        secs: f64,
    ) -> Option<crate::net::values::Iperf> {
        let (cn, sn) = (&self.net.plan.hosts[c].name, &self.net.plan.hosts[s].name);
        let head = view::iperf_header("TCP", cn, sn);
        self.say(&head);
        let r = self.net.iperf(c, s, secs);
        self.show("iperf", r, |v| view::iperf(v) + "\n")
    }

    /// Mininet's `iperfudp [bw src dst]`: the received and sent rates (bit/s).
    pub fn iperfudp(&mut self, rest: &str) -> Option<crate::net::values::Iperf> {
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
        let Some(bps) = parse_bw(&bw) else {
            self.say(&format!(
                "*** Error: bad bandwidth {bw} (examples: 10M, 1G)"
            ));
            return None;
        };
        if let Some(cap) = self.net.udp_cap(bps) {
            self.say(&view::udp_capped(&bw, cap));
        }
        let (cn, sn) = (&self.net.plan.hosts[c].name, &self.net.plan.hosts[s].name);
        let head = view::iperf_header("UDP", cn, sn);
        self.say(&head);
        let r = self.net.iperfudp(&bw, bps, c, s);
        self.show("iperfudp", r, |v| view::iperf(v) + "\n")
    }

    fn flow(&mut self, rest: &str) {
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
        let r = self.net.flow(c, s, amount);
        self.show("flow", r, |f| view::flow(f) + "\n");
    }

    fn flows(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let n = self.net.plan.hosts.len();
        match crate::traffic::workload::parse_request(&args, n, self.net.host_bps(), &parse_bw) {
            Err(e) => self.say(&format!("*** Error: flows: {e}")),
            Ok(_) if self.sandbox => {}
            Ok(req) => {
                let r = self.net.flows(&req);
                self.show("flows", r, |f| view::flows(f).trim_end().to_string() + "\n");
            }
        }
    }

    /// `memcached ...` and `allreduce ...` (crate::traffic::apps).
    fn app(&mut self, verb: &str, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let plan = &self.net.plan;
        if verb == "memcached" {
            match crate::traffic::apps::parse_memcached(plan, &args, &parse_bw) {
                Err(e) => self.say(&format!("*** Error: {verb}: {e}")),
                Ok(_) if self.sandbox => {}
                Ok(q) => {
                    if let Err(e) = self.net.memcached_check() {
                        self.fail(verb, e);
                        return;
                    }
                    let head = view::memcached_head(&self.net.plan, &q);
                    self.say(&head);
                    let r = self.net.memcached(&q);
                    self.show(verb, r, |m| {
                        view::memcached(m).trim_end().to_string() + "\n"
                    });
                }
            }
        } else {
            match crate::traffic::apps::parse_allreduce(plan, &args, &parse_bw) {
                Err(e) => self.say(&format!("*** Error: {verb}: {e}")),
                Ok(_) if self.sandbox => {}
                Ok(q) => {
                    if let Err(e) = self.net.need_kernel("allreduce") {
                        self.fail(verb, e);
                        return;
                    }
                    let head = view::allreduce_head(&self.net.plan, &q);
                    self.say(&head);
                    let r = self.net.allreduce(&q);
                    self.show(verb, r, |a| {
                        view::allreduce(a).trim_end().to_string() + "\n"
                    });
                }
            }
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
            .map(|w| match self.net.plan.ip_of(w) {
                Some(ip) => ip.to_string(),
                None => w.to_string(),
            })
            .collect();
        if self.sandbox {
            return;
        }
        if let Err(e) = self.net.node_cmd(node, &words.join(" ")) {
            self.say(&view::error(&e));
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

    fn parse_tor(&mut self, arg: &str) -> Option<TorId> {
        let tors = self.net.plan.visible_tors;
        let t = self
            .net
            .plan
            .tor(arg)
            .or_else(|| arg.parse::<usize>().ok().filter(|t| *t < tors));
        if t.is_none() {
            let names = self.net.plan.tor_names();
            self.say(&format!(
                "*** No such ToR: {arg} (use {}..{} or 0..{})",
                names.first().map_or("s1", String::as_str),
                names.last().map_or("s1", String::as_str),
                tors.saturating_sub(1)
            ));
        }
        t.map(|t| t as TorId)
    }

    /// `buffer_usage [tor] [port]` and `bw_usage [tor] [port] [interval]`.
    fn usage(&mut self, verb: &str, rest: &str) {
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
            Some(Ok(p)) if (p as usize) < self.net.plan.uplinks => Some(p),
            Some(_) => return self.say(&format!("*** {verb}: bad port {:?}", args[1])),
            None => None,
        };
        let interval = match args.get(2).map(|i| i.parse::<lh_ctrl::units::Nanos>()) {
            Some(Ok(i)) if i.0 > 0 => i,
            Some(_) => return self.say(&format!("*** {verb}: bad interval {:?}", args[2])),
            None => lh_ctrl::units::Nanos(1_000_000),
        };
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
        let r = self.net.usage(&m);
        let names = self.net.plan.labeler();
        self.show(verb, r, |v| view::usage(v, &names));
    }

    /// `pcap [--readable] <node> <port> FILE | pcap stop`.
    fn pcap(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.first() == Some(&"stop") {
            let v = self.net.stop_pcaps();
            self.show("pcap", Ok(v), view::captures_stopped);
            return;
        }
        let (mode, args) = match args.split_first() {
            Some((&"--readable", rest)) => (crate::kernel::securefs::READABLE_MODE, rest),
            _ => (crate::kernel::securefs::FILE_MODE, &args[..]),
        };
        if args.len() != 3 {
            self.say("usage: pcap [--readable] <tor|host> <port> FILE | pcap stop");
            return;
        }
        // Check the node and port first: a bad one must not create a file.
        let target: Result<PcapTarget, NetworkError> = self.net.pcap_target(args[0], args[1]);
        match target {
            Ok(_) if self.sandbox => {}
            Ok(t) => {
                let r = self.net.pcap(t, Path::new(args[2]), mode);
                self.show("pcap", r, |c| view::capture(c) + "\n");
            }
            Err(e) => self.fail("pcap", e),
        }
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
        let complete = line::Complete {
            commands: help::COMMANDS.iter().map(|(c, _)| c.to_string()).collect(),
            nodes: self.net.node_names(),
        };
        let Ok(mut rl) = line::editor(complete) else {
            self.say("*** Error: cannot open the terminal");
            return;
        };
        // rustyline took SIGINT over: Ctrl-C during a command must reach us.
        signals::reclaim_sigint();
        signals::INTERACTIVE.store(true, Ordering::Relaxed);
        loop {
            if signals::terminating() {
                break;
            }
            match rl.readline(self.prompt) {
                Ok(line) => {
                    line::remember(&mut rl, &line);
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

fn is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

fn stty(arg: &str) {
    let _ = Command::new("stty").arg(arg).status();
}
