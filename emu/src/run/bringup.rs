//! Bring-up and teardown of an emulated network's kernel side: one namespace
//! per host, one fabric namespace holding every ToR-side veth end, veths,
//! addresses, MACs, offloads and (optionally) static ARP. The data plane
//! (swtor) is started on top of this by [`crate::tor::fabric`].
//!
//! Order matters for crash safety: the run directory and state file exist
//! before any namespace, and list each namespace before it is created.

use crate::host::nic_offload::{self, Offload};
use crate::kernel::netlink::{self, LinkError, VethSpec};
use crate::kernel::state::{self, RunState, StateError};
use crate::netns::{self, NsError};
use crate::plan::{HostPlan, Plan};
use crate::run::clean;
use std::fs::File;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum OrchError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Ns(#[from] NsError),
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("{0}")]
    Io(String),
    #[error(transparent)]
    HostTcp(#[from] crate::host::tcp::HostTcpError),
}

#[derive(Clone, Debug, Default)]
pub struct NetOptions {
    /// Mininet `--mac`: 00:00:00:00:00:KK instead of kernel-random MACs.
    pub mac: bool,
    /// Mininet `--arp`: static neighbour entries for every host.
    pub arp: bool,
    /// Use this prefix instead of a random `lhXXXX`.
    pub prefix: Option<String>,
    pub config: Option<PathBuf>,
    /// The config's `hosts.tcp` knobs, applied in every host namespace.
    pub host_tcp: Option<lh_ctrl::config::HostTcp>,
    /// BMv2 ToRs reach the fabric namespace (the OCS) over kernel VXLAN
    /// links instead of veths: each such ToR's namespace stands in for a
    /// machine of its own, joined to the OCS's by one underlay veth
    /// (`sN-wan`, 198.18.T.0/24) that carries a VXLAN link per uplink and
    /// CPU port (docs/scale-out.md).
    pub vxlan: bool,
    /// `--own-cpu`: the data plane keeps the last CPU to itself and every
    /// host veth's receive work goes to the others (RPS);
    /// `swtor::sched::dataplane_cpu` says why and what it costs.
    pub own_cpu: bool,
    /// Steps of the bring-up ("bring-up": namespaces, link sides, hosts
    /// and, with `arp`, their neighbours), for a front end to draw.
    pub progress: crate::progress::Progress,
}

/// One end of a BMv2 ToR's VXLAN links (`NetOptions::vxlan`): the
/// underlay interface, its address, the other end's, and (name, VNI) of
/// each port's link.
type Tunnels = (String, Ipv4Addr, Ipv4Addr, Vec<(String, u32)>);

/// The underlay interface between a BMv2 ToR's namespace and the fabric
/// namespace with `NetOptions::vxlan`.
pub fn wan_if(t: usize) -> String {
    format!("{}-wan", crate::plan::tor_name(t))
}

/// Underlay addresses of ToR `t`'s link (fabric side, ToR side), in
/// 198.18.0.0/15 (RFC 2544's benchmarking range, never routed).
pub fn wan_addrs(t: usize) -> (Ipv4Addr, Ipv4Addr) {
    let n = t as u32;
    let base = u32::from(Ipv4Addr::new(198, 18, 0, 0)) + (n << 8);
    (Ipv4Addr::from(base + 1), Ipv4Addr::from(base + 2))
}

/// VNI of ToR `t`'s uplink `p` (`None`: its CPU port): unique per port of
/// the run, as every link shares the fabric namespace's UDP port.
pub fn vxlan_vni(t: usize, p: Option<usize>) -> u32 {
    ((t as u32 + 1) << 8) | p.map_or(255, |p| p as u32 + 1)
}

/// A live emulated network (kernel side). Dropping it tears it down.
#[derive(Debug)]
pub struct Net {
    pub prefix: String,
    pub plan: Plan,
    /// Host interfaces' MACs as the kernel reports them, index K-1 (the
    /// hosts' first interfaces, then [`Plan::extra_intfs`]).
    pub macs: Vec<[u8; 6]>,
    /// The CPU the data plane keeps to itself (`NetOptions::own_cpu`, on a
    /// machine with two or more).
    pub dataplane_cpu: Option<usize>,
    state: RunState,
    torn_down: bool,
}

