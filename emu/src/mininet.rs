//! Mininet topologies for `lighthouse run` (docs/mininet.md):
//! `--topo single,N | linear,N | tree,D[,F]`, `--custom FILE.py --topo
//! NAME[,args]` (a Mininet `Topo` subclass, exported by a shim of
//! `mininet.topo` run with /usr/bin/python3, never the real mininet), and
//! `--topo-json FILE` (p4lang tutorials' `topology.json`).
//!
//! Switches become ToRs `s1..` (natural name order), hosts `h1..` in ToR
//! order. Switch-switch links become *static circuits*: a one-slice optical
//! schedule (a `file` topology) whose circuits never change, so they are
//! never dark and behave like point-to-point links, routed by earliest
//! arrival within the slice (= fewest hops). ToRs may have different host
//! counts (a tree has none on its inner switches): the plan carries them.

use crate::plan::Plan;
use lh_ctrl::config::Config;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The exporter, shipped in the binary and written next to the generated
/// config when needed.
pub const EXPORTER: &str = include_str!("../mininet/lh_topo_export.py");

/// The `Topo` classes the exporter imports (`lh_mn_topo.py` beside it): the
/// Python package's `lighthouse.mininet.topo`, one source for both.
pub const TOPO_SHIM: &str = include_str!("../../python/lighthouse/mininet/topo.py");

/// Where a Mininet topology comes from (`lighthouse run --topo`,
/// `--custom`, `--topo-json`).
#[derive(Debug, Default, Clone)]
pub struct MnSource {
    /// single,N | linear,N | tree,D[,F], or NAME[,args] from `custom`.
    pub topo: Option<String>,
    /// Python file defining Mininet `topos` (like `mn --custom`).
    pub custom: Option<PathBuf>,
    /// A p4lang tutorials topology.json.
    pub topo_json: Option<PathBuf>,
}

impl MnSource {
    pub fn is_set(&self) -> bool {
        self.topo.is_some() || self.topo_json.is_some()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MnError {
    #[error("--topo {0:?}: {1}")]
    Spec(String, String),
    #[error("{file}: topology {name:?} failed: {last}")]
    Python {
        file: String,
        name: String,
        last: String,
    },
    #[error("cannot run {0}: {1} (the Mininet exporter needs Python 3)")]
    NoPython(String, std::io::Error),
    #[error("{0}: {1}")]
    File(String, String),
    #[error("{0}")]
    Shape(String),
    #[error("give a CONFIG or a Mininet topology (--topo, --topo-json), not both")]
    Both,
    #[error("writing the generated config: {0}")]
    Io(#[from] std::io::Error),
}

/// A topology as Mininet sees it: names and links.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnTopo {
    pub switches: Vec<String>,
    pub hosts: Vec<String>,
    /// `(a, b, bw in Mbit/s if given)`.
    pub links: Vec<(String, String, Option<f64>)>,
    /// Mininet's `port1`/`port2` of each link, where given (index as in
    /// `links`; missing entries: numbered in link order).
    pub ports: Vec<(Option<usize>, Option<usize>)>,
    /// netem's options of each link (index as in `links`; missing
    /// entries: none), Mininet's `TCLink(delay=, jitter=, loss=,
    /// max_queue_size=)`.
    pub netem: Vec<LinkNetem>,
    /// Each link's two ends as the topology names and addresses them
    /// (index as in `links`; missing entries: Mininet's defaults).
    pub ends: Vec<[LinkEnd; 2]>,
    /// Mininet's `addHost(ip=..., defaultRoute=...)`, by host.
    pub host_opts: BTreeMap<String, HostOpts>,
    /// Link options that cannot be honoured: said at start-up, never
    /// dropped silently.
    pub warnings: Vec<String>,
}

/// One end of a link as Mininet's `addLink` gives it: `intfName1` (or
/// `2`) and the `ip` of `params1` (or `2`). Unset: Mininet's `NODE-ethK`
/// and no address (a host's first interface gets the host's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkEnd {
    pub intf: Option<String>,
    pub ip: Option<String>,
}

impl LinkEnd {
    /// Both ends from a link's JSON object (`{"intfName2": "r0-eth1",
    /// "params2": {"ip": "192.168.1.1/24"}}`); an error names the key.
    pub fn pair_from_json(o: &Value) -> Result<[LinkEnd; 2], String> {
        let one = |side: u8| -> Result<LinkEnd, String> {
            let intf = match o.get(format!("intfName{side}")) {
                None | Some(Value::Null) => None,
                Some(Value::String(n)) => Some(n.clone()),
                Some(x) => return Err(format!("intfName{side}={x}: expected a name")),
            };
            let ip = match o.get(format!("params{side}")) {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) => {
                    if let Some(k) = m.keys().find(|k| k.as_str() != "ip") {
                        return Err(format!(
                            "params{side}: {k}= is not taken; an interface's params take ip= only (give the link bw=, delay=, loss= ...)"
                        ));
                    }
                    match m.get("ip") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(a)) => Some(a.clone()),
                        Some(x) => {
                            return Err(format!("params{side} ip={x}: expected 'A.B.C.D/N'"));
                        }
                    }
                }
                Some(x) => return Err(format!("params{side}={x}: expected {{'ip': 'A.B.C.D/N'}}")),
            };
            Ok(LinkEnd { intf, ip })
        };
        Ok([one(1)?, one(2)?])
    }
}

/// A host's own options (Mininet's `addHost`): its address and default
/// route (`'via 192.168.1.1'`, or an interface).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostOpts {
    pub ip: Option<String>,
    pub default_route: Option<String>,
}

