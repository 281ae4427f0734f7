//! What `lighthouse run` gets from Mininet's flags: a config written to a
//! scratch folder (removed with the result), and the host layout and names
//! its plan is built with.

use super::{
    Fabric, MnError, MnNames, MnSource, MnTopo, builtin, custom, p4_topology_json, to_fabric,
};
use crate::plan::Plan;
use lh_ctrl::config::Config;
use serde_json::json;
use std::path::{Path, PathBuf};

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
