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

    pub fn host(&self, name: &str) -> Option<&HostPlan> {
        let k: usize = name.strip_prefix('h')?.parse().ok()?;
        self.hosts.get(k.checked_sub(1)?).filter(|h| h.name == name)
    }

    /// ToR index of a name `s<T>`.
    pub fn tor(&self, name: &str) -> Option<usize> {
        let t: usize = name.strip_prefix('s')?.parse().ok()?;
        (t >= 1 && t <= self.tors && format!("s{t}") == name).then(|| t - 1)
    }

    pub fn tor_names(&self) -> Vec<String> {
        (0..self.tors).map(tor_name).collect()
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
}
