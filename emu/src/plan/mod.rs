//! The emulated network's naming and addressing plan (Mininet conventions):
//! hosts `h1..hN` get `10.0.0.K/8` in natural order, host `K` sits on ToR
//! `(K-1) / hosts_per_tor`, its port there is `s<T>-eth<j>` (switch ports
//! count from 1, host ports from 0). Pure data, so the CLI and tests can use
//! it without any kernel objects.

pub mod target;

use lh_ctrl::TorId;
use lh_ctrl::config::Config;
use std::net::Ipv4Addr;
use target::TorTarget;

/// One emulated host and the veth that ties it to its ToR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPlan {
    /// 1-based host number `K`.
    pub k: usize,
    /// `hK`.
    pub name: String,
    pub ip: Ipv4Addr,
    pub prefix_len: u8,
    pub tor: TorId,
    /// 1-based port index on the ToR (`j` in `s<T>-eth<j>`).
    pub tor_port: usize,
    /// `hK-eth0`, inside the host's namespace.
    pub host_if: String,
    /// `s<T>-eth<j>`, inside the fabric namespace.
    pub tor_if: String,
}

impl HostPlan {
    /// Mininet's `--mac` address: the host number in the low bytes.
    pub fn mininet_mac(&self) -> [u8; 6] {
        let k = self.k as u64;
        let b = k.to_be_bytes();
        [0, 0, b[4], b[5], b[6], b[7]]
    }
}

/// The whole plan: hosts in natural order and ToR names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub hosts: Vec<HostPlan>,
    pub tors: usize,
    pub hosts_per_tor: usize,
    /// Optical (or electrical) uplinks per ToR.
    pub uplinks: usize,
    /// Which target runs each ToR (`--tor`); all native by default.
    pub targets: Vec<TorTarget>,
    /// The ToRs' names when they are not `s1..sN` (a Mininet topology's
    /// own switch names); empty for the default.
    pub tor_labels: Vec<String>,
    /// Display names of each ToR's uplinks when they are not `sN-upP` (a
    /// Mininet topology's `sN-ethK`); empty for the default.
    pub uplink_labels: Vec<Vec<String>>,
    /// ToRs from this index on exist only because Lighthouse needs two:
    /// they have no hosts and are not shown (Mininet's `single` has one
    /// switch).
    pub visible_tors: usize,
    /// A Mininet topology's links as `links` shows them (both interfaces,
    /// Mininet's order); empty otherwise.
    pub mn_links: Vec<(String, String)>,
    /// A host's interfaces after its first, each a port of its own on a
    /// ToR (a Mininet node with several links, such as `linuxrouter`'s
    /// router). `name` is the host's, `k` numbers them on after the
    /// hosts, and an interface without an address has
    /// [`Ipv4Addr::UNSPECIFIED`].
    pub extra_intfs: Vec<HostPlan>,
    /// Addresses a topology gives its interfaces itself (Mininet's
    /// `addHost(ip=)` and a link's `params1`/`params2`), by interface:
    /// they stay through [`Plan::set_ipbase`]. Without a prefix length an
    /// address takes the host's (the ipBase's), as Mininet's do.
    pub fixed_ips: Vec<(String, Ipv4Addr, Option<u8>)>,
    /// Mininet's `defaultRoute=` per host: what follows `ip route add
    /// default` (`via 192.168.1.1`, or an interface name).
    pub default_routes: Vec<(String, String)>,
}

/// Largest host count the 10.0.0.0/8 plan can address (10.0.0.1 ..
/// 10.255.255.254) -- in practice namespaces run out long before.
pub const MAX_HOSTS: usize = (1 << 24) - 2;

impl Plan {
    pub fn new(tors: usize, hosts_per_tor: usize) -> Plan {
        let n = tors * hosts_per_tor;
        let hosts = (1..=n)
            .map(|k| {
                let tor = (k - 1) / hosts_per_tor;
                let j = (k - 1) % hosts_per_tor + 1;
                HostPlan {
                    k,
                    name: format!("h{k}"),
                    ip: host_ip(k),
                    prefix_len: 8,
                    tor: tor as TorId,
                    tor_port: j,
                    host_if: format!("h{k}-eth0"),
                    tor_if: format!("{}-eth{j}", tor_name(tor)),
                }
            })
            .collect();
        Plan {
            hosts,
            tors,
            hosts_per_tor,
            uplinks: 1,
            targets: vec![TorTarget::Native; tors],
            tor_labels: Vec::new(),
            uplink_labels: Vec::new(),
            visible_tors: tors,
            mn_links: Vec::new(),
            extra_intfs: Vec::new(),
            fixed_ips: Vec::new(),
            default_routes: Vec::new(),
        }
    }

