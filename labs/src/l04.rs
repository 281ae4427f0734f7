//! Lab 04: writing a schedule file. The grader loads `sched.json` through
//! the shipped config (`topology: file`, 6 ToRs), so the loader's own
//! errors reach the student, then checks that every slice is a perfect
//! matching and every pair of ToRs meets exactly once per cycle. The
//! working copy's `config.json` must still be the shipped one: switching
//! it to `round_robin`, another file or fewer ToRs skips the work.
//!
//! The Python route: a `topo.py` that defines `topo(net)` (and is not the
//! untouched stub) is graded instead of `sched.json`. The driver
//! ([`super::py`]) runs `net.topo(topo)` through the lighthouse package on
//! the shipped config with the built-in generators blocked, and hands back
//! the schedule in the schedule-file format; it is loaded through the
//! shipped config and graded by the same checks.

use super::checks::{Check, Shipped, read_json, tor_name};
use super::py::{Script, scratch};
use super::{Ctx, LabError};
use lh_ctrl::config::Config;
use lh_ctrl::schedule::{Endpoint, Schedule};

const CONFIG: Shipped = Shipped {
    lab: "04-schedule-file",
    name: "config.json",
    text: include_str!("../04-schedule-file/config.json"),
};

/// The Python route; the shipped stub, left as it is, grades sched.json.
const SCRIPT: Script = Script {
    func: "topo",
    args: "net",
    stub: include_str!("../04-schedule-file/topo.py"),
    about: "the lab is about writing the circle method yourself with net.connect() calls (paper Fig. 6b)",
};

const LOADS: &str = "sched.json loads: every circuit obeys connect() and fits the OCS cabling";
const PY_RUNS: &str = "topo.py's topo(net) runs: every net.connect() is accepted, the schedule fits the OCS cabling, no built-in generator";

/// The checks after loading, by name (for a fixed score denominator).
const LATER: [&str; 4] = [
    "the cycle is as short as possible",
    "every slice is a perfect matching (each ToR in exactly one two-way circuit)",
    "every pair of ToRs meets exactly once per cycle",
    "direct routing compiles and every packet is delivered within one cycle",
];

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?];
    if SCRIPT.taken(
        cx,
        "Python, sched.json is not graded",
        "schedule file (sched.json)",
    )? {
        return grade_python(cx, v);
    }
    // Syntax errors in the student's file are fatal and name the line.
    read_json(&cx.path("sched.json"))?;
    let loaded = CONFIG.config(cx).and_then(|cfg| {
        lh_ctrl::schedule::from_config(&cfg)
            .map(|s| (cfg, s))
            .map_err(|e| e.to_string())
    });
    match loaded {
        Ok(x) => {
            v.push(Check::pass(LOADS));
            schedule_checks(&mut v, x);
        }
        Err(e) => {
            v.push(Check::fail(
                LOADS,
                format!("{e}\none uplink transmits and receives at most once per slice; indices start at 0 (docs/schedule-file.md)"),
            ));
            v.extend(Check::blocked(&LATER, "fix sched.json so that it loads"));
        }
    }
    Ok(v)
}

/// The Python route: the driver runs `net.topo(topo)` on the shipped
/// config (its topology replaced, as topo() replaces it) and hands back
/// the schedule in the schedule-file format; it is loaded through the
/// shipped config and graded as a sched.json would be.
fn grade_python(cx: &Ctx, mut v: Vec<Check>) -> Result<Vec<Check>, LabError> {
    let mut cfg: serde_json::Value = serde_json::from_str(CONFIG.text).expect("shipped JSON");
    cfg["topology"] = serde_json::json!({"kind": "round_robin"});
    let Some(r) = SCRIPT.run(cx, &cfg.to_string(), PY_RUNS, &LATER, &mut v) else {
        return Ok(v);
    };
    // The schedule file the script's connect() calls amount to, loaded
    // through the shipped config like the student's sched.json (the folder
    // lives until the checks are done: compiling reads the file again).
    let tmp = scratch()?;
    let loaded = (|| -> Result<(Config, Schedule), String> {
        let s = &r["schedule"];
        std::fs::write(tmp.path().join("sched.json"), s.to_string())
            .map_err(|e| format!("a scratch file: {e}"))?;
        let cfg = Config::from_json_in(CONFIG.text, CONFIG.name, tmp.path())
            .map_err(|e| format!("topo.py's schedule: {e}"))?;
        let s =
            lh_ctrl::schedule::from_config(&cfg).map_err(|e| format!("topo.py's schedule: {e}"))?;
        Ok((cfg, s))
    })();
    match loaded {
        Ok(x) => {
            v.push(Check::pass(PY_RUNS));
            schedule_checks(&mut v, x);
        }
        Err(h) => {
            v.push(Check::fail(PY_RUNS, h));
            v.extend(Check::blocked(&LATER, "fix topo.py so that topo(net) runs"));
        }
    }
    Ok(v)
}

