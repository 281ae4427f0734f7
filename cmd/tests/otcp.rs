//! OTCP through the `lighthouse` binary on real namespaces and kernel TCP:
//! the controller's per-route parameters reach every host as /32 route
//! metrics, and a live connection's socket carries them (docs/otcp.md).
//! Each test uses its own run prefix and checks nothing of it is left.

mod common;

use common::*;
use lh_ctrl::otcp::OtcpTable;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

/// rotornet-8.json with `hosts.tcp.otcp` = `otcp`, written into `dir`;
/// also the table the controller computes for it.
fn rotornet_otcp(dir: &Path, otcp: serde_json::Value) -> (PathBuf, OtcpTable) {
    let topo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(topo).unwrap()).unwrap();
    v["hosts"] = serde_json::json!({"tcp": {"otcp": otcp}});
    let p = dir.join("config.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let cfg = lh_ctrl::config::Config::load(&p).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    (p, lh_ctrl::otcp::table(&c).expect("otcp on"))
}

fn new_prefix() -> String {
    format!("lh{:04x}", rand::random::<u16>())
}

/// Nothing of run `prefix` is left (namespaces, state directory).
fn assert_gone(prefix: &str, log: &str) {
    let left: Vec<String> = lh_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect();
    assert!(left.is_empty(), "run {prefix} left {left:?}\n{log}");
    assert!(
        !Path::new("/run/lighthouse").join(prefix).exists(),
        "run {prefix} left its state directory"
    );
}

/// `lighthouse run CFG --script S --prefix P`: exit code and stderr.
fn run_script(cfg: &Path, script: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.lh");
    std::fs::write(&s, script).unwrap();
    let prefix = new_prefix();
    let out = Command::new(BIN)
        .arg("run")
        .arg(cfg)
        .arg("--script")
        .arg(&s)
        .args(["--prefix", &prefix])
        .output()
        .expect("run lighthouse");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_gone(&prefix, &err);
    (out.status.code(), err)
}

/// The line `ip route show` prints for an OTCP route to host `dst` (1-based)
/// from host `src`, from the controller's numbers.
/// The receive side (initrwnd) comes from the route back.
fn expected_route(t: &OtcpTable, src: usize, dst: usize) -> String {
    let out = t.for_hosts(src - 1, dst - 1).1;
    let back = t.for_hosts(dst - 1, src - 1).1;
    format!(
        "10.0.0.{dst} dev h{src}-eth0 proto static scope link cwnd lock {} initcwnd {} rto_min lock {}ms initrwnd {} ",
        out.cwnd_max, out.iw, out.rto_min_ms, back.initrwnd
    )
}

#[test]
fn hosts_get_one_route_per_destination_with_the_controllers_metrics() {
    if skip_unless_root("hosts_get_one_route_per_destination_with_the_controllers_metrics") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, t) = rotornet_otcp(dir.path(), serde_json::json!({"fan_in": 8}));
    let script = "h1 ip route show\nh6 ip route show\nh6 sysctl net.ipv4.tcp_rto_max_ms\notcp\n";
    let (code, err) = run_script(&cfg, script);
    assert_eq!(code, Some(0), "{err}");
    for src in [1, 6] {
        for dst in (1..=16).filter(|&d| d != src) {
            let want = expected_route(&t, src, dst);
            assert!(
                err.contains(&format!("{want}\n")),
                "missing {want:?} in\n{err}"
            );
        }
        // The /8 the address made is still there, without metrics.
        assert!(
            err.contains(&format!(
                "10.0.0.0/8 dev h{src}-eth0 proto kernel scope link src 10.0.0.{src} \n"
            )),
            "{err}"
        );
    }
    // Same-ToR and cross-ToR routes differ (no fabric hop vs a circuit
    // wait), so the check above compares two different parameter sets.
    assert_ne!(t.for_hosts(0, 1).1, t.for_hosts(0, 2).1);
    assert!(err.contains("net.ipv4.tcp_rto_max_ms = 1000\n"), "{err}");
    assert!(err.contains("socket rto_max 1000 ms"), "{err}");
}

