//! Semantic validation of a parsed config. Every error names a JSON path.

use super::{Config, ConfigError};

pub fn validate(cfg: &Config, file: &str) -> Result<(), ConfigError> {
    let err = |path: &str, msg: String| ConfigError::Invalid {
        file: file.to_string(),
        path: path.to_string(),
        msg,
    };
    if cfg.tors.count < 2 {
        return Err(err(
            "$.tors.count",
            format!("expected at least 2 ToRs, got {}", cfg.tors.count),
        ));
    }
    if cfg.tors.uplinks == 0 {
        return Err(err("$.tors.uplinks", "expected at least 1 uplink".into()));
    }
    Ok(())
}
