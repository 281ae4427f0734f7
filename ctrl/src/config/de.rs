//! Hand-written deserializers for the config enums whose derived forms give
//! poor errors: `untagged` enums report "data did not match any variant" with
//! no inner path, and internally tagged enums buffer their content, so an
//! error inside loses its path and unit variants accept unknown fields.

use super::{AutoCabling, Cable, Cabling, StaticGraph, Topology, TrafficMatrixSrc};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// Marks a parse error that belongs to a field below the current path; the
/// error mapper in `config.rs` moves the field name into the JSON path.
/// Format: `MARK field MARK message`.
pub(crate) const FIELD_MARK: char = '\u{1}';

impl<'de> Deserialize<'de> for Cabling {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cabling;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "\"auto\" or a list of cables {\"tor\", \"port\", \"ocs\", \"ocs_port\"}",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Cabling, E> {
                if v == "auto" {
                    Ok(Cabling::Auto(AutoCabling::Auto))
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cabling, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(c) = seq.next_element::<Cable>()? {
                    v.push(c);
                }
                Ok(Cabling::Explicit(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for TrafficMatrixSrc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TrafficMatrixSrc;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a file name, or a list of rows of byte counts like [[0, 100], [5, 0]]")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TrafficMatrixSrc, E> {
                if v.is_empty() {
                    return Err(E::invalid_value(de::Unexpected::Str(v), &self));
                }
                Ok(TrafficMatrixSrc::File(PathBuf::from(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<TrafficMatrixSrc, A::Error> {
                let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(r) = seq.next_element::<Vec<u64>>()? {
                    rows.push(r);
                }
                Ok(TrafficMatrixSrc::Inline(rows))
            }
        }
        d.deserialize_any(V)
    }
}

/// The `kind` tag of a topology object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    RoundRobin,
    Opera,
    Shale,
    Static,
    TrafficAware,
    File,
}

impl TopologyKind {
    pub fn name(self) -> &'static str {
        match self {
            TopologyKind::RoundRobin => "round_robin",
            TopologyKind::Opera => "opera",
            TopologyKind::Shale => "shale",
            TopologyKind::Static => "static",
            TopologyKind::TrafficAware => "traffic_aware",
            TopologyKind::File => "file",
        }
    }
    /// Fields (besides `kind`) that this kind takes, and whether each is required.
    pub fn fields(self) -> &'static [(&'static str, bool)] {
        match self {
            TopologyKind::RoundRobin | TopologyKind::TrafficAware => &[],
            TopologyKind::Opera => &[("seed", false)],
            TopologyKind::Shale => &[("h", true)],
            TopologyKind::Static => &[("graph", true)],
            TopologyKind::File => &[("path", true)],
        }
    }
}

/// Every field any topology kind has; which ones a kind may use is checked
/// after parsing, so that unknown fields are still rejected with their path.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyFields {
    kind: TopologyKind,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    h: Option<u32>,
    #[serde(default)]
    graph: Option<StaticGraph>,
    #[serde(default)]
    path: Option<PathBuf>,
}

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = TopologyFields::deserialize(d)?;
        let present = [
            ("seed", f.seed.is_some()),
            ("h", f.h.is_some()),
            ("graph", f.graph.is_some()),
            ("path", f.path.is_some()),
        ];
        let allowed = f.kind.fields();
        for (name, is_set) in present {
            if is_set && !allowed.iter().any(|(a, _)| *a == name) {
                let list: Vec<String> = allowed.iter().map(|(a, _)| format!("`{a}`")).collect();
                let expected = if list.is_empty() {
                    "no other field than `kind`".to_string()
                } else {
                    format!("only `kind` and {}", list.join(", "))
                };
                return Err(de::Error::custom(format!(
                    "{FIELD_MARK}{name}{FIELD_MARK}field `{name}` is not used by topology kind `{}`: expected {expected}",
                    f.kind.name()
                )));
            }
        }
        let missing = |name: &'static str| de::Error::missing_field(name);
        Ok(match f.kind {
            TopologyKind::RoundRobin => Topology::RoundRobin,
            TopologyKind::TrafficAware => Topology::TrafficAware,
            TopologyKind::Opera => Topology::Opera { seed: f.seed },
            TopologyKind::Shale => Topology::Shale {
                h: f.h.ok_or_else(|| missing("h"))?,
            },
            TopologyKind::Static => Topology::Static {
                graph: f.graph.ok_or_else(|| missing("graph"))?,
            },
            TopologyKind::File => Topology::File {
                path: f.path.ok_or_else(|| missing("path"))?,
            },
        })
    }
}