pub const MTU: u32 = 1500;
/// MTU of a VXLAN underlay link (`NetOptions::vxlan`): a port's frame
/// (MTU + 64) plus VXLAN's 50 bytes, with room to spare.
pub const WAN_MTU: u32 = 9000;

impl Net {
    pub fn host_ns_name(&self, h: &HostPlan) -> String {
        format!("{}-{}", self.prefix, h.name)
    }
    pub fn host_ns(&self, h: &HostPlan) -> PathBuf {
        netns::ns_path(&self.host_ns_name(h))
    }
    pub fn fabric_ns_name(&self) -> String {
        format!("{}-fab", self.prefix)
    }
    pub fn fabric_ns(&self) -> PathBuf {
        netns::ns_path(&self.fabric_ns_name())
    }
    /// The namespace of a BMv2 ToR: its `simple_switch`, the ToR ends of its
    /// host veths and the BMv2 ends of its uplink and CPU veths.
    pub fn tor_ns_name(&self, t: usize) -> String {
        format!("{}-{}", self.prefix, crate::plan::tor_name(t))
    }
    pub fn tor_ns(&self, t: usize) -> PathBuf {
        netns::ns_path(&self.tor_ns_name(t))
    }
    /// Where the ToR side of host `h`'s veth lives.
    pub fn tor_side_ns(&self, h: &HostPlan) -> PathBuf {
        if self.plan.is_bmv2(h.tor as usize) {
            self.tor_ns(h.tor as usize)
        } else {
            self.fabric_ns()
        }
    }
    pub fn state(&self) -> &RunState {
        &self.state
    }

    /// Remember a process started inside the run (for `clean`'s report).
    pub fn add_child(&mut self, pid: u32) {
        self.state.children.push(pid);
        let _ = state::save(&self.state);
    }

    /// Bring up the kernel side of `plan`. On error everything made so far is
    /// removed again before returning.
    pub fn bring_up(plan: Plan, opts: &NetOptions) -> Result<Net, OrchError> {
        // A knob no kernel host has is refused before anything is made.
        if let Some(t) = &opts.host_tcp {
            crate::host::tcp::refuse_unsupported(t)?;
        }
        check_plan(&plan)?;
        // Leftovers of crashed runs first, so their names cannot collide.
        let rep = clean::clean(clean::Scope::Stale);
        for l in rep.lines().iter().filter(|_| !rep.is_empty()) {
            tracing::warn!("cleaned a crashed run: {l}");
        }
        let prefix = state::allocate(opts.prefix.as_deref())?;
        let (pid_start, exe) = state::my_identity();
        let mut net = Net {
            prefix: prefix.clone(),
            plan,
            macs: Vec::new(),
            dataplane_cpu: opts.own_cpu.then(swtor::sched::dataplane_cpu).flatten(),
            state: RunState {
                prefix,
                pid: std::process::id(),
                config: opts.config.clone(),
                namespaces: Vec::new(),
                children: Vec::new(),
                started_unix: state::now_unix(),
                pid_start,
                exe,
            },
            torn_down: false,
        };
        let mut names: Vec<String> = net.plan.hosts.iter().map(|h| net.host_ns_name(h)).collect();
        names.push(net.fabric_ns_name());
        names.extend(net.plan.bmv2_tors().into_iter().map(|t| net.tor_ns_name(t)));
        net.state.namespaces = names;
        raise_neighbour_limits(net.plan.hosts.len());
        if let Err(e) = state::save(&net.state) {
            net.teardown();
            return Err(e.into());
        }
        match net.build(opts) {
            Ok(()) => Ok(net),
            Err(e) => {
                // Over early: the last step ends a front end's bar.
                opts.progress.report("bring-up", 1, 1);
                net.teardown();
                Err(e)
            }
        }
    }

