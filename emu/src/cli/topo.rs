//! Mininet's topology verbs: `nodes`, `net`, `links`, `link`, `dump`,
//! `intfs`, `ports`.

use super::Cli;
use crate::text::view;

impl Cli<'_> {
    /// One of the verbs above.
    pub(super) fn topology(&mut self, verb: &str, rest: &str) {
        match verb {
            "nodes" => {
                let n = self.net.nodes();
                self.show(verb, Ok(n), |n| view::nodes(n) + "\n");
            }
            "net" => {
                let v = self.net.net_view();
                self.show(verb, Ok(v), view::net);
            }
            "links" => {
                let v = self.net.links();
                self.show(verb, Ok(v), view::links);
            }
            "link" => self.link(rest),
            "dump" => {
                let d = self.net.dump();
                self.show(verb, Ok(d), view::dump);
            }
            "intfs" => {
                let v = self.net.net_view();
                self.show(verb, Ok(v), view::intfs);
            }
            // ports
            _ => {
                let v = self.net.ports();
                self.show(verb, Ok(v), view::ports);
            }
        }
    }

    /// `link end1 end2 up|down` (Mininet's checks, then
    /// [`Network::link`](crate::net::Network::link)).
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
}
