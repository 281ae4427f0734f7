//! The dashboard's server over real sockets, on an offline network (no
//! root needed): the token beyond loopback, read-only routes, the loopback
//! Host check, and clients that never read.

use lh_dash::{Dashboard, Options, bind};
use lh_emu::net::Network;
use lh_emu::plan::Plan;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn offline() -> Network {
    Network::offline(Plan::new(8, 2), "lh0d0d")
}

/// One request; the status code and the body.
fn request(port: u16, method: &str, path: &str, headers: &[&str]) -> (u16, String) {
    let (code, _, body) = response(port, method, path, headers);
    (code, body)
}

/// One request; the status code, the response's head and its body.
fn response(port: u16, method: &str, path: &str, headers: &[&str]) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|h| h.starts_with("Host:")) {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let code = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    (code, head.to_string(), body.to_string())
}

#[test]
fn beyond_loopback_every_request_needs_the_token() {
    let mut net = offline();
    let d = Dashboard::start(bind("0.0.0.0:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    let url = d.url().to_string();
    let token = url
        .split("?token=")
        .nth(1)
        .expect("a token in the URL")
        .to_string();
    assert_eq!(token.len(), 32, "{url}");
    assert!(
        url.starts_with(&format!("http://127.0.0.1:{port}/?token=")),
        "{url}"
    );
    for path in [
        "/",
        "/js/main.js",
        "/api/snapshot",
        "/api/events",
        "/api/schedule/0",
    ] {
        let (code, body) = request(port, "GET", path, &[]);
        assert_eq!(code, 401, "{path}: {body}");
        assert!(body.contains("token"), "{body}");
        let wrong = format!("{path}?token={}", "0".repeat(32));
        assert_eq!(request(port, "GET", &wrong, &[]).0, 401, "{wrong}");
    }
    // Any Host is fine with the token (a remote browser names the machine).
    let (code, body) = request(
        port,
        "GET",
        &format!("/api/snapshot?token={token}"),
        &["Host: lab-vm.example:8001"],
    );
    assert_eq!(code, 200, "{body}");
    let snap: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(snap["prefix"], "lh0d0d");
    assert_eq!(snap["tors"].as_array().unwrap().len(), 8);
    let bearer = format!("Authorization: Bearer {token}");
    let (code, body) = request(port, "GET", "/", &[&bearer]);
    assert_eq!(code, 200);
    assert!(body.contains("<html"), "{body}");
    // Read-only: no route takes anything but GET.
    for m in ["POST", "PUT", "DELETE"] {
        let (code, _) = request(port, m, &format!("/api/snapshot?token={token}"), &[]);
        assert_eq!(code, 405, "{m}");
    }
    d.stop(None);
}

#[test]
fn on_loopback_no_token_but_a_loopback_host() {
    let mut net = offline();
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    assert_eq!(d.url(), format!("http://127.0.0.1:{port}/"));
    assert_eq!(request(port, "GET", "/api/snapshot", &[]).0, 200);
    assert_eq!(
        request(port, "GET", "/api/snapshot", &["Host: localhost"]).0,
        200
    );
    let (code, body) = request(port, "GET", "/api/snapshot", &["Host: attacker.example"]);
    assert_eq!(code, 403, "{body}");
    // An offline network has no schedule: a clear error, not a crash.
    let (code, body) = request(port, "GET", "/api/schedule/0", &[]);
    assert_eq!(code, 404);
    assert!(body.contains("NoSchedule"), "{body}");
    d.stop(None);
    // Stopped: the port is closed.
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

fn rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

#[test]
fn clients_that_never_read_keep_memory_bounded_and_publishers_unblocked() {
    let mut net = offline();
    let opts = Options {
        queue: 16,
        ..Options::default()
    };
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, opts).unwrap();
    let port = d.addr().port();
    // Four pages that subscribe and then never read a byte.
    let stuck: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            let req = format!("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
            s.write_all(req.as_bytes()).unwrap();
            s
        })
        .collect();
    let t = Instant::now();
    while d.hub().clients() < 4 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "clients did not subscribe"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = rss_kib();
    // 2 GB of events through the hub, 256 KiB each.
    let chunk = "x".repeat(256 << 10);
    let t = Instant::now();
    for i in 0..8000 {
        d.hub()
            .publish("tick", format!("{{\"i\":{i},\"pad\":\"{chunk}\"}}"), None);
    }
    let took = t.elapsed();
    let grew_mib = rss_kib().saturating_sub(before) / 1024;
    // The queues hold 16 events (4 MiB, shared); sockets hold what the
    // kernel buffers. Unbounded, this would be 8000 x 4 x 256 KiB.
    assert!(grew_mib < 96, "RSS grew {grew_mib} MiB");
    // Publishing never waited for the stuck clients.
    assert!(took < Duration::from_secs(20), "publishing took {took:?}");
    assert_eq!(d.hub().clients(), 4);
    // A page that reads gets the newest events.
    let (code, _) = request(port, "GET", "/api/snapshot", &[]);
    assert_eq!(code, 200, "the server still answers");
    // Stopping does not wait for the stuck clients to read.
    let t = Instant::now();
    d.stop(None);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "stop took {:?}",
        t.elapsed()
    );
    drop(stuck);
}

