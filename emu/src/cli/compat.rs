//! Mininet verbs with no optical counterpart: `xterm`, `switch`, and the
//! one-line answers for `dpctl`, `wait` (`py`/`px`: cli/py.rs).

use super::Cli;
use std::process::Command;

impl Cli<'_> {
    /// One of the verbs above.
    pub(super) fn compat(&mut self, verb: &str, rest: &str) {
        match verb {
            "xterm" | "gterm" => self.xterm(verb, rest),
            "switch" => self.switch(rest),
            "dpctl" => self.say(
                "*** dpctl: ToRs are not OpenFlow switches; see a ToR's time-flow table with `table <tor>`, its calendar queues with `queues <tor>`, and the data-plane counters with `drops`",
            ),
            // Mininet's waitConnected: no controller here, every ToR runs
            // its table from the start, so all are connected.
            _ => {
                let s = format!(
                    "*** Waiting for switches to connect\n{} ",
                    self.net.plan.tor_names().join(" ")
                );
                self.say(&s);
            }
        }
    }

    /// `xterm node1 node2 ...`: like Mininet, an error without a display.
    fn xterm(&mut self, term: &str, rest: &str) {
        let args: Vec<&str> = rest.split_whitespace().collect();
        if args.is_empty() {
            self.say(&format!("usage: {term} node1 node2 ..."));
            return;
        }
        for a in args {
            if !self.net.is_node(a) {
                self.say(&format!("node '{a}' not in network"));
                continue;
            }
            let Some(display) = std::env::var_os("DISPLAY").filter(|d| !d.is_empty()) else {
                self.say("Error: Cannot connect to display");
                continue;
            };
            if self.sandbox {
                continue;
            }
            let prog = if term == "gterm" {
                "gnome-terminal"
            } else {
                "xterm"
            };
            let Some(ns) = self.net.node_ns(a) else {
                continue;
            };
            let mut c = Command::new(prog);
            c.args(["-title", &format!("Node: {a}"), "-display"])
                .arg(display)
                .args(["-e", "env TERM=ansi sh"]);
            match crate::netns::spawn_in(&ns, &mut c) {
                Ok(ch) => self.net.add_child(ch.id()),
                Err(e) => self.say(&format!("*** Error: {prog}: {e}")),
            }
        }
    }

    /// Mininet's `switch <name> start|stop`: arguments checked the same
    /// way; a ToR cannot be stopped on its own, so it names what can.
    fn switch(&mut self, rest: &str) {
        let a: Vec<&str> = rest.split_whitespace().collect();
        let [sw, cmd] = a[..] else {
            self.say("invalid number of args: switch <switch name>{start, stop}");
            return;
        };
        if self.net.plan.tor(sw).is_none() {
            self.say(&format!("invalid switch: {cmd}"));
        } else if cmd != "start" && cmd != "stop" {
            self.say("invalid command: switch <switch name> {start, stop}");
        } else {
            self.say(&format!(
                "*** switch {sw} {cmd}: not supported (a ToR's data plane is shared by all ToRs); take its hosts' links {} instead: link <host> {sw} {}",
                if cmd == "stop" { "down" } else { "up" },
                if cmd == "stop" { "down" } else { "up" }
            ));
        }
    }
}
