//! Shell commands: `sh <cmd>` outside the network, and `<node> <cmd>` in
//! a node.

use super::Cli;
use crate::text::view;

impl Cli<'_> {
    /// `sh <cmd>` (none in the sandbox).
    pub(super) fn sh(&mut self, rest: &str) {
        if self.sandbox {
            return;
        }
        if let Err(e) = self.net.sh(rest, self.json.is_some()) {
            self.say(&view::error(&e));
        }
    }

    /// `<node> <cmd>`: later words that are node names become their IPs.
    pub(super) fn node_cmd(&mut self, node: &str, rest: &str) {
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
}
