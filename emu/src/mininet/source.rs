//! Where a Mininet topology comes from: `lighthouse run`'s flags, and the
//! `--topo` spec's words.

use std::path::PathBuf;

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

/// Mininet's `splitArgs`: `tree,2,3` → ("tree", ["2", "3"]).
pub(super) fn split_spec(spec: &str) -> (String, Vec<String>) {
    let mut it = spec.split(',').map(|s| s.trim().to_string());
    let name = it.next().unwrap_or_default();
    (name, it.collect())
}
