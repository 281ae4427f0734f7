//! Lab 08: TA mode with c-Through's hotspot scheduling (§8). The student
//! writes a traffic matrix (`tm.txt`) that makes the hotspot scheduler pick
//! a given matching; the grader runs the scheduler (`ta::build`) on it,
//! through the shipped `config.json` (the working copy's must be unchanged:
//! another matrix file or update interval is not the lab).
//!
//! The Python route: a `tm.py` that defines `tm(net)` (and is not the
//! untouched stub) is graded instead of `tm.txt`. The driver
//! ([`super::py`]) hands its matrix to `net.topo_aware(m, scheduler=
//! "hotspot")` (the paper's Table 5) on the shipped config and returns
//! it; it is written as a tm.txt, loaded through the shipped config and
//! graded by the same checks.

use super::checks::{Answers, Check, Shipped, read, tor_name};
use super::py::{Script, config_with_file, scratch};
use super::{Ctx, LabError};
use lh_ctrl::config::Config;
use lh_ctrl::schedule::Endpoint;
use serde_json::json;

/// The circuits the lab asks for (0-based ToRs): s1-s6, s2-s5, s3-s8, s4-s7.
pub const TARGET: [(u16, u16); 4] = [(0, 5), (1, 4), (2, 7), (3, 6)];

const CONFIG: Shipped = Shipped {
    lab: "08-ta-hotspot",
    name: "config.json",
    text: include_str!("../08-ta-hotspot/config.json"),
};

/// The checks after loading, by name (for a fixed score denominator).
const LATER: [&str; 8] = [
    "the hotspot scheduler accepts the matrix",
    "the hotspot matching connects s1 and s6",
    "the hotspot matching connects s2 and s5",
    "the hotspot matching connects s3 and s8",
    "the hotspot matching connects s4 and s7",
    "circuit_share",
    "s1_to_s2_goes_over",
    "reconfigure_every_ms",
];

/// The Python route; the shipped stub, left as it is, grades tm.txt.
const SCRIPT: Script = Script {
    func: "tm",
    args: "net",
    stub: include_str!("../08-ta-hotspot/tm.py"),
    about: "the lab is about choosing the matrix",
};

/// The starter's matrix (the shipped tm.txt).
const STARTER_TM: &str = include_str!("../08-ta-hotspot/tm.txt");

const LOADS: &str = "tm.txt is an 8 x 8 matrix with a zero diagonal";
const PY_RUNS: &str = "tm.py's tm(net) returns an 8 x 8 matrix with a zero diagonal, and topo_aware(m, scheduler=\"hotspot\") takes it";

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?];
    if SCRIPT.taken(cx, "Python, tm.txt is not graded", "matrix file (tm.txt)")? {
        return grade_python(cx, v);
    }
    read(&cx.path("tm.txt"))?;
    match CONFIG.config(cx) {
        Ok(cfg) => {
            v.push(Check::pass(LOADS));
            matrix_checks(cx, v, &cfg)
        }
        Err(e) => {
            v.push(Check::fail(
                LOADS,
                format!(
                    "{e}\none row per line, 8 integers (bytes), `#` comments; docs/config.md#ta"
                ),
            ));
            v.extend(Check::blocked(
                &LATER,
                "fix tm.txt so that the config loads",
            ));
            Ok(v)
        }
    }
}

