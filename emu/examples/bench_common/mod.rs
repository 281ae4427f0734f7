//! Shared pieces of the emulation benchmarks (emu/examples/bench_*.rs):
//! load average, medians, a lighthouse network brought up through the
//! library (run::bringup + fabric), and the Linux-bridge reference.
#![allow(dead_code)] // each example uses a subset

use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use lh_emu::host::nic_offload;
use lh_emu::netns;
use lh_emu::plan::Plan;
use lh_emu::run::bringup::{Net, NetOptions};
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

/// Where a benchmark's endpoints (the flow tool's sender and receiver
/// threads) run, the same for both sides of a comparison: with
/// `LH_BENCH_OWN_CPU=1` on the hosts' CPUs (all but the one the data plane
/// keeps), as issue 41 asks ("with endpoints pinned alike"); otherwise
/// wherever the scheduler puts them.
pub struct Endpoints {
    pub cpus: Option<Vec<usize>>,
}

impl Endpoints {
    pub fn from_env() -> Endpoints {
        let cpus = std::env::var_os("LH_BENCH_OWN_CPU")
            .and_then(|_| swtor::sched::dataplane_cpu())
            .map(swtor::sched::host_cpus);
        Endpoints { cpus }
    }

    /// Runs `f` on the calling thread kept to the endpoints' CPUs (threads
    /// it spawns inherit them), then gives the thread its CPUs back.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(cpus) = &self.cpus else {
            return f();
        };
        let before = swtor::sched::allowed_cpus();
        assert!(
            swtor::sched::set_thread_cpus(cpus),
            "pinning the endpoints to {cpus:?}"
        );
        let r = f();
        assert!(
            swtor::sched::set_thread_cpus(&before),
            "restoring CPUs {before:?}"
        );
        r
    }

    pub fn describe(&self) -> String {
        match &self.cpus {
            Some(c) => format!("endpoints on CPUs {c:?} on both sides"),
            None => "endpoints unpinned on both sides".into(),
        }
    }
}

/// A running lighthouse network: kernel side (run::bringup) + data plane.
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
        Self::try_up_paced(cfg, c, tors, true)
    }
    /// [`Lighthouse::try_up_with`]; `pace`: swtor paces itself to what
    /// each BMv2 ToR takes in (docs/p4.md, "Pacing"), as `lighthouse run`.
    pub fn try_up_paced(
        cfg: &Config,
        c: &Compiled,
        tors: &str,
        pace: bool,
    ) -> Result<Lighthouse, String> {
        let mut plan = Plan::from_config(cfg);
        plan.targets = lh_emu::plan::target::parse(tors, plan.tors).map_err(|e| e.to_string())?;
        // `LH_BENCH_OWN_CPU=1`: as `lighthouse run --own-cpu`.
        let opts = NetOptions {
            own_cpu: std::env::var_os("LH_BENCH_OWN_CPU").is_some(),
            ..NetOptions::default()
        };
        let net =
            Net::bring_up(plan, &opts).map_err(|e| format!("bringing up the namespaces: {e}"))?;
        let p4 = if net.plan.bmv2_tors().is_empty() {
            None
        } else {
            let src = lh_emu::tor::bmv2::P4Source::Shipped;
            Some(
                lh_emu::tor::bmv2::P4Tors::start(&net, c, &src, false)
                    .map_err(|e| format!("starting the P4 ToRs: {e}"))?,
            )
        };
        let pace = match &p4 {
            Some(t) if pace => t.pace_from(&net),
            _ => Vec::new(),
        };
        let fab = lh_emu::tor::fabric::start_paced(&net, c, &pace)
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
            lh_emu::run::clean::kill_in_namespaces(std::slice::from_ref(&p));
            if let Err(e) = netns::delete_path(&p) {
                eprintln!("bridge teardown {n}: {e}");
            }
        }
    }
}

/// BMv2's own `simple_router` example (its P4_14 program compiled to JSON
/// and its table entries) on stock `simple_switch`, between two host
/// namespaces configured like lighthouse's: the stock-BMv2 reference a P4
/// ToR's throughput is measured against (issue 24). The files come from
/// `$LH_SIMPLE_ROUTER` or the workplace's toolchain folder beside the
/// repository (`../shared/toolchains/reference/bmv2-simple_router/`);
/// outside it, from BMv2's sources (`mininet/simple_router.json`). The
/// switch runs as lighthouse's BMv2 ToRs do: no packet log, the same nice
/// value. Removed on drop.
pub struct StockRouter {
    names: [String; 3],
    sw: Option<bmv2_thrift::Bmv2Switch>,
    _state: tempfile::TempDir,
}

