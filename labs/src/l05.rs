//! Lab 05: time-flow table entries by hand for the paper's Fig. 2
//! schedule (4 ToRs, 3 slices). The grader walks the student's tables with
//! the controller's `walk` (the data plane's lookup rule) for every source,
//! destination and arrival slice, on the shipped schedule (the working
//! copy's `config.json` and `schedule.json` must be unchanged). The
//! starter's two-hop path (Fig. 4b) must be kept, which the compiler's
//! direct tables do not have: copying `lighthouse compile`'s output is not
//! the lab.
//!
//! The Python route: a `tables.py` that defines `tables(net)` (and is not
//! the untouched stub) is graded instead of `tables.json`. It returns
//! paths built with `net.path()`, one per (source, destination, arrival
//! slice), the built-in routings and `earliest_path()` blocked; the driver
//! ([`super::py`]) hands them to `net.entries(paths, lookup=HOP)` on the
//! shipped config and returns the per-hop tables it made, which are walked
//! by the same checks.

use super::checks::{Check, Shipped, read, read_json, tor_name};
use super::py::{Script, config_with_file, scratch};
use super::{Ctx, LabError};
use lh_ctrl::config::{Config, Lookup};
use lh_ctrl::routing::tors_of;
use lh_ctrl::schedule::Schedule;
use lh_ctrl::schedule::file::schedule_from_json;
use lh_ctrl::tables::{Ingress, TableError, Tables, walk};

const CONFIG: Shipped = Shipped {
    lab: "05-time-flow-tables",
    name: "config.json",
    text: include_str!("../05-time-flow-tables/config.json"),
};
const SCHEDULE: Shipped = Shipped {
    lab: "05-time-flow-tables",
    name: "schedule.json",
    text: include_str!("../05-time-flow-tables/schedule.json"),
};

/// The starter's entries: s1 -> s4 arriving in slice 0 goes via s2.
const TWO_HOP: [u16; 3] = [0, 1, 3];

/// The Python route; the shipped stub, left as it is, grades tables.json.
const SCRIPT: Script = Script {
    func: "tables",
    args: "net",
    stub: include_str!("../05-time-flow-tables/tables.py"),
    about: "the lab is about working out each hop's departure slice yourself, from net.neighbors() and net.path()",
};

/// Where the graded tables come from: the check that they load, what to
/// fix when they do not, and the hint for the starter's path.
struct Route {
    file: &'static str,
    loads: &'static str,
    fix: &'static str,
    keep: &'static str,
}

const JSON: Route = Route {
    file: "tables.json",
    loads: "tables.json has the time-flow table format",
    fix: "fix the format of tables.json first",
    keep: "keep the starter's entries for dst 3, arrival 0 at ToRs 0 and 1 (the compiler's direct tables do not have them)",
};
const PYTHON: Route = Route {
    file: "tables.py",
    loads: "tables.py's tables(net) runs and net.entries() makes per-hop tables of the paths it returns (no built-in routing)",
    fix: "fix tables.py so that tables(net) runs",
    keep: "keep the starter's path net.path([0, 1, 3], [0, 1], 0) (direct paths do not go that way)",
};

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?, SCHEDULE.unchanged(cx)?];
    let python = SCRIPT.taken(
        cx,
        "Python, tables.json is not graded",
        "tables file (tables.json)",
    )?;
    let file = cx.path("tables.json");
    if !python {
        read_json(&file)?;
    }
    // The shipped schedule, not the working copy's (the config names it).
    let s = Config::parse_json(CONFIG.text, CONFIG.name)
        .map_err(|e| e.to_string())
        .and_then(|cfg| {
            schedule_from_json(
                SCHEDULE.text,
                SCHEDULE.name,
                cfg.tors.count as usize,
                cfg.tors.uplinks as usize,
            )
            .map_err(|e| e.to_string())
        });
    let s = match s {
        Ok(s) => s,
        Err(e) => return Ok(vec![Check::fail("the shipped schedule.json loads", e)]),
    };
    let later = later(&s);
    let later: Vec<&str> = later.iter().map(String::as_str).collect();
    // The tables, from the route taken: the check that they load, and what
    // it says otherwise.
    let (route, loaded) = if python {
        // The net the script sees: the shipped config on a scratch copy of
        // the shipped schedule.
        let tmp = scratch()?;
        let cfg = config_with_file(
            tmp.path(),
            CONFIG.text,
            "/topology/path",
            SCHEDULE.name,
            SCHEDULE.text,
        )?;
        let Some(r) = SCRIPT.run(cx, &cfg, PYTHON.loads, &later, &mut v) else {
            return Ok(v);
        };
        let t = serde_json::from_value::<Tables>(r["tables"].clone())
            .map_err(|e| format!("the tables entries() made do not read back: {e}"));
        (&PYTHON, t)
    } else {
        let t = serde_json::from_str::<Tables>(&read(&file)?)
            .map_err(|e| format!("tables.json: {e}\nsee docs/tables.md, \"File format\""));
        (&JSON, t)
    };
    match loaded {
        Ok(t) => {
            v.push(Check::pass(route.loads));
            table_checks(&mut v, &later, &t, &s, route);
        }
        Err(h) => {
            v.push(Check::fail(route.loads, h));
            v.extend(Check::blocked(&later, route.fix));
        }
    }
    Ok(v)
}

