//! Errors of the runtime client.

use std::io;

/// An error from [`crate::Bmv2Client`]. Encoding errors name the table,
/// action, key field or parameter; switch-side errors carry BMv2's code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot connect to simple_switch's Thrift server at {addr}{}: {source}", ns_suffix(.netns))]
    Connect {
        addr: String,
        netns: Option<String>,
        #[source]
        source: io::Error,
    },
    #[error("Thrift call {call} failed: {source}")]
    Thrift {
        call: &'static str,
        #[source]
        source: thrift::Error,
    },
    #[error("{call} on table {table}: BMv2 says {code}")]
    TableOp {
        call: &'static str,
        table: String,
        code: String,
    },
    #[error("{call} on register {register}: BMv2 says {code}")]
    RegisterOp {
        call: &'static str,
        register: String,
        code: String,
    },
    #[error("{call} on counter {counter}: BMv2 says {code}")]
    CounterOp {
        call: &'static str,
        counter: String,
        code: String,
    },
    #[error("the switch's JSON config is not usable: {0}")]
    BadConfig(String),
    #[error("no {kind} named {name:?} in the loaded P4 program{}", candidates_suffix(.candidates))]
    UnknownName {
        kind: &'static str,
        name: String,
        /// Fully qualified names that matched as a suffix (ambiguous), if any.
        candidates: Vec<String>,
    },
    #[error("table {table} has no action {action} (it has: {})", .allowed.join(", "))]
    ActionNotInTable {
        table: String,
        action: String,
        allowed: Vec<String>,
    },
    #[error("table {table} has {expected} key field(s), {got} given")]
    KeyCount {
        table: String,
        expected: usize,
        got: usize,
    },
    #[error("table {table}, key field {field}: it is matched {expected}, a {got} key was given")]
    KeyKind {
        table: String,
        field: String,
        expected: &'static str,
        got: &'static str,
    },
    #[error("table {table}, key field {field}: {what} {value} does not fit in {width} bit(s)")]
    KeyTooWide {
        table: String,
        field: String,
        /// "value", "mask", "range start", ...
        what: &'static str,
        value: String,
        width: u32,
    },
    #[error(
        "table {table}, key field {field}: prefix length {prefix_len} exceeds the field's {width} bit(s)"
    )]
    PrefixTooLong {
        table: String,
        field: String,
        prefix_len: u32,
        width: u32,
    },
    #[error("action {action} takes {expected} parameter(s), {got} given")]
    ParamCount {
        action: String,
        expected: usize,
        got: usize,
    },
    #[error("action {action}, parameter {param}: value {value} does not fit in {width} bit(s)")]
    ParamTooWide {
        action: String,
        param: String,
        value: String,
        width: u32,
    },
    #[error("table {table} is a {match_type} table: its entries need a priority")]
    MissingPriority { table: String, match_type: String },
    #[error("register {register}: value {value} does not fit in {width} bit(s)")]
    RegisterValueTooWide {
        register: String,
        value: u64,
        width: u32,
    },
    #[error("{kind} {name}: index {index} is out of range (size {size})")]
    IndexOutOfRange {
        kind: &'static str,
        name: String,
        index: u32,
        size: u32,
    },
}

fn ns_suffix(ns: &Option<String>) -> String {
    ns.as_ref()
        .map(|n| format!(" in namespace {n}"))
        .unwrap_or_default()
}

fn candidates_suffix(c: &[String]) -> String {
    if c.is_empty() {
        String::new()
    } else {
        format!(" (ambiguous: {})", c.join(", "))
    }
}

pub(crate) fn table_code_name(code: i32) -> String {
    const NAMES: [&str; 27] = [
        "TABLE_FULL",
        "INVALID_HANDLE",
        "EXPIRED_HANDLE",
        "COUNTERS_DISABLED",
        "METERS_DISABLED",
        "AGEING_DISABLED",
        "INVALID_TABLE_NAME",
        "INVALID_ACTION_NAME",
        "WRONG_TABLE_TYPE",
        "INVALID_MBR_HANDLE",
        "MBR_STILL_USED",
        "MBR_ALREADY_IN_GRP",
        "MBR_NOT_IN_GRP",
        "INVALID_GRP_HANDLE",
        "GRP_STILL_USED",
        "EMPTY_GRP",
        "DUPLICATE_ENTRY",
        "BAD_MATCH_KEY",
        "INVALID_METER_OPERATION",
        "DEFAULT_ACTION_IS_CONST",
        "DEFAULT_ENTRY_IS_CONST",
        "NO_DEFAULT_ENTRY",
        "INVALID_ACTION_PROFILE_NAME",
        "NO_ACTION_PROFILE_SELECTION",
        "IMMUTABLE_TABLE_ENTRIES",
        "BAD_ACTION_DATA",
        "NO_TABLE_KEY",
    ];
    match code {
        1..=27 => NAMES[(code - 1) as usize].to_string(),
        100 => "ERROR".to_string(),
        c => format!("error code {c}"),
    }
}

pub(crate) fn register_code_name(code: i32) -> String {
    match code {
        1 => "INVALID_REGISTER_NAME".into(),
        2 => "INVALID_INDEX".into(),
        3 => "ERROR".into(),
        c => format!("error code {c}"),
    }
}

pub(crate) fn counter_code_name(code: i32) -> String {
    match code {
        1 => "INVALID_COUNTER_NAME".into(),
        2 => "INVALID_INDEX".into(),
        3 => "ERROR".into(),
        c => format!("error code {c}"),
    }
}
