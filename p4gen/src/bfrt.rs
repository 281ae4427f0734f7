//! BF Runtime (Tofino) JSON for the same entries: the shape of the SDE's
//! `bfrt_python` entry dumps, one object per entry,
//!
//! ```json
//! {"table_name": "pipe.LhIngress.time_flow", "action": "LhIngress.set_choices",
//!  "key": {"dst": 3, "arrival": {"value": 0, "mask": 65535}, ..., "$MATCH_PRIORITY": 2},
//!  "data": {"n": 2, "port0": 0, ...}}
//! {"table_name": "pipe.LhIngress.n_slices", "key": {"$REGISTER_INDEX": 0},
//!  "data": {"LhIngress.n_slices.f1": 3}}
//! ```
//!
//! Names are those of `p4/tna/lighthouse.p4` (the same control, so the same
//! names as BMv2 under the `pipe.` prefix). Ternary keys are
//! `{"value", "mask"}`, range keys `{"low", "high"}`; `$MATCH_PRIORITY`
//! carries the same number as for BMv2 (lowest wins, as in BF Runtime).
//! Nothing here has run on an SDE: a Tofino build needs Intel's SDE.

use crate::{KeyValue, TorProgram};
use serde_json::{Map, Value, json};

/// The program's entries and register writes as a BF Runtime JSON document:
/// `{"tor": t, "time_unit_ns": u, "entries": [...]}`.
pub fn to_bfrt_json(p: &TorProgram) -> Value {
    let mut out = Vec::new();
    for e in &p.entries {
        let mut key = Map::new();
        for k in &e.keys {
            let v = match k.value {
                KeyValue::Exact(v) => json!(v),
                KeyValue::Ternary { value, mask } => json!({"value": value, "mask": mask}),
                KeyValue::Range { lo, hi } => json!({"low": lo, "high": hi}),
            };
            key.insert(k.name.to_string(), v);
        }
        if let Some(pr) = e.priority {
            key.insert("$MATCH_PRIORITY".into(), json!(pr));
        }
        let data: Map<String, Value> = e
            .params
            .iter()
            .map(|p| (p.name.to_string(), json!(p.value)))
            .collect();
        out.push(json!({
            "table_name": format!("pipe.{}", e.table),
            "action": e.action,
            "key": key,
            "data": data,
        }));
    }
    for r in &p.registers {
        out.push(json!({
            "table_name": format!("pipe.{}", r.register),
            "key": {"$REGISTER_INDEX": r.index},
            "data": {format!("{}.f1", r.register): r.value},
        }));
    }
    json!({
        "tor": p.tor,
        "time_unit_ns": p.target.ns_per_unit(),
        "entries": out,
    })
}
