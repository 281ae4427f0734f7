//! `lighthouse ocs`: the emulated OCS as its own process (docs/cli.md#lighthouse-ocs).
//! The same swtor engine as `lighthouse run`'s data-plane thread (the
//! `Ocs`, the external ToRs' calendar queues, rotation frames) for ToRs that
//! run outside it: BMv2 switches in namespaces or hardware ToRs behind this
//! machine's NICs, each uplink and CPU port named with `--port`. Its
//! counters are served on a control socket, `/run/lighthouse/<prefix>/ocs.sock`
//! (`swtor::remote`). `lighthouse run` starts one itself, with `--attach`,
//! when a ToR is on BMv2.

use crate::{is_root, say};
use anyhow::{Context, bail};
use lh_emu::kernel::{signals, state};
use lh_emu::tor::ocs::{Attach, PortsRecord};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use swtor::{ExternalTor, FabricSpec, HostAttach, Timing};

#[derive(clap::Args)]
pub struct OcsArgs {
    /// The fabric's config (its schedule and timing; every ToR external).
    config: PathBuf,
    /// One port of an external ToR: `sN:upP=IFACE` (uplink P of ToR sN,
    /// 0-based) or `sN:cpu=IFACE` (its CPU port, which gets the rotation
    /// frames). Repeat for every uplink and CPU port of every ToR.
    #[arg(long = "port", value_name = "sN:upP=IFACE", conflicts_with = "attach")]
    ports: Vec<String>,
    /// The network namespace the interfaces are in (a name under
    /// /run/netns, as `ip netns` shows, or a path); default: this one.
    #[arg(long, value_name = "NAME")]
    netns: Option<String>,
    /// Run prefix (lh + 4 hex digits) instead of a random one.
    #[arg(long, value_name = "P")]
    prefix: Option<String>,
    /// For `lighthouse run`: the run's hosts and external ToRs (JSON, what
    /// it writes into its state directory); the process then belongs to
    /// run `--prefix` and stops when that run disconnects.
    #[arg(long, value_name = "FILE", requires = "prefix", hide = true)]
    attach: Option<PathBuf>,
}

/// One `--port` value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PortName {
    Up(usize),
    Cpu,
}

