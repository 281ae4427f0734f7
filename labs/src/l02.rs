//! Lab 02: schedules. The student turns `opera.json` into an Opera network
//! with the same ToRs as `rr.json` and answers questions on both; the
//! grader compiles both configs and checks the schedule's properties.
//! `rr.json` is given: its facts come from the shipped file.

use super::checks::{Answers, Check, Shipped, load_config};
use super::{Ctx, LabError};
use lh_ctrl::compile::{Compiled, compile};
use lh_ctrl::config::{Config, Topology};
use serde_json::{Value, json};

const RR: Shipped = Shipped {
    lab: "02-schedules",
    name: "rr.json",
    text: include_str!("../02-schedules/rr.json"),
};

fn max_latency(c: &Compiled) -> u32 {
    c.routes
        .paths
        .iter()
        .filter_map(|p| p.latency_slots())
        .max()
        .unwrap_or(0)
}

fn max_hops(c: &Compiled) -> usize {
    c.routes
        .paths
        .iter()
        .map(|p| p.hops.len())
        .max()
        .unwrap_or(0)
}

fn compiled(file: &str, r: Result<Config, String>) -> Result<Compiled, String> {
    let cfg = r.map_err(|e| format!("{file} does not load: {e}"))?;
    compile(&cfg).map_err(|e| format!("{file} does not compile: {e}"))
}

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![RR.unchanged(cx)?];
    let rr = compiled("rr.json", RR.config(cx));
    let op_cfg = load_config(&cx.path("opera.json"))?;
    let a = Answers::load(&cx.path("answers.json"))?;

    match &op_cfg {
        Ok(cfg) => {
            v.push(Check::pass("opera.json loads"));
            v.push(Check::when(
                matches!(cfg.topology, Topology::Opera { .. }),
                "opera.json uses the Opera topology",
                "set \"topology\": {\"kind\": \"opera\"} (docs/config.md#topology)",
            ));
            let same_tors = rr.as_ref().is_ok_and(|r| {
                r.config.tors.count == cfg.tors.count
                    && r.config.tors.hosts_per_tor == cfg.tors.hosts_per_tor
            });
            v.push(Check::when(
                same_tors,
                "opera.json has rr.json's ToRs and hosts",
                "opera.json: compare tors.count and tors.hosts_per_tor with rr.json: the two networks must be comparable",
            ));
            v.push(Check::when(
                cfg.tors.uplinks >= 4,
                "every ToR has at least 4 uplinks (rotors)",
                "Opera needs several rotors, one reconfiguring per slice: tors.uplinks = 4, and ocs.count = 4 OCSes of tors.count ports",
            ));
        }
        Err(e) => v.push(Check::fail(
            "opera.json loads",
            format!("{e}\nthe error names the field to fix; docs/config.md lists them"),
        )),
    }
    let op = compiled("opera.json", op_cfg);
    match &op {
        Ok(c) => {
            v.push(Check::pass("opera.json compiles (schedule, routes, tables)"));
            let s = &c.schedule;
            let bad: Vec<usize> = (0..s.slices())
                .filter(|&ts| s.diameter(ts as u16, |_| true).is_none())
                .collect();
            v.push(Check::when(
                bad.is_empty() && s.slices() > 1,
                "every Opera slice is a connected graph (that is what makes Opera's 1-slice paths possible)",
                format!(
                    "slices {bad:?} are not connected (or the cycle has one slice): is the topology opera with 4 rotors?"
                ),
            ));
        }
        Err(e) => v.push(Check::fail(
            "opera.json compiles (schedule, routes, tables)",
            format!(
                "{e}\nOpera needs routing \"opera\" (source routing, \"lookup\": \"source\") and one OCS per uplink"
            ),
        )),
    }

    let fact = |r: &Result<Compiled, String>, f: &dyn Fn(&Compiled) -> Value| match r {
        Ok(c) => f(c),
        Err(_) => Value::String("(fix the config first)".into()),
    };
    v.push(a.check(
        "rr_slices",
        "slices per cycle of round robin",
        fact(&rr, &|c| json!(c.schedule.slices())),
        "`lighthouse compile rr.json`; why N-1?",
    ));
    v.push(a.check(
        "opera_slices",
        "slices per cycle of your Opera network",
        fact(&op, &|c| json!(c.schedule.slices())),
        "`lighthouse compile opera.json`",
    ));
    v.push(a.check(
        "rr_worst_wait_slices",
        "round robin, direct routing: longest wait for a circuit, in slices",
        fact(&rr, &|c| json!(max_latency(c))),
        "a packet that just missed its circuit waits almost a whole cycle",
    ));
    v.push(a.check(
        "opera_worst_latency_slices",
        "Opera: longest path latency, in slices",
        fact(&op, &|c| json!(max_latency(c))),
        "the `latency` line of `lighthouse compile opera.json`",
    ));
    v.push(a.check(
        "opera_max_hops",
        "Opera: most ToR-to-ToR hops on any path",
        fact(&op, &|c| json!(max_hops(c))),
        "the `paths` line of `lighthouse compile opera.json`",
    ));
    v.push(a.check(
        "rr_cycle_us",
        "rr.json: one optical cycle in microseconds (the RTTs of `h1 ping h3` spread over about this much)",
        fact(&rr, &|c| json!(c.schedule.slices() as u64 * c.config.slice.duration.0 / 1000)),
        "a ping waits for the s1-s2 circuit, which comes once per cycle; run `lighthouse run rr.json` and `h1 ping -c 20 -i 0.2 h3`",
    ));
    Ok(v)
}