    pub fn from_config(cfg: &Config) -> Plan {
        let mut p = Plan::new(cfg.tors.count as usize, cfg.tors.hosts_per_tor as usize);
        p.uplinks = cfg.tors.uplinks as usize;
        p
    }

    /// ToRs that run on BMv2, in order.
    pub fn bmv2_tors(&self) -> Vec<usize> {
        (0..self.tors)
            .filter(|&t| self.targets[t] == TorTarget::Bmv2)
            .collect()
    }

    pub fn is_bmv2(&self, t: usize) -> bool {
        self.targets.get(t) == Some(&TorTarget::Bmv2)
    }

    /// The host called `name`: `hK` at once, any other name (a Mininet
    /// topology's own, e.g. `client`) by search.
    pub fn host(&self, name: &str) -> Option<&HostPlan> {
        let fast = name
            .strip_prefix('h')
            .and_then(|k| k.parse::<usize>().ok())
            .and_then(|k| self.hosts.get(k.checked_sub(1)?))
            .filter(|h| h.name == name);
        fast.or_else(|| self.hosts.iter().find(|h| h.name == name))
    }

    /// ToR index of a name: `s<T>`, or a Mininet topology's own name.
    pub fn tor(&self, name: &str) -> Option<usize> {
        if !self.tor_labels.is_empty() {
            return self.tor_labels[..self.visible_tors.min(self.tor_labels.len())]
                .iter()
                .position(|l| l == name);
        }
        let t: usize = name.strip_prefix('s')?.parse().ok()?;
        (t >= 1 && t <= self.visible_tors && format!("s{t}") == name).then(|| t - 1)
    }

    /// The name of ToR `t`: `s<t+1>` or the topology's own.
    pub fn tor_label(&self, t: usize) -> String {
        self.tor_labels
            .get(t)
            .cloned()
            .unwrap_or_else(|| tor_name(t))
    }

