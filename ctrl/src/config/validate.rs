//! Semantic validation of a parsed config (docs/config.md#validation).
//! Every error names the JSON path of the field to fix and what was expected.
//!
//! Checks only what is cheap and certain here; whether a topology generator
//! can really build its schedule is checked when it builds it.
//!
//! This file runs the checks in order and collects their errors; each
//! section's checks are in the module named after it (`tors`, `fabric`
//! with the OCS cabling, `slice`, `mode` with the traffic matrix,
//! `topology`, `routing`, `monitoring`, `tor_system`, `hosts`).

mod fabric;
mod hosts;
mod mode;
mod monitoring;
mod routing;
mod slice;
mod topology;
mod tor_system;
mod tors;

use super::{Config, ConfigError};
use fabric::{check_cabling, check_fabric};
use hosts::check_hosts;
use mode::{check_mode, check_traffic_matrix};
use monitoring::check_monitoring;
use routing::check_routing;
use slice::check_timing;
use topology::check_topology;
use tor_system::check_tor_system;
use tors::check_tors;

/// The first semantic error, if any.
pub fn validate(cfg: &Config, file: &str) -> Result<(), ConfigError> {
    match validate_all(cfg, file).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Every semantic error. Later checks that depend on a failed earlier one
/// are skipped rather than reported twice.
pub fn validate_all(cfg: &Config, file: &str) -> Vec<ConfigError> {
    let mut c = Checker {
        file,
        errors: Vec::new(),
    };
    let tors_ok = check_tors(&mut c, cfg);
    check_fabric(&mut c, cfg);
    check_timing(&mut c, cfg);
    check_mode(&mut c, cfg);
    if tors_ok {
        check_topology(&mut c, cfg);
        check_cabling(&mut c, cfg);
        check_monitoring(&mut c, cfg);
        check_traffic_matrix(&mut c, cfg);
    }
    check_routing(&mut c, cfg);
    check_tor_system(&mut c, cfg);
    check_hosts(&mut c, cfg);
    c.errors
}

struct Checker<'a> {
    file: &'a str,
    errors: Vec<ConfigError>,
}

impl Checker<'_> {
    fn err(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.errors.push(ConfigError::Invalid {
            file: self.file.to_string(),
            path: path.into(),
            msg: msg.into(),
        });
    }
}
