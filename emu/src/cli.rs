//! The Mininet-compatible CLI (Mininet 2.3 commands and output text) plus
//! the optical verbs: schedule, slice, table, queues, drops, pcap. A parser
//! over [`Network`], which does the work.
//!
//! Like Mininet, what the CLI and the network report goes to the network's
//! output (stderr); `time`'s line goes to stdout, and the output of
//! `<node> <cmd>` to stderr, as Mininet's logger prints it.

mod compat;
mod help;
#[cfg(test)]
mod tests;

pub use crate::net::{DEFAULT_PING_TIMEOUT, IPERF_SECONDS, MAX_UDP_BPS_NO_FABRIC, Tools, on_path};
pub use crate::text::format::{
    MAX_BPS, MAX_BYTES, MAX_SECONDS, parse_amount, parse_bw, parse_seconds,
};
pub use crate::text::render::{
    IfaceDrops, format_counters, format_entry, format_flow, format_kernel_drops, format_totals,
    parse_net_dev, slice_text, table_text,
};

use crate::kernel::signals;
use crate::net::{Network, PcapTarget};
use crate::text::format;
use lh_ctrl::TorId;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Instant;

pub const PROMPT: &str = "lighthouse> ";

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
}

impl<'a> Cli<'a> {
    pub fn new(net: &'a mut Network) -> Cli<'a> {
        Cli {
            net,
            stdout: Box::new(std::io::stdout()),
            depth: 0,
            input_errors: 0,
            sandbox: false,
        }
    }

    pub(crate) fn say(&mut self, s: &str) {
        self.net.say(s);
    }

    /// Show a network operation's text, or its error message.
    fn show(&mut self, r: Result<String, String>) {
        match r {
            Ok(s) => self.net.say_part(&s),
            Err(e) => self.say(&e),
        }
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
            "help" => self.say(&help::help_text(rest)),
            "nodes" => self.say(&format::nodes(&self.net.node_names())),
            "net" => self.show(Ok(self.net.net_text())),
            "links" => self.show(Ok(self.net.links_text())),
            "link" => self.link(rest),
            "dump" => {
                let d = self.net.dump_text();
                self.net.say_part(&d)
            }
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
                    self.net.pingall((!rest.is_empty()).then_some(rest));
                }
            }
            "pingallfull" => {
                self.net.ping(None, None, true);
            }
            "pingpair" | "pingpairfull" => {
                let hs = (self.net.plan.hosts.len() >= 2).then(|| vec![0, 1]);
                self.net.ping(hs.as_deref(), None, first == "pingpairfull");
            }
            "iperf" => self.iperf(rest),
            "iperfudp" => {
                let _ = self.iperfudp(rest);
            }
            "flow" => self.flow(rest),
            "flows" => self.flows(rest),
            "memcached" | "allreduce" => self.app(first, rest),
            "sh" if self.sandbox => {}
            "sh" => self.net.sh(rest),
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
            "schedule" => self.show(self.net.schedule((!rest.is_empty()).then_some(rest))),
            "slice" => self.show(self.net.slice()),
            "table" => {
                if let Some(t) = self.parse_tor(rest) {
                    self.show(self.net.table(t));
                }
            }
            "queues" => {
                if let Some(t) = self.parse_tor(rest) {
                    self.show(self.net.queues(t));
                }
            }
            "buffer_usage" | "bw_usage" => self.usage(first, rest),
            "drops" => self.show(self.net.drops()),
            "otcp" => self.show(self.net.otcp()),
            "pcap" => self.pcap(rest),
            "xterm" | "gterm" | "py" | "px" | "dpctl" | "switch" | "wait" => {
                self.compat(first, rest)
            }
            _ if self.net.is_node(first) => self.node_cmd(first, rest),
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

    fn intfs(&mut self) {
        for n in self.net.node_names() {
            let l: Vec<String> = self.net.intf_list(&n).into_iter().map(|(i, _)| i).collect();
            self.say(&format!("{n}: {}", l.join(",")));
        }
    }

    fn ports(&mut self) {
        for name in self.net.switch_names() {
            let l = self.net.intf_list(&name);
            let p: Vec<(&str, usize)> = l
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.as_str(), i))
                .collect();
            let s = format::ports_line(&name, &p);
            self.say(&s);
        }
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
        if let Err(e) = self.net.link(x, y, state == "up") {
            self.say(&e);
        }
    }

    /// Host indices of `args` (by name), or None after saying which is not
    /// a host.
    fn two_hosts(&mut self, args: &[&str]) -> Option<(usize, usize)> {
        let mut v = Vec::new();
        let mut err = false;
        for a in args {
            match self.net.plan.host(a) {
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
            self.net.iperf(c, s, IPERF_SECONDS);
        }
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
        let Some(bps) = parse_bw(&bw) else {
            self.say(&format!(
                "*** Error: bad bandwidth {bw} (examples: 10M, 1G)"
            ));
            return None;
        };
        self.net.iperfudp(&bw, bps, c, s)
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
        self.net.flow(c, s, amount);
    }

    fn flows(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let n = self.net.plan.hosts.len();
        match crate::traffic::workload::parse_request(&args, n, self.net.host_bps(), &parse_bw) {
            Err(e) => self.say(&format!("*** Error: flows: {e}")),
            Ok(_) if self.sandbox => {}
            Ok(req) => {
                if let Err(e) = self.net.flows(&req) {
                    self.say(&e);
                }
            }
        }
    }

    /// `memcached ...` and `allreduce ...` (crate::traffic::apps).
    fn app(&mut self, verb: &str, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        let plan = &self.net.plan;
        let r = if verb == "memcached" {
            crate::traffic::apps::parse_memcached(plan, &args, &parse_bw).map(|q| {
                if !self.sandbox {
                    let _ = self.net.memcached(&q).map_err(|e| self.net.say(&e));
                }
            })
        } else {
            crate::traffic::apps::parse_allreduce(plan, &args, &parse_bw).map(|q| {
                if !self.sandbox {
                    let _ = self.net.allreduce(&q).map_err(|e| self.net.say(&e));
                }
            })
        };
        if let Err(e) = r {
            self.say(&format!("*** Error: {verb}: {e}"));
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
        self.net.node_cmd(node, &words.join(" "));
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
        let tors = self.net.plan.tors;
        let t = self
            .net
            .plan
            .tor(arg)
            .or_else(|| arg.parse::<usize>().ok().filter(|t| *t < tors));
        if t.is_none() {
            self.say(&format!(
                "*** No such ToR: {arg} (use s1..s{tors} or 0..{})",
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
        self.show(self.net.usage(&m));
    }

    /// `pcap [--readable] <node> <port> FILE | pcap stop`.
    fn pcap(&mut self, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.first() == Some(&"stop") {
            let n = self.net.stop_pcaps();
            self.say(&format!("*** Stopped {n} capture(s)"));
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
        let target: Result<PcapTarget, String> = self.net.pcap_target(args[0], args[1]);
        match target {
            Ok(_) if self.sandbox => {}
            Ok(t) => {
                let r = self.net.pcap(t, Path::new(args[2]), mode);
                self.show(r.map(|s| s + "\n"));
            }
            Err(e) => self.say(&e),
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
        let Ok(mut rl) = rustyline::DefaultEditor::new() else {
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

fn is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

fn stty(arg: &str) {
    let _ = Command::new("stty").arg(arg).status();
}