    fn build(&mut self, opts: &NetOptions) -> Result<(), OrchError> {
        let sides_n = 1 + self.plan.bmv2_tors().len();
        let hosts_n = self.plan.hosts.len() * if opts.arp { 2 } else { 1 };
        let total = (self.state.namespaces.len() + sides_n + hosts_n) as u64;
        let mut done = 0u64;
        let mut step = || {
            done += 1;
            opts.progress.report("bring-up", done, total);
        };
        for n in &self.state.namespaces {
            netns::create(n)?;
            step();
        }
        let fab = self.fabric_ns();
        // Native ToRs' host ports live in the fabric namespace, a BMv2 ToR's
        // in its own; both get the same treatment.
        let mut sides = vec![(fab.clone(), None)];
        sides.extend(
            self.plan
                .bmv2_tors()
                .into_iter()
                .map(|t| (self.tor_ns(t), Some(t))),
        );
        for (ns, bmv2) in &sides {
            let hosts: Vec<&HostPlan> = self
                .plan
                .all_intfs()
                .filter(|h| {
                    bmv2.map_or(!self.plan.is_bmv2(h.tor as usize), |t| h.tor as usize == t)
                })
                .collect();
            self.build_side(ns, &hosts, *bmv2, opts)?;
            step();
        }
        let mut macs = Vec::with_capacity(self.plan.hosts.len() + self.plan.extra_intfs.len());
        for h in &self.plan.hosts {
            let ns = self.host_ns(h);
            macs.push(configure_host(&ns, h, opts.host_tcp.as_ref())?);
            step();
        }
        for h in &self.plan.extra_intfs {
            macs.push(configure_intf(&self.host_ns(h), h)?);
        }
        self.macs = macs;
        for (host, route) in &self.plan.default_routes {
            if let Some(h) = self.plan.host(host) {
                set_default_route(&self.host_ns_name(h), host, route)?;
            }
        }
        if let Some(dp) = self.dataplane_cpu {
            let mask = swtor::sched::host_rps_mask(dp);
            let hosts: Vec<(PathBuf, &str)> = self
                .plan
                .all_intfs()
                .map(|h| (self.host_ns(h), h.host_if.as_str()))
                .collect();
            steer_host_receive(&hosts, &mask);
        }
        if opts.arp {
            let entries: Vec<(Ipv4Addr, [u8; 6])> = self
                .plan
                .hosts
                .iter()
                .map(|h| h.ip)
                .zip(self.macs.iter().copied())
                .collect();
            for h in &self.plan.hosts {
                let mine: Vec<_> = entries
                    .iter()
                    .copied()
                    .filter(|(ip, _)| *ip != h.ip)
                    .collect();
                let ifn = h.host_if.as_str();
                netlink::with_netlink(Some(&self.host_ns(h)), |nl| async move {
                    netlink::add_neighbours(&nl, ifn, &mine).await
                })?;
                step();
            }
        }
        Ok(())
    }

