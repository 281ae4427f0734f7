//! Lab 08: TA mode with c-Through's hotspot scheduling (§8). The student
//! writes a traffic matrix (`tm.txt`) that makes the hotspot scheduler pick
//! a given matching; the grader runs the scheduler (`ta::build`) on it,
//! through the shipped `config.json` (the working copy's must be unchanged:
//! another matrix file or update interval is not the lab).

use super::checks::{Answers, Check, Shipped, read, tor_name};
use super::{Ctx, LabError};
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
    "the hotspot scheduler accepts tm.txt",
    "the hotspot matching connects s1 and s6",
    "the hotspot matching connects s2 and s5",
    "the hotspot matching connects s3 and s8",
    "the hotspot matching connects s4 and s7",
    "circuit_share",
    "s1_to_s2_goes_over",
    "reconfigure_every_ms",
];

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?];
    read(&cx.path("tm.txt"))?;
    let cfg = match CONFIG.config(cx) {
        Ok(c) => {
            v.push(Check::pass(
                "tm.txt is an 8 x 8 matrix with a zero diagonal",
            ));
            c
        }
        Err(e) => {
            v.push(Check::fail(
                "tm.txt is an 8 x 8 matrix with a zero diagonal",
                format!(
                    "{e}\none row per line, 8 integers (bytes), `#` comments; docs/config.md#ta"
                ),
            ));
            v.extend(Check::blocked(
                &LATER,
                "fix tm.txt so that the config loads",
            ));
            return Ok(v);
        }
    };
    let s = match lh_ctrl::ta::build(&cfg) {
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
