//! A node of a run, resolved once from its name: what it is decides where
//! its commands run, which interfaces it has and which pid `dump` shows.

use super::Network;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Node {
    /// Host `h<K>`: index `K-1` into `plan.hosts`.
    Host(usize),
    /// ToR `s<T+1>` on the native data plane (swtor, in the fabric
    /// namespace).
    NativeTor(usize),
    /// ToR `s<T+1>` running the P4 program on BMv2, in its own namespace.
    Bmv2Tor(usize),
    /// A fat tree's aggregation or core switch (in the fabric's data
    /// plane), by name.
    Switch(String),
}

impl Node {
    /// The ToR index of a ToR.
    pub fn tor(&self) -> Option<usize> {
        match self {
            Node::NativeTor(t) | Node::Bmv2Tor(t) => Some(*t),
            _ => None,
        }
    }

    pub fn host(&self) -> Option<usize> {
        match self {
            Node::Host(i) => Some(*i),
            _ => None,
        }
    }
}

impl Network {
    /// The node called `name`, if the run has one.
    pub fn node(&self, name: &str) -> Option<Node> {
        if let Some(h) = self.plan.host(name) {
            return Some(Node::Host(h.k - 1));
        }
        if let Some(t) = self.plan.tor(name) {
            return Some(if self.plan.is_bmv2(t) {
                Node::Bmv2Tor(t)
            } else {
                Node::NativeTor(t)
            });
        }
        self.inner_switches()
            .into_iter()
            .any(|s| s == name)
            .then(|| Node::Switch(name.to_string()))
    }

    pub fn is_node(&self, name: &str) -> bool {
        self.node(name).is_some()
    }
}
