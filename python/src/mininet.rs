//! `lighthouse.mininet` (Mininet's Python API, docs/mininet.md#python-api):
//! the native half. `MnNet` is one network built from a Python `Topo`'s
//! names and links through [`lh_emu::mininet`] (the same path as
//! `lighthouse run --custom`), run as an [`lh_emu::net::Network`], and
//! driven node by node (`cmd`, `IP`, `MAC`), by Mininet's tests (`ping`,
//! `iperf`) or through the CLI, whose `py`/`px` call back into Python.

use crate::convert::interruptible;
use lh_emu::cli::{Cli, Flow};
use lh_emu::host::confine::{CpuShare, HostConfinement, PrivateDir};
use lh_emu::mininet::{HostOpts, LinkEnd, LinkNetem, MnTopo, Prepared};
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::run::bringup::NetOptions;
use lh_emu::text::level::{self, Level};
use pyo3::exceptions::{PyKeyError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use std::collections::BTreeMap;

fn net_err(e: impl std::fmt::Display) -> PyErr {
    crate::NetworkError::new_err(e.to_string())
}

/// One link of a Python Topo: ends, `bw` (Mbit/s), `port1`, `port2`, and
/// netem's options as a JSON object (`{"delay": "10ms", "loss": 1}`).
type PyLink = (
    String,
    String,
    Option<f64>,
    Option<usize>,
    Option<usize>,
    Option<String>,
);

/// A host's CPU limit and private directories from Python:
/// `(host, cpu fraction, period_us, [(target, bind source or None)])`.
type PyConfine = (
    String,
    Option<f64>,
    Option<u64>,
    Vec<(String, Option<String>)>,
);

/// `ping`'s result: sent, received, and each pair's RTT (ms) if it came.
type PingRows = (u64, u64, Vec<(String, String, Option<f64>)>);

/// A host's own options from Python: `(host, ip, defaultRoute)`.
type PyHostOpts = (String, Option<String>, Option<String>);

/// `MnNet(switches, hosts, links, ipbase=None, mac=False, arp=False,
/// confine=None, host_opts=None)`.
#[pyclass(name = "MnNet", unsendable, module = "lighthouse._native")]
struct MnNet {
    topo: MnTopo,
    confine: BTreeMap<String, HostConfinement>,
    ipbase: Option<(std::net::Ipv4Addr, u8)>,
    mac: bool,
    arp: bool,
    /// The generated config (its scratch folder lives as long as the run).
    prepared: Option<Prepared>,
    live: Option<Network>,
}

impl MnNet {
    fn live(&mut self) -> PyResult<&mut Network> {
        self.live
            .as_mut()
            .ok_or_else(|| net_err("the network is not running: call net.start() first"))
    }

    fn prepare(&mut self) -> PyResult<&Prepared> {
        if self.prepared.is_none() {
            let p = lh_emu::mininet::prepare_topo(&self.topo, "Topo")
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            self.prepared = Some(p);
        }
        Ok(self.prepared.as_ref().expect("prepared above"))
    }

    fn host_index(net: &Network, name: &str) -> PyResult<usize> {
        net.node(name)
            .and_then(|n| n.host())
            .ok_or_else(|| PyKeyError::new_err(format!("{name} is not a host of the network")))
    }
}

#[pymethods]
impl MnNet {
    #[new]
    #[pyo3(signature = (switches, hosts, links, ipbase=None, mac=false, arp=false, confine=None, host_opts=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        switches: Vec<String>,
        hosts: Vec<String>,
        links: Vec<PyLink>,
        ipbase: Option<String>,
        mac: bool,
        arp: bool,
        confine: Option<Vec<PyConfine>>,
        host_opts: Option<Vec<PyHostOpts>>,
    ) -> PyResult<Self> {
        let confine = confine
            .unwrap_or_default()
            .into_iter()
            .map(|(h, cpu, period, dirs)| {
                let cpu = match cpu {
                    Some(f) if !(f.is_finite() && f > 0.0 && f <= 1.0) => {
                        return Err(PyValueError::new_err(format!(
                            "host {h}: cpu={f}: expected a fraction of the machine, more than 0 and at most 1"
                        )));
                    }
                    Some(fraction) => Some(CpuShare {
                        fraction,
                        period_us: period.unwrap_or(lh_emu::host::confine::PERIOD_US),
                    }),
                    None => None,
                };
                let private_dirs = dirs
                    .into_iter()
                    .map(|(t, src)| match src {
                        None => PrivateDir::Tmpfs(t.into()),
                        Some(s) => PrivateDir::Bind {
                            target: t.into(),
                            source: s.into(),
                        },
                    })
                    .collect();
                Ok((h, HostConfinement { cpu, private_dirs }))
            })
            .collect::<PyResult<BTreeMap<_, _>>>()?;
        let ipbase = ipbase
            .map(|b| {
                let (a, n) = b.split_once('/').unwrap_or((&b, "8"));
                let ip = a.parse().ok();
                let n = n.parse::<u8>().ok().filter(|n| (1..=30).contains(n));
                ip.zip(n).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "ipBase={b:?}: expected A.B.C.D/N with N in 1..30, e.g. '192.168.50.0/24'"
                    ))
                })
            })
            .transpose()?;
        // The link's JSON object holds netem's options and its ends'
        // names and addresses.
        let (netem, ends): (Vec<LinkNetem>, Vec<[LinkEnd; 2]>) = links
            .iter()
            .map(|l| {
                let Some(j) = &l.5 else {
                    return Ok((LinkNetem::default(), Default::default()));
                };
                serde_json::from_str(j)
                    .map_err(|e| e.to_string())
                    .and_then(|v| Ok((LinkNetem::from_json(&v)?, LinkEnd::pair_from_json(&v)?)))
                    .map_err(|e| PyValueError::new_err(format!("link {}-{}: {e}", l.0, l.1)))
            })
            .collect::<PyResult<Vec<_>>>()?
            .into_iter()
            .unzip();
        let host_opts = host_opts
            .unwrap_or_default()
            .into_iter()
            .map(|(h, ip, default_route)| (h, HostOpts { ip, default_route }))
            .collect();
        let topo = MnTopo {
            switches,
            hosts,
            ports: links.iter().map(|l| (l.3, l.4)).collect(),
            links: links.into_iter().map(|l| (l.0, l.1, l.2)).collect(),
            netem,
            ends,
            host_opts,
            // The Python side refuses options it cannot honour.
            warnings: Vec::new(),
        };
        Ok(MnNet {
            topo,
            confine,
            ipbase,
            mac,
            arp,
            prepared: None,
            live: None,
        })
    }

    /// Mininet's build: check the topology can be a Lighthouse fabric and
    /// generate its config (nothing is created in the kernel yet).
    fn build(&mut self) -> PyResult<()> {
        self.prepare().map(|_| ())
    }

    /// Bring the network up and start its ToRs (root).
    fn start(&mut self) -> PyResult<()> {
        if self.live.is_some() {
            return Ok(());
        }
        if !crate::is_root() {
            return Err(PyPermissionError::new_err(
                "Mininet.start() needs root (network namespaces, veths): run the script as root, e.g. `sudo .venv/bin/python script.py`",
            ));
        }
        let (mac, arp, ipbase) = (self.mac, self.arp, self.ipbase);
        let p = self.prepare()?;
        let cfg = lh_ctrl::config::Config::load(&p.config)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let c = lh_ctrl::compile::compile(&cfg)
            .map_err(|e| crate::CompileError::new_err(e.to_string()))?;
        let mut plan = p.plan(&cfg);
        if let Some((ip, len)) = ipbase {
            plan.set_ipbase(ip, len)
                .map_err(|e| PyValueError::new_err(format!("ipBase: {e}")))?;
        }
        let opts = NetworkOptions {
            net: NetOptions {
                mac,
                arp,
                config: std::fs::canonicalize(&p.config).ok(),
                ..Default::default()
            },
            pace_hosts: p.pace_hosts,
            confine: self.confine.clone(),
            ..Default::default()
        };
        let mut n = Network::bring_up(plan, Some(c), opts).map_err(net_err)?;
        // On an error `n` is dropped here, which tears the run down.
        n.start().map_err(net_err)?;
        self.live = Some(n);
        Ok(())
    }

    /// Drain, report conservation, tear everything down (the generated
    /// config's scratch folder too); idempotent.
    fn stop(&mut self) -> bool {
        let ok = self.live.take().is_none_or(|mut n| n.stop());
        self.prepared = None;
        ok
    }

    /// The run's prefix while it runs (its namespaces are `PREFIX-<node>`),
    /// else None.
    #[getter]
    fn prefix(&self) -> Option<String> {
        self.live.as_ref().map(|n| n.prefix.clone())
    }

    /// The namespace a node's commands run in (`ip netns exec` takes it).
    fn ns_name(&mut self, node: &str) -> PyResult<String> {
        let n = self.live()?;
        let ns = n
            .node_ns(node)
            .ok_or_else(|| PyKeyError::new_err(node.to_string()))?;
        Ok(ns
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default())
    }

    /// The words that run a program in a node from outside (`popen`):
    /// `ip netns exec NS`, behind `nsenter` into the host's mount
    /// namespace when it has private directories.
    fn exec_prefix(&mut self, node: &str) -> PyResult<Vec<String>> {
        let ns = self.ns_name(node)?;
        let n = self.live()?;
        Ok(match n.shells.confined(node) {
            Some(c) => c.exec_prefix(&ns),
            None => vec!["ip".into(), "netns".into(), "exec".into(), ns],
        })
    }

    /// A CPU-limited host's `cgroup.procs` (a process that writes 0 there
    /// joins it), else None.
    fn cgroup_procs(&mut self, node: &str) -> PyResult<Option<String>> {
        let n = self.live()?;
        Ok(n.shells
            .confined(node)
            .and_then(|c| c.procs())
            .map(|p| p.to_string_lossy().into_owned()))
    }

    /// `node.IP()`: None for a switch.
    fn ip(&mut self, node: &str) -> PyResult<Option<String>> {
        self.live()?.node_ip(node).map_err(net_err)
    }

    /// `node.MAC()`: None for a switch.
    fn mac(&mut self, node: &str) -> PyResult<Option<String>> {
        self.live()?.node_mac(node).map_err(net_err)
    }

    /// A node's interfaces in port order, with their far ends.
    fn intfs(&mut self, node: &str) -> PyResult<Vec<(String, Option<String>)>> {
        let n = self.live()?;
        if !n.is_node(node) {
            return Err(PyKeyError::new_err(node.to_string()));
        }
        Ok(n.intf_list(node))
    }

    /// Mininet's repr of a node: `<Host h1: h1-eth0:10.0.0.1 pid=N> `.
    fn repr_of(&mut self, node: &str) -> PyResult<String> {
        let d = self.live()?.dump();
        let n = d
            .nodes
            .into_iter()
            .find(|d| d.name == node)
            .ok_or_else(|| PyKeyError::new_err(node.to_string()))?;
        let ifs: Vec<(&str, Option<String>)> = n
            .intfs
            .iter()
            .map(|(i, a)| (i.as_str(), a.clone()))
            .collect();
        Ok(lh_emu::text::format::dump_line(
            n.class, &n.name, &ifs, n.pid,
        ))
    }

    /// `node.cmd(line)`: what it printed.
    fn cmd(&mut self, py: Python<'_>, node: &str, line: &str) -> PyResult<String> {
        let n = self.live()?;
        interruptible(py, || n.node_cmd_output(node, line))?.map_err(net_err)
    }

    /// `node.sendCmd(line)`: sent to the node's shell; returns at once.
    fn send_cmd(&mut self, node: &str, line: &str) -> PyResult<()> {
        self.live()?.node_send(node, line).map_err(net_err)
    }

    /// `node.monitor(timeoutms)`: (what the shell printed, the exit status
    /// once the command sent with `send_cmd` ended).
    /// A negative or absent timeout waits until output comes, as poll().
    #[pyo3(signature = (node, timeout_ms=None))]
    fn read_output(
        &mut self,
        node: &str,
        timeout_ms: Option<f64>,
    ) -> PyResult<(String, Option<i32>)> {
        let t = timeout_ms
            .filter(|&ms| ms >= 0.0)
            .map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
        self.live()?.node_read(node, t).map_err(net_err)
    }

    /// `node.sendInt()`: interrupts what the node's shell runs.
    fn send_int(&mut self, node: &str) -> PyResult<()> {
        self.live()?.node_interrupt(node);
        Ok(())
    }

    /// `node.waiting`: a command sent with `send_cmd` has not ended.
    fn waiting(&mut self, node: &str) -> PyResult<bool> {
        Ok(self.live()?.node_waiting(node))
    }

    /// `node.stdout.fileno()`: the node's shell output, for `poll`.
    fn stdout_fd(&mut self, node: &str) -> PyResult<i32> {
        self.live()?.node_stdout_fd(node).map_err(net_err)
    }

    /// Mininet's `ping` (`full`: `pingFull`, a line per pair): prints its
    /// text; (sent, received, [(src, dst, rtt in ms or None)]).
    #[pyo3(signature = (hosts=None, timeout=None, full=false))]
    fn ping(
        &mut self,
        py: Python<'_>,
        hosts: Option<Vec<String>>,
        timeout: Option<f64>,
        full: bool,
    ) -> PyResult<PingRows> {
        let n = self.live()?;
        let idx = hosts
            .map(|h| {
                h.iter()
                    .map(|h| Self::host_index(n, h))
                    .collect::<PyResult<Vec<_>>>()
            })
            .transpose()?;
        let verb = if full { "pingallfull" } else { "pingall" };
        let p = interruptible(py, || Cli::new(n).ping(verb, idx.as_deref(), timeout, full))?
            .ok_or_else(|| net_err("ping failed (see its output)"))?;
        let rows = p
            .rows
            .iter()
            .flat_map(|r| {
                r.results
                    .iter()
                    .map(|x| (r.src.clone(), x.dst.clone(), x.rtt_ms))
            })
            .collect();
        Ok((p.sent, p.received, rows))
    }

    /// Mininet's `intf.config(bw=..., delay=..., ...)` on a running host
    /// link's end: `bw` in Mbit/s, netem's options as a JSON object.
    #[pyo3(signature = (intf, bw=None, netem=None))]
    fn intf_config(&mut self, intf: &str, bw: Option<f64>, netem: Option<String>) -> PyResult<()> {
        let netem = match netem {
            Some(j) => serde_json::from_str(&j)
                .map_err(|e| e.to_string())
                .and_then(|v| LinkNetem::from_json(&v))
                .map_err(|e| PyValueError::new_err(format!("{intf}.config: {e}")))?,
            None => LinkNetem::default(),
        };
        self.live()?
            .intf_config(intf, bw, &netem)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Mininet's `iperf`: TCP for `seconds`, or UDP at `udp_bw`; prints its
    /// text; the rates as Mininet's strings (UDP: the rate asked for first).
    #[pyo3(signature = (client, server, seconds=5.0, udp_bw=None))]
    fn iperf(
        &mut self,
        py: Python<'_>,
        client: &str,
        server: &str,
        seconds: f64,
        udp_bw: Option<String>,
    ) -> PyResult<Vec<String>> {
        let n = self.live()?;
        let (c, s) = (Self::host_index(n, client)?, Self::host_index(n, server)?);
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86400.0) {
            return Err(PyValueError::new_err(format!(
                "iperf(seconds={seconds}): expected > 0 and at most 86400"
            )));
        }
        let v = interruptible(py, || {
            let mut cli = Cli::new(n);
            match udp_bw {
                Some(bw) => cli.iperfudp(&format!("{bw} {client} {server}")),
                None => cli.iperf_pair(c, s, seconds),
            }
        })?
        .ok_or_else(|| net_err("iperf failed (see its output)"))?;
        let mut out: Vec<String> = v.bw.into_iter().collect();
        out.push(lh_emu::text::format::rate(v.server_bps));
        out.push(lh_emu::text::format::rate(v.client_bps));
        Ok(out)
    }

    /// Mininet's `configLinkStatus(a, b, 'up'|'down')`.
    fn link(&mut self, a: &str, b: &str, up: bool) -> PyResult<()> {
        self.live()?.link(a, b, up).map_err(net_err)
    }

    /// The CLI over this network: `script` (a file of commands, like
    /// `CLI(net, script=...)`) or the interactive prompt. `py(line, is_px)`
    /// evaluates `py`/`px` lines and returns the text to print.
    #[pyo3(signature = (script=None, py=None))]
    fn cli(slf: &Bound<'_, Self>, script: Option<String>, py: Option<Py<PyAny>>) -> PyResult<()> {
        crate::cli::run(
            slf,
            script,
            py,
            "net.start() before CLI(net)",
            lh_emu::cli::MININET_PROMPT,
        )
    }

    /// Run one CLI command line (Mininet's `CLI.onecmd`); whether the CLI
    /// would go on.
    fn onecmd(&mut self, line: &str) -> PyResult<bool> {
        let mut cli = Cli::new(self.live()?);
        Ok(cli.onecmd(line) == Flow::Continue)
    }
}

/// `setLogLevel(name)`: Mininet's levels; `output` and above print no
/// banners.
#[pyfunction]
fn set_log_level(name: &str) -> PyResult<()> {
    let l = Level::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "setLogLevel({name:?}): expected one of {}",
            level::NAMES
        ))
    })?;
    level::set(l);
    Ok(())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MnNet>()?;
    m.add_function(wrap_pyfunction!(set_log_level, m)?)?;
    Ok(())
}

impl crate::cli::HoldsNetwork for MnNet {
    fn slot(&mut self) -> &mut Option<Network> {
        &mut self.live
    }
}
