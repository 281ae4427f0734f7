//! `lighthouse run CONFIG --script FILE --json`: every operation's typed
//! value (or error) as one JSON line on stdout, beside the CLI's text on
//! stderr. The values are checked against the text of the same run, so a
//! front end that reads values (Python, the dashboard) sees what a CLI
//! user reads.

mod common;

use serde_json::Value;
use std::path::Path;

const SCRIPT: &str = "\
time nodes
sh echo not on stdout
net
links
dump
pingall
schedule 2
schedule 99
slice
table s1
table s99
queues s2
buffer_usage s1
flow h1 h3 200000
link h1 s9 down
pcap h99 eth0 x.pcap
drops
";

fn records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn one<'a>(recs: &'a [Value], line: &str) -> &'a Value {
    let v: Vec<&Value> = recs.iter().filter(|r| r["line"] == line).collect();
    assert_eq!(v.len(), 1, "one record for {line:?}: {recs:?}");
    v[0]
}

/// The first number after `key` in `text`.
fn number_after(text: &str, key: &str) -> u64 {
    let i = text
        .find(key)
        .unwrap_or_else(|| panic!("{key:?} not in:\n{text}"))
        + key.len();
    let digits: String = text[i..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap()
}

#[test]
fn json_lines_carry_the_values_the_text_shows() {
    if common::skip_unless_root("json_lines_carry_the_values_the_text_shows") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, SCRIPT).unwrap();
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .arg("run")
        .arg(&cfg)
        .arg("--script")
        .arg(&script)
        .arg("--json")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (stdout, text) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("not on stdout") && text.contains("*** Elapsed time"));
    let recs = records(&stdout);
    // Every operation gave one record, in the script's order; a command
    // the CLI refused before any operation ran (`table s99`) gave none.
    let lines: Vec<&str> = recs.iter().map(|r| r["line"].as_str().unwrap()).collect();
    // (`time` and `sh` ran no operation: `time nodes` is the record of
    // `nodes`, and their output is on stderr, so stdout is records only.)
    let want: Vec<&str> = SCRIPT
        .lines()
        .filter(|l| !["table s99", "sh echo not on stdout", "time nodes"].contains(l))
        .collect();
    let want: Vec<&str> = std::iter::once("nodes").chain(want).collect();
    assert_eq!(lines, want, "{stdout}");

    // nodes: the same names, in the text's order.
    let n = &one(&recs, "nodes")["ok"];
    assert_eq!(one(&recs, "nodes")["verb"], "nodes");
    let names: Vec<&str> = n["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .chain(n["switches"].as_array().unwrap())
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 24, "{n}");
    let listed: Vec<&str> = text
        .split("available nodes are: \n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| !l.contains("-eth") && !l.starts_with("***"))
        .flat_map(str::split_whitespace)
        .collect();
    let (mut a, mut b) = (listed.clone(), names.clone());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);

    // net: one text line per node, naming its interfaces.
    for node in one(&recs, "net")["ok"]["nodes"].as_array().unwrap() {
        let name = node["node"].as_str().unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")) && l.contains(":"))
            .unwrap_or_else(|| panic!("no net line for {name}"));
        for i in node["intfs"].as_array().unwrap() {
            assert!(line.contains(i["name"].as_str().unwrap()), "{line} / {i}");
        }
    }

    // links: every link and its state, as the text shows it.
    for l in one(&recs, "links")["ok"]["links"].as_array().unwrap() {
        let (a, b) = (l["a"].as_str().unwrap(), l["b"].as_str().unwrap());
        let state = |up: &Value| {
            if up.as_bool().unwrap() {
                "OK"
            } else {
                "MISSING"
            }
        };
        let want = format!("{a}<->{b} ({} {})", state(&l["a_up"]), state(&l["b_up"]));
        assert!(text.contains(&want), "{want} not in the text");
    }

    // dump: each node's pid is the text's.
    for d in one(&recs, "dump")["ok"]["nodes"].as_array().unwrap() {
        let want = format!(
            "<{} {}: ",
            d["class"].as_str().unwrap(),
            d["name"].as_str().unwrap()
        );
        let line = text.lines().find(|l| l.starts_with(&want)).unwrap();
        assert!(
            line.ends_with(&format!("pid={}> ", d["pid"])),
            "{line} / {d}"
        );
    }

    // pingall: the totals of the summary line, and one row per host.
    let p = &one(&recs, "pingall")["ok"];
    let (sent, got) = (p["sent"].as_u64().unwrap(), p["received"].as_u64().unwrap());
    assert_eq!(sent, 16 * 15);
    assert!(
        text.contains(&format!("received ({got}/{sent} received)"))
            || text.contains(&format!("dropped ({got}/{sent} received)")),
        "{sent}/{got}"
    );
    assert_eq!(p["rows"].as_array().unwrap().len(), 16);

    // schedule 2: each circuit as a text line; a bad slice is a typed error.
    let s = &one(&recs, "schedule 2")["ok"];
    assert_eq!(s["slice"], 2);
    let head = format!("*** Slice 2 of {} (", s["slices"]);
    let block = text.split(&head).nth(1).expect("schedule 2's text");
    for c in s["circuits"].as_array().unwrap() {
        let l = format!(
            "s{} up{} -> s{} up{}",
            c["a_tor"].as_u64().unwrap() + 1,
            c["a_port"],
            c["b_tor"].as_u64().unwrap() + 1,
            c["b_port"]
        );
        assert!(block.contains(&l), "{l}");
    }
    let e = &one(&recs, "schedule 99")["error"];
    assert_eq!(e["kind"], "BadSlice");
    assert!(text.contains("*** Bad slice 99: expected 0.."));

    // slice: the text's line.
    let sl = &one(&recs, "slice")["ok"];
    assert!(text.contains(&format!(
        "*** Slice {} of {}, cycle {}",
        sl["slice"], sl["slices"], sl["cycle"]
    )));

    // table s1: the entry count of the header.
    let t = &one(&recs, "table s1")["ok"];
    let entries = t["entries"].as_array().unwrap().len() as u64;
    assert_eq!(number_after(&text, "*** s1 time-flow table: "), entries);
    assert!(entries > 0);
    assert!(text.contains("*** No such ToR: s99"));

    // queues: one row per uplink.
    let q = &one(&recs, "queues s2")["ok"];
    assert_eq!(q["bytes"].as_array().unwrap().len(), 1);

    // buffer_usage: one sample per uplink of s1.
    let u = &one(&recs, "buffer_usage s1")["ok"];
    assert_eq!(u["metric"], "buffer_usage");
    assert_eq!(u["samples"].as_array().unwrap().len(), 1);

    // flow: the byte count of the text.
    let f = &one(&recs, "flow h1 h3 200000")["ok"];
    assert_eq!(f["bytes"], 200000);
    assert!(text.contains("*** Flow h1 -> h3: 200000 bytes in "));
    assert!(f["fct_ns"].as_u64().unwrap() > 0);

    // Errors are typed, and the text is the CLI's.
    let l = &one(&recs, "link h1 s9 down")["error"];
    assert_eq!(l["kind"], "NoLink");
    assert!(text.contains("*** Error: no link between h1 and s9"));
    let pc = &one(&recs, "pcap h99 eth0 x.pcap")["error"];
    assert_eq!(pc["kind"], "NoSuchNode");
    assert!(text.contains("*** No such node: h99"));
    assert!(!dir.path().join("x.pcap").exists());

    // drops: the conservation terms of the text's line, and they hold.
    let d = &one(&recs, "drops")["ok"]["conservation"];
    assert_eq!(d["holds"], true);
    let line = text
        .lines()
        .find(|l| l.starts_with("*** conservation: sent "))
        .unwrap();
    assert_eq!(
        line,
        format!(
            "*** conservation: sent {} = delivered {} + dropped {} + queued {}: OK",
            d["sent"], d["delivered"], d["dropped"], d["queued"]
        )
    );
    assert!(d["sent"].as_u64().unwrap() > 0);
}

