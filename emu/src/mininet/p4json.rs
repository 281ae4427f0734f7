//! `--topo-json FILE`: p4lang tutorials' `topology.json`.

use super::{MnError, MnTopo};
use serde_json::Value;
use std::path::Path;

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
