//! Helpers shared by the config_* integration tests.
#![allow(dead_code)]

use lh_ctrl::config::{Config, ConfigError};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn topologies_dir() -> PathBuf {
    repo_root().join("topologies")
}

/// A ready config from topologies/ as a JSON value, to mutate in a test.
pub fn doc(name: &str) -> Value {
    let text = std::fs::read_to_string(topologies_dir().join(name)).expect("read topology");
    serde_json::from_str(&text).expect("topology is JSON")
}

pub fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let text = std::fs::read_to_string(repo_root().join("docs/config.schema.json"))
            .expect("read docs/config.schema.json");
        let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
        jsonschema::validator_for(&schema).expect("schema compiles")
    })
}

/// Schema error messages for `v` (empty when the schema accepts it).
pub fn schema_errors(v: &Value) -> Vec<String> {
    validator()
        .iter_errors(v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Parse and validate `v` with the controller; it must fail.
pub fn rust_error(v: &Value) -> ConfigError {
    match Config::from_json(&v.to_string(), "test.json") {
        Ok(_) => panic!("controller accepted a bad config:\n{v:#}"),
        Err(e) => e,
    }
}

/// The controller rejects `v` at `path` with a message containing every
/// word of `needles`; returns the error for further checks.
pub fn rejects(v: &Value, path: &str, needles: &[&str]) -> ConfigError {
    let e = rust_error(v);
    assert_eq!(e.json_path(), path, "wrong path in: {e}");
    let msg = e.to_string();
    assert!(msg.contains(path), "message does not name the path: {msg}");
    for n in needles {
        assert!(msg.contains(n), "message lacks {n:?}: {msg}");
    }
    e
}

/// Like [`rejects`], and the schema must reject the document too.
pub fn both_reject(v: &Value, path: &str, needles: &[&str]) -> ConfigError {
    let e = rejects(v, path, needles);
    assert!(
        !schema_errors(v).is_empty(),
        "schema accepted a document the controller rejects ({e}):\n{v:#}"
    );
    e
}

pub fn is_parse(e: &ConfigError) -> bool {
    matches!(e, ConfigError::Parse { .. })
}

pub fn is_invalid(e: &ConfigError) -> bool {
    matches!(e, ConfigError::Invalid { .. })
}