#[test]
fn json_refuses_a_telemetry_stream_on_stdout() {
    if common::skip_unless_root("json_refuses_a_telemetry_stream_on_stdout") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, "nodes\n").unwrap();
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let prefix = format!("lh{:04x}", rand::random::<u16>());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .arg("run")
        .arg(&cfg)
        .args([
            "--prefix",
            &prefix,
            "--json",
            "--telemetry",
            "-",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--json and --telemetry - both write stdout"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // Refused before any state: no namespace of its prefix.
    let left: Vec<String> = common::lh_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_failed_switch_link_shows_down_in_links_until_it_is_up_again() {
    if common::skip_unless_root("a_failed_switch_link_shows_down_in_links_until_it_is_up_again") {
        return;
    }
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, "link s1 s2 down\nlinks\nlink s2 s1 up\nlinks\n").unwrap();
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let prefix = common::free_prefix();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .arg("run")
        .arg(&cfg)
        .args(["--prefix", &prefix, "--json", "--script"])
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let recs = records(&String::from_utf8_lossy(&out.stdout));
    let links: Vec<&Value> = recs.iter().filter(|r| r["line"] == "links").collect();
    assert_eq!(links.len(), 2, "{recs:?}");
    // (link a, link b, a up, b up) of every ToR-ToR link.
    let tor_links = |r: &Value| -> Vec<(String, String, bool, bool)> {
        r["ok"]["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let s = |k: &str| l[k].as_str().unwrap().to_string();
                let up = |k: &str| l[k].as_bool().unwrap();
                (s("a"), s("b"), up("a_up"), up("b_up"))
            })
            .filter(|(a, b, _, _)| a.contains("-up") && b.contains("-up"))
            .collect()
    };
    let between_s1_s2 = |a: &str, b: &str| {
        let (x, y) = (a.split('-').next().unwrap(), b.split('-').next().unwrap());
        (x, y) == ("s1", "s2") || (x, y) == ("s2", "s1")
    };
    let down = tor_links(links[0]);
    let failed: Vec<_> = down.iter().filter(|l| between_s1_s2(&l.0, &l.1)).collect();
    assert!(
        failed
            .iter()
            .any(|l| (l.0.as_str(), l.1.as_str()) == ("s1-up0", "s2-up0")),
        "{down:?}"
    );
    assert!(failed.iter().all(|l| !l.2 && !l.3), "{failed:?}");
    // Only that link: every other ToR-ToR link (s1's and s2's too) is up.
    let others: Vec<_> = down.iter().filter(|l| !between_s1_s2(&l.0, &l.1)).collect();
    assert!(
        others
            .iter()
            .any(|l| l.0.starts_with("s1-") || l.1.starts_with("s1-"))
    );
    assert!(others.iter().all(|l| l.2 && l.3), "{others:?}");
    // Up again (named the other way round): every link is up, as before.
    let up = tor_links(links[1]);
    assert_eq!(up.len(), down.len());
    assert!(up.iter().all(|l| l.2 && l.3), "{up:?}");
    assert!(text.contains("s1-up0<->s2-up0 (MISSING MISSING)"), "{text}");
    assert!(text.contains("s1-up0<->s2-up0 (OK OK)"), "{text}");
    assert!(common::namespaces_of(&prefix).is_empty());
}
