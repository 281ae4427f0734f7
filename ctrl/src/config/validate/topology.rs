//! Checks of `topology`: what each generator needs of the ToRs and
//! uplinks (Opera's rotors, Shale's digits), a static graph the fabric can
//! build, a schedule file that exists.

use super::Checker;
use crate::config::{Config, FabricKind, StaticGraph, Topology};

pub(super) fn check_topology(c: &mut Checker, cfg: &Config) {
    let n = cfg.tors.count as u64;
    let u = cfg.tors.uplinks;
    match &cfg.topology {
        Topology::RoundRobin => {
            // count >= 2 is checked with the ToRs.
        }
        Topology::Opera { .. } => {
            if u < 2 {
                c.err(
                    "$.tors.uplinks",
                    format!("expected at least 2 uplinks (rotors) for topology opera, got {u}"),
                );
            } else if !n.is_multiple_of(u as u64) {
                c.err(
                    "$.tors.count",
                    format!(
                        "expected a multiple of tors.uplinks ({u}) for topology opera (each rotor takes N/u matchings), got {n}"
                    ),
                );
            }
        }
        Topology::Shale { h } => {
            if *h == 0 {
                c.err("$.topology.h", "expected at least 1 digit, got 0");
            } else if integer_root(n, *h).is_none() {
                c.err(
                    "$.tors.count",
                    format!(
                        "expected n^{h} ToRs for an integer n >= 2 (topology shale with h = {h}), got {n}"
                    ),
                );
            }
            if u != 1 {
                c.err(
                    "$.tors.uplinks",
                    format!("expected 1 uplink for topology shale, got {u}"),
                );
            }
        }
        Topology::Static { graph } => {
            if *graph == StaticGraph::Full && cfg.fabric == FabricKind::Optical {
                c.err(
                    "$.topology.graph",
                    "expected \"ring\": graph \"full\" needs fabric electrical (a circuit reaches one ToR)",
                );
            }
        }
        Topology::TrafficAware => {}
        Topology::FatTree { .. } => {
            if cfg.fabric != FabricKind::FatTree {
                c.err(
                    "$.fabric",
                    "expected \"fattree\": topology fat_tree is a fat tree of electrical packet switches",
                );
            }
        }
        Topology::File { path } => {
            let full = cfg.resolve(path);
            if let Err(e) = crate::textfile::check_file(&full) {
                c.err(
                    "$.topology.path",
                    format!(
                        "expected a schedule file, but {e} (relative names resolve against the config's directory)"
                    ),
                );
            }
        }
    }
}

/// `n` with `n^h == x` and `n >= 2`.
fn integer_root(x: u64, h: u32) -> Option<u64> {
    let guess = (x as f64).powf(1.0 / h as f64).round() as u64;
    [guess.saturating_sub(1), guess, guess + 1]
        .into_iter()
        .find(|&n| n >= 2 && n.checked_pow(h) == Some(x))
}

#[cfg(test)]
mod tests {
    use super::integer_root;

    #[test]
    fn integer_roots() {
        assert_eq!(integer_root(16, 2), Some(4));
        assert_eq!(integer_root(27, 3), Some(3));
        assert_eq!(integer_root(8, 3), Some(2));
        assert_eq!(integer_root(8, 1), Some(8));
        assert_eq!(integer_root(15, 2), None);
        assert_eq!(integer_root(1, 2), None);
        assert_eq!(integer_root(1 << 40, 40), Some(2));
    }
}
