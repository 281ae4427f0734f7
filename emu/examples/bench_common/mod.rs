//! Shared pieces of the emulation benchmarks (emu/examples/bench_*.rs):
//! load average, medians, a lighthouse network brought up through the
//! library (kernel::bringup + fabric), and the Linux-bridge reference.
#![allow(dead_code)] // each example uses a subset

use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use lh_emu::host::nic_offload;
use lh_emu::kernel::bringup::{Net, NetOptions};
use lh_emu::netns;
use lh_emu::plan::Plan;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// 1-minute load average (noted with every figure).
pub fn loadavg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

pub fn median(v: &[f64]) -> f64 {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A topology file of the workspace (examples run from any directory).
pub fn topology(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../topologies")
        .join(name)
}

pub fn load(name: &str) -> Config {
    let p = topology(name);
    Config::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn require_root() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("this benchmark needs root (network namespaces)");
        std::process::exit(2);
    }
}

/// A running lighthouse network: kernel side (kernel::bringup) + data plane.
pub struct Lighthouse {
    pub net: Net,
    pub fab: Option<swtor::FabricHandle>,
    /// ToRs on BMv2 (`--tor` syntax), if any.
    pub p4: Option<lh_emu::tor::bmv2::P4Tors>,
}

impl Lighthouse {
    pub fn up(cfg: &Config, c: &Compiled) -> Lighthouse {
        Self::try_up(cfg, c).unwrap_or_else(|e| panic!("{e}"))
    }
    pub fn try_up(cfg: &Config, c: &Compiled) -> Result<Lighthouse, String> {
        Self::try_up_with(cfg, c, "native")
    }
    /// With some ToRs on BMv2 (`tors` in `--tor` syntax, e.g. `bmv2:s2`).
    pub fn try_up_with(cfg: &Config, c: &Compiled, tors: &str) -> Result<Lighthouse, String> {
        let mut plan = Plan::from_config(cfg);
        plan.targets = lh_emu::plan::target::parse(tors, plan.tors).map_err(|e| e.to_string())?;
        let net = Net::bring_up(plan, &NetOptions::default())
            .map_err(|e| format!("bringing up the namespaces: {e}"))?;
        let p4 = if net.plan.bmv2_tors().is_empty() {
            None
        } else {
            let src = lh_emu::tor::bmv2::P4Source::Shipped;
            Some(
                lh_emu::tor::bmv2::P4Tors::start(&net, c, &src, false)
                    .map_err(|e| format!("starting the P4 ToRs: {e}"))?,
            )
        };
        let fab = lh_emu::tor::fabric::start(&net, c)
            .map_err(|e| format!("starting the data plane: {e}"))?;
        Ok(Lighthouse {
            net,
            fab: Some(fab),
            p4,
        })
    }
    /// Namespace path and IP of host index `k` (0-based).
    pub fn host(&self, k: usize) -> (PathBuf, Ipv4Addr) {
        let h = &self.net.plan.hosts[k];
        (self.net.host_ns(h), h.ip)
    }
    /// Stops the data plane and tears the namespaces down; returns the final
    /// counters.
    pub fn down(mut self) -> swtor::Counters {
        let c = self.fab.take().map(|f| f.stop()).unwrap_or_default();
        drop(self.p4.take());
        let rep = self.net.teardown();
        for e in rep.errors {
            eprintln!("teardown: {e}");
        }
        c
    }
}

/// Resolve ARP and wait until `dst` answers from `src` (a slice-switched
/// path may need a cycle).
pub fn warm_up(src: &Path, dst: Ipv4Addr) -> bool {
    let Ok(p) = lh_emu::traffic::probe::Pinger::open(Some(src)) else {
        return false;
    };
    (0..20).any(|_| matches!(p.echo(dst, Duration::from_millis(200)), Ok(Some(_))))
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("running ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The reference: two host namespaces joined by veths to a Linux bridge in
/// a third namespace, host ends configured like lighthouse's (offloads off,
/// IPv6 off, MTU 1500). Removed on drop.
pub struct Bridge {
    names: [String; 3],
}

pub const BRIDGE_IPS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2)];

impl Bridge {
    pub fn up() -> Bridge {
        let tag = std::process::id() % 100_000;
        let names = [
            format!("bbr{tag}-br"),
            format!("bbr{tag}-h1"),
            format!("bbr{tag}-h2"),
        ];
        for n in &names {
            netns::create(n).expect("creating a bridge-reference namespace");
        }
        let b = Bridge { names };
        let br = b.names[0].as_str();
        ip(&["-n", br, "link", "set", "lo", "up"]);
        ip(&["-n", br, "link", "add", "br0", "type", "bridge"]);
        ip(&["-n", br, "link", "set", "br0", "up"]);
        for (k, ip4) in BRIDGE_IPS.iter().enumerate() {
            let h = b.names[k + 1].as_str();
            let (tor_if, host_if) = (format!("s1-eth{}", k + 1), format!("h{}-eth0", k + 1));
            ip(&[
                "-n", br, "link", "add", &tor_if, "type", "veth", "peer", "name", &host_if,
                "netns", h,
            ]);
            ip(&[
                "-n", br, "link", "set", &tor_if, "master", "br0", "mtu", "1500", "up",
            ]);
            let p = netns::ns_path(h);
            netns::run_in(Some(&p), || {
                for k in ["all", "default"] {
                    let _ =
                        std::fs::write(format!("/proc/sys/net/ipv6/conf/{k}/disable_ipv6"), "1");
                }
                nic_offload::host_offloads_off(&host_if)
            })
            .expect("entering a host namespace")
            .expect("offloads off");
            let addr = format!("{ip4}/8");
            ip(&["-n", h, "link", "set", "lo", "up"]);
            ip(&["-n", h, "addr", "add", &addr, "dev", &host_if]);
            ip(&["-n", h, "link", "set", &host_if, "mtu", "1500", "up"]);
        }
        b
    }
    pub fn host(&self, k: usize) -> (PathBuf, Ipv4Addr) {
        (netns::ns_path(&self.names[k + 1]), BRIDGE_IPS[k])
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        for n in &self.names {
            let p = netns::ns_path(n);
            lh_emu::kernel::clean::kill_in_namespaces(std::slice::from_ref(&p));
            if let Err(e) = netns::delete_path(&p) {
                eprintln!("bridge teardown {n}: {e}");
            }
        }
    }
}