    /// Veths from one ToR-side namespace: its hosts' veths (peers straight
    /// into the host namespaces) and, for a BMv2 ToR, its uplink and CPU
    /// veths (peers into the fabric namespace, where swtor holds them).
    fn build_side(
        &self,
        ns: &Path,
        hosts: &[&HostPlan],
        bmv2: Option<usize>,
        opts: &NetOptions,
    ) -> Result<(), OrchError> {
        let open =
            |p: &Path| File::open(p).map_err(|e| OrchError::Io(format!("{}: {e}", p.display())));
        // Namespace fds stay open while the veth peers are moved in.
        let host_files: Vec<File> = hosts
            .iter()
            .map(|h| open(&self.host_ns(h)))
            .collect::<Result<_, _>>()?;
        let fab_file = open(&self.fabric_ns())?;
        let mut specs: Vec<VethSpec<'_>> = hosts
            .iter()
            .zip(&host_files)
            .map(|(h, f)| VethSpec {
                local: &h.tor_if,
                peer: &h.host_if,
                peer_ns_fd: f.as_raw_fd(),
                // Mininet's MACs are its hosts' first interfaces'.
                peer_mac: (opts.mac && h.k <= self.plan.hosts.len()).then(|| h.mininet_mac()),
                mtu: MTU,
            })
            .collect();
        let fabric_ifs: Vec<String> = match bmv2 {
            Some(t) => (0..self.plan.uplinks)
                .map(|p| crate::plan::uplink_if(t, p))
                .chain([crate::plan::cpu_if(t)])
                .collect(),
            None => Vec::new(),
        };
        let wan = bmv2.filter(|_| opts.vxlan).map(wan_if);
        match &wan {
            // One underlay link; the ports are VXLAN links over it (below).
            Some(w) => specs.push(VethSpec {
                local: w,
                peer: w,
                peer_ns_fd: fab_file.as_raw_fd(),
                peer_mac: None,
                mtu: WAN_MTU,
            }),
            None => {
                for n in &fabric_ifs {
                    specs.push(VethSpec {
                        local: n,
                        peer: n,
                        peer_ns_fd: fab_file.as_raw_fd(),
                        peer_mac: None,
                        // Room for the 0x88B6 tag and a source-route header.
                        mtu: MTU + 64,
                    });
                }
            }
        }
        let mut ifs: Vec<&str> = hosts.iter().map(|h| h.tor_if.as_str()).collect();
        ifs.extend(fabric_ifs.iter().map(String::as_str));
        // With VXLAN: the underlay's address at each end, then one VXLAN
        // link per port to the other end.
        let tunnels = |fabric_side: bool| {
            let t = bmv2?;
            let w = wan.as_deref()?;
            let (fab_ip, tor_ip) = wan_addrs(t);
            let (local, remote) = if fabric_side {
                (fab_ip, tor_ip)
            } else {
                (tor_ip, fab_ip)
            };
            let links: Vec<(String, u32)> = (0..self.plan.uplinks)
                .map(|p| (crate::plan::uplink_if(t, p), vxlan_vni(t, Some(p))))
                .chain([(crate::plan::cpu_if(t), vxlan_vni(t, None))])
                .collect();
            Some((w.to_string(), local, remote, links))
        };
        async fn make_tunnels(
            h: &rtnetlink::Handle,
            tun: &Option<Tunnels>,
        ) -> Result<(), netlink::LinkError> {
            let Some((w, local, remote, links)) = tun else {
                return Ok(());
            };
            netlink::add_addr(h, w, *local, 24).await?;
            netlink::set_up(h, w, None).await?;
            for (name, vni) in links {
                // Room for the 0x88B6 tag and a source-route header.
                netlink::create_vxlan(h, name, *vni, w, *local, *remote, MTU + 64).await?;
            }
            Ok(())
        }
        let (tor_tun, fab_tun) = (tunnels(false), tunnels(true));
        let (specs_ref, ifs_ref, tun_ref) = (&specs, &ifs, &tor_tun);
        netlink::with_netlink(Some(ns), |h| async move {
            netlink::create_veths(&h, specs_ref).await?;
            netlink::set_up(&h, "lo", None).await?;
            make_tunnels(&h, tun_ref).await?;
            for t in ifs_ref {
                netlink::set_up(&h, t, None).await?;
            }
            Ok(())
        })?;
        drop(host_files);
        drop(fab_file);
        // A userspace ToR (swtor or BMv2) reads frames before any checksum
        // would be filled in, so TX checksum offload is off on its ends.
        netns::run_in(Some(ns), || {
            quiet_ipv6();
            for t in &ifs {
                nic_offload::set(t, Offload::TxChecksum, false)
                    .map_err(|e| OrchError::Io(format!("{t}: tx checksum off: {e}")))?;
            }
            Ok::<_, OrchError>(())
        })??;
        if bmv2.is_some() {
            let fab_ifs: Vec<&str> = fabric_ifs.iter().map(String::as_str).collect();
            let (r, tun) = (&fab_ifs, &fab_tun);
            netlink::with_netlink(Some(&self.fabric_ns()), |h| async move {
                make_tunnels(&h, tun).await?;
                for t in r {
                    netlink::set_up(&h, t, None).await?;
                }
                Ok(())
            })?;
            netns::run_in(Some(&self.fabric_ns()), || {
                for t in &fab_ifs {
                    nic_offload::set(t, Offload::TxChecksum, false)
                        .map_err(|e| OrchError::Io(format!("{t}: tx checksum off: {e}")))?;
                }
                Ok::<_, OrchError>(())
            })??;
        }
        Ok(())
    }