    /// [`Plan::tor_label`] as a function that owns what it needs (for text
    /// renderers called while the network is borrowed).
    pub fn labeler(&self) -> impl Fn(usize) -> String + 'static {
        let labels = self.tor_labels.clone();
        move |t| labels.get(t).cloned().unwrap_or_else(|| tor_name(t))
    }

    /// The shown name of uplink `p` of ToR `t` (`sN-upP`, or a Mininet
    /// topology's `sN-ethK`).
    pub fn uplink_label(&self, t: usize, p: usize) -> String {
        self.uplink_labels
            .get(t)
            .and_then(|u| u.get(p))
            .cloned()
            .unwrap_or_else(|| uplink_if(t, p))
    }

    /// Whether ToR `t` is one Lighthouse added (not shown).
    pub fn is_hidden_tor(&self, t: usize) -> bool {
        t >= self.visible_tors
    }

    /// The shown ToRs' names.
    pub fn tor_names(&self) -> Vec<String> {
        (0..self.visible_tors).map(|t| self.tor_label(t)).collect()
    }

    /// Mininet's `--ipbase`: the host with address 10.0.0.0/8 + K gets
    /// address K of `base/len` (as Mininet's `ipAdd`). Call before any
    /// other address change. Errors say what does not fit.
    pub fn set_ipbase(&mut self, base: Ipv4Addr, len: u8) -> Result<(), String> {
        if !(1..=30).contains(&len) {
            return Err(format!("prefix length /{len}: expected 1..30"));
        }
        let mask = u32::MAX << (32 - len);
        let net = u32::from(base) & mask;
        let room = (!mask) as usize - 1;
        if self.hosts.len() > room {
            return Err(format!(
                "{base}/{len} has room for {room} hosts, the topology has {}",
                self.hosts.len()
            ));
        }
        for h in &mut self.hosts {
            // The host's index in the default plan (10.0.0.0/8 + index;
            // a Mininet topology's natural name order).
            let i = u32::from(h.ip) & 0x00ff_ffff;
            h.ip = Ipv4Addr::from(net | i);
            h.prefix_len = len;
        }
        self.apply_fixed_ips();
        Ok(())
    }

    /// Gives every interface named in [`Plan::fixed_ips`] its address.
    pub fn apply_fixed_ips(&mut self) {
        for (ifn, ip, len) in &self.fixed_ips {
            let h = self
                .hosts
                .iter_mut()
                .chain(self.extra_intfs.iter_mut())
                .find(|h| &h.host_if == ifn);
            if let Some(h) = h {
                h.ip = *ip;
                h.prefix_len = len.unwrap_or(if h.prefix_len == 0 { 8 } else { h.prefix_len });
            }
        }
    }

    /// Every interface of host `name` (its first, then the others in
    /// port order).
    pub fn intfs_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a HostPlan> + 'a {
        self.hosts
            .iter()
            .chain(&self.extra_intfs)
            .filter(move |h| h.name == name)
    }

    /// Every host interface on ToR `t` (hosts' first ones and the
    /// others), in port order.
    pub fn ports_of(&self, t: usize) -> Vec<&HostPlan> {
        let mut v: Vec<&HostPlan> = self.hosts_of(t).iter().collect();
        v.extend(self.extra_intfs.iter().filter(|h| h.tor as usize == t));
        v.sort_by_key(|h| h.tor_port);
        v
    }

    /// Every host interface: the hosts' first ones, then the others.
    pub fn all_intfs(&self) -> impl Iterator<Item = &HostPlan> {
        self.hosts.iter().chain(&self.extra_intfs)
    }

    /// Hosts attached to ToR `t`, in port order.
    pub fn hosts_of(&self, t: usize) -> &[HostPlan] {
        // Hosts are in ToR order; ToRs may have different host counts
        // (Mininet topologies, [`Plan::with_host_counts`]).
        let a = self.hosts.partition_point(|h| (h.tor as usize) < t);
        let b = self.hosts.partition_point(|h| (h.tor as usize) <= t);
        &self.hosts[a..b]
    }

    /// A plan where ToR `t` has `counts[t]` hosts (possibly 0), numbered
    /// `h1..` in ToR order, as Mininet numbers a tree's leaves.
    /// `hosts_per_tor` becomes the largest count.
    pub fn with_host_counts(counts: &[usize], uplinks: usize) -> Plan {
        let mut hosts = Vec::new();
        for (t, &n) in counts.iter().enumerate() {
            for j in 1..=n {
                let k = hosts.len() + 1;
                hosts.push(HostPlan {
                    k,
                    name: format!("h{k}"),
                    ip: host_ip(k),
                    prefix_len: 8,
                    tor: t as TorId,
                    tor_port: j,
                    host_if: format!("h{k}-eth0"),
                    tor_if: format!("{}-eth{j}", tor_name(t)),
                });
            }
        }
        Plan {
            hosts,
            tors: counts.len(),
            hosts_per_tor: counts.iter().copied().max().unwrap_or(0),
            uplinks,
            targets: vec![TorTarget::Native; counts.len()],
            tor_labels: Vec::new(),
            uplink_labels: Vec::new(),
            visible_tors: counts.len(),
            mn_links: Vec::new(),
            extra_intfs: Vec::new(),
            fixed_ips: Vec::new(),
            default_routes: Vec::new(),
        }
    }

    /// Every node name (hosts then ToRs), Mininet's `self.mn` order.
    pub fn node_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.hosts.iter().map(|h| h.name.clone()).collect();
        v.extend(self.tor_names());
        v
    }

    /// A node name's IP for `<node> cmd` substitution (ToRs have none).
    pub fn ip_of(&self, name: &str) -> Option<Ipv4Addr> {
        self.host(name).map(|h| h.ip)
    }
}

/// Uplink `p` of a BMv2 ToR: the same name on both ends of the veth, the
/// BMv2 end in the ToR's namespace, the OCS end in the fabric namespace.
pub fn uplink_if(t: usize, p: usize) -> String {
    format!("{}-up{p}", tor_name(t))
}

