//! One test per class of bad config: each asserts the JSON path of the error,
//! that the message says what was expected, and (where a schema can say it)
//! that docs/config.schema.json rejects the same document. By what the
//! config gets wrong: its text and shape (`syntax`), the fabric it
//! describes (`fabric`), its hosts' transport (`hosts`).

#[path = "../config_support/mod.rs"]
mod config_support;
mod fabric;
mod hosts;
mod syntax;

use config_support::*;
use lh_ctrl::config::{Config, ConfigError};
use serde_json::{Value, json};

fn rotornet() -> Value {
    doc("rotornet-8.json")
}

fn cthrough() -> Value {
    doc("c-through-8.json")
}

fn remove(v: &mut Value, key: &str) {
    v.as_object_mut().unwrap().remove(key).expect("key present");
}

/// The document text with `topology` replaced by `topo` verbatim (serde_json's
/// Value sorts keys, and the order of `kind` matters for the messages).
fn with_topology_text(topo: &str) -> String {
    let text = rotornet().to_string();
    let old = r#""topology":{"kind":"round_robin"}"#;
    assert!(text.contains(old));
    text.replace(old, &format!(r#""topology":{topo}"#))
}

fn text_error(text: &str) -> ConfigError {
    Config::from_json(text, "t.json").expect_err("bad topology accepted")
}

fn explicit_cabling() -> Value {
    // ToR t -> OCS 0 port 7 - t (a valid, non-identity cabling).
    Value::Array(
        (0..8)
            .map(|t| json!({"tor": t, "port": 0, "ocs": 0, "ocs_port": 7 - t}))
            .collect(),
    )
}
