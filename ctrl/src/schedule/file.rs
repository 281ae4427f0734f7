//! Explicit schedule files (docs/schedule-file.md):
//!
//! ```json
//! {"slices": 2, "circuits": [{"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0}]}
//! ```
//!
//! Each circuit goes through `connect` (or `connect_directed` with
//! `"directed": true`), so a file obeys the same rules as a generator. Every
//! error names the file and the JSON path of the offending value.

use super::{Endpoint, LinkKind, Schedule, ScheduleError, Topo};
use crate::{PortId, SliceId, TorId};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleFile {
    /// Optional sanity checks against the config's `tors.count` and
    /// `tors.uplinks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tors: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplinks: Option<usize>,
    /// Slices per cycle.
    pub slices: usize,
    pub circuits: Vec<Circuit>,
}

/// One circuit: bidirectional unless `directed` (then `tor1`/`port1`
/// transmits to `tor2`/`port2` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Circuit {
    pub ts: SliceId,
    pub tor1: TorId,
    pub port1: PortId,
    pub tor2: TorId,
    pub port2: PortId,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directed: bool,
}

/// A parsed file as a [`Topo`]; `name` labels errors.
#[derive(Clone, Debug)]
pub struct FileTopo {
    pub name: String,
    pub doc: ScheduleFile,
}

impl FileTopo {
    fn err(&self, path: impl Into<String>, msg: impl Into<String>) -> ScheduleError {
        ScheduleError::File {
            file: self.name.clone(),
            path: path.into(),
            msg: msg.into(),
        }
    }
}

impl Topo for FileTopo {
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError> {
        if let Some(t) = self.doc.tors.filter(|&t| t != tors) {
            return Err(self.err(
                "$.tors",
                format!("the file is for {t} ToRs but the config has {tors}"),
            ));
        }
        if let Some(u) = self.doc.uplinks.filter(|&u| u != uplinks) {
            return Err(self.err(
                "$.uplinks",
                format!("the file is for {u} uplinks but the config has {uplinks}"),
            ));
        }
        if self.doc.slices == 0 || self.doc.slices > SliceId::MAX as usize + 1 {
            return Err(self.err(
                "$.slices",
                format!(
                    "expected 1..={} slices, got {}",
                    SliceId::MAX as usize + 1,
                    self.doc.slices
                ),
            ));
        }
        Ok(self.doc.slices)
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        for (i, c) in self.doc.circuits.iter().enumerate() {
            let a = Endpoint::new(c.tor1, c.port1);
            let b = Endpoint::new(c.tor2, c.port2);
            let r = if c.directed {
                s.connect_directed(a, b, c.ts)
            } else {
                s.connect(a, b, c.ts)
            };
            r.map_err(|e| self.err(format!("$.circuits[{i}]"), e.to_string()))?;
        }
        Ok(())
    }
}

/// Parse a schedule file's text; `name` labels errors.
pub fn schedule_from_json(
    text: &str,
    name: &str,
    tors: usize,
    uplinks: usize,
) -> Result<Schedule, ScheduleError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let doc: ScheduleFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let p = e.path().to_string();
        let path = if p.is_empty() || p == "." {
            "$".to_string()
        } else if p.starts_with('[') {
            format!("${p}")
        } else {
            format!("$.{p}")
        };
        ScheduleError::File {
            file: name.to_string(),
            path,
            msg: e.into_inner().to_string(),
        }
    })?;
    let topo = FileTopo {
        name: name.to_string(),
        doc,
    };
    Schedule::from_topo(&topo, tors, uplinks)
}

/// Read and parse a schedule file.
pub fn schedule_from_file(
    path: &Path,
    tors: usize,
    uplinks: usize,
) -> Result<Schedule, ScheduleError> {
    let name = path.display().to_string();
    let text = crate::textfile::read_text(path).map_err(|e| ScheduleError::File {
        file: name.clone(),
        path: "$".into(),
        msg: format!("cannot read: the file {}", e.reason()),
    })?;
    schedule_from_json(&text, &name, tors, uplinks)
}

/// The file form of an optical schedule: bidirectional circuits once (lower
/// endpoint first), one-way circuits with `"directed": true`.
pub fn schedule_to_file(s: &Schedule) -> Result<ScheduleFile, ScheduleError> {
    if s.kind() == LinkKind::Electrical {
        return Err(ScheduleError::Infeasible(
            "an electrical fabric has no circuits to write to a schedule file".into(),
        ));
    }
    let mut circuits = Vec::new();
    for ts in 0..s.slices() {
        let ts = ts as SliceId;
        for (from, to) in s.circuits(ts) {
            let back = s.peer(ts, to) == Some(from);
            if back && to < from {
                continue; // written from the other end
            }
            circuits.push(Circuit {
                ts,
                tor1: from.tor,
                port1: from.port,
                tor2: to.tor,
                port2: to.port,
                directed: !back,
            });
        }
    }
    Ok(ScheduleFile {
        tors: Some(s.tors()),
        uplinks: Some(s.uplinks()),
        slices: s.slices(),
        circuits,
    })
}

/// [`schedule_to_file`] as JSON text, one circuit per line.
pub fn schedule_to_json(s: &Schedule) -> Result<String, ScheduleError> {
    let f = schedule_to_file(s)?;
    let mut out = format!(
        "{{\n  \"tors\": {},\n  \"uplinks\": {},\n  \"slices\": {},\n  \"circuits\": [",
        s.tors(),
        s.uplinks(),
        f.slices
    );
    for (i, c) in f.circuits.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        // Serialising a plain struct of integers cannot fail.
        out.push_str(&serde_json::to_string(c).expect("circuit serialises"));
    }
    out.push_str(if f.circuits.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_errors() {
        let ok = r#"{"slices": 2, "circuits": [
            {"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0},
            {"ts": 1, "tor1": 1, "port1": 0, "tor2": 0, "port2": 0, "directed": true}
        ]}"#;
        let s = schedule_from_json(ok, "s.json", 2, 1).unwrap();
        assert_eq!(s.peer(0, Endpoint::new(1, 0)), Some(Endpoint::new(0, 0)));
        assert_eq!(s.peer(1, Endpoint::new(0, 0)), None);

        let bad = r#"{"slices": 1, "circuits": [{"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port": 0}]}"#;
        let e = schedule_from_json(bad, "s.json", 2, 1).unwrap_err();
        assert!(e.to_string().starts_with("s.json: at $.circuits[0]"), "{e}");
    }
}