/// `A.B.C.D` or `A.B.C.D/N` (without `/N`: the prefix of the run's
/// ipBase); `what` names the option in the error.
pub fn parse_ip(s: &str, what: &str) -> Result<(Ipv4Addr, Option<u8>), String> {
    let (a, n) = match s.split_once('/') {
        Some((a, n)) => (a, Some(n)),
        None => (s, None),
    };
    let ip: Ipv4Addr = a
        .parse()
        .map_err(|_| format!("{what}={s:?}: expected 'A.B.C.D/N'"))?;
    let len = n
        .map(|n| n.parse::<u8>().ok().filter(|n| (1..=32).contains(n)))
        .map(|l| l.ok_or_else(|| format!("{what}={s:?}: expected a prefix length 1..32")))
        .transpose()?;
    if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() {
        return Err(format!("{what}={s:?}: expected a unicast address"));
    }
    Ok((ip, len))
}

/// A link's netem options as Mininet takes them: times as strings
/// (`'10ms'`), loss in percent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkNetem {
    pub delay: Option<String>,
    pub jitter: Option<String>,
    pub loss: Option<f64>,
    pub max_queue_size: Option<u64>,
}

impl LinkNetem {
    pub fn is_empty(&self) -> bool {
        *self == LinkNetem::default()
    }

    /// The options of a link's JSON object (`{"delay": "10ms", ...}`,
    /// what Mininet's `addLink` got); None where a value is not of the
    /// type Mininet takes.
    pub fn from_json(o: &Value) -> Result<LinkNetem, String> {
        let time = |k: &str| -> Result<Option<String>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(t)) => Ok(Some(t.clone())),
                Some(x) => Err(format!("{k}={x}: expected a time such as '10ms'")),
            }
        };
        let loss = match o.get("loss") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_f64()
                    .ok_or(format!("loss={x}: expected a percentage"))?,
            ),
        };
        let max_queue_size = match o.get("max_queue_size") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_u64()
                    .ok_or(format!("max_queue_size={x}: expected a number of packets"))?,
            ),
        };
        Ok(LinkNetem {
            delay: time("delay")?,
            jitter: time("jitter")?,
            loss,
            max_queue_size,
        })
    }

    /// As config `hosts.link` (JSON), checked: a clear error naming the
    /// option otherwise.
    pub fn to_config(&self, seed: Option<u64>) -> Result<Value, String> {
        let mut o = serde_json::Map::new();
        for (k, v) in [("delay", &self.delay), ("jitter", &self.jitter)] {
            if let Some(t) = v {
                t.parse::<lh_ctrl::units::Nanos>()
                    .map_err(|e| format!("{k}='{t}': {e}"))?;
                o.insert(k.into(), json!(t));
            }
        }
        if let Some(l) = self.loss {
            if !(0.0..=100.0).contains(&l) {
                return Err(format!("loss={l}: expected a percentage, 0 to 100"));
            }
            o.insert("loss".into(), json!(l));
        }
        if let Some(q) = self.max_queue_size {
            if q == 0 || q > u32::MAX as u64 {
                return Err(format!("max_queue_size={q}: expected 1 to {}", u32::MAX));
            }
            o.insert("max_queue_size".into(), json!(q));
        }
        if let Some(s) = seed {
            o.insert("seed".into(), json!(s));
        }
        Ok(Value::Object(o))
    }
}

/// Frames a shaped Mininet link's queue holds when `max_queue_size` is not
/// given: netem's default `limit`, and the txqueuelen of the pfifo that
/// `tc`'s htb gets when only `bw=` is set, both 1000.
pub const TC_QUEUE_FRAMES: u64 = 1000;

/// `tors.queue_capacity` for switch links shaped as a `TCLink`: their
/// `max_queue_size` (or [`TC_QUEUE_FRAMES`]) full frames. Without it a
/// shaped switch link would have the calendar queue's default (eight
/// slices, 64 KiB at least: 43 frames), and TCP over a long, slow Mininet
/// link would lose where Mininet's queue of 1000 holds.
pub fn tc_queue_bytes(max_queue_size: Option<u64>) -> u64 {
    max_queue_size.unwrap_or(TC_QUEUE_FRAMES) * u64::from(lh_ctrl::config::DEFAULT_MAX_FRAME)
}

/// Mininet's natural sort key (s2 before s10).
fn natural(s: &str) -> Vec<(bool, u64, String)> {
    let mut v = Vec::new();
    let mut cur = String::new();
    let mut digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() != digits && !cur.is_empty() {
            v.push(part(&cur, digits));
            cur.clear();
        }
        digits = c.is_ascii_digit();
        cur.push(c);
    }
    if !cur.is_empty() {
        v.push(part(&cur, digits));
    }
    v
}

fn part(s: &str, digits: bool) -> (bool, u64, String) {
    if digits {
        (false, s.parse().unwrap_or(u64::MAX), String::new())
    } else {
        (true, 0, s.to_string())
    }
}

/// Mininet's `splitArgs`: `tree,2,3` → ("tree", ["2", "3"]).
fn split_spec(spec: &str) -> (String, Vec<String>) {
    let mut it = spec.split(',').map(|s| s.trim().to_string());
    let name = it.next().unwrap_or_default();
    (name, it.collect())
}