    /// Kill everything inside the run's namespaces, remove them and the run
    /// directory. Idempotent; returns what it removed.
    pub fn teardown(&mut self) -> clean::CleanReport {
        if self.torn_down {
            return clean::CleanReport::default();
        }
        self.torn_down = true;
        let mut rep = clean::CleanReport::default();
        let paths: Vec<PathBuf> = self
            .state
            .namespaces
            .iter()
            .map(|n| netns::ns_path(n))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        rep.procs_killed = clean::kill_in_namespaces(&paths);
        for (n, p) in self
            .state
            .namespaces
            .iter()
            .zip(self.state.namespaces.iter().map(|n| netns::ns_path(n)))
        {
            if p.symlink_metadata().is_err() {
                continue;
            }
            match netns::delete_path(&p) {
                Ok(()) => rep.namespaces.push(n.clone()),
                Err(e) => rep.errors.push(e.to_string()),
            }
        }
        let dir = state::run_dir(&self.prefix);
        if dir.exists() {
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => rep.dirs.push(dir),
                Err(e) => rep.errors.push(format!("{}: {e}", dir.display())),
            }
        }
        rep
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        let rep = self.teardown();
        for e in rep.errors {
            tracing::warn!("teardown: {e}");
        }
    }
}

/// The kernel's ARP table is one table for all namespaces, with limits
/// (gc_thresh1/2/3, 128/512/1024 by default) that every host's neighbours
/// count against: past 1024 entries new ones fail ("neighbor table
/// overflow") and pings of a 48-host pingall are lost before they reach the
/// fabric. Like Mininet's `fixLimits`, raise them, never lower them, to at
/// least Mininet's values and room for every host to know every other.
/// The sysctls live in the initial namespace, where this runs.
pub fn raise_neighbour_limits(hosts: usize) {
    let need = (hosts * hosts) as u64;
    let want = [
        ("gc_thresh1", 4096u64),
        ("gc_thresh2", need.max(8192)),
        ("gc_thresh3", (2 * need).max(16384)),
    ];
    for (k, v) in want {
        let path = format!("/proc/sys/net/ipv4/neigh/default/{k}");
        let cur = std::fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok());
        if let Some(cur) = cur
            && cur < v
        {
            match std::fs::write(&path, v.to_string()) {
                Ok(()) => tracing::info!("raised net.ipv4.neigh.default.{k} from {cur} to {v}"),
                Err(e) => tracing::warn!("cannot raise net.ipv4.neigh.default.{k}: {e}"),
            }
        }
    }
}

/// No IPv6 in emulated namespaces: router solicitations and DAD frames would
/// be noise in the fabric counters. Writes the calling thread's namespace's
/// sysctls (/proc/sys/net follows the opener's namespace).
fn quiet_ipv6() {
    for k in ["all", "default"] {
        let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{k}/disable_ipv6"), "1");
    }
}

/// Each host veth's received frames are processed on the CPUs in `mask`
/// (RPS, `queues/rx-*/rps_cpus`), not on the data plane's
/// (`swtor::sched::dataplane_cpu`, which says why). Sysfs shows a
/// namespace's devices only to a process with its own sysfs mount, so one
/// short `sh` per host, with a writable one, writes it; a host that refuses is a warning (a
/// kernel without RPS runs as before).
fn steer_host_receive(hosts: &[(PathBuf, &str)], mask: &str) {
    // A host whose namespace cannot be opened or whose `sh` cannot start
    // counts as refused, as a failed write does.
    let mut refused = 0;
    let mut children = Vec::with_capacity(hosts.len());
    for (ns, ifn) in hosts {
        let spawned = lh_netns::Netns::open(ns)
            .map_err(|e| e.to_string())
            .and_then(|ns| {
                let mut cmd = std::process::Command::new("sh");
                cmd.arg("-c")
                    .arg(format!(
                        "for f in /sys/class/net/{ifn}/queues/rx-*/rps_cpus; do echo {mask} > $f || exit 1; done"
                    ))
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                lh_netns::enter_on_exec_with_writable_sysfs(&mut cmd, ns);
                cmd.spawn().map_err(|e| e.to_string())
            });
        match spawned {
            Ok(c) => children.push((ifn, c)),
            Err(e) => {
                refused += 1;
                tracing::debug!("RPS on {ifn}: {e}");
            }
        }
    }
    for (ifn, c) in children {
        match c.wait_with_output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                refused += 1;
                tracing::debug!(
                    "RPS on {ifn}: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
            }
            Err(e) => {
                refused += 1;
                tracing::debug!("RPS on {ifn}: {e}");
            }
        }
    }
    if refused > 0 {
        tracing::warn!(
            "{refused} of {} host veths kept their receive work on the data plane's CPU (RPS not set)",
            hosts.len()
        );
    }
}