/// `sN:upP=IFACE` / `sN:cpu=IFACE` → (ToR index, port, interface).
fn parse_port(s: &str, tors: usize, uplinks: usize) -> anyhow::Result<(usize, PortName, String)> {
    let usage = || {
        anyhow::anyhow!("--port {s:?}: expected sN:upP=IFACE or sN:cpu=IFACE, e.g. s1:up0=enp5s0f0")
    };
    let (port, iface) = s.split_once('=').ok_or_else(usage)?;
    let (tor, which) = port.split_once(':').ok_or_else(usage)?;
    let t: usize = tor
        .strip_prefix('s')
        .and_then(|n| n.parse().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(usage)?;
    if t > tors {
        bail!("--port {s}: the config has ToRs s1..s{tors}");
    }
    let p = match which {
        "cpu" => PortName::Cpu,
        w => {
            let u: usize = w
                .strip_prefix("up")
                .and_then(|n| n.parse().ok())
                .ok_or_else(usage)?;
            if u >= uplinks {
                bail!(
                    "--port {s}: the config's ToRs have uplinks up0..up{}",
                    uplinks - 1
                );
            }
            PortName::Up(u)
        }
    };
    if iface.is_empty() || iface.len() > 15 || iface.contains('/') {
        bail!("--port {s}: {iface:?} is not an interface name");
    }
    Ok((t - 1, p, iface.to_string()))
}

/// Every ToR external, its ports from `--port`: all of them, each once.
fn external_from_ports(
    ports: &[String],
    tors: usize,
    uplinks: usize,
) -> anyhow::Result<Vec<ExternalTor>> {
    let mut named: BTreeMap<(usize, PortName), String> = BTreeMap::new();
    let mut ifaces: BTreeMap<String, String> = BTreeMap::new();
    for s in ports {
        let (t, p, iface) = parse_port(s, tors, uplinks)?;
        if let Some(other) = ifaces.insert(iface.clone(), s.clone()) {
            bail!("--port {s}: interface {iface} is already --port {other}");
        }
        if named.insert((t, p), iface).is_some() {
            bail!("--port {s}: that port is named twice");
        }
    }
    let mut missing = Vec::new();
    let mut out = Vec::new();
    for t in 0..tors {
        let mut get = |p: PortName, label: String| {
            named.get(&(t, p)).cloned().unwrap_or_else(|| {
                missing.push(label);
                String::new()
            })
        };
        let up: Vec<String> = (0..uplinks)
            .map(|u| get(PortName::Up(u), format!("s{}:up{u}", t + 1)))
            .collect();
        let cpu = get(PortName::Cpu, format!("s{}:cpu", t + 1));
        out.push(ExternalTor {
            tor: t as lh_ctrl::TorId,
            uplinks: up,
            cpu,
            // A hardware ToR: nothing to read what it took in from.
            taken_in: None,
        });
    }
    if !missing.is_empty() {
        let n = missing.len();
        let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
        bail!(
            "every port of every ToR needs a --port (all ToRs of `lighthouse ocs` are external): {n} missing: {}{}",
            shown.join(" "),
            if n > shown.len() { " ..." } else { "" }
        );
    }
    Ok(out)
}

/// The namespace `--netns` names (None: this process's).
fn netns_path(n: Option<&str>) -> anyhow::Result<Option<PathBuf>> {
    let Some(n) = n else { return Ok(None) };
    let p = if n.contains('/') {
        PathBuf::from(n)
    } else {
        lh_emu::netns::ns_path(n)
    };
    if !p.exists() {
        bail!("--netns {n}: no such network namespace ({})", p.display());
    }
    Ok(Some(p))
}

fn ns_label(ns: Option<&Path>) -> String {
    ns.map_or("this network namespace".into(), |p| {
        format!("network namespace {}", p.display())
    })
}

/// Every interface exists in `ns`; the error names the first that does not.
fn check_exist(ns: Option<&Path>, ext: &[ExternalTor]) -> anyhow::Result<()> {
    let names: Vec<(String, String)> = ext
        .iter()
        .flat_map(|x| {
            let t = x.tor as usize + 1;
            x.uplinks
                .iter()
                .enumerate()
                .map(move |(u, i)| (format!("s{t}:up{u}"), i.clone()))
                .chain([(format!("s{t}:cpu"), x.cpu.clone())])
        })
        .collect();
    let missing = lh_emu::netns::run_in(ns, move || {
        names
            .into_iter()
            .find(|(_, i)| swtor::afpacket::if_nametoindex(i).is_err())
    })
    .with_context(|| format!("entering {}", ns_label(ns)))?;
    if let Some((port, iface)) = missing {
        bail!(
            "--port {port}={iface}: no interface {iface} in {} (see `ip link`)",
            ns_label(ns)
        );
    }
    Ok(())
}

/// No live `lighthouse ocs` of another run holds one of `ifaces` in the
/// namespace `ns_id`.
fn check_unused(ns_id: (u64, u64), ifaces: &[String], me: Option<&str>) -> anyhow::Result<()> {
    for p in state::runs() {
        if Some(p.as_str()) == me {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(lh_emu::tor::ocs::ports_path(&p)) else {
            continue;
        };
        let Ok(rec) = serde_json::from_str::<PortsRecord>(&text) else {
            continue;
        };
        if rec.netns != ns_id || !lh_emu::tor::ocs::running(rec.pid, rec.start_time) {
            continue;
        }
        if let Some(i) = ifaces.iter().find(|i| rec.interfaces.contains(i)) {
            bail!(
                "interface {i} is already used by run {p} (its OCS process, pid {}); stop it first (`lighthouse clean --prefix {p}`)",
                rec.pid
            );
        }
    }
    Ok(())
}

/// A standalone OCS's claim on its prefix: the run directory goes when it
/// ends, on every path.
struct Claim(String);

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(state::run_dir(&self.0));
    }
}

