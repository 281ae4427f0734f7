//! Nodes of a run: where each one's commands run, its interfaces and
//! their far ends, its pid, and the `link` verb.

use super::values::{Dump, DumpNode, Intf, Link, Links, NetView, NodeIntfs, Nodes};
use super::*;

impl Network {
    /// The namespace a node's commands run in (native ToRs share the fabric
    /// one, a BMv2 ToR has its own).
    pub fn node_ns(&self, node: &str) -> Option<PathBuf> {
        match self.node(node)? {
            Node::Host(i) => Some(self.host_ns(&self.plan.hosts[i])),
            Node::Bmv2Tor(t) => Some(self.tor_ns(t)),
            Node::NativeTor(_) => Some(self.fabric_ns()),
            Node::Switch(_) => None,
        }
    }

    /// Whether `name` takes `<node> <cmd>`: hosts and ToRs.
    pub fn has_shell(&self, name: &str) -> bool {
        matches!(
            self.node(name),
            Some(Node::Host(_) | Node::NativeTor(_) | Node::Bmv2Tor(_))
        )
    }

    /// Run `cmdline` in `node`'s persistent shell (host/shell.rs) and wait
    /// for it; its output goes to the network's output, like Mininet's
    /// logger.
    pub fn node_cmd(
        &mut self,
        node: &str,
        cmdline: &str,
    ) -> Result<crate::host::shell::Outcome, NetworkError> {
        let ns = self
            .node_ns(node)
            .ok_or_else(|| NetworkError::NoSuchNode(node.to_string()))?;
        // The node's persistent shell (host/shell.rs); its output goes to the
        // network's output (stderr), like Mininet's logger.
        let mut record = record_child(&mut self.net);
        self.shells
            .run(node, &ns, cmdline, &mut *self.out, Some(&mut record))
            .map_err(|e| NetworkError::Failed(e.to_string()))
    }

    /// Mininet's `node.sendCmd(...)`: `cmdline` goes to the node's shell and
    /// this returns at once; [`Network::node_read`] gives what it prints.
    pub fn node_send(&mut self, node: &str, cmdline: &str) -> Result<(), NetworkError> {
        let ns = self
            .node_ns(node)
            .ok_or_else(|| NetworkError::NoSuchNode(node.to_string()))?;
        let mut record = record_child(&mut self.net);
        self.shells
            .send(node, &ns, cmdline, Some(&mut record))
            .map_err(|e| NetworkError::Failed(e.to_string()))
    }

    /// Mininet's `node.monitor(timeoutms)`: what the node's shell printed
    /// (one read, after up to `timeout` of waiting for output), and the
    /// exit status once the command sent with [`Network::node_send`] ended.
    pub fn node_read(
        &mut self,
        node: &str,
        timeout: Option<std::time::Duration>,
    ) -> Result<(String, Option<i32>), NetworkError> {
        if !self.has_shell(node) {
            return Err(NetworkError::NoSuchNode(node.to_string()));
        }
        let (out, status) = self
            .shells
            .read(node, timeout)
            .map_err(|e| NetworkError::Failed(e.to_string()))?;
        Ok((String::from_utf8_lossy(&out).into_owned(), status))
    }

    /// Mininet's `node.sendInt()`: interrupts the command the node's shell
    /// runs.
    pub fn node_interrupt(&self, node: &str) {
        self.shells.interrupt(node);
    }

    /// Whether a command sent with [`Network::node_send`] has not ended.
    pub fn node_waiting(&self, node: &str) -> bool {
        self.shells.waiting(node)
    }

    /// The raw fd of the node's shell output (Mininet's `node.stdout`, to
    /// `poll` several nodes at once), the shell started if it has none.
    pub fn node_stdout_fd(&mut self, node: &str) -> Result<i32, NetworkError> {
        let ns = self
            .node_ns(node)
            .ok_or_else(|| NetworkError::NoSuchNode(node.to_string()))?;
        let mut record = record_child(&mut self.net);
        self.shells
            .ensure(node, &ns, Some(&mut record))
            .map_err(|e| NetworkError::Failed(e.to_string()))
    }