/// Polls `f` until it returns Some or `limit` passes.
fn poll<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if let Some(v) = f() {
            return Some(v);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[test]
fn a_live_connection_carries_the_route_and_socket_parameters() {
    if skip_unless_root("a_live_connection_carries_the_route_and_socket_parameters") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, t) = rotornet_otcp(dir.path(), serde_json::json!({"fan_in": 8}));
    let stop = dir.path().join("stop");
    // The run stays up until the test is done with it (at most 90 s).
    let script = format!(
        "sh timeout 90 sh -c 'while [ ! -e {} ]; do sleep 0.1; done'\n",
        stop.display()
    );
    let s = dir.path().join("s.lh");
    std::fs::write(&s, script).unwrap();
    let prefix = new_prefix();
    let child = Command::new(BIN)
        .arg("run")
        .arg(&cfg)
        .arg("--script")
        .arg(&s)
        .args(["--prefix", &prefix])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start lighthouse");
    let ns = |h: &str| lh_emu::netns::ns_path(&format!("{prefix}-{h}"));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let h3 = ns("h3");
        let h2 = ns("h2");
        let h1 = ns("h1");
        // Listeners in h3 (another ToR) and h2 (the same ToR as h1).
        let listen = |p: &Path, ip: Ipv4Addr| {
            poll(Duration::from_secs(30), || {
                lh_emu::netns::run_in(Some(p), || TcpListener::bind((ip, 5001)).ok())
                    .ok()
                    .flatten()
            })
            .expect("listener in the host namespace")
        };
        let l3 = listen(&h3, Ipv4Addr::new(10, 0, 0, 3));
        let l2 = listen(&h2, Ipv4Addr::new(10, 0, 0, 2));
        let sinks: Vec<_> = [l3, l2]
            .into_iter()
            .map(|l| {
                std::thread::spawn(move || {
                    let (mut c, _) = l.accept().unwrap();
                    let mut buf = vec![0u8; 64 << 10];
                    let mut n = 0u64;
                    while let Ok(k) = c.read(&mut buf) {
                        if k == 0 {
                            break;
                        }
                        n += k as u64;
                    }
                    n
                })
            })
            .collect();
        let connect = |ip: Ipv4Addr| -> TcpStream {
            let addr = SocketAddr::from((ip, 5001));
            poll(Duration::from_secs(30), || {
                lh_emu::netns::run_in(Some(&h1), || {
                    TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()
                })
                .ok()
                .flatten()
            })
            .expect("connect through the fabric")
        };
        // Wait until the fabric carries h1's SYNs (h4 has no listener: a
        // refusal is the answer), so that the measured connections' SYNs
        // are not retransmitted (which sets the RTO to 3 s, RFC 6298 5.7).
        let h4 = SocketAddr::from((Ipv4Addr::new(10, 0, 0, 4), 5001));
        poll(Duration::from_secs(30), || {
            let r = lh_emu::netns::run_in(Some(&h1), || {
                TcpStream::connect_timeout(&h4, Duration::from_millis(500))
            })
            .ok()?;
            matches!(r, Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused).then_some(())
        })
        .expect("the fabric carries h1 -> h4");
        // h1 -> h3: the cross-ToR route.
        let mut c3 = connect(Ipv4Addr::new(10, 0, 0, 3));
        let p3 = *t.for_hosts(0, 2).1;
        let ti = lh_emu::host::tcpinfo::read(&c3).unwrap();
        assert_eq!(
            ti.snd_cwnd, p3.iw,
            "initcwnd is OTCP's IW, not the kernel's 10"
        );
        // rto_min (2 ms) rounded up to the 4 ms tick of HZ=250, plus the
        // RTT: far below the kernel's 200 ms floor.
        let tick_us = 1_000_000 / 250;
        let floor = (p3.rto_min_ms * 1000).div_ceil(tick_us) * tick_us;
        assert!(
            ti.rto_us >= floor && ti.rto_us < 50_000,
            "rto {} us with rto_min {} ms",
            ti.rto_us,
            p3.rto_min_ms
        );
        assert_eq!(
            lh_emu::host::tcpinfo::rto_max_ms(&c3).unwrap(),
            t.socket_rto_max_ms,
            "TCP_RTO_MAX_MS of a live socket (kernel default 120000)"
        );
        // Bulk data over the first connection to h3: the kernel reads a
        // locked cwnd from its TCP metrics cache, which has no entry for
        // h3 yet, so this window is not clamped (docs/otcp.md).
        let block = vec![7u8; 64 << 10];
        for _ in 0..48 {
            c3.write_all(&block).unwrap();
        }
        // h1 -> h2: the same-ToR route has its own, smaller, IW.
        let c2 = connect(Ipv4Addr::new(10, 0, 0, 2));
        let p2 = *t.for_hosts(0, 1).1;
        assert_eq!(lh_emu::host::tcpinfo::read(&c2).unwrap().snd_cwnd, p2.iw);
        drop(c3);
        drop(c2);
        let got: Vec<u64> = sinks.into_iter().map(|j| j.join().unwrap()).collect();
        assert_eq!(got[0], 48 * (64 << 10));
        // The locked cwnd reaches a socket through the kernel's TCP
        // metrics cache, which a closed connection fills: the second
        // connection to h3 never grows its window past CWNDmax.
        let l3 = listen(&h3, Ipv4Addr::new(10, 0, 0, 3));
        let sink = std::thread::spawn(move || {
            let (mut c, _) = l3.accept().unwrap();
            std::io::copy(&mut c, &mut std::io::sink()).unwrap()
        });
        let mut c3 = connect(Ipv4Addr::new(10, 0, 0, 3));
        let mut max_cwnd = 0;
        for _ in 0..48 {
            c3.write_all(&block).unwrap();
            max_cwnd = max_cwnd.max(lh_emu::host::tcpinfo::read(&c3).unwrap().snd_cwnd);
        }
        drop(c3);
        assert_eq!(sink.join().unwrap(), 48 * (64 << 10));
        assert!(
            max_cwnd <= p3.cwnd_max && max_cwnd > p3.iw,
            "cwnd peaked at {max_cwnd}, clamp {}",
            p3.cwnd_max
        );
    }));
    std::fs::write(&stop, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_gone(&prefix, &err);
    if let Err(e) = result {
        eprintln!("{err}");
        std::panic::resume_unwind(e);
    }
    assert!(out.status.success(), "{err}");
}

#[test]
fn bad_otcp_configs_are_refused_before_anything_exists() {
    if skip_unless_root("bad_otcp_configs_are_refused_before_anything_exists") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (otcp, path, msg) in [
        (
            serde_json::json!({"fan_in": 0}),
            "$.hosts.tcp.otcp.fan_in",
            "got 0",
        ),
        (
            serde_json::json!({"fan_in": 4, "socket_rto_max": "500ms"}),
            "$.hosts.tcp.otcp.socket_rto_max",
            "below the kernel's minimum 1000ms",
        ),
    ] {
        let topo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(topo).unwrap()).unwrap();
        v["hosts"] = serde_json::json!({"tcp": {"otcp": otcp}});
        let p = dir.path().join("bad.json");
        std::fs::write(&p, v.to_string()).unwrap();
        let (code, err) = run_script(&p, "nodes\n");
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(path) && err.contains(msg), "{err}");
        assert!(!err.contains("*** Run lh"), "{err}");
    }
}
