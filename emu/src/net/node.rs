//! A node of a run, resolved once from its name: what it is decides where
//! its commands run, which interfaces it has and which pid `dump` shows.

use super::{Network, NetworkError};
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

/// Mininet's node methods (`IP()`, `MAC()`, `cmd()`), for the CLI's `py`
/// and the Python API (`lighthouse.mininet`).
impl Network {
    /// `node.IP()`: a host's address; None for a switch (a ToR has no
    /// address of its own).
    pub fn node_ip(&self, name: &str) -> Result<Option<String>, NetworkError> {
        match self.node(name) {
            None => Err(NetworkError::NoSuchNode(name.to_string())),
            Some(Node::Host(i)) => Ok(Some(self.plan.hosts[i].ip.to_string())),
            Some(_) => Ok(None),
        }
    }

    /// `node.MAC()`: a host interface's MAC (kernel-random, or Mininet's
    /// with `--mac`); None for a switch.
    pub fn node_mac(&self, name: &str) -> Result<Option<String>, NetworkError> {
        match self.node(name) {
            None => Err(NetworkError::NoSuchNode(name.to_string())),
            Some(Node::Host(i)) => {
                let k = self.kernel().ok_or(NetworkError::NeedsKernel("MAC()"))?;
                Ok(k.macs.get(i).map(crate::plan::fmt_mac))
            }
            Some(_) => Ok(None),
        }
    }

    /// `node.cmd(line)`: run `line` in the node's shell and return what it
    /// printed (stdout and stderr), as Mininet's `Node.cmd`.
    pub fn node_cmd_output(&mut self, name: &str, line: &str) -> Result<String, NetworkError> {
        let sink = crate::text::sink::TextSink::new();
        let old = std::mem::replace(&mut self.out, Box::new(sink.clone()));
        let r = self.node_cmd(name, line);
        self.out = old;
        r.map(|_| sink.take())
    }
}
