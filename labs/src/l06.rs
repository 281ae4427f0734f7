//! Lab 06: slice misses and recirculation-free rerouting (§6.2, §6.3).
//! Students predict what the ToR does with a burst that does not fit its
//! slice; the grader derives the answers from the compiled entries (primary
//! action and alternates, `walk_alternate`) and the slice's byte budget,
//! following the admission rule of docs/dataplane.md. Both configs are
//! given: facts come from the shipped files.
//!
//! The Python route: an `answers.py` that defines `answers(direct, hoho)`
//! (and is not the untouched stub) is graded instead of `answers.json`.
//! The driver ([`super::py`]) calls it with the shipped configs as two
//! `LighthouseNet`s, where the student reads the same entries
//! (`net.table()`) and circuits (`net.neighbors()`) that `lighthouse show`
//! prints; the dict it returns is checked question by question as
//! answers.json would be.

use super::checks::{Answers, Check, Shipped, tor_name};
use super::py::Script;
use super::{Ctx, LabError};
use lh_ctrl::compile::{Compiled, compile};
use lh_ctrl::routing::tors_of;
use lh_ctrl::tables::{Ingress, Match, walk, walk_alternate};
use serde_json::{Value, json};

/// Frame size used by the questions (bytes on the uplink).
const FRAME: u64 = 1500;

const DIRECT: Shipped = Shipped {
    lab: "06-slice-misses",
    name: "direct.json",
    text: include_str!("../06-slice-misses/direct.json"),
};
const HOHO: Shipped = Shipped {
    lab: "06-slice-misses",
    name: "hoho.json",
    text: include_str!("../06-slice-misses/hoho.json"),
};

/// The Python route; the shipped stub, left as it is, grades answers.json.
const SCRIPT: Script = Script {
    func: "answers",
    args: "direct, hoho",
    stub: include_str!("../06-slice-misses/answers.py"),
    about: "the lab is about reading the entries and the admission rule yourself",
};

const PY_RUNS: &str = "answers.py's answers(direct, hoho) runs on the shipped direct.json and hoho.json and returns a dict of answers";

fn load(cx: &Ctx, f: &Shipped) -> Result<Compiled, String> {
    f.config(cx)
        .and_then(|cfg| compile(&cfg).map_err(|e| format!("{}: {e}", f.name)))
}

/// Departure slices of the entry's action and alternates at `tor` for a
/// host packet to `dst` arriving in `a`.
fn departures(c: &Compiled, tor: u16, dst: u16, a: u16) -> Option<(u16, Vec<u16>)> {
    let m = Match {
        dst,
        arrival: Some(a),
        ingress: Ingress::Host,
        class: None,
        bucket: None,
    };
    let e = c.tables.lookup(tor, &m).ok()??;
    let d = |s: lh_ctrl::tables::Step| s.depart.unwrap_or(a);
    Some((
        d(e.action.first()),
        e.alternates().map(|x| d(x.first())).collect(),
    ))
}

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = vec![DIRECT.unchanged(cx)?, HOHO.unchanged(cx)?];
    let (direct, hoho) = match (load(cx, &DIRECT), load(cx, &HOHO)) {
        (Ok(d), Ok(h)) => (d, h),
        (Err(e), _) | (_, Err(e)) => {
            return Ok(vec![Check::fail("the shipped configs compile", e)]);
        }
    };
    let facts = facts(&direct, &hoho);
    let a = if SCRIPT.taken(
        cx,
        "Python, answers.json is not graded",
        "answers file (answers.json)",
    )? {
        // Both shipped configs, one net each: answers(direct, hoho).
        let configs = format!("[{}, {}]", DIRECT.text, HOHO.text);
        let names: Vec<String> = facts.iter().map(|f| Answers::name(f.0, f.1)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let Some(r) = SCRIPT.run(cx, &configs, PY_RUNS, &names, &mut v) else {
            return Ok(v);
        };
        v.push(Check::pass(PY_RUNS));
        Answers::of(
            &format!("what answers.py's {} returns", SCRIPT.call()),
            &r["answers"],
        )
    } else {
        Answers::load(&cx.path("answers.json"))?
    };
    v.extend(
        facts
            .into_iter()
            .map(|(key, question, expected, hint)| a.check(key, question, expected, hint)),
    );
    Ok(v)
}