/// What the kernel side cannot build, refused before anything is made: a
/// host interface after the first on a BMv2 ToR (its program delivers by
/// address alone), and one address on two interfaces.
fn check_plan(plan: &Plan) -> Result<(), OrchError> {
    if let Some(h) = plan
        .extra_intfs
        .iter()
        .find(|h| plan.is_bmv2(h.tor as usize))
    {
        return Err(OrchError::Io(format!(
            "host {} has a second link ({}) to {}, a BMv2 ToR: a host with several links needs native ToRs (the P4 program delivers by address alone)",
            h.name,
            h.host_if,
            plan.tor_label(h.tor as usize)
        )));
    }
    let mut seen: std::collections::HashMap<Ipv4Addr, &str> = Default::default();
    for h in plan.all_intfs().filter(|h| !h.ip.is_unspecified()) {
        if let Some(other) = seen.insert(h.ip, &h.host_if) {
            return Err(OrchError::Io(format!(
                "interfaces {other} and {} both have address {}: every address names one interface",
                h.host_if, h.ip
            )));
        }
    }
    Ok(())
}

/// Mininet's `setDefaultRoute`: `ip route del default; ip route add
/// default ROUTE` in host `host`'s namespace (`ns`, by name); ROUTE
/// without a space is an interface (`dev ROUTE`).
fn set_default_route(ns: &str, host: &str, route: &str) -> Result<(), OrchError> {
    let mut words: Vec<&str> = route.split_whitespace().collect();
    if words.len() == 1 {
        words.insert(0, "dev");
    }
    let _ = std::process::Command::new("ip")
        .args(["-n", ns, "route", "del", "default"])
        .stderr(std::process::Stdio::null())
        .status();
    let out = std::process::Command::new("ip")
        .args(["-n", ns, "route", "add", "default"])
        .args(&words)
        .output()
        .map_err(|e| OrchError::Io(format!("host {host} defaultRoute: running ip: {e}")))?;
    if !out.status.success() {
        return Err(OrchError::Io(format!(
            "host {host} defaultRoute={route:?}: ip route add default {}: {}",
            words.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// A host's interface after its first: offloads off, its address if it
/// has one, MTU, up; returns the MAC.
fn configure_intf(ns: &Path, h: &HostPlan) -> Result<[u8; 6], OrchError> {
    let ifn = h.host_if.as_str();
    netns::run_in(Some(ns), || {
        nic_offload::host_offloads_off(ifn).map_err(|e| OrchError::Io(e.to_string()))
    })??;
    let (ip, plen) = (h.ip, h.prefix_len);
    let mac = netlink::with_netlink(Some(ns), |nl| async move {
        if !ip.is_unspecified() {
            netlink::add_addr(&nl, ifn, ip, plen).await?;
        }
        netlink::set_up(&nl, ifn, Some(MTU)).await?;
        netlink::mac_of(&nl, ifn).await
    })?;
    Ok(mac)
}

/// lo up, IPv6 off, offloads off, address, MTU, up, the config's TCP
/// knobs; returns the MAC.
fn configure_host(
    ns: &Path,
    h: &HostPlan,
    tcp: Option<&lh_ctrl::config::HostTcp>,
) -> Result<[u8; 6], OrchError> {
    let ifn = h.host_if.as_str();
    netns::run_in(Some(ns), || {
        quiet_ipv6();
        nic_offload::host_offloads_off(ifn).map_err(|e| OrchError::Io(e.to_string()))
    })??;
    let (ip, plen) = (h.ip, h.prefix_len);
    let mac = netlink::with_netlink(Some(ns), |nl| async move {
        netlink::set_up(&nl, "lo", None).await?;
        netlink::add_addr(&nl, ifn, ip, plen).await?;
        netlink::set_up(&nl, ifn, Some(MTU)).await?;
        netlink::mac_of(&nl, ifn).await
    })?;
    if let Some(t) = tcp {
        crate::host::tcp::apply(ns, t)?;
    }
    Ok(mac)
}