/// The checks of a loaded schedule, whichever route it came from.
fn schedule_checks(v: &mut Vec<Check>, (cfg, s): (Config, Schedule)) {
    let n = s.tors();
    v.push(Check::when(
        s.slices() == n - 1,
        format!("the cycle is as short as possible ({} slices for {n} ToRs)", n - 1),
        format!(
            "you have {} slices; with one uplink each ToR meets one peer per slice, and it has {} peers",
            s.slices(),
            n - 1
        ),
    ));
    v.push(matchings(&s));
    v.push(meets_once(&s));
    let direct = lh_ctrl::compile::compile(&cfg);
    v.push(match direct {
        Ok(c) => {
            let worst = c
                .routes
                .paths
                .iter()
                .filter_map(|p| p.latency_slots())
                .max()
                .unwrap_or(0);
            Check::when(
                worst < s.slices() as u32,
                "direct routing compiles and every packet is delivered within one cycle",
                format!("the worst packet waits {worst} slices"),
            )
        }
        Err(e) => Check::fail(
            "direct routing compiles and every packet is delivered within one cycle",
            format!("{e}\nevery pair needs a circuit in some slice"),
        ),
    });
}

/// Every ToR's single uplink has a two-way circuit in every slice.
fn matchings(s: &Schedule) -> Check {
    let name = "every slice is a perfect matching (each ToR in exactly one two-way circuit)";
    for ts in 0..s.slices() as u16 {
        let mut idle = Vec::new();
        for t in 0..s.tors() as u16 {
            let out = (0..s.uplinks() as u8).filter_map(|p| s.peer(ts, Endpoint::new(t, p)));
            let outs: Vec<Endpoint> = out.collect();
            let two_way = outs.len() == 1 && s.peer(ts, outs[0]) == Some(Endpoint::new(t, 0));
            if !two_way {
                idle.push(tor_name(t as usize));
            }
        }
        if !idle.is_empty() {
            return Check::fail(
                name,
                format!(
                    "slice {ts}: {} not in exactly one two-way circuit; add circuits (\"directed\" circuits are one-way)",
                    idle.join(", ")
                ),
            );
        }
    }
    Check::pass(name)
}

/// Every unordered pair is connected in exactly one slice.
fn meets_once(s: &Schedule) -> Check {
    let name = "every pair of ToRs meets exactly once per cycle";
    let n = s.tors();
    let mut count = vec![vec![0usize; n]; n];
    for ts in 0..s.slices() as u16 {
        for t in 0..n as u16 {
            for u in s.neighbors(t, ts) {
                if t < u {
                    count[t as usize][u as usize] += 1;
                }
            }
        }
    }
    let mut never = Vec::new();
    let mut twice = Vec::new();
    for (a, row) in count.iter().enumerate() {
        for (b, &c) in row.iter().enumerate().skip(a + 1) {
            let p = format!("{}-{}", tor_name(a), tor_name(b));
            match c {
                0 => never.push(p),
                1 => {}
                _ => twice.push(p),
            }
        }
    }
    if never.is_empty() && twice.is_empty() {
        return Check::pass(name);
    }
    let mut h = String::new();
    if !never.is_empty() {
        h += &format!("never meet: {}", never.join(" "));
    }
    if !twice.is_empty() {
        if !h.is_empty() {
            h += "\n";
        }
        h += &format!("meet more than once: {}", twice.join(" "));
    }
    h += "\nthe circle method (paper §9.1, Fig. 6b) fixes one ToR and rotates the others";
    Check::fail(name, h)
}
