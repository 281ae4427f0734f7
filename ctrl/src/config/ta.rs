//! `ta`: traffic-aware mode's settings (update interval, scheduler, the
//! traffic matrix inline or in a file, a hybrid's electrical rate), and
//! reading that matrix. The matrix source's deserializer is in `de.rs`.

use super::{Config, ConfigError};
use crate::units::{BitsPerSec, Nanos};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    Bvn,
    Hotspot,
    Mip,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaSettings {
    pub update_interval: Nanos,
    pub scheduler: Scheduler,
    /// ToR-level traffic matrix in bytes: inline rows, or a file name.
    pub traffic_matrix: TrafficMatrixSrc,
    /// Hybrid (c-Through): an electrical fabric with this rate carries
    /// what has no circuit.
    #[serde(default)]
    pub electrical_rate: Option<BitsPerSec>,
}

/// Deserialized by hand (not `untagged`) so that a bad entry keeps its path,
/// e.g. `$.ta.traffic_matrix[2][5]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TrafficMatrixSrc {
    Inline(Vec<Vec<u64>>),
    File(PathBuf),
}

impl Config {
    /// The TA traffic matrix: the inline rows, or the file read from disk.
    /// A file holds either JSON (a list of rows) or one row per line of
    /// integers separated by spaces or commas (`#` starts a comment).
    /// Errors name `$.ta.traffic_matrix`. The shape is not checked here.
    pub fn traffic_matrix(&self) -> Result<Vec<Vec<u64>>, ConfigError> {
        let Some(ta) = &self.ta else {
            return Err(ConfigError::Invalid {
                file: self.name.clone().unwrap_or_else(|| "config".into()),
                path: "$.ta".into(),
                msg: "expected a `ta` object with a traffic matrix".into(),
            });
        };
        match &ta.traffic_matrix {
            TrafficMatrixSrc::Inline(rows) => Ok(rows.clone()),
            TrafficMatrixSrc::File(p) => read_traffic_matrix(&self.resolve(p)),
        }
    }
}

/// Read a traffic-matrix file (JSON rows, or whitespace/comma separated text).
pub fn read_traffic_matrix(path: &Path) -> Result<Vec<Vec<u64>>, ConfigError> {
    let file = path.display().to_string();
    let bad = |msg: String| ConfigError::Invalid {
        file: file.clone(),
        path: "$.ta.traffic_matrix".into(),
        msg,
    };
    let text = crate::textfile::read_text(path)
        .map_err(|e| bad(format!("expected a readable traffic-matrix file, but {e}")))?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "expected a JSON list of rows of non-negative integers: {e}"
            ))
        });
    }
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let row: Result<Vec<u64>, _> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(str::parse::<u64>)
            .collect();
        rows.push(row.map_err(|e| {
            bad(format!(
                "line {}: expected non-negative integers separated by spaces or commas: {e}",
                i + 1
            ))
        })?);
    }
    Ok(rows)
}
