//! The paper's experiments in virtual time at the paper's own scale
//! (`lighthouse experiment NAME --sim`, docs/virtual-time.md): the same
//! native ToR and OCS engine as the live runs, driven by `lh_sim`'s
//! deterministic loop, with hosts on the simulated TCP, 100 Gb/s links and
//! the paper's slice durations. A run is a function of its config and
//! seed, so every claim is asserted with the bound stated beside it and no
//! margin ever absorbs noise.

pub mod fig10;
pub mod fig8;
pub mod sweep;

use anyhow::Context;
use serde_json::Value;

/// `json` with `edit` applied, as a config named `what`.
pub fn edited(
    json: &str,
    what: &str,
    edit: impl FnOnce(&mut Value),
) -> anyhow::Result<(lh_ctrl::config::Config, lh_ctrl::compile::Compiled)> {
    let mut v: Value = serde_json::from_str(json).with_context(|| what.to_string())?;
    if let Some(o) = v.as_object_mut() {
        o.remove("monitoring");
    }
    edit(&mut v);
    let cfg = lh_ctrl::config::Config::from_json(&v.to_string(), what)?;
    let c = lh_ctrl::compile::compile(&cfg).with_context(|| format!("compiling {what}"))?;
    Ok((cfg, c))
}

/// How much the loop did in one experiment (the benchmark's figures).
#[derive(Clone, Copy, Debug, Default)]
pub struct Work {
    pub frame_hops: u64,
    pub simulated_ns: u64,
}

impl Work {
    pub fn add(&mut self, s: lh_sim::Stats) {
        self.frame_hops += s.frame_hops;
        self.simulated_ns += s.simulated_ns;
    }

    /// The benchmark's line (docs/benchmarks.md): virtual time summed over
    /// the runs, the wall time they took, and frame-hops per wall second.
    /// Wall time is not part of a (deterministic) result: print it on
    /// stderr.
    pub fn line(&self, wall: std::time::Duration) -> String {
        let w = wall.as_secs_f64();
        format!(
            "*** Simulated {:.3} ms in {:.3} s: {} frame-hops ({:.2} M/s)",
            self.simulated_ns as f64 / 1e6,
            w,
            self.frame_hops,
            self.frame_hops as f64 / w.max(1e-9) / 1e6
        )
    }
}