/// The checks of the tables, by name: the cycle and lookup, the ranges,
/// the starter's path, then one per source ToR.
fn later(s: &Schedule) -> Vec<String> {
    let mut v = vec![
        format!(
            "\"slices\" is the cycle length ({}) and \"lookup\" is \"hop\"",
            s.slices()
        ),
        "every ToR, destination, slice and port index is in range".to_string(),
        format!(
            "the starter's two-hop path is kept: {} arriving in slice 0 (Fig. 4b)",
            TWO_HOP.map(|t| tor_name(t as usize)).join(" -> ")
        ),
    ];
    v.extend((0..s.tors()).map(|t| {
        format!(
            "every packet from {} reaches its destination, without loops, within one cycle",
            tor_name(t)
        )
    }));
    v
}

/// The checks of loaded tables, whichever route they came from: `names`
/// as [`later`] gives them.
fn table_checks(v: &mut Vec<Check>, names: &[&str], t: &Tables, s: &Schedule, route: &Route) {
    let slices = s.slices();
    v.push(Check::when(
        t.slices == slices && t.lookup == Lookup::Hop,
        names[0],
        format!(
            "you have slices {} and lookup {:?}; ranks are taken mod the cycle length",
            t.slices, t.lookup
        ),
    ));
    let in_range = t.tors.iter().all(|tt| {
        (tt.tor as usize) < s.tors()
            && tt.entries.iter().all(|e| {
                (e.m.dst as usize) < s.tors()
                    && e.m.arrival.is_none_or(|a| (a as usize) < slices)
                    && e.action
                        .first()
                        .depart
                        .is_none_or(|d| (d as usize) < slices)
                    && (e.action.first().port as usize) < s.uplinks()
            })
    });
    v.push(Check::when(
        in_range,
        names[1],
        format!(
            "ToRs are 0..{} (s1 is ToR 0), slices 0..{slices}, the only uplink is port 0",
            s.tors() - 1
        ),
    ));
    let via = walk(t, s, TWO_HOP[0], TWO_HOP[2], Some(0), None, None).map(|p| tors_of(&p, s));
    v.push(Check::when(
        via.as_ref().is_ok_and(|p| p[..] == TWO_HOP),
        names[2],
        format!(
            "{}: it goes {}; {}",
            route.file,
            match &via {
                Ok(p) => p
                    .iter()
                    .map(|&t| tor_name(t as usize))
                    .collect::<Vec<_>>()
                    .join(" -> "),
                Err(e) => explain(e),
            },
            route.keep
        ),
    ));
    for src in 0..s.tors() as u16 {
        let mut bad = Vec::new();
        for dst in 0..s.tors() as u16 {
            if dst == src {
                continue;
            }
            for a in 0..slices as u16 {
                let what = format!(
                    "{} -> {} arriving in slice {a}",
                    tor_name(src as usize),
                    tor_name(dst as usize)
                );
                match walk(t, s, src, dst, Some(a), None, None) {
                    Ok(p) => {
                        let lat = p.latency_slots().unwrap_or(u32::MAX);
                        if lat >= slices as u32 {
                            bad.push(format!(
                                "{what}: delivered {lat} slices later, more than a cycle"
                            ));
                        }
                    }
                    Err(e) => bad.push(format!("{what}: {}", explain(&e))),
                }
            }
        }
        let n = bad.len();
        bad.truncate(3);
        if n > 3 {
            bad.push(format!("... {} more", n - 3));
        }
        v.push(Check::when(n == 0, names[3 + src as usize], bad.join("\n")));
    }
}

/// A walk error in the CLI's names (tables use 0-based ToR numbers).
fn explain(e: &TableError) -> String {
    let ingress = |i: Ingress| match i {
        Ingress::Host => "from a host",
        Ingress::Fabric => "from the fabric",
        Ingress::Any => "from anywhere",
    };
    match e {
        TableError::NoEntry { tor, m } => format!(
            "{} (ToR {tor}) has no entry for dst {} (dst: {}) arrival {} {}",
            tor_name(*tor as usize),
            tor_name(m.dst as usize),
            m.dst,
            m.arrival.map_or("*".into(), |a| a.to_string()),
            ingress(m.ingress)
        ),
        TableError::NoCircuit { tor, port, slice } => format!(
            "{} (ToR {tor}) sends on port {port} in slice {slice}, but that port has no circuit then",
            tor_name(*tor as usize)
        ),
        TableError::Loop { tor, slice, .. } => format!(
            "forwarding loop: {} (ToR {tor}) is reached twice in slice {}",
            tor_name(*tor as usize),
            slice.map_or("*".into(), |a| a.to_string())
        ),
        e => e.to_string(),
    }
}