/// The Python route: tm(net)'s matrix, written as a tm.txt beside the
/// shipped config and graded as the student's tm.txt would be.
fn grade_python(cx: &Ctx, mut v: Vec<Check>) -> Result<Vec<Check>, LabError> {
    // The folder lives until the checks are done: the scheduler reads the
    // matrix file.
    let tmp = scratch()?;
    // The net the script sees: the shipped config on the starter's matrix
    // (a TA config needs one to load), which topo_aware() then replaces.
    let net_cfg = config_with_file(
        tmp.path(),
        CONFIG.text,
        "/ta/traffic_matrix",
        "starter-tm.txt",
        STARTER_TM,
    )?;
    let Some(r) = SCRIPT.run(cx, &net_cfg, PY_RUNS, &LATER, &mut v) else {
        return Ok(v);
    };
    let loaded = (|| -> Result<Config, String> {
        let rows = r["matrix"]
            .as_array()
            .ok_or("tm.py's matrix: not a list of rows")?;
        let text: String = rows
            .iter()
            .map(|row| {
                let cells: Vec<String> = row
                    .as_array()
                    .map(|c| c.iter().map(|x| x.to_string()).collect())
                    .unwrap_or_default();
                cells.join(" ") + "\n"
            })
            .collect();
        let file = tmp.path().join("tm.txt");
        std::fs::write(&file, text).map_err(|e| format!("a scratch file: {e}"))?;
        // The loader's words, without the scratch file it names.
        Config::from_json_in(CONFIG.text, CONFIG.name, tmp.path()).map_err(|e| {
            let e = e.to_string();
            let scratch = format!("{}: ", file.display());
            let why = e.split_once(&scratch).map_or(e.as_str(), |(_, w)| w);
            format!("tm.py's matrix: {why}")
        })
    })();
    match loaded {
        Ok(cfg) => {
            v.push(Check::pass(PY_RUNS));
            matrix_checks(cx, v, &cfg)
        }
        Err(h) => {
            v.push(Check::fail(PY_RUNS, h));
            v.extend(Check::blocked(
                &LATER,
                "fix tm.py so that tm(net) returns the matrix",
            ));
            Ok(v)
        }
    }
}

/// The checks of a loaded matrix, whichever route it came from.
fn matrix_checks(cx: &Ctx, mut v: Vec<Check>, cfg: &Config) -> Result<Vec<Check>, LabError> {
    let s = match lh_ctrl::ta::build(cfg) {
        Ok(s) => {
            v.push(Check::pass(LATER[0]));
            s
        }
        Err(e) => {
            v.push(Check::fail(LATER[0], e.to_string()));
            v.extend(Check::blocked(&LATER[1..], "fix tm.txt first"));
            return Ok(v);
        }
    };
    let tm = cfg.traffic_matrix().unwrap_or_default();
    for (a, b) in TARGET {
        let got = s.peer(0, Endpoint::new(a, 0)).map(|e| e.tor);
        v.push(Check::when(
            got == Some(b),
            format!("the hotspot matching connects {} and {}", tor_name(a as usize), tor_name(b as usize)),
            format!(
                "{} is matched with {}; hotspot picks the heaviest pairs (both directions added), see `lighthouse show config.json --slice 0`",
                tor_name(a as usize),
                got.map_or("nobody".into(), |t| tor_name(t as usize))
            ),
        ));
    }
    let a = Answers::load(&cx.path("answers.json"))?;
    let total: u64 = tm.iter().flatten().sum();
    let mut on_circuits = 0u64;
    for (i, row) in tm.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            if s.peer(0, Endpoint::new(i as u16, 0))
                .map(|e| e.tor as usize)
                == Some(j)
            {
                on_circuits += x;
            }
        }
    }
    let share = if total == 0 {
        0.0
    } else {
        on_circuits as f64 / total as f64
    };
    v.push(a.check(
        "circuit_share",
        "fraction of your matrix's bytes that the circuits carry (0..1)",
        json!((share * 1000.0).round() / 1000.0),
        "add the entries of the matched pairs (both directions) and divide by the total",
    ));
    let s1s2 = if s.peer(0, Endpoint::new(0, 0)).map(|e| e.tor) == Some(1) {
        "circuit"
    } else {
        "electrical"
    };
    v.push(a.check(
        "s1_to_s2_goes_over",
        "does traffic from s1 to s2 take a \"circuit\" or the \"electrical\" fabric",
        json!(s1s2),
        "c-Through is a hybrid (TA-1, §2.1): what has no circuit takes the electrical fabric",
    ));
    v.push(a.check(
        "reconfigure_every_ms",
        "how often (ms) the TA controller recomputes the matching",
        json!(cfg.ta.as_ref().map(|t| t.update_interval.0 / 1_000_000)),
        "ta.update_interval in config.json",
    ));
    Ok(v)
}
