//! The parts of a switch's BMv2 JSON (from `bm_get_config`) that the client
//! needs to encode entries: tables with their key fields and bit widths,
//! actions with their parameter widths, registers and counters.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::Error;

/// How one key field is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Ternary,
    Lpm,
    Range,
    Valid,
}

impl MatchKind {
    fn parse(s: &str) -> Option<MatchKind> {
        Some(match s {
            "exact" => MatchKind::Exact,
            "ternary" => MatchKind::Ternary,
            "lpm" => MatchKind::Lpm,
            "range" => MatchKind::Range,
            "valid" => MatchKind::Valid,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Ternary => "ternary",
            MatchKind::Lpm => "lpm",
            MatchKind::Range => "range",
            MatchKind::Valid => "valid",
        }
    }
}

/// One key field of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyField {
    /// The P4 expression, e.g. `hdr.ethernet.dst`.
    pub name: String,
    pub kind: MatchKind,
    pub bitwidth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// Fully qualified name, e.g. `Ing.fwd`.
    pub name: String,
    /// The table's match type: `ternary` or `range` tables need a priority.
    pub match_type: String,
    pub key: Vec<KeyField>,
    /// Fully qualified action names allowed in the table.
    pub actions: Vec<String>,
}

impl TableInfo {
    /// Whether entries of this table carry a priority (ternary/range).
    pub fn needs_priority(&self) -> bool {
        self.match_type == "ternary" || self.match_type == "range"
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionInfo {
    pub name: String,
    /// (name, bit width) of each parameter, in order.
    pub params: Vec<(String, u32)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterInfo {
    pub name: String,
    pub size: u32,
    pub bitwidth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterInfo {
    pub name: String,
    /// 0 for direct counters (indexed by table entry, not by number).
    pub size: u32,
    pub is_direct: bool,
}

/// What the client knows about the loaded P4 program.
#[derive(Debug, Clone, Default)]
pub struct Pipeline {
    pub tables: BTreeMap<String, TableInfo>,
    pub actions: BTreeMap<String, ActionInfo>,
    pub registers: BTreeMap<String, RegisterInfo>,
    pub counters: BTreeMap<String, CounterInfo>,
}

fn bad(what: impl Into<String>) -> Error {
    Error::BadConfig(what.into())
}

fn str_of<'a>(j: &'a Json, key: &str, ctx: &str) -> Result<&'a str, Error> {
    j.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| bad(format!("{ctx}: no string \"{key}\"")))
}

fn u32_of(j: &Json, key: &str, ctx: &str) -> Result<u32, Error> {
    j.get(key)
        .and_then(Json::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| bad(format!("{ctx}: no integer \"{key}\"")))
}

fn arr<'a>(j: &'a Json, key: &str) -> &'a [Json] {
    j.get(key)
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

