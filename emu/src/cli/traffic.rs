//! The traffic verbs: Mininet's `pingall`, `pingallfull`, `pingpair`,
//! `pingpairfull`, `iperf`, `iperfudp`, and the optical CLI's `flow`,
//! `flows`, `memcached`, `allreduce` ([`crate::traffic`]).

use super::{Cli, IPERF_SECONDS, MAX_SECONDS, parse_amount, parse_bw, parse_seconds};
use crate::text::view;
use std::io::Write;

impl Cli<'_> {
    /// `pingall [timeout]`, `pingallfull`, `pingpair`, `pingpairfull`.
    pub(super) fn pings(&mut self, verb: &str, rest: &str) {
        match verb {
            "pingall" => {
                if rest.split_whitespace().count() > 1 {
                    self.say("*** Error: usage: pingall [timeout]");
                } else if !rest.is_empty() && parse_seconds(rest).is_none() {
                    self.say(&format!(
                        "*** Error: pingall: bad timeout {rest} (seconds, > 0 and at most {MAX_SECONDS})"
                    ));
                } else {
                    self.ping(verb, None, parse_seconds(rest), false);
                }
            }
            "pingallfull" => {
                self.ping(verb, None, None, true);
            }
            // pingpair, pingpairfull
            _ => {
                let hs = (self.net.plan.hosts.len() >= 2).then(|| vec![0, 1]);
                self.ping(verb, hs.as_deref(), None, verb == "pingpairfull");
            }
        }
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

    pub(super) fn iperf(&mut self, rest: &str) {
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

    pub(super) fn flow(&mut self, rest: &str) {
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

    pub(super) fn flows(&mut self, rest: &str) {
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
    pub(super) fn app(&mut self, verb: &str, rest: &str) {
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
}