    /// `sh CMD`: a shell command outside the network.
    /// `stdout_to_stderr`: the command's standard output goes to stderr
    /// (`--json` keeps stdout for the records).
    pub fn sh(&mut self, cmdline: &str, stdout_to_stderr: bool) -> Result<(), NetworkError> {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmdline);
        if stdout_to_stderr {
            c.stdout(std::io::stderr());
        }
        let mut ch = c.spawn().map_err(|e| NetworkError::Failed(e.to_string()))?;
        let _ = ch.wait();
        Ok(())
    }

    /// A pid for `dump`: a BMv2 ToR's simple_switch, the data-plane thread
    /// for a native ToR, a process in a host's namespace for a host (one
    /// is started the first time it is asked for).
    pub fn node_pid(&mut self, node: &str) -> u32 {
        let dataplane = self.fabric.as_ref().and_then(|f| f.dataplane_tid());
        let i = match self.node(node) {
            None => return self.shells.pid(node).unwrap_or(self.pid),
            Some(Node::Switch(_)) => return dataplane.unwrap_or(self.pid),
            Some(Node::NativeTor(_) | Node::Bmv2Tor(_))
                if self.fabric.is_none() && self.p4.is_none() =>
            {
                return self.pid;
            }
            Some(Node::NativeTor(t) | Node::Bmv2Tor(t)) => {
                return match self.p4.as_ref().and_then(|p| p.get(t)) {
                    Some(p) => p.switch.pid(),
                    None => dataplane.unwrap_or(self.pid),
                };
            }
            Some(Node::Host(i)) => i,
        };
        if let Some(p) = self.shells.pid(node) {
            return p;
        }
        if let Some(Some(c)) = self.holders.get(i) {
            return c.id();
        }
        if self.net.is_none() || i >= self.holders.len() {
            return self.pid;
        }
        let ns = self.host_ns(&self.plan.hosts[i]);
        let mut c = Command::new("sleep");
        c.arg("infinity")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match netns::spawn_in(&ns, &mut c) {
            Ok(ch) => {
                let pid = ch.id();
                self.add_child(pid);
                self.holders[i] = Some(ch);
                pid
            }
            Err(_) => self.pid,
        }
    }

    /// The far ends of ToR `t`'s uplinks: for an optical uplink the ToR
    /// uplinks the OCS connects it to over the cycle (first-seen order), for
    /// an electrical one the packet switch. Empty without a schedule.
    pub fn uplink_peers(&self, t: usize) -> Vec<(String, Vec<String>)> {
        let Some(c) = &self.compiled else {
            return Vec::new();
        };
        let s = &c.schedule;
        let mut v: Vec<(String, Vec<String>)> = (0..s.uplinks())
            .map(|p| (self.plan.uplink_label(t, p), Vec::new()))
            .collect();
        for ts in 0..s.slices() {
            for (a, b) in s.circuits(ts as SliceId) {
                if a.tor as usize != t || self.plan.is_hidden_tor(b.tor as usize) {
                    continue;
                }
                let peer = self.plan.uplink_label(b.tor as usize, b.port as usize);
                if let Some((_, l)) = v.get_mut(a.port as usize)
                    && !l.contains(&peer)
                {
                    l.push(peer);
                }
            }
        }
        for (_, l) in v.iter_mut().skip(s.optical_uplinks()) {
            l.push(ELECTRICAL_PEER.to_string());
        }
        v
    }

    /// Interfaces of a node with their far ends, Mininet order: host ports,
    /// then uplinks (their peers joined by commas), then a BMv2 CPU port.
    pub fn intf_list(&self, node: &str) -> Vec<(String, Option<String>)> {
        let t = match self.node(node) {
            None => return Vec::new(),
            Some(Node::Host(i)) => {
                let name = self.plan.hosts[i].name.as_str();
                return self
                    .plan
                    .intfs_of(name)
                    .map(|h| (h.host_if.clone(), Some(h.tor_if.clone())))
                    .collect();
            }
            Some(Node::Switch(_)) => None,
            Some(Node::NativeTor(t) | Node::Bmv2Tor(t)) => Some(t),
        };
        let fat = crate::link::fattree::fat_tree(self.compiled.as_ref());
        let fat_ports = fat
            .as_ref()
            .and_then(|t| crate::link::fattree::switch_ports(t, node))
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| (a, Some(b)));
        let Some(t) = t else {
            // A fat tree's aggregation or core switch.
            let mut v = vec![("lo".to_string(), None)];
            let before = v.len();
            v.extend(fat_ports);
            return if v.len() > before { v } else { Vec::new() };
        };
        let mut v = vec![("lo".to_string(), None)];
        v.extend(
            self.plan
                .ports_of(t)
                .into_iter()
                .map(|h| (h.tor_if.clone(), Some(h.host_if.clone()))),
        );
        if fat.is_some() {
            // Its uplinks are the fat tree's (no ToR uplinks or OCS).
            v.extend(fat_ports);
            return v;
        }
        let peers = self.uplink_peers(t);
        if !peers.is_empty() {
            // A Mininet topology shows the links it has: an uplink with no
            // circuit (or only to a hidden ToR) is not one.
            let mn = !self.plan.uplink_labels.is_empty();
            v.extend(
                peers
                    .into_iter()
                    .filter(|(_, l)| !mn || !l.is_empty())
                    .map(|(i, l)| (i, (!l.is_empty()).then(|| l.join(",")))),
            );
            if !self.plan.uplink_labels.is_empty() {
                // Mininet numbers a switch's ports in link order, host and
                // switch links alike: show them in that order.
                v[1..].sort_by_key(|(n, _)| mn_port(n));
            }
        } else if self.plan.is_bmv2(t) {
            v.extend((0..self.plan.uplinks).map(|p| (uplink_if(t, p), None)));
        }
        if self.plan.is_bmv2(t) {
            // A BMv2 ToR's uplinks and CPU port are real interfaces in its
            // namespace; their other ends are swtor's (the OCS).
            v.push((crate::plan::cpu_if(t), None));
        }
        v
    }

    /// A fat tree's aggregation and core switches (none otherwise): they
    /// run in the fabric's data plane, beside the edge switches (the ToRs).
    pub(super) fn inner_switches(&self) -> Vec<String> {
        crate::link::fattree::fat_tree(self.compiled.as_ref())
            .map(|t| crate::link::fattree::inner_switches(&t))
            .unwrap_or_default()
    }

    /// Every switch: the ToRs, then a fat tree's aggregation and core
    /// switches.
    pub fn switch_names(&self) -> Vec<String> {
        let mut v = self.plan.tor_names();
        v.extend(self.inner_switches());
        v
    }

    /// Every node: hosts, then [`Network::switch_names`].
    pub fn node_names(&self) -> Vec<String> {
        let mut v = self.plan.node_names();
        v.extend(self.inner_switches());
        v
    }

    /// `net` (and `intfs`): each node's interfaces and their far ends.
    pub fn net_view(&self) -> NetView {
        self.view_of(self.node_names())
    }

    /// `ports`: the switches' interfaces (an interface's index is its port).
    pub fn ports(&self) -> NetView {
        self.view_of(self.switch_names())
    }

    fn view_of(&self, names: Vec<String>) -> NetView {
        let nodes = names
            .into_iter()
            .map(|n| NodeIntfs {
                intfs: self
                    .intf_list(&n)
                    .into_iter()
                    .map(|(name, peer)| Intf { name, peer })
                    .collect(),
                node: n,
            })
            .collect();
        NetView { nodes }
    }

    /// `nodes`.
    pub fn nodes(&self) -> Nodes {
        Nodes {
            hosts: self.plan.hosts.iter().map(|h| h.name.clone()).collect(),
            switches: self.switch_names(),
        }
    }

    /// `links`: host links with the state of both veth ends, then the ToR
    /// uplinks: each circuit pair of the cycle once, and electrical ports.
    pub fn links(&self) -> Links {
        let (hosts, fab) = self.present_links();
        let link = |a: &str, b: &str, a_up: bool, b_up: bool| Link {
            a: a.to_string(),
            b: b.to_string(),
            a_up,
            b_up,
        };
        let mut v = Vec::new();
        if !self.plan.mn_links.is_empty() {
            // A Mininet topology: its links in Mininet's order, host ends
            // checked in the kernel, ToR uplinks up while the data plane runs.
            let ok = |i: &str| match self.plan.all_intfs().find(|h| h.host_if == i) {
                Some(h) => hosts.get(h.k - 1).copied().unwrap_or(false),
                None if fab.iter().any(|f| f == i) => true,
                None => self.fabric.is_some() && !self.plan.all_intfs().any(|h| h.tor_if == i),
            };
            for (a, b) in &self.plan.mn_links {
                v.push(link(a, b, ok(a), ok(b)));
            }
            return Links { links: v };
        }
        for h in &self.plan.hosts {
            let a_ok = hosts.get(h.k - 1).copied().unwrap_or(false);
            let b_ok = fab.contains(&h.tor_if);
            v.push(link(&h.host_if, &h.tor_if, a_ok, b_ok));
        }
        if let Some(t) = crate::link::fattree::fat_tree(self.compiled.as_ref()) {
            let ok = self.fabric.is_some();
            v.extend(
                crate::link::fattree::switch_links(&t)
                    .into_iter()
                    .map(|(a, b)| {
                        let ok = ok && !self.failed_between(&a, &b);
                        link(&a, &b, ok, ok)
                    }),
            );
            return Links { links: v };
        }
        // A native uplink is a port of the running data plane; a BMv2 one a
        // veth in its namespace.
        let up = |i: &str, t: usize| {
            if self.plan.is_bmv2(t) {
                fab.iter().any(|f| f == i)
            } else {
                self.fabric.is_some()
            }
        };
        for t in 0..self.plan.visible_tors {
            for (i, peers) in self.uplink_peers(t) {
                for p in peers {
                    if p == ELECTRICAL_PEER {
                        v.push(link(&i, &p, up(&i, t), self.fabric.is_some()));
                        continue;
                    }
                    let pt = self
                        .plan
                        .tor(p.split('-').next().unwrap_or(""))
                        .unwrap_or(0);
                    if (pt, p.as_str()) < (t, i.as_str()) {
                        continue;
                    }
                    let ok = !self.failed_between(&i, &p);
                    v.push(link(&i, &p, ok && up(&i, t), ok && up(&p, pt)));
                }
            }
        }
        Links { links: v }
    }

    /// Whether `link X Y down` failed the link between interfaces `a` and
    /// `b` (`s1-up0`, `a1-eth2`: the node is the name before the dash).
    fn failed_between(&self, a: &str, b: &str) -> bool {
        let node = |i: &str| i.split('-').next().unwrap_or("").to_string();
        !self.failed.is_empty() && self.failed.contains(&failed_key(&node(a), &node(b)))
    }

    /// Which host ends exist (per host interface, index K-1) and which
    /// ToR-side interfaces exist.
    fn present_links(&self) -> (Vec<bool>, Vec<String>) {
        use crate::kernel::netlink;
        let hosts = self
            .plan
            .all_intfs()
            .map(|h| {
                let ifn = h.host_if.clone();
                netlink::with_netlink(Some(&self.host_ns(h)), |nl| async move {
                    Ok(netlink::link_names(&nl).await?.contains(&ifn))
                })
                .unwrap_or(false)
            })
            .collect();
        let mut fab = netlink::with_netlink(Some(&self.fabric_ns()), |nl| async move {
            netlink::link_names(&nl).await
        })
        .unwrap_or_default();
        for t in self.plan.bmv2_tors() {
            fab.extend(
                netlink::with_netlink(Some(&self.tor_ns(t)), |nl| async move {
                    netlink::link_names(&nl).await
                })
                .unwrap_or_default(),
            );
        }
        (hosts, fab)
    }

    /// `dump`: Mininet's node reprs with per-node pids.
    pub fn dump(&mut self) -> Dump {
        let mut nodes = Vec::new();
        for i in 0..self.plan.hosts.len() {
            let h = self.plan.hosts[i].clone();
            let pid = self.node_pid(&h.name);
            let intfs = self
                .plan
                .intfs_of(&h.name)
                .map(|i| {
                    let ip = (!i.ip.is_unspecified()).then(|| i.ip.to_string());
                    (i.host_if.clone(), ip)
                })
                .collect();
            nodes.push(DumpNode {
                class: "Host",
                intfs,
                name: h.name,
                pid,
            });
        }
        let fat = !self.inner_switches().is_empty();
        let switches = (0..self.plan.visible_tors).map(|t| {
            let class = if self.plan.is_bmv2(t) && self.p4.is_some() {
                "P4ToR"
            } else if fat {
                "FatTreeSwitch"
            } else {
                "OpticalToR"
            };
            (class, self.plan.tor_label(t))
        });
        let inner = self.inner_switches().into_iter();
        let switches: Vec<_> = switches
            .chain(inner.map(|n| ("FatTreeSwitch", n)))
            .collect();
        for (class, name) in switches {
            let intfs = self
                .intf_list(&name)
                .into_iter()
                .map(|(i, _)| {
                    let ip = (i == "lo").then(|| "127.0.0.1".to_string());
                    (i, ip)
                })
                .collect();
            let pid = self.node_pid(&name);
            nodes.push(DumpNode {
                class,
                name,
                intfs,
                pid,
            });
        }
        Dump { nodes }
    }

    /// Mininet's `link X Y up|down` for a host and its ToR: both ends of the
    /// host's veth go down (up). The one place the `link` verb acts (ToR
    /// uplinks are OCS circuits, fat-tree links switch ports).
    pub fn link(&mut self, x: &str, y: &str, up: bool) -> Result<(), NetworkError> {
        self.set_link(x, y, up)?;
        // Switch-switch links (optical circuits, fat-tree links) have no
        // kernel interface whose state `links` could read: remember them.
        if self.node(x).is_some_and(|n| n.host().is_none())
            && self.node(y).is_some_and(|n| n.host().is_none())
        {
            let key = failed_key(x, y);
            if up {
                self.failed.remove(&key);
            } else {
                self.failed.insert(key);
            }
        }
        if self.tap.is_some() {
            let l = self.links();
            self.publish("links", &l);
        }
        Ok(())
    }

    fn set_link(&mut self, x: &str, y: &str, up: bool) -> Result<(), NetworkError> {
        let no_link = || NetworkError::NoLink(x.to_string(), y.to_string());
        let (host, tor) = match (self.node(x), self.node(y)) {
            (Some(Node::Host(h)), other) if other.as_ref().and_then(Node::host).is_none() => {
                (self.plan.hosts[h].clone(), (y, other))
            }
            (other, Some(Node::Host(h))) if other.as_ref().and_then(Node::host).is_none() => {
                (self.plan.hosts[h].clone(), (x, other))
            }
            (Some(a), Some(b)) if a.tor().is_some() && b.tor().is_some() => {
                // ToR-ToR: the optical circuits in the OCS (link/optical.rs).
                return crate::link::optical::set_tor_link(
                    &self.plan,
                    self.compiled.as_ref(),
                    self.fabric.as_deref(),
                    x,
                    y,
                    up,
                )
                .map_err(|e| NetworkError::Failed(e.to_string()));
            }
            // Switch-switch in a fat tree (link/fattree.rs).
            _ if crate::link::fattree::fat_tree(self.compiled.as_ref()).is_some() => {
                let t = crate::link::fattree::fat_tree(self.compiled.as_ref());
                return crate::link::fattree::set_switch_link(
                    t,
                    self.fabric.as_deref(),
                    (x, y),
                    up,
                )
                .map_err(|e| NetworkError::Failed(e.to_string()));
            }
            _ => return Err(no_link()),
        };
        let (tor, tor_node) = tor;
        // A host with several links: its interface on that ToR.
        let Some(host) = tor_node.as_ref().and_then(Node::tor).and_then(|t| {
            self.plan
                .intfs_of(&host.name)
                .find(|i| i.tor as usize == t)
                .cloned()
        }) else {
            return Err(no_link());
        };
        let tor_ns = self.node_ns(tor).unwrap_or_else(|| self.fabric_ns());
        for (ns, ifn) in [
            (self.host_ns(&host), host.host_if.clone()),
            (tor_ns, host.tor_if.clone()),
        ] {
            crate::kernel::netlink::with_netlink(Some(&ns), |h| async move {
                if up {
                    crate::kernel::netlink::set_up(&h, &ifn, None).await
                } else {
                    crate::kernel::netlink::set_down(&h, &ifn).await
                }
            })
            .map_err(|e| NetworkError::Failed(e.to_string()))?;
        }
        Ok(())
    }
}

/// The two nodes of a failed switch-switch link, in order.
fn failed_key(x: &str, y: &str) -> (String, String) {
    let (a, b) = if x <= y { (x, y) } else { (y, x) };
    (a.to_string(), b.to_string())
}

/// The port number of a Mininet interface name (`s2-eth3` is 3).
fn mn_port(name: &str) -> usize {
    name.rsplit_once("-eth")
        .and_then(|(_, k)| k.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Tells the run about a node shell it started (so `lighthouse clean` and
/// the teardown know its pid).
fn record_child(net: &mut Option<Net>) -> impl FnMut(u32) + '_ {
    move |pid| {
        if let Some(n) = net.as_mut() {
            n.add_child(pid);
        }
    }
}