impl Pipeline {
    /// Reads the BMv2 JSON of a switch.
    pub fn from_json(j: &Json) -> Result<Pipeline, Error> {
        let mut p = Pipeline::default();
        // header instance -> header type -> field -> width
        let mut htypes: BTreeMap<&str, BTreeMap<&str, u32>> = BTreeMap::new();
        for ht in arr(j, "header_types") {
            let name = str_of(ht, "name", "header_types[]")?;
            let mut fields = BTreeMap::new();
            for f in arr(ht, "fields") {
                let fname = f.get(0).and_then(Json::as_str);
                let w = f.get(1).and_then(Json::as_u64);
                if let (Some(fname), Some(w)) = (fname, w) {
                    fields.insert(fname, w as u32);
                }
            }
            htypes.insert(name, fields);
        }
        let mut headers: BTreeMap<&str, &str> = BTreeMap::new();
        for h in arr(j, "headers") {
            headers.insert(
                str_of(h, "name", "headers[]")?,
                str_of(h, "header_type", "headers[]")?,
            );
        }
        for a in arr(j, "actions") {
            let name = str_of(a, "name", "actions[]")?.to_string();
            let mut params = Vec::new();
            for rd in arr(a, "runtime_data") {
                let ctx = format!("action {name}");
                params.push((
                    str_of(rd, "name", &ctx)?.to_string(),
                    u32_of(rd, "bitwidth", &ctx)?,
                ));
            }
            // p4c emits one copy of an action per table that uses it, under
            // the same name and with the same parameters.
            p.actions.insert(name.clone(), ActionInfo { name, params });
        }
        for pl in arr(j, "pipelines") {
            for t in arr(pl, "tables") {
                let name = str_of(t, "name", "tables[]")?.to_string();
                let ctx = format!("table {name}");
                let match_type = str_of(t, "match_type", &ctx)?.to_string();
                let mut key = Vec::new();
                for k in arr(t, "key") {
                    let mt = str_of(k, "match_type", &ctx)?;
                    let kind = MatchKind::parse(mt).ok_or_else(|| {
                        bad(format!("{ctx}: match kind \"{mt}\" is not supported"))
                    })?;
                    let target: Vec<&str> =
                        arr(k, "target").iter().filter_map(Json::as_str).collect();
                    let kname = k
                        .get("name")
                        .and_then(Json::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| target.join("."));
                    let bitwidth = if kind == MatchKind::Valid
                        || target.get(1).is_some_and(|f| *f == "$valid$")
                    {
                        1
                    } else {
                        let (hname, fname) = match target.as_slice() {
                            [h, f] => (*h, *f),
                            _ => {
                                return Err(bad(format!(
                                    "{ctx}: key {kname} has no [header, field] target"
                                )));
                            }
                        };
                        let ht = headers
                            .get(hname)
                            .ok_or_else(|| bad(format!("{ctx}: key {kname}: no header {hname}")))?;
                        *htypes.get(ht).and_then(|fs| fs.get(fname)).ok_or_else(|| {
                            bad(format!("{ctx}: key {kname}: no field {ht}.{fname}"))
                        })?
                    };
                    key.push(KeyField {
                        name: kname,
                        kind,
                        bitwidth,
                    });
                }
                let actions = arr(t, "actions")
                    .iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect();
                p.tables.insert(
                    name.clone(),
                    TableInfo {
                        name,
                        match_type,
                        key,
                        actions,
                    },
                );
            }
        }
        for r in arr(j, "register_arrays") {
            let name = str_of(r, "name", "register_arrays[]")?.to_string();
            let ctx = format!("register {name}");
            let info = RegisterInfo {
                size: u32_of(r, "size", &ctx)?,
                bitwidth: u32_of(r, "bitwidth", &ctx)?,
                name: name.clone(),
            };
            p.registers.insert(name, info);
        }
        for c in arr(j, "counter_arrays") {
            let name = str_of(c, "name", "counter_arrays[]")?.to_string();
            let is_direct = c.get("is_direct").and_then(Json::as_bool).unwrap_or(false);
            let size = if is_direct {
                0
            } else {
                u32_of(c, "size", &format!("counter {name}"))?
            };
            p.counters.insert(
                name.clone(),
                CounterInfo {
                    name,
                    size,
                    is_direct,
                },
            );
        }
        Ok(p)
    }
}