/// `single,N`, `linear,N`, `tree,D[,F]`, built the way Mininet builds them.
pub fn builtin(spec: &str) -> Result<MnTopo, MnError> {
    let (name, args) = split_spec(spec);
    let bad = |m: &str| MnError::Spec(spec.to_string(), m.to_string());
    let num = |i: usize, default: Option<usize>| -> Result<usize, MnError> {
        match args.get(i) {
            Some(a) => a
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| bad(&format!("expected a positive integer, got {a:?}"))),
            None => default.ok_or_else(|| bad("missing a size, e.g. linear,4")),
        }
    };
    let mut t = MnTopo::default();
    let link = |t: &mut MnTopo, a: &str, b: &str| t.links.push((a.into(), b.into(), None));
    match name.as_str() {
        "single" | "minimal" => {
            let k = if name == "minimal" {
                2
            } else {
                num(0, Some(2))?
            };
            t.switches.push("s1".into());
            for h in 1..=k {
                t.hosts.push(format!("h{h}"));
                link(&mut t, &format!("h{h}"), "s1");
            }
        }
        "linear" => {
            let k = num(0, Some(2))?;
            for i in 1..=k {
                t.switches.push(format!("s{i}"));
                t.hosts.push(format!("h{i}"));
                link(&mut t, &format!("h{i}"), &format!("s{i}"));
                if i > 1 {
                    link(&mut t, &format!("s{i}"), &format!("s{}", i - 1));
                }
            }
        }
        "reversed" => {
            // Mininet's SingleSwitchReversedTopo: h1 on the last port.
            let k = num(0, Some(2))?;
            t.switches.push("s1".into());
            for h in 1..=k {
                t.hosts.push(format!("h{h}"));
                link(&mut t, &format!("h{h}"), "s1");
                t.ports.push((Some(0), Some(k - h + 1)));
            }
        }
        "torus" => {
            // Mininet's TorusTopo(x, y, n): switches sIxJ, hosts hIxJ (or
            // hIxJxK for n > 1), each switch linked to its right and lower
            // neighbours, wrapping around.
            let (x, y, n) = (num(0, None)?, num(1, None)?, num(2, Some(1))?);
            if x < 3 || y < 3 {
                return Err(bad("Please use 3x3 or greater (as Mininet's TorusTopo)"));
            }
            if x * y * n > 1024 {
                return Err(bad("more than 1024 hosts"));
            }
            let sw = |i: usize, j: usize| format!("s{}x{}", i + 1, j + 1);
            for i in 0..x {
                for j in 0..y {
                    t.switches.push(sw(i, j));
                    for k in 1..=n {
                        let h = if n == 1 {
                            format!("h{}x{}", i + 1, j + 1)
                        } else {
                            format!("h{}x{}x{k}", i + 1, j + 1)
                        };
                        t.hosts.push(h.clone());
                        link(&mut t, &h, &sw(i, j));
                    }
                }
            }
            for i in 0..x {
                for j in 0..y {
                    link(&mut t, &sw(i, j), &sw(i, (j + 1) % y));
                    link(&mut t, &sw(i, j), &sw((i + 1) % x, j));
                }
            }
        }
        "tree" => {
            let (depth, fanout) = (num(0, Some(1))?, num(1, Some(2))?);
            if fanout.checked_pow(depth as u32).is_none_or(|n| n > 1024) {
                return Err(bad("more than 1024 hosts"));
            }
            let (mut sw, mut h) = (1, 1);
            tree(&mut t, depth, fanout, &mut sw, &mut h);
        }
        _ => {
            return Err(bad(
                "unknown topology; built in: minimal single,N reversed,N linear,N tree,D[,F] torus,X,Y[,N] (use --custom FILE.py for others)",
            ));
        }
    }
    Ok(t)
}

fn tree(t: &mut MnTopo, depth: usize, fanout: usize, sw: &mut usize, h: &mut usize) -> String {
    if depth == 0 {
        let n = format!("h{h}");
        *h += 1;
        t.hosts.push(n.clone());
        return n;
    }
    let n = format!("s{sw}");
    *sw += 1;
    t.switches.push(n.clone());
    for _ in 0..fanout {
        let c = tree(t, depth - 1, fanout, sw, h);
        t.links.push((n.clone(), c, None));
    }
    n
}

fn python() -> String {
    std::env::var("LIGHTHOUSE_PYTHON").unwrap_or_else(|_| {
        if Path::new("/usr/bin/python3").is_file() {
            "/usr/bin/python3".into()
        } else {
            "python3".into()
        }
    })
}

