//! Where command lines come from: a file (`source`), stdin, or the
//! interactive prompt (its line editor: [`super::line`]); and `noecho`,
//! which turns the terminal's echo off around a command.

use super::{Cli, Flow, MAX_LINE, help, line};
use crate::kernel::signals;
use std::io::BufRead;
use std::process::Command;
use std::sync::atomic::Ordering;

impl Cli<'_> {
    /// `noecho <cmd>`: the command with the terminal's echo off.
    pub(super) fn noecho(&mut self, rest: &str) -> Flow {
        let tty = is_tty();
        if tty {
            stty("-echo");
        }
        let f = self.nested(rest);
        if tty {
            stty("echo");
        }
        f
    }

    pub(super) fn source(&mut self, rest: &str) -> Flow {
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