/// simple_router's addressing (its `commands.txt`): h1 behind port 1, h2
/// behind port 2, each with a gateway MAC on the switch.
const SR_HOSTS: [(Ipv4Addr, [u8; 6], Ipv4Addr, [u8; 6]); 2] = [
    (
        Ipv4Addr::new(10, 0, 0, 10),
        [0, 4, 0, 0, 0, 0],
        Ipv4Addr::new(10, 0, 0, 1),
        [0, 0xaa, 0xbb, 0, 0, 0],
    ),
    (
        Ipv4Addr::new(10, 0, 1, 10),
        [0, 4, 0, 0, 0, 1],
        Ipv4Addr::new(10, 0, 1, 1),
        [0, 0xaa, 0xbb, 0, 0, 1],
    ),
];

/// Where simple_router's compiled JSON is, if anywhere.
pub fn simple_router_json() -> Option<PathBuf> {
    let dir = std::env::var_os("LH_SIMPLE_ROUTER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/toolchains/reference/bmv2-simple_router")
        });
    let json = dir.join("simple_router.json");
    json.exists().then_some(json)
}

fn mac_str(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

impl StockRouter {
    pub fn up(json: &Path) -> Result<StockRouter, String> {
        use bmv2_thrift::{Key, Value};
        let tag = std::process::id() % 100_000;
        let names = [
            format!("bsr{tag}-sw"),
            format!("bsr{tag}-h1"),
            format!("bsr{tag}-h2"),
        ];
        for n in &names {
            netns::create(n).map_err(|e| format!("creating namespace {n}: {e}"))?;
        }
        let state = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut r = StockRouter {
            names,
            sw: None,
            _state: state,
        };
        let sw = r.names[0].clone();
        ip(&["-n", &sw, "link", "set", "lo", "up"]);
        for (k, &(addr, mac, gw, gw_mac)) in SR_HOSTS.iter().enumerate() {
            let h = r.names[k + 1].clone();
            let (sw_if, host_if) = (format!("sw-eth{}", k + 1), format!("h{}-eth0", k + 1));
            ip(&[
                "-n", &sw, "link", "add", &sw_if, "type", "veth", "peer", "name", &host_if,
                "netns", &h,
            ]);
            ip(&["-n", &sw, "link", "set", &sw_if, "mtu", "1500", "up"]);
            for (ns, ifname) in [(&sw, &sw_if), (&h, &host_if)] {
                let p = netns::ns_path(ns);
                netns::run_in(Some(&p), || {
                    for k in ["all", "default"] {
                        let _ = std::fs::write(
                            format!("/proc/sys/net/ipv6/conf/{k}/disable_ipv6"),
                            "1",
                        );
                    }
                    nic_offload::host_offloads_off(ifname)
                })
                .map_err(|e| format!("entering {ns}: {e}"))?
                .map_err(|e| format!("offloads off on {ifname}: {e}"))?;
            }
            ip(&["-n", &h, "link", "set", "lo", "up"]);
            ip(&["-n", &h, "link", "set", &host_if, "address", &mac_str(mac)]);
            ip(&[
                "-n",
                &h,
                "addr",
                "add",
                &format!("{addr}/24"),
                "dev",
                &host_if,
            ]);
            ip(&["-n", &h, "link", "set", &host_if, "mtu", "1500", "up"]);
            ip(&["-n", &h, "route", "add", "default", "via", &gw.to_string()]);
            ip(&[
                "-n",
                &h,
                "neigh",
                "replace",
                &gw.to_string(),
                "lladdr",
                &mac_str(gw_mac),
                "dev",
                &host_if,
                "nud",
                "permanent",
            ]);
        }
        let mut o = bmv2_thrift::SwitchOpts::new(
            "simple_router",
            json,
            900_000 + tag as u64,
            9090,
            r._state.path(),
        );
        o.interfaces = vec![(1, "sw-eth1".into()), (2, "sw-eth2".into())];
        o.netns = Some(netns::ns_path(&sw));
        o.packet_log = false;
        o.nice = Some(lh_emu::tor::bmv2::BMV2_NICE);
        let s = bmv2_thrift::Bmv2Switch::spawn(o).map_err(|e| e.to_string())?;
        let mut c = s.client().map_err(|e| e.to_string())?;
        r.sw = Some(s);
        // commands.txt, through the same Thrift client lighthouse uses.
        let e = |x: bmv2_thrift::Error| x.to_string();
        for t in ["send_frame", "forward", "ipv4_lpm"] {
            c.table_set_default(t, "_drop", &[]).map_err(e)?;
        }
        for (k, &(addr, mac, _, gw_mac)) in SR_HOSTS.iter().enumerate() {
            let port = k as u32 + 1;
            c.table_add(
                "send_frame",
                "rewrite_mac",
                &[Key::exact(port)],
                &[Value::from(gw_mac)],
                None,
            )
            .map_err(e)?;
            c.table_add(
                "forward",
                "set_dmac",
                &[Key::exact(addr)],
                &[Value::from(mac)],
                None,
            )
            .map_err(e)?;
            c.table_add(
                "ipv4_lpm",
                "set_nhop",
                &[Key::lpm(addr, 32)],
                &[Value::from(addr), Value::from(port)],
                None,
            )
            .map_err(e)?;
        }
        Ok(r)
    }

    pub fn host(&self, k: usize) -> (PathBuf, Ipv4Addr) {
        (netns::ns_path(&self.names[k + 1]), SR_HOSTS[k].0)
    }
}

impl Drop for StockRouter {
    fn drop(&mut self) {
        if let Some(mut s) = self.sw.take() {
            let _ = s.stop();
        }
        for n in &self.names {
            let p = netns::ns_path(n);
            lh_emu::run::clean::kill_in_namespaces(std::slice::from_ref(&p));
            if let Err(e) = netns::delete_path(&p) {
                eprintln!("simple_router teardown {n}: {e}");
            }
        }
    }
}

/// CPU time (user + system, in clock ticks) of every `simple_switch`
/// process on the machine. The benchmarks run one switch at a time, so the
/// difference over a flow is that switch's work.
pub fn simple_switch_ticks() -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut ticks = 0;
    for e in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ... : comm may hold spaces, so split after ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        if !head.ends_with("(simple_switch") {
            continue;
        }
        let f: Vec<&str> = rest.split_whitespace().collect();
        // utime and stime are fields 14 and 15; `rest` starts at field 3.
        if let (Some(u), Some(s)) = (f.get(11), f.get(12)) {
            ticks += u.parse::<u64>().unwrap_or(0) + s.parse::<u64>().unwrap_or(0);
        }
    }
    ticks
}

