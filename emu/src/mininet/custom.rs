//! `--custom FILE.py --topo NAME[,args]`: a Mininet `Topo` subclass,
//! exported by a shim of `mininet.topo` run with /usr/bin/python3 (never the
//! real mininet).

use super::source::split_spec;
use super::{LinkEnd, LinkNetem, MnError, MnTopo, host_opts_from_json};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The exporter, shipped in the binary and written next to the generated
/// config when needed.
pub const EXPORTER: &str = include_str!("../../mininet/lh_topo_export.py");

/// The `Topo` classes the exporter imports (`lh_mn_topo.py` beside it): the
/// Python package's `lighthouse.mininet.topo`, one source for both.
pub const TOPO_SHIM: &str = include_str!("../../../python/lighthouse/mininet/topo.py");

fn python() -> String {
    std::env::var("LIGHTHOUSE_PYTHON").unwrap_or_else(|_| {
        if Path::new("/usr/bin/python3").is_file() {
            "/usr/bin/python3".into()
        } else {
            "python3".into()
        }
    })
}

/// Run the exporter on a Mininet custom file.
pub fn custom(file: &Path, spec: &str, scratch: &Path) -> Result<MnTopo, MnError> {
    if !file.is_file() {
        return Err(MnError::File(
            file.display().to_string(),
            "no such file".into(),
        ));
    }
    let (name, args) = split_spec(spec);
    let exporter = scratch.join("lh_topo_export.py");
    std::fs::write(&exporter, EXPORTER)?;
    std::fs::write(scratch.join("lh_mn_topo.py"), TOPO_SHIM)?;
    let py = python();
    let out = Command::new(&py)
        // -I: no user site-packages or PYTHON* variables, so nothing but the
        // shim can answer `import mininet`.
        .arg("-I")
        .arg(&exporter)
        .arg(file)
        .arg(&name)
        .args(&args)
        .output()
        .map_err(|e| MnError::NoPython(py.clone(), e))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the exporter failed without a message")
            .trim()
            .to_string();
        return Err(MnError::Python {
            file: file.display().to_string(),
            name,
            last,
        });
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| MnError::File(file.display().to_string(), format!("exporter output: {e}")))?;
    let names = |k: &str| -> Vec<String> {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let links = v["links"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| {
                    Some((
                        l[0].as_str()?.to_string(),
                        l[1].as_str()?.to_string(),
                        l[2].get("bw").and_then(Value::as_f64),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut netem = Vec::new();
    for l in v["links"].as_array().into_iter().flatten() {
        netem.push(LinkNetem::from_json(&l[2]).map_err(|e| {
            MnError::File(
                file.display().to_string(),
                format!(
                    "link {}-{}: {e}",
                    l[0].as_str().unwrap_or("?"),
                    l[1].as_str().unwrap_or("?")
                ),
            )
        })?);
    }
    let port = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).map(|p| p as usize);
    let ports = v["links"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| (port(&l[2], "port1"), port(&l[2], "port2")))
                .collect()
        })
        .unwrap_or_default();
    let bad = |e: String| MnError::File(file.display().to_string(), e);
    let ends = v["links"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            LinkEnd::pair_from_json(&l[2]).map_err(|e| bad(format!("link {}-{}: {e}", l[0], l[1])))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let host_opts = host_opts_from_json(&v["host_opts"]).map_err(bad)?;
    Ok(MnTopo {
        switches: names("switches"),
        hosts: names("hosts"),
        links,
        ports,
        netem,
        ends,
        host_opts,
        warnings: Vec::new(),
    })
}