/// The CPU port of a BMv2 ToR (rotation packets), named like [`uplink_if`].
pub fn cpu_if(t: usize) -> String {
    format!("{}-cpu", tor_name(t))
}

/// `s<T>` with T = index + 1.
pub fn tor_name(t: usize) -> String {
    format!("s{}", t + 1)
}

/// `10.0.0.K` counted through the /8 like Mininet's `ipAdd`.
pub fn host_ip(k: usize) -> Ipv4Addr {
    let v = (10u32 << 24) | (k as u32 & 0x00ff_ffff);
    Ipv4Addr::from(v)
}

pub fn fmt_mac(m: &[u8; 6]) -> String {
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        m[0], m[1], m[2], m[3], m[4], m[5]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_follows_mininet() {
        let p = Plan::new(3, 2);
        assert_eq!(p.hosts.len(), 6);
        let h3 = &p.hosts[2];
        assert_eq!(h3.name, "h3");
        assert_eq!(h3.ip, Ipv4Addr::new(10, 0, 0, 3));
        assert_eq!(h3.tor, 1);
        assert_eq!(h3.tor_if, "s2-eth1");
        assert_eq!(h3.host_if, "h3-eth0");
        assert_eq!(p.hosts[3].tor_if, "s2-eth2");
        assert_eq!(p.host("h6").unwrap().k, 6);
        assert!(p.host("h7").is_none());
        assert!(p.host("h0").is_none());
        assert!(p.host("h01").is_none());
        assert_eq!(p.tor("s3"), Some(2));
        assert_eq!(p.tor("s4"), None);
        assert_eq!(p.hosts_of(1).len(), 2);
        assert_eq!(p.hosts_of(1)[0].name, "h3");
        assert_eq!(fmt_mac(&p.hosts[2].mininet_mac()), "00:00:00:00:00:03");
        // Uneven counts (a Mininet tree: no hosts on the root switch).
        let t = Plan::with_host_counts(&[0, 2, 1], 2);
        assert_eq!(t.hosts.len(), 3);
        assert!(t.hosts_of(0).is_empty());
        assert_eq!(t.hosts_of(1)[1].name, "h2");
        assert_eq!(t.hosts_of(1)[1].tor_if, "s2-eth2");
        assert_eq!(t.hosts_of(2)[0].tor_if, "s3-eth1");
        assert_eq!(t.host("h3").unwrap().tor, 2);
        assert_eq!(Plan::new(3, 2).hosts_of(2).len(), 2);
        assert_eq!(host_ip(256), Ipv4Addr::new(10, 0, 1, 0));
        assert_eq!(
            p.node_names(),
            vec!["h1", "h2", "h3", "h4", "h5", "h6", "s1", "s2", "s3"]
        );
    }

    #[test]
    fn ipbase_and_names_of_a_topology() {
        let mut p = Plan::new(2, 2);
        p.set_ipbase(Ipv4Addr::new(192, 168, 50, 7), 24).unwrap();
        assert_eq!(p.hosts[0].ip, Ipv4Addr::new(192, 168, 50, 1));
        assert_eq!(p.hosts[3].ip, Ipv4Addr::new(192, 168, 50, 4));
        assert_eq!(p.hosts[3].prefix_len, 24);
        let e = Plan::new(2, 4)
            .set_ipbase(Ipv4Addr::new(10, 1, 1, 0), 30)
            .unwrap_err();
        assert!(e.contains("room for 2 hosts, the topology has 8"), "{e}");
        // Names kept from a topology; a hidden ToR is not a node.
        let mut p = Plan::with_host_counts(&[2, 0], 1);
        p.hosts[0].name = "client".into();
        p.tor_labels = vec!["sw".into(), "swx".into()];
        p.visible_tors = 1;
        assert_eq!(p.host("client").unwrap().k, 1);
        assert_eq!(p.host("h2").unwrap().k, 2);
        assert_eq!(p.tor("sw"), Some(0));
        assert_eq!(p.tor("swx"), None);
        assert_eq!(p.node_names(), ["client", "h2", "sw"]);
    }
}