/// Frames the interfaces of namespace `ns` (lo aside) have sent.
pub fn tx_packets(ns: &Path) -> u64 {
    let Ok(out) = Command::new("nsenter")
        .arg(format!("--net={}", ns.display()))
        .args(["cat", "/proc/net/dev"])
        .output()
    else {
        return 0;
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(2)
        .filter_map(|l| {
            let (name, v) = l.split_once(':')?;
            // receive: 8 fields, then transmit packets
            (name.trim() != "lo").then(|| v.split_whitespace().nth(9)?.parse::<u64>().ok())?
        })
        .sum()
}

/// What a switch spent per frame over a flow: its CPU time divided by the
/// frames both hosts sent through it (data and ACKs), in microseconds.
pub struct SwitchCost {
    ticks: u64,
    frames: u64,
}

impl SwitchCost {
    pub fn start(h1: &Path, h2: &Path) -> SwitchCost {
        SwitchCost {
            ticks: simple_switch_ticks(),
            frames: tx_packets(h1) + tx_packets(h2),
        }
    }
    pub fn us_per_frame(&self, h1: &Path, h2: &Path) -> f64 {
        let ticks = simple_switch_ticks().saturating_sub(self.ticks);
        let frames = (tx_packets(h1) + tx_packets(h2)).saturating_sub(self.frames);
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        if frames == 0 {
            return f64::NAN;
        }
        ticks as f64 / hz * 1e6 / frames as f64
    }
}