/// Finds `name` in `map`: the fully qualified name, or else a unique suffix
/// after a dot (`fwd` for `Ing.fwd`). Err carries the candidates when the
/// suffix is ambiguous.
pub(crate) fn resolve<'a, T>(
    map: &'a BTreeMap<String, T>,
    name: &str,
) -> Result<&'a T, Vec<String>> {
    if let Some(v) = map.get(name) {
        return Ok(v);
    }
    let suffix = format!(".{name}");
    let hits: Vec<(&String, &T)> = map.iter().filter(|(k, _)| k.ends_with(&suffix)).collect();
    match hits.as_slice() {
        [(_, v)] => Ok(v),
        _ => Err(hits.into_iter().map(|(k, _)| k.clone()).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bmv2Client, Key, Value};

    /// The shape p4c-bm2-ss emits, trimmed: no toolchain needed.
    fn pipeline() -> Pipeline {
        let j = serde_json::json!({
            "header_types": [
                {"name": "standard_metadata", "fields": [["ingress_port", 9, false], ["egress_spec", 9, false]]},
                {"name": "ethernet_t", "fields": [["dst", 48, false], ["ether_type", 16, false]]}
            ],
            "headers": [
                {"name": "standard_metadata", "header_type": "standard_metadata"},
                {"name": "ethernet", "header_type": "ethernet_t"}
            ],
            "actions": [
                {"name": "NoAction", "id": 0, "runtime_data": []},
                {"name": "Ing.set_port", "id": 1, "runtime_data": [{"name": "port", "bitwidth": 9}]}
            ],
            "pipelines": [{"name": "ingress", "tables": [
                {"name": "Ing.fwd", "match_type": "exact", "actions": ["Ing.set_port", "NoAction"],
                 "key": [{"match_type": "exact", "name": "sm.ingress_port", "target": ["standard_metadata", "ingress_port"], "mask": null}]},
                {"name": "Ing.acl", "match_type": "ternary", "actions": ["NoAction"],
                 "key": [{"match_type": "lpm", "name": "hdr.ethernet.dst", "target": ["ethernet", "dst"], "mask": null},
                         {"match_type": "ternary", "name": "hdr.ethernet.ether_type", "target": ["ethernet", "ether_type"], "mask": null},
                         {"match_type": "exact", "name": "ethernet.$valid$", "target": ["ethernet", "$valid$"], "mask": null}]}
            ]}],
            "register_arrays": [{"name": "Ing.r", "id": 0, "size": 4, "bitwidth": 8}],
            "counter_arrays": [{"name": "Ing.c", "id": 0, "size": 64, "is_direct": false}]
        });
        Pipeline::from_json(&j).unwrap()
    }

    #[test]
    fn widths_come_from_header_types() {
        let p = pipeline();
        let acl = &p.tables["Ing.acl"];
        let w: Vec<(MatchKind, u32)> = acl.key.iter().map(|k| (k.kind, k.bitwidth)).collect();
        assert_eq!(
            w,
            vec![
                (MatchKind::Lpm, 48),
                (MatchKind::Ternary, 16),
                (MatchKind::Exact, 1)
            ]
        );
        assert!(acl.needs_priority());
        assert!(!p.tables["Ing.fwd"].needs_priority());
        assert_eq!(
            p.actions["Ing.set_port"].params,
            vec![("port".to_string(), 9)]
        );
        assert_eq!(p.registers["Ing.r"].bitwidth, 8);
        assert_eq!(p.counters["Ing.c"].size, 64);
        assert_eq!(resolve(&p.tables, "fwd").unwrap().name, "Ing.fwd");
        assert!(resolve(&p.tables, "nope").is_err());
    }

    #[test]
    fn encoding_errors_name_the_field() {
        let p = pipeline();
        let fwd = &p.tables["Ing.fwd"];
        let k = Bmv2Client::encode_key(fwd, &[Key::exact(511u16)]).unwrap();
        assert_eq!(k[0].exact.as_ref().unwrap().key, Some(vec![1, 0xff]));
        let e = Bmv2Client::encode_key(fwd, &[Key::exact(512u16)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Ing.fwd") && e.contains("sm.ingress_port") && e.contains("9 bit"),
            "{e}"
        );
        let e = Bmv2Client::encode_params(&p.actions["Ing.set_port"], &[Value::from(1000u16)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Ing.set_port") && e.contains("port") && e.contains("1000"),
            "{e}"
        );
        let acl = &p.tables["Ing.acl"];
        let ok = [
            Key::lpm([10u8, 0, 0, 0, 0, 0], 8),
            Key::ternary(0x0800u16, 0xffffu16),
            Key::exact(1u8),
        ];
        let k = Bmv2Client::encode_key(acl, &ok).unwrap();
        assert_eq!(k[0].lpm.as_ref().unwrap().key.as_ref().unwrap().len(), 6);
        assert_eq!(k[1].ternary.as_ref().unwrap().mask, Some(vec![0xff, 0xff]));
        let e = Bmv2Client::encode_key(
            acl,
            &[
                ok[0].clone(),
                Key::ternary(0u16, 0x1_0000u32),
                ok[2].clone(),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("mask") && e.contains("hdr.ethernet.ether_type"),
            "{e}"
        );
    }
}
