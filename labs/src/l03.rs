//! Lab 03: routing. Three given configs on the same RotorNet schedule
//! (direct, VLB, HOHO); answers about hop counts and latencies are derived
//! from the shipped configs' compiled routes. The Python route (optional):
//! `routing.py`'s `routing(net)`, run through the lighthouse package on the
//! shipped hoho.json, must return valid paths for every (src, dst, arrival)
//! of at most 2 hops, each delivering as early as any 2-hop path.

use super::checks::{Answers, Check, Shipped, tor_name};
use super::py::Script;
use super::{Ctx, LabError};
use lh_ctrl::compile::{Compiled, compile};
use lh_ctrl::routing::{PathRef, tors_of};
use serde_json::{Value, json};

const CONFIGS: [Shipped; 3] = [
    Shipped {
        lab: "03-routing",
        name: "direct.json",
        text: include_str!("../03-routing/direct.json"),
    },
    Shipped {
        lab: "03-routing",
        name: "vlb.json",
        text: include_str!("../03-routing/vlb.json"),
    },
    Shipped {
        lab: "03-routing",
        name: "hoho.json",
        text: include_str!("../03-routing/hoho.json"),
    },
];

fn path(c: &Compiled, src: u16, dst: u16, ts: u16) -> Option<PathRef<'_>> {
    c.routes
        .paths
        .iter()
        .find(|p| p.src == src && p.dst == dst && p.arrival == Some(ts))
}

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = Vec::new();
    let mut comp = Vec::new();
    for f in &CONFIGS {
        v.push(f.unchanged(cx)?);
        match f
            .config(cx)
            .and_then(|cfg| compile(&cfg).map_err(|e| e.to_string()))
        {
            Ok(c) => comp.push(c),
            Err(e) => {
                return Ok(vec![Check::fail(
                    format!("the shipped {} compiles", f.name),
                    e,
                )]);
            }
        }
    }
    let a = Answers::load(&cx.path("answers.json"))?;
    let names = ["direct", "vlb", "hoho"];
    for (n, c) in names.iter().zip(&comp) {
        let hops = c.routes.paths.iter().map(|p| p.hops.len()).max();
        v.push(a.check(
            &format!("{n}_max_hops"),
            &format!("{n}: most ToR-to-ToR hops on any path"),
            json!(hops),
            &format!("`lighthouse compile {n}.json`, the `paths` line"),
        ));
    }
    for (n, c) in names.iter().zip(&comp) {
        let lat = c
            .routes
            .paths
            .iter()
            .filter_map(|p| p.latency_slots())
            .max();
        v.push(a.check(
            &format!("{n}_worst_latency_slices"),
            &format!("{n}: worst latency in slices"),
            json!(lat),
            &format!("`lighthouse compile {n}.json`, the `latency` line"),
        ));
    }
    // One packet, s1 -> s4 arriving in slice 0, under each scheme.
    for (n, c) in names.iter().zip(&comp) {
        let p = path(c, 0, 3, 0);
        let via: Value = p
            .map(|p| {
                json!(
                    tors_of(p, &c.schedule)
                        .iter()
                        .map(|&t| tor_name(t as usize))
                        .collect::<Vec<_>>()
                )
            })
            .unwrap_or(Value::Null);
        v.push(a.check(
            &format!("{n}_s1_s4_ts0_path"),
            &format!("{n}: the ToRs a packet from s1 to s4 arriving in slice 0 visits, in order"),
            via,
            &format!(
                "`lighthouse show {n}.json --tor 0`: the dst=s4 arrival=0 entry gives the uplink and slice; `--slice N` tells whom that uplink reaches; repeat at the next ToR. Answer like [\"s1\", \"s6\", \"s4\"]"
            ),
        ));
        let arrive = p
            .and_then(|p| p.delivered())
            .map(|d| d as usize % c.schedule.slices());
        v.push(a.check(
            &format!("{n}_s1_s4_ts0_arrives_slice"),
            &format!("{n}: the slice in which that packet reaches s4"),
            json!(arrive),
            "the departure slice of the last hop",
        ));
    }
    v.extend(python_route(cx)?);
    Ok(v)
}

/// The Python route; the shipped stub, left as it is, is not graded.
const SCRIPT: Script = Script {
    func: "routing",
    args: "net",
    stub: include_str!("../03-routing/routing.py"),
    about: "the lab is about writing the routing yourself from net.neighbors() and net.path()",
};

const PY_RUNS: &str = "routing.py's routing(net) runs and net.entries() accepts every path it returns (no built-in routing)";
const PY_LATER: [&str; 3] = [
    "routing.py covers every (src, dst, arrival slice): entries() reports none missing",
    "routing.py: every path has at most 2 hops",
    "routing.py: every path delivers no later than the earliest path of at most 2 hops (HOHO with max_hop=2) for its pair and slice",
];

/// The Python route's checks, if `routing.py` is written (defines
/// `routing(net)` and is not the untouched stub); none otherwise.
fn python_route(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = Vec::new();
    if !SCRIPT.taken(
        cx,
        "answers.json and Python, on hoho.json",
        "answers.json only",
    )? {
        return Ok(v);
    }
    let Some(r) = SCRIPT.run(cx, CONFIGS[2].text, PY_RUNS, &PY_LATER, &mut v) else {
        return Ok(v);
    };
    v.push(Check::pass(PY_RUNS));
    let n = |k: &str| r[k].as_u64().unwrap_or(u64::MAX);
    v.push(Check::when(
        n("missing") == 0,
        PY_LATER[0],
        format!(
            "{} of {} (src, dst, arrival slice) have no path, e.g. ToR {} -> ToR {} arriving in slice {} (first_missing); return one path for each",
            n("missing"),
            n("triples"),
            r["first_missing"][0],
            r["first_missing"][1],
            r["first_missing"][2]
        ),
    ));
    v.push(Check::when(
        n("too_long") == 0,
        PY_LATER[1],
        format!(
            "{} paths have more than 2 hops, e.g. {}",
            n("too_long"),
            r["first_too_long"].as_str().unwrap_or("?")
        ),
    ));
    let s = &r["first_slower"];
    v.push(Check::when(
        n("slower") == 0,
        PY_LATER[2],
        format!(
            "{} (src, dst, arrival slice) are delivered later than they could be, e.g. {}: {} slots after arrival, a 2-hop path takes {}; try leaving now to a ToR that meets the destination sooner",
            n("slower"),
            s["path"].as_str().unwrap_or("?"),
            s["latency"],
            s["best"]
        ),
    ));
    Ok(v)
}