/// Run the exporter on a Mininet custom file.
pub fn custom(file: &Path, spec: &str, scratch: &Path) -> Result<MnTopo, MnError> {
    if !file.is_file() {
        return Err(MnError::File(
            file.display().to_string(),
            "no such file".into(),
        ));
    }
    let (name, args) = split_spec(spec);
    let exporter = scratch.join("lh_topo_export.py");
    std::fs::write(&exporter, EXPORTER)?;
    std::fs::write(scratch.join("lh_mn_topo.py"), TOPO_SHIM)?;
    let py = python();
    let out = Command::new(&py)
        // -I: no user site-packages or PYTHON* variables, so nothing but the
        // shim can answer `import mininet`.
        .arg("-I")
        .arg(&exporter)
        .arg(file)
        .arg(&name)
        .args(&args)
        .output()
        .map_err(|e| MnError::NoPython(py.clone(), e))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the exporter failed without a message")
            .trim()
            .to_string();
        return Err(MnError::Python {
            file: file.display().to_string(),
            name,
            last,
        });
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| MnError::File(file.display().to_string(), format!("exporter output: {e}")))?;
    let names = |k: &str| -> Vec<String> {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let links = v["links"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| {
                    Some((
                        l[0].as_str()?.to_string(),
                        l[1].as_str()?.to_string(),
                        l[2].get("bw").and_then(Value::as_f64),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut netem = Vec::new();
    for l in v["links"].as_array().into_iter().flatten() {
        netem.push(LinkNetem::from_json(&l[2]).map_err(|e| {
            MnError::File(
                file.display().to_string(),
                format!(
                    "link {}-{}: {e}",
                    l[0].as_str().unwrap_or("?"),
                    l[1].as_str().unwrap_or("?")
                ),
            )
        })?);
    }
    let port = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).map(|p| p as usize);
    let ports = v["links"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| (port(&l[2], "port1"), port(&l[2], "port2")))
                .collect()
        })
        .unwrap_or_default();
    let bad = |e: String| MnError::File(file.display().to_string(), e);
    let ends = v["links"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            LinkEnd::pair_from_json(&l[2]).map_err(|e| bad(format!("link {}-{}: {e}", l[0], l[1])))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let host_opts = host_opts_from_json(&v["host_opts"]).map_err(bad)?;
    Ok(MnTopo {
        switches: names("switches"),
        hosts: names("hosts"),
        links,
        ports,
        netem,
        ends,
        host_opts,
        warnings: Vec::new(),
    })
}

/// `{"h1": {"ip": "10.0.0.1/8", "defaultRoute": "via 10.0.0.254"}}`:
/// each host's own options; an error names the host and the key.
pub fn host_opts_from_json(v: &Value) -> Result<BTreeMap<String, HostOpts>, String> {
    let mut out = BTreeMap::new();
    for (h, o) in v.as_object().into_iter().flatten() {
        let s = |k: &str| -> Result<Option<String>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(x)) => Ok(Some(x.clone())),
                Some(x) => Err(format!("host {h} {k}={x}: expected a string")),
            }
        };
        out.insert(
            h.clone(),
            HostOpts {
                ip: s("ip")?,
                default_route: s("defaultRoute")?,
            },
        );
    }
    Ok(out)
}

