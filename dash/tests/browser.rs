//! The page in a real browser: headless Chromium (Debian's `chromium`,
//! which scripts/setup.sh installs) loads it from a dashboard over an
//! offline network, with its ES modules, and draws what the events say.
//! A module that does not load, or that throws, fails here rather than
//! leaving a blank page. No root needed; python/tests/test_dashboard.py
//! drives the page of a live run.

use lh_dash::{Dashboard, Options, bind};
use lh_emu::net::Network;
use lh_emu::net::values::SliceView;
use lh_emu::plan::Plan;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's Chromium on PATH.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|d| [d.join("chromium"), d.join("chromium-browser")])
        .find(|p| p.is_file())
        .expect("chromium is not installed: run scripts/setup.sh")
}

/// Chromium loading `url` and, once the page's event stream has ended,
/// printing its DOM to `dir`/dom.html (its log, with the page's console,
/// to `dir`/chromium.log).
fn open(url: &str, dir: &Path) -> Child {
    Command::new(chromium())
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        // Virtual time waits for the page's fetches, the event stream
        // included: the DOM is printed after the run's end.
        .args(["--virtual-time-budget=5000", "--dump-dom", url])
        .stdin(Stdio::null())
        .stdout(File::create(dir.join("dom.html")).unwrap())
        .stderr(File::create(dir.join("chromium.log")).unwrap())
        .spawn()
        .expect("chromium did not start")
}

/// Chromium's log: what it printed, for a failure's message.
fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("chromium.log")).unwrap_or_default()
}

/// Circuits slice `ts` draws: one per unordered pair of (ToR, uplink).
fn circuits(view: &SliceView) -> usize {
    let v = serde_json::to_value(view).unwrap();
    let end = |c: &Value, s: &str| {
        (
            c[format!("{s}_tor")].as_u64(),
            c[format!("{s}_port")].as_u64(),
        )
    };
    let pairs: BTreeSet<_> = v["circuits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let (a, b) = (end(c, "a"), end(c, "b"));
            (a.min(b), a.max(b))
        })
        .collect();
    pairs.len()
}

/// One tick as the sampler sends it, at `t` s.
fn tick(t: u64, slices: usize, queued: f64) -> String {
    let sample = |metric: &str, value: f64| {
        json!({"t_ns": t * 1_000_000_000, "metric": metric, "tor": 0, "port": 0,
               "interval_ns": 1_000_000, "value": value})
    };
    json!({
        "t_ns": t * 1_000_000_000,
        "slice": {"slice": 0, "slices": slices, "cycle": t},
        "usage": [sample("buffer_usage", queued), sample("bw_usage", 0.25)],
        "conservation": {"sent": 10, "delivered": 8, "dropped": 1, "queued": 1,
                         "held": 0, "in_flight": 0, "holds": true},
        "dropped": {"no_circuit": 1},
    })
    .to_string()
}

/// A result of each kind the page shows.
fn results() -> Vec<(&'static str, Value)> {
    vec![
        (
            "pingall",
            json!({"sent": 2, "received": 2, "rows": [
                {"src": "h1", "results": [{"dst": "h2", "rtt_ms": 0.5}]},
                {"src": "h2", "results": [{"dst": "h1", "rtt_ms": 0.7}]}]}),
        ),
        (
            "iperf",
            json!({"l4": "TCP", "client": "h1", "server": "h2",
                   "server_bps": 9e9, "client_bps": 9.1e9}),
        ),
        (
            "flows",
            json!({"head": "*** 2 flows", "records": [
                {"flow": {"size": 1000}, "fct_ns": 100000},
                {"flow": {"size": 20000000}, "fct_ns": 5000000}],
                "summary": {"flows": 2, "completed": 2, "goodput_bps": 1e9, "buckets": [
                    {"name": "mice", "flows": 1, "completed": 1,
                     "p50": 1e5, "p95": 1e5, "p99": 1e5, "max": 1e5}]}}),
        ),
        (
            "flow",
            json!({"client": "h1", "server": "h2", "bytes": 1000000, "fct_ns": 2000000,
                   "server_bps": 4e9, "client_bps": 4e9}),
        ),
        (
            "allreduce",
            json!({"hosts": ["h1", "h2"], "bytes": 1000000, "iterations": 3,
                   "times_ns": [1000000, 2000000, 3000000], "bus_bps": 5e9}),
        ),
    ]
}

