//! Hand-written deserializers for the config enums whose derived forms give
//! poor errors: `untagged` enums report "data did not match any variant" with
//! no inner path, and internally tagged enums buffer their content, so an
//! error inside loses its path and unit variants accept unknown fields.

use super::ocs::{AutoCabling, Cable, Cabling};
use super::ta::TrafficMatrixSrc;
use super::topology::{StaticGraph, Topology, TopologyKind};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
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

/// Fails with `msg` where a value is expected, so that the error's path ends
/// with the key being rejected.
struct Reject(String);

impl<'de> DeserializeSeed<'de> for Reject {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
        Err(de::Error::custom(self.0))
    }
}

const TOPOLOGY_FIELDS: &[&str] = &["kind", "seed", "h", "graph", "path", "k"];

/// What a topology of `kind` may hold, for messages.
fn expected_fields(kind: TopologyKind) -> String {
    let list: Vec<String> = kind
        .fields()
        .iter()
        .map(|(a, _)| format!("`{a}`"))
        .collect();
    if list.is_empty() {
        "no field but `kind`".to_string()
    } else {
        format!("only `kind` and {}", list.join(", "))
    }
}

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Topology;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a topology object with a `kind`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Topology, A::Error> {
                let mut kind: Option<TopologyKind> = None;
                let (mut seed, mut h, mut graph, mut path, mut k) = (None, None, None, None, None);
                // Fields seen before `kind`, checked once it is known.
                let mut early: Vec<&'static str> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let Some(&name) = TOPOLOGY_FIELDS.iter().find(|f| **f == key) else {
                        let msg = match kind {
                            Some(k) => {
                                format!(
                                    "unknown field `{key}`, expected {} for topology kind `{}`",
                                    expected_fields(k),
                                    k.name()
                                )
                            }
                            None => format!(
                                "unknown field `{key}`, expected one of `kind`, `seed`, `h`, `graph`, `path`, `k`"
                            ),
                        };
                        return Err(map.next_value_seed(Reject(msg)).err().unwrap_or_else(|| {
                            de::Error::custom("unreachable: Reject accepted a value")
                        }));
                    };
                    let dup = match name {
                        "kind" => kind.is_some(),
                        "seed" => seed.is_some(),
                        "h" => h.is_some(),
                        "graph" => graph.is_some(),
                        "k" => k.is_some(),
                        _ => path.is_some(),
                    };
                    if dup {
                        let msg = format!("duplicate field `{name}`");
                        return Err(map.next_value_seed(Reject(msg)).err().unwrap_or_else(|| {
                            de::Error::custom("unreachable: Reject accepted a value")
                        }));
                    }
                    if name != "kind" {
                        match kind {
                            Some(k) if !k.fields().iter().any(|(a, _)| *a == name) => {
                                let msg = format!(
                                    "field `{name}` is not used by topology kind `{}`: expected {}",
                                    k.name(),
                                    expected_fields(k)
                                );
                                return Err(map.next_value_seed(Reject(msg)).err().unwrap_or_else(
                                    || de::Error::custom("unreachable: Reject accepted a value"),
                                ));
                            }
                            Some(_) => {}
                            None => early.push(name),
                        }
                    }
                    match name {
                        "kind" => kind = Some(map.next_value::<TopologyKind>()?),
                        "seed" => seed = Some(map.next_value::<Option<u64>>()?),
                        "h" => h = Some(map.next_value::<u32>()?),
                        "graph" => graph = Some(map.next_value::<StaticGraph>()?),
                        "k" => k = Some(map.next_value::<u32>()?),
                        _ => path = Some(map.next_value::<PathBuf>()?),
                    }
                }
                let kind = kind.ok_or_else(|| de::Error::missing_field("kind"))?;
                if let Some(name) = early
                    .into_iter()
                    .find(|n| !kind.fields().iter().any(|(a, _)| a == n))
                {
                    // The value is consumed; the error mapper in config.rs
                    // moves `name` into the path.
                    return Err(de::Error::custom(format!(
                        "{FIELD_MARK}{name}{FIELD_MARK}field `{name}` is not used by topology kind `{}`: expected {}",
                        kind.name(),
                        expected_fields(kind)
                    )));
                }
                let missing = |name: &'static str| de::Error::missing_field(name);
                Ok(match kind {
                    TopologyKind::RoundRobin => Topology::RoundRobin,
                    TopologyKind::TrafficAware => Topology::TrafficAware,
                    TopologyKind::Opera => Topology::Opera {
                        seed: seed.flatten(),
                    },
                    TopologyKind::Shale => Topology::Shale {
                        h: h.ok_or_else(|| missing("h"))?,
                    },
                    TopologyKind::Static => Topology::Static {
                        graph: graph.ok_or_else(|| missing("graph"))?,
                    },
                    TopologyKind::File => Topology::File {
                        path: path.ok_or_else(|| missing("path"))?,
                    },
                    TopologyKind::FatTree => Topology::FatTree {
                        k: k.ok_or_else(|| missing("k"))?,
                    },
                })
            }
        }
        d.deserialize_map(V)
    }
}
