//! Every table, action, parameter, register and counter the translator uses
//! exists in the BMv2 JSON that p4c produces, with the same widths.

mod common;

use lh_p4gen::Target;
use lh_p4gen::schema::{ACTIONS, COUNTERS, REGISTERS, TABLES};
use serde_json::Value;

#[test]
fn schema_matches_compiled_bmv2_json() {
    // Skips visibly, or fails where the toolchain is required (CI).
    if bmv2_thrift::require::p4_test("schema_matches_compiled_bmv2_json", &[]).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = match common::bmv2_json(tmp.path()) {
        Ok(p) => p,
        Err(why) => {
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("SKIPPED schema_matches_compiled_bmv2_json: {why}\n"),
            );
            return;
        }
    };
    let j: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let tables: Vec<&Value> = j["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["tables"].as_array().unwrap())
        .collect();
    // Every control-plane table of the program is in the schema...
    for t in &tables {
        let name = t["name"].as_str().unwrap();
        if name.starts_with("LhIngress.") {
            assert!(
                lh_p4gen::schema::table(name).is_some(),
                "table {name} not in the schema"
            );
        }
    }
    // ...and every schema table is in the program, key by key.
    for ts in TABLES {
        let t = tables
            .iter()
            .find(|t| t["name"] == ts.name)
            .unwrap_or_else(|| panic!("no table {}", ts.name));
        let keys = t["key"].as_array().unwrap();
        assert_eq!(keys.len(), ts.keys.len(), "{}", ts.name);
        for (k, ks) in keys.iter().zip(ts.keys) {
            assert_eq!(k["name"], ks.name, "{}", ts.name);
            assert_eq!(
                k["match_type"],
                ks.kind.bmv2_name(),
                "{} {}",
                ts.name,
                ks.name
            );
            let target = k["target"].as_array().unwrap();
            let width = field_width(&j, target[0].as_str().unwrap(), target[1].as_str().unwrap());
            assert_eq!(width, ks.width, "{} key {}", ts.name, ks.name);
        }
        let acts: Vec<&str> = t["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        for a in ts.actions {
            assert!(acts.contains(a), "{} lacks action {a}", ts.name);
        }
    }
    for a in ACTIONS {
        let ja = j["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == a.name)
            .unwrap_or_else(|| panic!("no action {}", a.name));
        let params: Vec<(String, u32)> = ja["runtime_data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["bitwidth"].as_u64().unwrap() as u32,
                )
            })
            .collect();
        let want: Vec<(String, u32)> = a.params.iter().map(|&(n, w)| (n.to_string(), w)).collect();
        assert_eq!(params, want, "{}", a.name);
    }
    for r in REGISTERS {
        let jr = j["register_arrays"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == r.name)
            .unwrap_or_else(|| panic!("no register {}", r.name));
        assert_eq!(jr["bitwidth"].as_u64(), Some(r.width as u64), "{}", r.name);
        assert_eq!(jr["size"].as_u64(), Some(r.size as u64), "{}", r.name);
    }
    assert_eq!(
        j["register_arrays"].as_array().unwrap().len(),
        REGISTERS.len()
    );
    for &(name, size) in COUNTERS {
        let c = j["counter_arrays"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("no counter {name}"));
        assert_eq!(c["size"].as_u64(), Some(size as u64), "{name}");
    }
    // The fixture's entries use only these names and fit the widths.
    let p = common::fixture().program(Target::Bmv2).unwrap();
    p.check_schema().unwrap();
}

/// Width of `header.field`: `header` is a header instance (or `scalars`).
fn field_width(j: &Value, header: &str, field: &str) -> u32 {
    let h = j["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == header)
        .unwrap();
    let ty = h["header_type"].as_str().unwrap();
    let ht = j["header_types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == ty)
        .unwrap();
    let f = ht["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f[0] == field)
        .unwrap();
    f[1].as_u64().unwrap() as u32
}

/// The Tofino2 variant passes the P4 front end with Open-Tofino's TNA
/// includes, warnings as errors (no Tofino compiler here: semantics only).
#[test]
fn tna_variant_passes_p4test() {
    let inc = std::path::Path::new("/opt/p4/share/open-tofino/p4include");
    if bmv2_thrift::require::p4_test("tna_variant_passes_p4test", &["p4test"]).is_none() {
        return;
    }
    if !inc.is_dir() {
        // The workplace's toolchain brings Open-Tofino's includes; p4lang's
        // packages do not.
        let why = format!("{} missing", inc.display());
        if let Some(req) = bmv2_thrift::require::required() {
            panic!("tna_variant_passes_p4test: {why}, but required here ({req})");
        }
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!("SKIPPED tna_variant_passes_p4test: {why}\n"),
        );
        return;
    }
    let r = std::process::Command::new("p4test")
        .arg("--Werror")
        .arg("-I")
        .arg(inc)
        .arg("-D__TARGET_TOFINO__=2")
        .arg(common::repo().join("p4/tna/lighthouse.p4"))
        .output()
        .unwrap();
    assert!(
        r.status.success() && r.stderr.is_empty(),
        "p4test:\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
}
