//! A Mininet topology turned into a Lighthouse fabric: switches become
//! ToRs, host-switch links host ports, switch-switch links static circuits
//! (a one-slice optical schedule); the config that describes it.

use super::{LinkNetem, MnError, MnExtra, MnNames, MnTopo, parse_ip, tc_queue_bytes};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::Ipv4Addr;

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

/// Longest node name: its interfaces (`NAME-ethK`) must fit the kernel's
/// 15 characters.
pub const MAX_NAME: usize = 10;

fn rate(mbps: f64) -> String {
    format!("{}Kbps", (mbps * 1000.0).round().max(1.0) as u64)
}

/// Mininet's natural sort key (s2 before s10).
pub(super) fn natural(s: &str) -> Vec<(bool, u64, String)> {
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