pub fn ocs(a: OcsArgs) -> anyhow::Result<ExitCode> {
    if let Some(p) = &a.prefix
        && !state::valid_prefix(p)
    {
        bail!("invalid --prefix {p:?}: expected lh + 4 hex digits, e.g. lh3f2a");
    }
    if !is_root() {
        bail!("`lighthouse ocs` needs root (packet sockets on the ToRs' interfaces)");
    }
    let cfg = lh_ctrl::config::Config::load(&a.config)?;
    let (tors, uplinks) = (cfg.tors.count as usize, cfg.tors.uplinks as usize);
    // Everything that can be rejected is checked before any state exists.
    let ns = netns_path(a.netns.as_deref())?;
    let attach: Option<Attach> = match &a.attach {
        Some(f) => {
            let text =
                std::fs::read_to_string(f).with_context(|| format!("--attach {}", f.display()))?;
            Some(serde_json::from_str(&text).with_context(|| format!("--attach {}", f.display()))?)
        }
        None => None,
    };
    let (hosts, external) = match attach {
        Some(at) => {
            let mut ext = at.external;
            lh_emu::tor::fabric::pace_external(&mut ext, &at.pace);
            (at.hosts, ext)
        }
        None => {
            let ext = external_from_ports(&a.ports, tors, uplinks)?;
            // No host is attached here: they only map addresses to ToRs.
            let hosts = lh_emu::plan::Plan::from_config(&cfg)
                .hosts
                .iter()
                .map(|h| HostAttach {
                    ip: h.ip,
                    mac: [0; 6],
                    tor: h.tor,
                    ifname: String::new(),
                })
                .collect();
            (hosts, ext)
        }
    };
    let standalone = a.attach.is_none();
    if standalone {
        check_exist(ns.as_deref(), &external)?;
    }
    let ifaces: Vec<String> = external
        .iter()
        .flat_map(|x| x.uplinks.iter().chain([&x.cpu]).cloned())
        .collect();
    let ns_id = lh_emu::netns::ns_id(ns.as_deref().unwrap_or(Path::new("/proc/self/ns/net")))
        .context("identifying the network namespace")?;
    if standalone {
        check_unused(ns_id, &ifaces, None)?;
    }
    let mut c = lh_ctrl::compile::compile(&cfg).context("compiling the configuration")?;
    c.routes = Default::default();

    // State: a standalone OCS is a run of its own (`lighthouse clean`
    // stops it with SIGTERM); a run's OCS lives in that run's directory.
    let (prefix, _claim) = if standalone {
        let p = state::allocate(a.prefix.as_deref())?;
        let claim = Claim(p.clone());
        let (pid_start, exe) = state::my_identity();
        state::save(&state::RunState {
            prefix: p.clone(),
            pid: std::process::id(),
            config: std::fs::canonicalize(&a.config).ok(),
            started_unix: state::now_unix(),
            pid_start,
            exe,
            ..Default::default()
        })?;
        // Checked again with the claim held: two OCS processes starting
        // at once.
        check_unused(ns_id, &ifaces, Some(&p))?;
        let rec = PortsRecord {
            pid: std::process::id(),
            start_time: state::proc_start_time(std::process::id()).unwrap_or(0),
            netns: ns_id,
            interfaces: ifaces.clone(),
        };
        std::fs::write(
            lh_emu::tor::ocs::ports_path(&p),
            serde_json::to_string_pretty(&rec)?,
        )
        .context("recording the OCS's interfaces")?;
        (p, Some(claim))
    } else {
        let p = a.prefix.clone().unwrap_or_default();
        if !state::run_dir(&p).is_dir() {
            bail!("--attach: run {p} has no state directory");
        }
        (p, None)
    };
    signals::install();
    let spec = FabricSpec {
        schedule: c.schedule.clone(),
        tables: c.tables.clone(),
        timing: Timing::from_model(&c.timing()),
        hosts,
        external,
    };
    let mut opts = swtor::EngineOptions::from_config(&c.config);
    // Hardware ToRs address the hosts, not this machine's NICs.
    opts.promiscuous_external = standalone;
    let natives = tors - spec.external.len();
    let h = swtor::start_with(spec, ns.as_deref(), opts)
        .with_context(|| format!("starting the OCS in {}", ns_label(ns.as_deref())))?;
    let sock = lh_emu::tor::ocs::socket_path(&prefix);
    let _ = std::fs::remove_file(&sock);
    let listener = std::os::unix::net::UnixListener::bind(&sock)
        .with_context(|| format!("control socket {}", sock.display()))?;
    say!(
        "*** OCS {prefix} (pid {}): {tors} ToRs ({} external{}), {} slices of {}, control socket {}",
        std::process::id(),
        tors - natives,
        if natives > 0 {
            format!(", {natives} native")
        } else {
            String::new()
        },
        c.schedule.slices(),
        c.config.slice.duration,
        sock.display()
    );
    let (ended, counters) = swtor::remote::serve(h, &listener, &signals::terminating, !standalone)
        .context("serving the control socket")?;
    let _ = std::fs::remove_file(&sock);
    say!(
        "*** OCS {prefix} stopped ({ended:?}): {counters} (conservation {})",
        if counters.conservation_holds() {
            "OK"
        } else {
            "VIOLATED"
        }
    );
    Ok(if counters.conservation_holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_parse_and_every_one_is_needed() {
        assert_eq!(
            parse_port("s2:up1=enp5s0f1", 4, 2).unwrap(),
            (1, PortName::Up(1), "enp5s0f1".into())
        );
        assert_eq!(
            parse_port("s1:cpu=eth9", 4, 2).unwrap(),
            (0, PortName::Cpu, "eth9".into())
        );
        for bad in [
            "s0:up0=a", "s1:up2=a", "s5:cpu=a", "s1=a", "s1:up0=", "x1:up0=a",
        ] {
            assert!(parse_port(bad, 4, 2).is_err(), "{bad}");
        }
        let ports: Vec<String> = ["s1:up0=a", "s1:cpu=b", "s2:up0=c"]
            .map(String::from)
            .to_vec();
        let e = external_from_ports(&ports, 2, 1).unwrap_err().to_string();
        assert!(e.contains("1 missing: s2:cpu"), "{e}");
        let dup: Vec<String> = ["s1:up0=a", "s1:cpu=a"].map(String::from).to_vec();
        let e = external_from_ports(&dup, 1, 1).unwrap_err().to_string();
        assert!(e.contains("interface a is already --port s1:up0=a"), "{e}");
    }
}