/// A question: its key in answers.json, the question, the answer derived
/// from the shipped configs, and where to look.
type Fact = (&'static str, &'static str, Value, &'static str);

/// The questions and their answers, derived from the compiled configs.
fn facts(direct: &Compiled, hoho: &Compiled) -> Vec<Fact> {
    let mut f = Vec::new();

    // Direct routing, s1 -> s4 arriving in slice 0.
    let (prim, alts) = departures(direct, 0, 3, 0).unwrap_or((0, vec![]));
    f.push((
        "direct_primary_slice",
        "direct: departure slice of s1's entry for dst s4, arrival 0",
        json!(prim),
        "`lighthouse show direct.json --tor 0`, the dst=s4 arrival=0 line: up0@D",
    ));
    f.push((
        "direct_alternate_slices",
        "direct: departure slices of that entry's alternates, best first",
        json!(alts),
        "the (alt ...) part of the same line; docs/tables.md \"Alternates\" says why these",
    ));
    let per_slice = direct.config.bytes_per_slice() / FRAME;
    f.push((
        "frames_per_slice",
        "direct: how many 1500-byte frames one circuit carries in one slice",
        json!(per_slice),
        "bytes_per_slice (docs/config.md#slice) divided by the frame size, rounded down",
    ));
    // A burst into empty queues: the primary queue takes per_slice frames,
    // each alternate as many, the rest are dropped (docs/dataplane.md).
    let burst = |n: u64, alternates: usize| {
        let cap_alt = per_slice * alternates as u64;
        let over = n.saturating_sub(per_slice);
        (over.min(cap_alt), over.saturating_sub(cap_alt))
    };
    f.push((
        "direct_burst10_dropped",
        "direct: 10 frames s1 -> s4 arrive in slice 0, queues empty: how many are dropped",
        json!(burst(10, alts.len()).1),
        "the primary queue admits what fits in its slice; the rest try the entry's alternates, if it has any",
    ));
    f.push((
        "drop_reason",
        "the drop counter those frames show up in (`drops` in the CLI)",
        json!("slice_miss"),
        "\"all candidates refused -> dropped with the primary's reason\" (docs/dataplane.md); the buffer itself is not full",
    ));
    let (_, hoho_alts) = departures(hoho, 0, 2, 0).unwrap_or((0, vec![]));
    f.push((
        "hoho_alternate_slices",
        "hoho: departure slices of the alternates of s1's entry for dst s3, arrival 0",
        json!(hoho_alts),
        "`lighthouse show hoho.json --tor 0`, the dst=s3 arrival=0 line",
    ));
    f.push((
        "hoho_burst25_rerouted",
        "hoho: 25 frames s1 -> s3 arrive in slice 0, queues empty: how many take an alternate",
        json!(burst(25, hoho_alts.len()).0),
        "each alternate is another calendar queue with a whole slice of its own",
    ));
    f.push((
        "hoho_burst25_dropped",
        "hoho: and how many of the 25 are dropped",
        json!(burst(25, hoho_alts.len()).1),
        "at most MAX_ALTERNATES = 2 alternates per entry (docs/tables.md)",
    ));

    // HOHO, s1 -> s3 arriving in slice 0: primary and first alternate path.
    let s = &hoho.schedule;
    let names = |p: &lh_ctrl::routing::Path| -> Value {
        json!(
            tors_of(p, s)
                .iter()
                .map(|&t| tor_name(t as usize))
                .collect::<Vec<_>>()
        )
    };
    let prim = walk(&hoho.tables, s, 0, 2, Some(0), None, None)
        .map(|p| {
            (
                names(&p),
                json!(p.delivered().map(|d| d as usize % s.slices())),
            )
        })
        .unwrap_or((Value::Null, Value::Null));
    let alt = walk_alternate(&hoho.tables, s, 0, 2, Some(0), None, None, 0)
        .map(|p| {
            (
                names(&p),
                json!(p.delivered().map(|d| d as usize % s.slices())),
            )
        })
        .unwrap_or((Value::Null, Value::Null));
    f.push((
        "hoho_primary_path",
        "hoho: ToRs a packet s1 -> s3 arriving in slice 0 visits when nothing is full",
        prim.0,
        "`lighthouse show hoho.json --tor 0`, then follow the hops with `--slice N`; answer like [\"s1\", \"s5\", \"s3\"]",
    ));
    f.push((
        "hoho_alternate_path",
        "hoho: the ToRs it visits when s1's primary queue is full",
        alt.0,
        "the first (alt ...) of the same entry, then the next ToR's entry for that departure slice",
    ));
    f.push((
        "hoho_alternate_arrives_slice",
        "hoho: the slice in which the rerouted packet reaches s3",
        alt.1,
        "the departure slice of the last hop of the alternate path",
    ));
    f
}
