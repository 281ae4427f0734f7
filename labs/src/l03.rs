//! Lab 03: routing. Three given configs on the same RotorNet schedule
//! (direct, VLB, HOHO); answers about hop counts and latencies are derived
//! from the shipped configs' compiled routes.

use super::checks::{Answers, Check, Shipped, tor_name};
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
    Ok(v)
}