/// rotornet-8 on an offline network, its dashboard bound to `addr`, its
/// page in Chromium; returns the page's DOM after the run's end.
fn page_after_a_run(addr: &str) -> (String, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cfg = lh_ctrl::config::Config::load(&root.join("topologies/rotornet-8.json")).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let mut net = Network::offline(Plan::from_config(&c.config), "lh0d0f");
    let slices = c.schedule.slices();
    let drawn = circuits(&SliceView::on(&c.config, &c.schedule, 0));
    net.compiled = Some(c);
    // Every link up (offline, none is) but one of s1's uplinks: the page
    // lists it and draws it.
    let mut links = serde_json::to_value(net.links()).unwrap();
    for l in links["links"].as_array_mut().unwrap() {
        l["a_up"] = true.into();
        l["b_up"] = true.into();
    }
    let down = links["links"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|l| l["a"] == "s1-up0" && l["b"].as_str().is_some_and(|b| b.ends_with("-up0")))
        .expect("an uplink between s1 and another ToR");
    down["a_up"] = false.into();
    let d = Dashboard::start(bind(addr).unwrap(), &mut net, Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut browser = open(d.url(), dir.path());
    // The page opens its stream once its modules ran and it drew the
    // snapshot: a module that does not load never gets here.
    let t = Instant::now();
    while d.hub().clients() == 0 {
        let gone = browser.try_wait().unwrap();
        if gone.is_some() || t.elapsed() > Duration::from_secs(60) {
            let _ = browser.kill();
            let _ = browser.wait();
            let dom = std::fs::read_to_string(dir.path().join("dom.html")).unwrap_or_default();
            let error = dom
                .split(r#"<div id="error""#)
                .nth(1)
                .and_then(|e| e.split("</div>").next());
            panic!(
                "the page did not open its event stream (its error line: {error:?}):\n{}",
                log(dir.path())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let hub = d.hub().clone();
    hub.publish("links", links.to_string(), Some("links"));
    hub.publish("tick", tick(1, slices, 3000.0), None);
    hub.publish("tick", tick(2, slices, 1500.0), None);
    for (verb, value) in results() {
        let body = json!({"verb": verb, "value": value}).to_string();
        hub.publish("result", body, Some(&format!("result:{verb}")));
    }
    // The page asked for slices 0 and 1 as it opened the stream: give
    // those requests time to reach the server before it stops taking any.
    std::thread::sleep(Duration::from_millis(300));
    d.stop(Some(true));
    let t = Instant::now();
    while browser.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(60) {
            let _ = browser.kill();
            let _ = browser.wait();
            panic!("chromium did not print the page:\n{}", log(dir.path()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // The page wrote nothing to its console: no exception, no error.
    let console: Vec<String> = log(dir.path())
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    assert!(console.is_empty(), "the page's console: {console:#?}");
    let dom = std::fs::read_to_string(dir.path().join("dom.html")).unwrap();
    (dom, drawn)
}

fn count(dom: &str, what: &str) -> usize {
    dom.matches(what).count()
}

/// What the page shows of `page_after_a_run`.
fn check(dom: &str, circuits: usize) {
    let has = |what: &str| assert!(dom.contains(what), "no {what} in the page:\n{dom}");
    // The header: the run, its end, no error.
    has(r#"<span id="run-prefix" class="mono">run lh0d0f</span>"#);
    has(r#"<span id="status" class="status run-ended">run ended</span>"#);
    has(r#"<div id="error" class="error" hidden="">"#);
    has("0 samples dropped for this client");
    // The fabric: 8 ToRs around the OCS, slice 0's circuits, the failed uplink.
    assert_eq!(
        count(dom, r#"<g class="tor"#) - count(dom, r#"<g class="tors""#),
        8
    );
    assert_eq!(count(dom, r#"<g class="ocs""#), 1);
    has(r#"data-slice="0""#);
    has("slice 0 of ");
    assert!(circuits > 0);
    assert_eq!(count(dom, r#"class="circuit "#), circuits, "{dom}");
    assert_eq!(count(dom, r#"<li class="failed">"#), 1, "{dom}");
    has(r#"<li class="failed">s1-up0"#);
    assert_eq!(count(dom, r#"<line class="link failed""#), 1, "{dom}");
    // Queues: two samples make a line; the heat map; the drops.
    has(r#"<path class="series" d="M"#);
    assert!(
        dom.split(r#"<svg id="queue-chart""#)
            .nth(1)
            .is_some_and(|s| {
                let d = s.split(r#"class="series" d=""#).nth(1).unwrap_or("");
                d.split('"').next().unwrap_or("").contains('L')
            }),
        "no queue series of two points: {dom}"
    );
    has("1.50 KB");
    has("conservation holds");
    has(r#"<tr data-reason="no_circuit" class="nonzero">"#);
    // Results of every kind.
    has("pingall: 2/2 received, 0% loss");
    assert_eq!(count(dom, r#"<td class="ok""#), 2);
    for verb in ["iperf", "flow", "allreduce"] {
        has(&format!(r#"<li data-verb="{verb}">"#));
    }
    has(r#"data-bucket="elephants""#);
    has("2 flows — goodput 1000.0 Mb/s");
    assert_eq!(count(dom, "<li data-verb="), 3 + 5, "{dom}");
}

#[test]
fn on_loopback_the_page_loads_its_modules_and_draws_the_events() {
    let (dom, circuits) = page_after_a_run("127.0.0.1:0");
    check(&dom, circuits);
}

#[test]
fn beyond_loopback_the_page_loads_its_modules_with_its_token() {
    let (dom, circuits) = page_after_a_run("0.0.0.0:0");
    check(&dom, circuits);
}
