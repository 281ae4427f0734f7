//! The optical verbs: `schedule`, `slice`, `table`, `queues`,
//! `buffer_usage`, `bw_usage`, `drops`, `otcp`.

use super::Cli;
use crate::text::view;
use lh_ctrl::TorId;

impl Cli<'_> {
    /// One of the verbs above.
    pub(super) fn optical(&mut self, verb: &str, rest: &str) {
        match verb {
            "schedule" => {
                let r = self.net.schedule((!rest.is_empty()).then_some(rest));
                let names = self.net.plan.labeler();
                self.show(verb, r, |v| view::slice_named(v, &names));
            }
            "slice" => {
                let r = self.net.slice();
                self.show(verb, r, view::slice_now);
            }
            "table" => {
                if let Some(t) = self.parse_tor(rest) {
                    let r = self.net.table(t);
                    let names = self.net.plan.labeler();
                    self.show(verb, r, |v| view::table_named(v, &names));
                }
            }
            "queues" => {
                if let Some(t) = self.parse_tor(rest) {
                    let r = self.net.queues(t);
                    let names = self.net.plan.labeler();
                    self.show(verb, r, |v| view::queues(v, &names));
                }
            }
            "buffer_usage" | "bw_usage" => self.usage(verb, rest),
            "drops" => {
                let r = self.net.drops();
                self.show(verb, r, view::drops);
            }
            // otcp
            _ => {
                let r = self.net.otcp();
                self.show(verb, r, view::otcp);
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
}