/// Opens the event stream and reads it to its end in a thread; returns
/// once the hub counts the page.
fn stream_to_end(d: &Dashboard) -> std::thread::JoinHandle<String> {
    let port = d.addr().port();
    let before = d.hub().clients();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let req = format!("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let t = Instant::now();
    while d.hub().clients() == before {
        assert!(t.elapsed() < Duration::from_secs(10), "no subscription");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    })
}

/// The stream's events in order: (name, data).
fn sse(text: &str) -> Vec<(String, String)> {
    let mut v = Vec::new();
    let (mut name, mut data) = (None, None);
    for l in text.lines() {
        if let Some(n) = l.strip_prefix("event: ") {
            name = Some(n.to_string());
        } else if let Some(d) = l.strip_prefix("data: ") {
            data = Some(d.to_string());
        }
        if let (Some(_), Some(_)) = (&name, &data) {
            v.push((name.take().unwrap(), data.take().unwrap()));
        }
    }
    v
}

#[test]
fn a_page_gets_the_links_first_and_the_runs_end_last() {
    let mut net = offline();
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, Options::default()).unwrap();
    let page = stream_to_end(&d);
    d.hub().publish("tick", "{\"i\":1}".into(), None);
    d.stop(Some(true));
    let ev = sse(&page.join().unwrap());
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["links", "tick", "end"], "{ev:?}");
    let links: serde_json::Value = serde_json::from_str(&ev[0].1).unwrap();
    assert_eq!(links, serde_json::to_value(net.links()).unwrap());
    assert_eq!(ev[1].1, r#"{"lagged":0,"i":1}"#);
    assert_eq!(ev[2].1, r#"{"ok":true}"#);
}

#[test]
fn a_dashboard_dropped_without_stop_ends_its_pages_and_closes_its_port() {
    let mut net = offline();
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    let page = stream_to_end(&d);
    drop(d);
    let ev = sse(&page.join().unwrap());
    assert_eq!(
        ev.last(),
        Some(&("end".to_string(), r#"{"ok":null}"#.to_string())),
        "{ev:?}"
    );
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn a_page_that_goes_away_is_no_longer_counted() {
    let mut net = offline();
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let req = format!("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let t = Instant::now();
    while d.hub().clients() < 1 {
        assert!(t.elapsed() < Duration::from_secs(10), "no subscription");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(s);
    // The server finds the page gone when it next writes to it.
    let t = Instant::now();
    while d.hub().clients() > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the page is still counted"
        );
        d.hub().publish("tick", "{}".into(), None);
        std::thread::sleep(Duration::from_millis(20));
    }
    d.stop(None);
}

#[test]
fn a_port_in_use_says_so_and_a_bare_port_is_loopback() {
    let first = bind("0").unwrap();
    assert!(first.addr().ip().is_loopback());
    let taken = first.addr().to_string();
    let e = bind(&taken).err().expect("the port is in use").to_string();
    // It names the address and says what to do.
    assert!(e.contains(&taken) && e.contains("give another"), "{e}");
    let e = bind("no-such-host-or-port").err().expect("not an address");
    assert!(matches!(e, lh_dash::DashError::BadAddr(_)), "{e}");
}

#[test]
fn the_schedule_route_serves_each_slice_of_the_cycle_and_no_other() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cfg = lh_ctrl::config::Config::load(&root.join("topologies/rotornet-8.json")).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let mut net = Network::offline(Plan::from_config(&c.config), "lh0d0e");
    let slices = c.schedule.slices();
    assert!(slices > 1);
    let want = |ts: u16| {
        serde_json::to_value(lh_emu::net::values::SliceView::on(
            &c.config,
            &c.schedule,
            ts,
        ))
        .unwrap()
    };
    let (first, last) = (want(0), want(slices as u16 - 1));
    net.compiled = Some(c);
    let d = Dashboard::start(bind("127.0.0.1:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    for (ts, want) in [(0, first), (slices - 1, last)] {
        let (code, body) = request(port, "GET", &format!("/api/schedule/{ts}"), &[]);
        assert_eq!(code, 200, "{ts}: {body}");
        let got: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(got, want, "{ts}");
    }
    for ts in [slices.to_string(), "-1".into(), "x".into()] {
        let (code, body) = request(port, "GET", &format!("/api/schedule/{ts}"), &[]);
        assert_eq!(code, 404, "{ts}: {body}");
        assert!(body.contains("BadSlice"), "{ts}: {body}");
    }
    d.stop(None);
}

/// The value of `name` in a response head.
fn header<'a>(head: &'a str, name: &str) -> &'a str {
    head.lines()
        .find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then_some(v.trim())
        })
        .unwrap_or("")
}

