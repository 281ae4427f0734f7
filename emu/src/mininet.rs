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
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The exporter, shipped in the binary and written next to the generated
/// config when needed.
pub const EXPORTER: &str = include_str!("../mininet/lh_topo_export.py");

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
                "unknown topology; built in: single,N linear,N tree,D[,F] (use --custom FILE.py for others)",
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
    Ok(MnTopo {
        switches: names("switches"),
        hosts: names("hosts"),
        links,
    })
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
        links: Vec::new(),
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
    /// Lines to print: name changes, an added ToR.
    pub notes: Vec<String>,
}

fn rate(mbps: f64) -> String {
    format!("{}Kbps", (mbps * 1000.0).round().max(1.0) as u64)
}

/// Switches → ToRs, host-switch links → host ports, switch-switch links →
/// static circuits (one slice).
pub fn to_fabric(t: &MnTopo, label: &str) -> Result<Fabric, MnError> {
    let mut sw = t.switches.clone();
    sw.sort_by_key(|s| natural(s));
    sw.dedup();
    if sw.is_empty() {
        return Err(MnError::Shape(format!(
            "{label}: the topology has no switches"
        )));
    }
    let mut notes = Vec::new();
    let idx: HashMap<&str, usize> = sw
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let is_host = |n: &str| t.hosts.iter().any(|h| h == n);
    let mut host_sw: HashMap<&str, usize> = HashMap::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let (mut host_bw, mut sw_bw): (Option<f64>, Option<f64>) = (None, None);
    let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    for (a, b, bw) in &t.links {
        match (idx.get(a.as_str()), idx.get(b.as_str())) {
            (Some(&x), Some(&y)) => {
                if x == y {
                    return Err(MnError::Shape(format!(
                        "{label}: link {a}-{b} is a self-loop"
                    )));
                }
                edges.push((x, y));
                sw_bw = min(sw_bw, *bw);
            }
            (Some(&s), None) | (None, Some(&s)) => {
                let h = if idx.contains_key(a.as_str()) { b } else { a };
                if !is_host(h) {
                    return Err(MnError::Shape(format!(
                        "{label}: link {a}-{b}: unknown node {h}"
                    )));
                }
                if host_sw.insert(h.as_str(), s).is_some() {
                    return Err(MnError::Shape(format!(
                        "{label}: host {h} has more than one link; a Lighthouse host has one port to its ToR"
                    )));
                }
                host_bw = min(host_bw, *bw);
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
    for (i, s) in sw.iter().enumerate() {
        if *s != format!("s{}", i + 1) {
            notes.push(format!("Mininet switch {s} is s{}", i + 1));
        }
    }
    for (k, h) in hosts.iter().enumerate() {
        if **h != format!("h{}", k + 1) {
            notes.push(format!("Mininet host {h} is h{}", k + 1));
        }
    }
    if sw.len() == 1 {
        // Lighthouse needs two ToRs; a hostless second one changes nothing
        // for the hosts of s1.
        counts.push(0);
        edges.push((0, 1));
        notes.push("one switch: added an empty ToR s2 (Lighthouse needs at least 2 ToRs)".into());
    }
    let n = counts.len();
    // Every ToR with hosts must reach every other one over the links.
    let mut seen = vec![false; n];
    let start = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(x) = stack.pop() {
        for &(a, b) in &edges {
            for (u, w) in [(a, b), (b, a)] {
                if u == x && !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    if let Some(cut) = (0..n).find(|&t| !seen[t] && counts[t] > 0) {
        return Err(MnError::Shape(format!(
            "{label}: switches {} and {} are not connected by switch links",
            sw[start], sw[cut]
        )));
    }
    let mut next_port = vec![0usize; n];
    let mut circuits = Vec::new();
    for &(a, b) in &edges {
        let (pa, pb) = (next_port[a], next_port[b]);
        next_port[a] += 1;
        next_port[b] += 1;
        circuits.push(json!({"ts": 0, "tor1": a, "port1": pa, "tor2": b, "port2": pb}));
    }
    let uplinks = next_port.iter().copied().max().unwrap_or(0).max(1);
    if uplinks > 255 {
        return Err(MnError::Shape(format!(
            "{label}: a switch has {uplinks} switch links; at most 255"
        )));
    }
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
        "slice": {"duration": "100us", "guardband": "0ns", "propagation": "0ns"},
        "topology": {"kind": "file", "path": "schedule.json"},
        "routing": {
            "algorithm": "hoho",
            "lookup": "hop",
            "same_slice_hops": true,
            "max_hop": (n - 1).clamp(1, 255),
        },
    });
    Ok(Fabric {
        config,
        schedule,
        host_counts: counts,
        uplinks,
        notes,
    })
}

/// What `lighthouse run` uses: a config file (generated for a Mininet
/// topology, in a scratch folder removed on drop) and the host layout.
pub struct Prepared {
    pub config: PathBuf,
    pub host_counts: Option<Vec<usize>>,
    pub notes: Vec<String>,
    _scratch: Option<tempfile::TempDir>,
}

impl Prepared {
    /// The run's plan: the config's, or the Mininet host layout.
    pub fn plan(&self, cfg: &Config) -> Plan {
        match &self.host_counts {
            Some(c) => Plan::with_host_counts(c, cfg.tors.uplinks as usize),
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
            _scratch: None,
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
    let mut fab = to_fabric(&topo, &label)?;
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
        _scratch: Some(scratch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_name_like_mininet() {
        let t = builtin("tree,2,2").unwrap();
        assert_eq!(t.switches, ["s1", "s2", "s3"]);
        assert_eq!(t.hosts, ["h1", "h2", "h3", "h4"]);
        assert!(t.links.iter().any(|(a, b, _)| a == "s2" && b == "h2"));
        let f = to_fabric(&t, "tree,2,2").unwrap();
        assert_eq!(f.host_counts, [0, 2, 2]);
        assert_eq!(f.uplinks, 2);
        assert!(f.notes.is_empty(), "{:?}", f.notes);
        let l = to_fabric(&builtin("linear,4").unwrap(), "linear,4").unwrap();
        assert_eq!(l.host_counts, [1, 1, 1, 1]);
        assert_eq!(l.schedule["circuits"].as_array().unwrap().len(), 3);
        let s = to_fabric(&builtin("single,3").unwrap(), "single,3").unwrap();
        assert_eq!(s.host_counts, [3, 0]);
        assert!(builtin("ring,3").is_err());
        assert!(builtin("linear,0").is_err());
        assert!(builtin("linear,x").is_err());
    }

    #[test]
    fn every_generated_config_compiles() {
        for spec in ["single,3", "linear,5", "tree,2,3", "tree,3,2", "minimal"] {
            let p = prepare(
                None,
                &MnSource {
                    topo: Some(spec.into()),
                    ..Default::default()
                },
            )
            .unwrap();
            let cfg = Config::load(&p.config).unwrap();
            let c = lh_ctrl::compile::compile(&cfg).unwrap_or_else(|e| panic!("{spec}: {e}"));
            let plan = p.plan(&cfg);
            assert_eq!(plan.tors, c.schedule.tors());
            // Every pair of ToRs with hosts is routed within the one slice.
            for a in 0..plan.tors {
                for b in 0..plan.tors {
                    if a != b && !plan.hosts_of(a).is_empty() && !plan.hosts_of(b).is_empty() {
                        let p = lh_ctrl::tables::walk(
                            &c.tables,
                            &c.schedule,
                            a as u16,
                            b as u16,
                            Some(0),
                            None,
                            None,
                        )
                        .unwrap_or_else(|e| panic!("{spec} {a}->{b}: {e}"));
                        assert_eq!(
                            p.latency_slots(),
                            Some(0),
                            "{spec}: static links never wait"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_shapes_are_named() {
        let t = MnTopo {
            switches: vec!["s1".into()],
            hosts: vec!["h1".into(), "h2".into()],
            links: vec![("h1".into(), "h2".into(), None)],
        };
        let e = to_fabric(&t, "x").unwrap_err().to_string();
        assert!(e.contains("joins two hosts"), "{e}");
        let t = MnTopo {
            switches: vec!["s1".into(), "s2".into()],
            hosts: vec!["h1".into()],
            links: vec![
                ("h1".into(), "s1".into(), None),
                ("h1".into(), "s2".into(), None),
            ],
        };
        assert!(
            to_fabric(&t, "x")
                .unwrap_err()
                .to_string()
                .contains("more than one link")
        );
        let t = MnTopo {
            switches: vec!["s1".into(), "s2".into()],
            hosts: vec!["h1".into(), "h2".into()],
            links: vec![
                ("h1".into(), "s1".into(), None),
                ("h2".into(), "s2".into(), None),
            ],
        };
        let e = to_fabric(&t, "x").unwrap_err().to_string();
        assert!(e.contains("switches s1 and s2 are not connected"), "{e}");
    }

    #[test]
    fn p4_tutorial_topology_json() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("topology.json");
        std::fs::write(
            &f,
            r#"{"hosts": {"h1": {"ip": "10.0.1.1/24"}, "h2": {"ip": "10.0.2.2/24"}, "h3": {}},
                "switches": {"s1": {}, "s2": {}, "s3": {}},
                "links": [["h1", "s1-p1"], ["h2", "s2-p1"], ["h3", "s3-p1"],
                          ["s1-p2", "s2-p2", "0", 100], ["s1-p3", "s3-p2"], ["s3-p3", "s2-p3"]]}"#,
        )
        .unwrap();
        let t = p4_topology_json(&f).unwrap();
        assert_eq!(t.links[3], ("s1".into(), "s2".into(), Some(100.0)));
        let fab = to_fabric(&t, "topology.json").unwrap();
        assert_eq!(fab.host_counts, [1, 1, 1]);
        assert_eq!(fab.uplinks, 2);
        assert_eq!(fab.config["tors"]["link_rate"], "100000Kbps");
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["s10", "s2", "s1"];
        v.sort_by_key(|s| natural(s));
        assert_eq!(v, ["s1", "s2", "s10"]);
    }
}
