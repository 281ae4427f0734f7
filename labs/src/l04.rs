//! Lab 04: writing a schedule file. The grader loads `sched.json` through
//! the shipped config (`topology: file`, 6 ToRs), so the loader's own
//! errors reach the student, then checks that every slice is a perfect
//! matching and every pair of ToRs meets exactly once per cycle. The
//! working copy's `config.json` must still be the shipped one: switching
//! it to `round_robin`, another file or fewer ToRs skips the work.

use super::checks::{Check, Shipped, read_json, tor_name};
use super::{Ctx, LabError};
use lh_ctrl::schedule::{Endpoint, Schedule};

const CONFIG: Shipped = Shipped {
    lab: "04-schedule-file",
    name: "config.json",
    text: include_str!("../04-schedule-file/config.json"),
};

const LOADS: &str = "sched.json loads: every circuit obeys connect() and fits the OCS cabling";

/// The checks after loading, by name (for a fixed score denominator).
const LATER: [&str; 4] = [
    "the cycle is as short as possible",
    "every slice is a perfect matching (each ToR in exactly one two-way circuit)",
    "every pair of ToRs meets exactly once per cycle",
    "direct routing compiles and every packet is delivered within one cycle",
];

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?];
    // Syntax errors in the student's file are fatal and name the line.
    read_json(&cx.path("sched.json"))?;
    let loaded = CONFIG.config(cx).and_then(|cfg| {
        lh_ctrl::schedule::from_config(&cfg)
            .map(|s| (cfg, s))
            .map_err(|e| e.to_string())
    });
    let (cfg, s) = match loaded {
        Ok(x) => {
            v.push(Check::pass(LOADS));
            x
        }
        Err(e) => {
            v.push(Check::fail(
                LOADS,
                format!("{e}\none uplink transmits and receives at most once per slice; indices start at 0 (docs/schedule-file.md)"),
            ));
            v.extend(Check::blocked(&LATER, "fix sched.json so that it loads"));
            return Ok(v);
        }
    };
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
    Ok(v)
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
