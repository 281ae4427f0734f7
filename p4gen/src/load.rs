//! Loading a [`TorProgram`] into a running BMv2 switch through its Thrift
//! runtime API (`bmv2_thrift`), which encodes every value to the widths in
//! the switch's own JSON. The same program can be printed as
//! `simple_switch_CLI` text ([`TorProgram::to_cli`]).

use crate::{KeyValue, TorProgram};
use bmv2_thrift::{Bmv2Client, Key, Value};

#[derive(Debug, thiserror::Error)]
#[error("loading ToR {tor} into BMv2: {what}: {source}")]
pub struct LoadError {
    pub tor: u16,
    pub what: String,
    #[source]
    pub source: Box<bmv2_thrift::Error>,
}

/// Clears the program's tables, then adds every entry and writes every
/// register. Returns the number of entries added.
pub fn load(client: &mut Bmv2Client, prog: &TorProgram) -> Result<usize, LoadError> {
    let err = |what: String| {
        let tor = prog.tor;
        move |source| LoadError {
            tor,
            what,
            source: Box::new(source),
        }
    };
    let mut tables: Vec<&str> = prog.entries.iter().map(|e| e.table).collect();
    tables.sort_unstable();
    tables.dedup();
    for t in tables {
        client.table_clear(t).map_err(err(format!("clear {t}")))?;
    }
    for e in &prog.entries {
        let keys: Vec<Key> = e
            .keys
            .iter()
            .map(|k| match k.value {
                KeyValue::Exact(v) => Key::exact(v),
                KeyValue::Ternary { value, mask } => Key::ternary(value, mask),
                KeyValue::Range { lo, hi } => Key::range(lo, hi),
            })
            .collect();
        let params: Vec<Value> = e.params.iter().map(|p| Value::from(p.value)).collect();
        client
            .table_add(
                e.table,
                e.action,
                &keys,
                &params,
                e.priority.map(|p| p as i32),
            )
            .map_err(err(format!("{} {}", e.table, e.action)))?;
    }
    for r in &prog.registers {
        client
            .register_write(r.register, r.index, r.value)
            .map_err(err(format!("register {}[{}]", r.register, r.index)))?;
    }
    Ok(prog.entries.len())
}
