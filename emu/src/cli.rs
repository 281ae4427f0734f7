//! The Mininet-compatible CLI (Mininet 2.3 commands and output text) plus
//! the optical verbs: schedule, slice, table, queues, drops, pcap. A parser
//! over [`Network`], which does the work.
//!
//! Like Mininet, what the CLI and the network report goes to the network's
//! output (stderr); `time`'s line goes to stdout, and the output of
//! `<node> <cmd>` to stderr, as Mininet's logger prints it.
//!
//! This file is the loop's front: [`Cli::onecmd`] reads a line's verb and
//! hands it to its family, one file each in `cli/`: `topo` (nodes, net,
//! links, link, dump, intfs, ports), `traffic` (the ping verbs, iperf,
//! iperfudp, flow, flows, memcached, allreduce), `optical` (schedule,
//! slice, table, queues, buffer_usage, bw_usage, drops, otcp), `pcap`,
//! `shell` (sh, `<node> <cmd>`), `input` (source, noecho, stdin and the
//! prompt), `compat` and `py`; `help` has the command list, `line` the
//! prompt's line editor.

mod compat;
mod help;
mod input;
mod line;
mod optical;
mod pcap;
mod py;
mod shell;
#[cfg(test)]
mod tests;
mod topo;
mod traffic;

pub use py::PyHook;

pub use crate::net::{DEFAULT_PING_TIMEOUT, IPERF_SECONDS, MAX_UDP_BPS_NO_FABRIC, Tools, on_path};
pub use crate::text::format::{
    MAX_BPS, MAX_BYTES, MAX_SECONDS, parse_amount, parse_bw, parse_seconds,
};
pub use crate::text::render::{
    IfaceDrops, format_counters, format_entry, format_kernel_drops, format_totals, parse_net_dev,
};
pub use crate::text::view::{format_flow, slice_text, table_text};

use crate::net::{Network, NetworkError};
use crate::text::{format, view};
use serde::Serialize;
use std::io::Write;
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
            "nodes" | "net" | "links" | "link" | "dump" | "intfs" | "ports" => {
                self.topology(first, rest)
            }
            "pingall" | "pingallfull" | "pingpair" | "pingpairfull" => self.pings(first, rest),
            "iperf" => self.iperf(rest),
            "iperfudp" => {
                let _ = self.iperfudp(rest);
            }
            "flow" => self.flow(rest),
            "flows" => self.flows(rest),
            "memcached" | "allreduce" => self.app(first, rest),
            "sh" => self.sh(rest),
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
            "noecho" => return self.noecho(rest),
            "exit" | "quit" => return Flow::Exit,
            "EOF" => {
                self.say("");
                return Flow::Exit;
            }
            "schedule" | "slice" | "table" | "queues" | "buffer_usage" | "bw_usage" | "drops"
            | "otcp" => self.optical(first, rest),
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
}
