//! Lab 01: a first optical network and the CLI. Facts come from the
//! shipped `config.json` (RotorNet-8), compiled; the working copy's must
//! still be that one. `session.lh` is checked for the commands the lab
//! asks for.

use super::checks::{Answers, Check, Shipped, read, tor_name};
use super::{Ctx, LabError};
use serde_json::json;

const CONFIG: Shipped = Shipped {
    lab: "01-first-network",
    name: "config.json",
    text: include_str!("../01-first-network/config.json"),
};

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![CONFIG.unchanged(cx)?];
    let c = CONFIG
        .config(cx)
        .and_then(|cfg| lh_ctrl::compile::compile(&cfg).map_err(|e| e.to_string()));
    let c = match c {
        Ok(c) => c,
        Err(e) => return Ok(vec![Check::fail("the shipped config.json compiles", e)]),
    };
    let cfg = &c.config;
    let a = Answers::load(&cx.path("answers.json"))?;
    let s = &c.schedule;
    v.push(a.check(
        "slices",
        "slices per optical cycle",
        json!(s.slices()),
        "`lighthouse compile config.json` prints the cycle",
    ));
    v.push(a.check(
        "slice_us",
        "slice duration in microseconds",
        json!(cfg.slice.duration.0 / 1000),
        "read `slice.duration` in config.json",
    ));
    let peer = s.neighbors(0, 2).first().map(|&t| tor_name(t as usize));
    v.push(a.check(
        "s1_meets_in_slice_2",
        "the ToR s1 has a circuit to in slice 2",
        json!(peer),
        "`lighthouse show config.json --slice 2`, the line starting with s1 (answer like \"s7\")",
    ));
    v.push(a.check(
        "hosts",
        "number of hosts",
        json!(cfg.host_count()),
        "ToRs x hosts_per_tor, or `nodes` in the CLI",
    ));
    let h5 = tor_name(4 / cfg.tors.hosts_per_tor as usize);
    v.push(a.check(
        "h5_tor",
        "the ToR host h5 is attached to",
        json!(h5),
        "`net` in the CLI lists h5-eth0:sT-ethJ (answer like \"s2\")",
    ));
    v.push(a.check(
        "bytes_per_slice",
        "bytes one circuit carries in one slice",
        json!(cfg.bytes_per_slice()),
        "link_rate x (duration - max(guardband, reconfiguration_delay)), docs/config.md#slice",
    ));
    let worst = c
        .routes
        .paths
        .iter()
        .filter_map(|p| p.latency_slots())
        .max()
        .unwrap_or(0);
    v.push(a.check(
        "worst_wait_slices",
        "longest wait (in slices) of a packet for its direct circuit",
        json!(worst),
        "the `latency` line of `lighthouse compile config.json`",
    ));

    // The session script.
    let file = cx.path("session.lh");
    let text = read(&file)?;
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect())
        .collect();
    let has = |f: &dyn Fn(&[&str]) -> bool| lines.iter().any(|l| f(l));
    v.push(Check::when(
        has(&|l| l == ["schedule", "2"]),
        "session.lh shows slice 2's circuits",
        "add the optical verb that prints one slice's circuits (docs/cli.md, \"Optical verbs\")",
    ));
    v.push(Check::when(
        has(&|l| l.first() == Some(&"pingall")),
        "session.lh tests reachability between all hosts",
        "which Mininet command pings every pair?",
    ));
    v.push(Check::when(
        has(&|l| l.len() >= 3 && l[0] == "h1" && l[1] == "ping" && l.last() == Some(&"h3")),
        "session.lh pings h3 from h1 (to see the RTT steps)",
        "`<node> <cmd>` runs a command in a host; host names become IPs",
    ));
    v.push(Check::when(
        has(&|l| l == ["drops"]),
        "session.lh prints the drop counters and the conservation check",
        "the optical verb that prints sent/delivered/dropped/queued",
    ));
    Ok(v)
}