#[test]
fn every_module_the_page_imports_is_served_as_javascript_with_the_token() {
    let mut net = offline();
    let d = Dashboard::start(bind("0.0.0.0:0").unwrap(), &mut net, Options::default()).unwrap();
    let port = d.addr().port();
    let q = format!("?{}", d.url().split_once('?').unwrap().1);
    let (code, head, page) = response(port, "GET", &format!("/{q}"), &[]);
    assert_eq!(code, 200, "{page}");
    assert!(
        header(&head, "content-type").starts_with("text/html"),
        "{head}"
    );
    assert!(page.contains(r#"<script type="module""#), "{page}");
    assert!(page.contains(r#"import "./js/main.js""#), "{page}");
    // The modules the page maps to their URL with the token.
    let list = page
        .split_once("var modules = ")
        .and_then(|(_, r)| r.split_once(';'))
        .expect("the page's list of modules")
        .0;
    let listed: BTreeSet<String> = serde_json::from_str(list).unwrap();
    // Every module the entry reaches: served, as JavaScript (a browser
    // runs no module served as anything else), and listed.
    let mut reached = BTreeSet::new();
    let mut todo = vec!["main.js".to_string()];
    while let Some(m) = todo.pop() {
        if !reached.insert(m.clone()) {
            continue;
        }
        let (code, head, text) = response(port, "GET", &format!("/js/{m}{q}"), &[]);
        assert_eq!(code, 200, "/js/{m}: {text}");
        assert_eq!(
            header(&head, "content-type"),
            "text/javascript; charset=utf-8",
            "/js/{m}"
        );
        todo.extend(
            lh_dash::assets::imports(&text)
                .into_iter()
                .map(String::from),
        );
    }
    assert_eq!(reached, listed);
    assert!(reached.len() > 1, "{reached:?}");
    // No module without the token; a module the page lacks is a 404.
    assert_eq!(request(port, "GET", "/js/state.js", &[]).0, 401);
    let (code, body) = request(port, "GET", &format!("/js/nope.js{q}"), &[]);
    assert_eq!(code, 404, "{body}");
    d.stop(None);
}