/// p4lang tutorials' `topology.json`: `hosts` and `switches` as objects (or
/// lists) of names, `links` as `[a, b, latency?, bandwidth?]` with ends like
/// `s1-p2` (the port is dropped: Lighthouse numbers ports itself).
pub fn p4_topology_json(file: &Path) -> Result<MnTopo, MnError> {
    let name = file.display().to_string();
    let text =
        std::fs::read_to_string(file).map_err(|e| MnError::File(name.clone(), e.to_string()))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| MnError::File(name.clone(), e.to_string()))?;
    let keys = |k: &str| -> Vec<String> {
        match &v[k] {
            Value::Object(m) => m.keys().cloned().collect(),
            Value::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let node = |s: &str| -> String {
        match s.rsplit_once("-p") {
            Some((n, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => n.into(),
            _ => s.into(),
        }
    };
    let mut t = MnTopo {
        hosts: keys("hosts"),
        switches: keys("switches"),
        ..Default::default()
    };
    let links = v["links"]
        .as_array()
        .ok_or_else(|| MnError::File(name.clone(), "expected \"links\": [[a, b], ...]".into()))?;
    for (i, l) in links.iter().enumerate() {
        let (Some(a), Some(b)) = (l[0].as_str(), l[1].as_str()) else {
            return Err(MnError::File(
                name,
                format!("links[{i}]: expected [\"a\", \"b\", ...]"),
            ));
        };
        let bw = l.get(3).and_then(Value::as_f64);
        t.links.push((node(a), node(b), bw));
    }
    if t.switches.is_empty() {
        let mut s: Vec<String> = t
            .links
            .iter()
            .flat_map(|(a, b, _)| [a.clone(), b.clone()])
            .filter(|n| !t.hosts.contains(n))
            .collect();
        s.sort();
        s.dedup();
        t.switches = s;
    }
    Ok(t)
}

/// A topology turned into a Lighthouse config.
#[derive(Clone, Debug, PartialEq)]
pub struct Fabric {
    pub config: Value,
    pub schedule: Value,
    /// Hosts per ToR, in ToR order.
    pub host_counts: Vec<usize>,
    pub uplinks: usize,
    /// Lines to print: an added ToR.
    pub notes: Vec<String>,
    /// The topology's own names, for the plan.
    pub names: MnNames,
    /// The smallest `bw=` of a host link (Mbit/s), if any.
    pub host_bw: Option<f64>,
}

/// A Mininet topology's names, kept in the run: hosts (in plan order, with
/// Mininet's address index and the port number on their switch), switches
/// (ToR order) and the switch-switch interfaces `sN-ethK`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnNames {
    /// Per plan host: (name, 1-based index in Mininet's natural order, port K on its switch).
    pub hosts: Vec<(String, usize, usize)>,
    /// Per plan host: its first interface (`h1-eth0`, or the link's `intfName`).
    pub host_ifs: Vec<String>,
    /// A host's further links, in link order.
    pub extras: Vec<MnExtra>,
    /// Addresses the topology gives: (interface, address, prefix length
    /// if given).
    pub ips: Vec<(String, Ipv4Addr, Option<u8>)>,
    /// `defaultRoute=` per host.
    pub routes: Vec<(String, String)>,
    pub tors: Vec<String>,
    /// Per ToR, per uplink: `sN-ethK`.
    pub uplinks: Vec<Vec<String>>,
    /// ToRs shown (a hostless one added for `single` is not).
    pub visible: usize,
    /// Every link's two interfaces, in Mininet's order (for `links`).
    pub links: Vec<(String, String)>,
}

/// A host's link after its first: another port, on `tor`, in the host's
/// namespace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnExtra {
    pub host: String,
    pub tor: usize,
    /// Port K on the switch (`sN-ethK`).
    pub port: usize,
    /// The host's end (`h1-eth1`, or the link's `intfName`).
    pub intf: String,
}

impl MnNames {
    /// Give `plan` (built from this topology's host counts) these names.
    pub fn apply(&self, plan: &mut Plan) {
        let ifs = self
            .host_ifs
            .iter()
            .map(Some)
            .chain(std::iter::repeat(None));
        for ((h, (name, idx, port)), ifn) in plan.hosts.iter_mut().zip(&self.hosts).zip(ifs) {
            h.name = name.clone();
            h.host_if = ifn.cloned().unwrap_or_else(|| format!("{name}-eth0"));
            h.ip = crate::plan::host_ip(*idx);
            let sw = self.tors.get(h.tor as usize).cloned().unwrap_or_default();
            h.tor_if = format!("{sw}-eth{port}");
        }
        let mut next: Vec<usize> = (0..plan.tors).map(|t| plan.hosts_of(t).len()).collect();
        let base = plan.hosts.len();
        plan.extra_intfs = self
            .extras
            .iter()
            .enumerate()
            .map(|(j, e)| {
                next[e.tor] += 1;
                let sw = self.tors.get(e.tor).cloned().unwrap_or_default();
                crate::plan::HostPlan {
                    k: base + j + 1,
                    name: e.host.clone(),
                    ip: Ipv4Addr::UNSPECIFIED,
                    prefix_len: 0,
                    tor: e.tor as lh_ctrl::TorId,
                    tor_port: next[e.tor],
                    host_if: e.intf.clone(),
                    tor_if: format!("{sw}-eth{}", e.port),
                }
            })
            .collect();
        plan.fixed_ips = self.ips.clone();
        plan.default_routes = self.routes.clone();
        plan.apply_fixed_ips();
        plan.tor_labels = self.tors.clone();
        plan.uplink_labels = self.uplinks.clone();
        plan.visible_tors = self.visible.min(plan.tors);
        plan.mn_links = self.links.clone();
    }
}

/// Longest node name: its interfaces (`NAME-ethK`) must fit the kernel's
/// 15 characters.
pub const MAX_NAME: usize = 10;

fn rate(mbps: f64) -> String {
    format!("{}Kbps", (mbps * 1000.0).round().max(1.0) as u64)
}

/// The netem options every link of a kind shares (None: none has any),
/// or an error naming two that differ: Lighthouse gives every host link
/// the same ones (config `hosts.link`), and every switch link the same
/// propagation.
fn same_netem(links: &[(String, LinkNetem)], kind: &str) -> Result<Option<LinkNetem>, String> {
    let Some((first, l0)) = links.first() else {
        return Ok(None);
    };
    if let Some((other, l)) = links.iter().find(|(_, l)| l != l0) {
        let show = |l: &LinkNetem| {
            if l.is_empty() {
                "none".to_string()
            } else {
                format!("{l:?}")
            }
        };
        return Err(format!(
            "{kind} links {first} ({}) and {other} ({}) differ in delay, jitter, loss or max_queue_size; Lighthouse gives every {kind} link the same ones (config hosts.link for host links, slice.propagation for switch links' delay)",
            show(l0),
            show(l)
        ));
    }
    Ok((!l0.is_empty()).then(|| l0.clone()))
}

/// Which of `n` nodes `edges` reach from `start`.
fn reach(n: usize, edges: &[(usize, usize)], start: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(x) = stack.pop() {
        for &(a, b) in edges {
            for (u, w) in [(a, b), (b, a)] {
                if u == x && !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    seen
}

/// The topology's own addresses (`addHost(ip=)` on a host's first
/// interface, a link's `params`) and default routes into `names`; an
/// address given twice is refused.
fn host_addresses(
    t: &MnTopo,
    label: &str,
    names: &mut MnNames,
    mut ips: Vec<(String, Ipv4Addr, Option<u8>)>,
) -> Result<(), MnError> {
    let shape = |e: String| MnError::Shape(format!("{label}: {e}"));
    for (h, o) in &t.host_opts {
        let Some(i) = names.hosts.iter().position(|x| &x.0 == h) else {
            continue;
        };
        if let Some(ip) = &o.ip {
            let (ip, len) = parse_ip(ip, &format!("host {h} ip")).map_err(shape)?;
            let ifn = &names.host_ifs[i];
            // A link's params win over the host's, as in Mininet.
            if !ips.iter().any(|x| &x.0 == ifn) {
                ips.push((ifn.clone(), ip, len));
            }
        }
        if let Some(r) = &o.default_route {
            if r.trim().is_empty() || r.contains(['\n', ';', '&', '|']) {
                return Err(shape(format!(
                    "host {h} defaultRoute={r:?}: expected 'via A.B.C.D' or an interface name"
                )));
            }
            names.routes.push((h.clone(), r.trim().to_string()));
        }
    }
    for (i, (a, ip, _)) in ips.iter().enumerate() {
        if let Some((b, ..)) = ips[..i].iter().find(|x| x.1 == *ip) {
            return Err(shape(format!(
                "interfaces {b} and {a} are both given {ip}; every address names one interface"
            )));
        }
    }
    names.ips = ips;
    Ok(())
}

/// Switches → ToRs, host-switch links → host ports (a host with several
/// links gets a port for each), switch-switch links → static circuits
/// (one slice).
pub fn to_fabric(t: &MnTopo, label: &str) -> Result<Fabric, MnError> {
    let mut sw = t.switches.clone();
    sw.sort_by_key(|s| natural(s));
    sw.dedup();
    if sw.is_empty() {
        return Err(MnError::Shape(format!(
            "{label}: the topology has no switches"
        )));
    }
    let mut notes = t.warnings.clone();
    let idx: HashMap<&str, usize> = sw
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let is_host = |n: &str| t.hosts.iter().any(|h| h == n);
    let mut host_sw: HashMap<&str, usize> = HashMap::new();
    // Mininet's port numbers (Topo.addPort): per switch, its links so far
    // + 1 unless the link names one (`port1`/`port2`).
    let mut used: Vec<usize> = vec![0; sw.len()];
    let mut mn_port = |s: usize, given: Option<usize>| -> usize {
        used[s] += 1;
        given.filter(|&k| k > 0).unwrap_or(used[s])
    };
    // Every link as Mininet's `links` shows it: (src, dst) interfaces.
    let mut shown: Vec<((String, String), (String, String))> = Vec::new();
    let mut host_port: HashMap<&str, (usize, String)> = HashMap::new();
    let mut host_next: HashMap<&str, usize> = HashMap::new();
    let mut extras: Vec<MnExtra> = Vec::new();
    // Switches a host with several links joins (its first one, another).
    let mut bridges: Vec<(usize, usize)> = Vec::new();
    let mut names_ips: Vec<(String, Ipv4Addr, Option<u8>)> = Vec::new();
    let idx_name = |i: usize| sw[i].clone();
    let mut edge_ports: Vec<(usize, usize)> = Vec::new();
    for n in t.switches.iter().chain(&t.hosts) {
        if n.len() > MAX_NAME
            || n.is_empty()
            || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(MnError::Shape(format!(
                "{label}: node name {n:?}: expected 1..{MAX_NAME} letters, digits or _ (its interfaces {n}-ethK must fit the kernel's 15 characters)"
            )));
        }
    }
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let (mut host_bw, mut sw_bw): (Option<f64>, Option<f64>) = (None, None);
    let (mut host_netem, mut sw_netem) = (Vec::new(), Vec::new());
    let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    for (li, (a, b, bw)) in t.links.iter().enumerate() {
        let (p1, p2) = t.ports.get(li).copied().unwrap_or_default();
        match (idx.get(a.as_str()), idx.get(b.as_str())) {
            (Some(&x), Some(&y)) => {
                if x == y {
                    return Err(MnError::Shape(format!(
                        "{label}: link {a}-{b} is a self-loop"
                    )));
                }
                edges.push((x, y));
                let (kx, ky) = (mn_port(x, p1), mn_port(y, p2));
                edge_ports.push((kx, ky));
                shown.push((
                    (a.clone(), b.clone()),
                    (format!("{a}-eth{kx}"), format!("{b}-eth{ky}")),
                ));
                sw_bw = min(sw_bw, *bw);
                sw_netem.push((
                    format!("{a}-{b}"),
                    t.netem.get(li).cloned().unwrap_or_default(),
                ));
            }
            (Some(&s), None) | (None, Some(&s)) => {
                let host_side = usize::from(idx.contains_key(a.as_str()));
                let h = if host_side == 1 { b } else { a };
                if !is_host(h) {
                    return Err(MnError::Shape(format!(
                        "{label}: link {a}-{b}: unknown node {h}"
                    )));
                }
                let given = if host_side == 1 { p1 } else { p2 };
                let k = mn_port(s, given);
                let end = t
                    .ends
                    .get(li)
                    .map(|e| e[host_side].clone())
                    .unwrap_or_default();
                // Mininet's Topo.addPort: a host's ports count from 0.
                let n = host_next.entry(h.as_str()).or_insert(0);
                let hp = (if host_side == 1 { p2 } else { p1 }).unwrap_or(*n);
                *n += 1;
                let ifn = end.intf.clone().unwrap_or_else(|| format!("{h}-eth{hp}"));
                if ifn.is_empty() || ifn.len() > 15 || ifn.contains(['/', ' ', ':']) {
                    return Err(MnError::Shape(format!(
                        "{label}: link {a}-{b}: interface name {ifn:?}: expected 1..15 characters without '/', ':' or spaces"
                    )));
                }
                if let Some(ip) = &end.ip {
                    let (ip, len) = parse_ip(ip, &format!("link {a}-{b} params{}", host_side + 1))
                        .map_err(|e| MnError::Shape(format!("{label}: {e}")))?;
                    names_ips.push((ifn.clone(), ip, len));
                }
                let sw_if = format!("{}-eth{k}", idx_name(s));
                shown.push((
                    (a.clone(), b.clone()),
                    if host_side == 0 {
                        (ifn.clone(), sw_if)
                    } else {
                        (sw_if, ifn.clone())
                    },
                ));
                if let Some(&first) = host_sw.get(h.as_str()) {
                    if first != s {
                        bridges.push((first, s));
                    }
                    extras.push(MnExtra {
                        host: h.clone(),
                        tor: s,
                        port: k,
                        intf: ifn,
                    });
                } else {
                    host_sw.insert(h.as_str(), s);
                    host_port.insert(h.as_str(), (k, ifn));
                }
                host_bw = min(host_bw, *bw);
                host_netem.push((
                    format!("{a}-{b}"),
                    t.netem.get(li).cloned().unwrap_or_default(),
                ));
            }
            (None, None) => {
                return Err(MnError::Shape(format!(
                    "{label}: link {a}-{b} joins two hosts; hosts attach to switches (ToRs) only"
                )));
            }
        }
    }
    let mut hosts: Vec<&String> = t.hosts.iter().collect();
    hosts.sort_by_key(|h| (host_sw.get(h.as_str()).copied(), natural(h)));
    if let Some(h) = hosts.iter().find(|h| !host_sw.contains_key(h.as_str())) {
        return Err(MnError::Shape(format!(
            "{label}: host {h} has no link to a switch"
        )));
    }
    if hosts.is_empty() {
        return Err(MnError::Shape(format!(
            "{label}: the topology has no hosts"
        )));
    }
    let mut counts = vec![0usize; sw.len()];
    for h in &hosts {
        counts[host_sw[h.as_str()]] += 1;
    }
    // Mininet numbers addresses in the natural order of the host names.
    let mut by_name: Vec<&String> = t.hosts.iter().collect();
    by_name.sort_by_key(|h| natural(h));
    let mut names = MnNames {
        hosts: hosts
            .iter()
            .map(|h| {
                let i = by_name.iter().position(|n| n == h).unwrap_or(0) + 1;
                ((*h).clone(), i, host_port[h.as_str()].0)
            })
            .collect(),
        host_ifs: hosts
            .iter()
            .map(|h| host_port[h.as_str()].1.clone())
            .collect(),
        extras,
        ips: Vec::new(),
        routes: Vec::new(),
        tors: sw.clone(),
        uplinks: vec![Vec::new(); sw.len()],
        visible: sw.len(),
        links: {
            // Mininet's buildFromTopo adds them sorted by (src, dst).
            shown.sort_by_key(|((a, b), _)| (natural(a), natural(b)));
            shown.into_iter().map(|(_, ends)| ends).collect()
        },
    };
    host_addresses(t, label, &mut names, names_ips)?;
    // Every ToR with hosts must reach every other one, over switch links
    // or through a host with links to both.
    let m = sw.len();
    let joined: Vec<(usize, usize)> = edges.iter().chain(&bridges).copied().collect();
    let start = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let seen = reach(m, &joined, start);
    if let Some(cut) = (0..m).find(|&t| !seen[t] && counts[t] > 0) {
        return Err(MnError::Shape(format!(
            "{label}: switches {} and {} are not connected by switch links",
            sw[start], sw[cut]
        )));
    }
    // Lighthouse needs two ToRs, and a route between every two over
    // circuits: one switch, or switches joined only through a host (a
    // router such as linuxrouter's), get a hidden, hostless ToR with a
    // circuit to each group of switches. Traffic keeps to the topology's
    // links: a host reaches another switch's hosts through the host with
    // links to both, which owns the MAC its frames are sent to.
    let mut parts: Vec<usize> = Vec::new();
    let mut left = vec![true; m];
    for x in 0..m {
        if left[x] {
            parts.push(x);
            for (y, r) in reach(m, &edges, x).into_iter().enumerate() {
                left[y] &= !r;
            }
        }
    }
    if m == 1 || parts.len() > 1 {
        counts.push(0);
        for &x in &parts {
            edges.push((x, m));
            edge_ports.push((0, 0));
        }
        names.tors.push(format!("{}x", sw[0]));
        names.uplinks.push(Vec::new());
        notes.push(if m == 1 {
            "one switch: added a hidden empty ToR (Lighthouse needs at least 2 ToRs; it has no hosts and is not shown)".into()
        } else {
            format!(
                "switches joined only through hosts: added a hidden empty ToR with a circuit to each of {} groups (Lighthouse routes between every two ToRs; it has no hosts and is not shown)",
                parts.len()
            )
        });
    }
    let n = counts.len();
    let mut next_port = vec![0usize; n];
    let mut circuits = Vec::new();
    for (&(a, b), &(ka, kb)) in edges.iter().zip(&edge_ports) {
        let (pa, pb) = (next_port[a], next_port[b]);
        next_port[a] += 1;
        next_port[b] += 1;
        for (x, k) in [(a, ka), (b, kb)] {
            let name = &names.tors[x];
            let label = if k == 0 {
                format!("{name}-up{}", names.uplinks[x].len())
            } else {
                format!("{name}-eth{k}")
            };
            names.uplinks[x].push(label);
        }
        circuits.push(json!({"ts": 0, "tor1": a, "port1": pa, "tor2": b, "port2": pb}));
    }
    let uplinks = next_port.iter().copied().max().unwrap_or(0).max(1);
    if uplinks > 255 {
        return Err(MnError::Shape(format!(
            "{label}: a switch has {uplinks} switch links; at most 255"
        )));
    }
    let shaped = |e: String| MnError::Shape(format!("{label}: {e}"));
    let host_link = same_netem(&host_netem, "host").map_err(shaped)?;
    let sw_link = same_netem(&sw_netem, "switch").map_err(shaped)?;
    // A switch link is a circuit: its delay is the circuit's propagation.
    let propagation = match sw_link.as_ref().and_then(|l| l.delay.clone()) {
        Some(d) => {
            d.parse::<lh_ctrl::units::Nanos>()
                .map_err(|e| shaped(format!("switch links' delay='{d}': {e}")))?;
            d
        }
        None => "0ns".into(),
    };
    let host_link = host_link
        .map(|l| {
            l.to_config(None)
                .map_err(|e| shaped(format!("host links' {e}")))
        })
        .transpose()?;
    let schedule = json!({"tors": n, "uplinks": uplinks, "slices": 1, "circuits": circuits});
    let config = json!({
        "name": format!("Mininet {label}"),
        "mode": "TO",
        "fabric": "optical",
        "tors": {
            "count": n,
            "uplinks": uplinks,
            "link_rate": sw_bw.map_or("1Gbps".into(), rate),
            "hosts_per_tor": counts.iter().copied().max().unwrap_or(1).max(1),
            "host_link_rate": host_bw.map_or("1Gbps".into(), rate),
        },
        "ocs": {"count": 1, "ports": n * uplinks, "reconfiguration_delay": "0ns", "cabling": "auto"},
        "slice": {"duration": "100us", "guardband": "0ns", "propagation": propagation},
        "topology": {"kind": "file", "path": "schedule.json"},
        "routing": {
            "algorithm": "hoho",
            "lookup": "hop",
            "same_slice_hops": true,
            "max_hop": (n - 1).clamp(1, 255),
        },
    });
    let mut config = config;
    // A switch link's loss and jitter are its circuit's (tors.link_loss,
    // tors.link_jitter).
    if let Some(x) = sw_link.as_ref().and_then(|l| l.loss) {
        config["tors"]["link_loss"] = json!(x);
    }
    if let Some(j) = sw_link.as_ref().and_then(|l| l.jitter.clone()) {
        j.parse::<lh_ctrl::units::Nanos>()
            .map_err(|e| shaped(format!("switch links' jitter='{j}': {e}")))?;
        config["tors"]["link_jitter"] = json!(j);
    }
    if sw_bw.is_some() || sw_link.is_some() {
        let frames = sw_link.as_ref().and_then(|l| l.max_queue_size);
        config["tors"]["queue_capacity"] = json!(tc_queue_bytes(frames));
    }
    if let Some(l) = host_link {
        config["hosts"] = json!({ "link": l });
    }
    Ok(Fabric {
        config,
        schedule,
        host_counts: counts,
        uplinks,
        notes,
        names,
        host_bw,
    })
}

/// What `lighthouse run` uses: a config file (generated for a Mininet
/// topology, in a scratch folder removed on drop) and the host layout.
pub struct Prepared {
    pub config: PathBuf,
    pub host_counts: Option<Vec<usize>>,
    pub notes: Vec<String>,
    /// A Mininet topology's own names.
    pub names: Option<MnNames>,
    /// A host link had `bw=`: pace the hosts at `tors.host_link_rate`
    /// ([`crate::net::NetworkOptions::pace_hosts`]).
    pub pace_hosts: bool,
    _scratch: Option<tempfile::TempDir>,
    /// Removes the scratch folder if the process exits without dropping
    /// this (a signal's or a panic's teardown ends with `exit`).
    guard: Option<u64>,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(id) = self.guard.take() {
            crate::kernel::exitguard::unregister(id);
        }
    }
}

impl Prepared {
    /// The run's plan: the config's, or the Mininet host layout with the
    /// topology's names.
    pub fn plan(&self, cfg: &Config) -> Plan {
        match &self.host_counts {
            Some(c) => {
                let mut p = Plan::with_host_counts(c, cfg.tors.uplinks as usize);
                if let Some(n) = &self.names {
                    n.apply(&mut p);
                }
                p
            }
            None => Plan::from_config(cfg),
        }
    }
}

/// Resolve `lighthouse run`'s CONFIG or Mininet flags. Nothing outside the
/// scratch folder is written; an error leaves nothing behind.
pub fn prepare(config: Option<&Path>, a: &MnSource) -> Result<Prepared, MnError> {
    if !a.is_set() {
        return Ok(Prepared {
            config: config.map(Path::to_path_buf).unwrap_or_default(),
            host_counts: None,
            notes: Vec::new(),
            names: None,
            pace_hosts: false,
            _scratch: None,
            guard: None,
        });
    }
    if config.is_some() {
        return Err(MnError::Both);
    }
    let scratch = tempfile::Builder::new()
        .prefix("lighthouse-mn-")
        .tempdir()?;
    let (topo, label) = match (&a.topo_json, &a.custom, &a.topo) {
        (Some(f), _, _) => (p4_topology_json(f)?, f.display().to_string()),
        (None, Some(f), Some(spec)) => (custom(f, spec, scratch.path())?, spec.clone()),
        (None, None, Some(spec)) => (builtin(spec)?, spec.clone()),
        _ => unreachable!("is_set"),
    };
    prepare_in(&topo, &label, scratch)
}

/// A Mininet topology (from `--topo`, `--custom`, or a Python `Topo`) as a
/// config in a fresh scratch folder, removed when the result is dropped.
pub fn prepare_topo(topo: &MnTopo, label: &str) -> Result<Prepared, MnError> {
    let scratch = tempfile::Builder::new()
        .prefix("lighthouse-mn-")
        .tempdir()?;
    prepare_in(topo, label, scratch)
}

fn prepare_in(topo: &MnTopo, label: &str, scratch: tempfile::TempDir) -> Result<Prepared, MnError> {
    let mut fab = to_fabric(topo, label)?;
    let write = |fab: &Fabric| -> Result<PathBuf, MnError> {
        std::fs::write(
            scratch.path().join("schedule.json"),
            serde_json::to_string_pretty(&fab.schedule).unwrap_or_default(),
        )?;
        let cfg = scratch.path().join("config.json");
        std::fs::write(
            &cfg,
            serde_json::to_string_pretty(&fab.config).unwrap_or_default(),
        )?;
        Ok(cfg)
    };
    let mut path = write(&fab)?;
    // Per-hop tables cannot hold two different next hops for one match; a
    // graph with equal-length alternatives may need source routing.
    if let Ok(cfg) = Config::load(&path)
        && let Err(lh_ctrl::compile::CompileError::Tables(_)) = lh_ctrl::compile::compile(&cfg)
    {
        fab.config["routing"]["lookup"] = json!("source");
        path = write(&fab)?;
    }
    Ok(Prepared {
        config: path,
        host_counts: Some(fab.host_counts),
        notes: fab.notes,
        names: Some(fab.names),
        pace_hosts: fab.host_bw.is_some(),
        guard: Some(crate::kernel::exitguard::register({
            let dir = scratch.path().to_path_buf();
            move || {
                let _ = std::fs::remove_dir_all(&dir);
            }
        })),
        _scratch: Some(scratch),
    })
}

#[cfg(test)]
mod tests;
