//! Forwarding throughput: raw frames from h1 to h2 through two native ToRs
//! with an always-up circuit (1 static slice), against a Linux bridge
//! between the same kind of namespaces, plus the engine alone (no sockets).
//!
//!     cargo run --release -p swtor --example bench_forward -- [seconds] [frame bytes...]
//!
//! With `SWTOR_BENCH_ENGINE_ONLY=1` only the engine-alone mode runs (no
//! root, no namespaces; prints frame bytes and kpps), for A/B comparisons
//! of engine changes.
//!
//! Needs root. Counts frames arriving at h2's veth (kernel rx_packets), so
//! the receiver costs no CPU; the sender blasts with AF_PACKET sendmmsg.

use lh_ctrl::config::Lookup;
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::units::BitsPerSec;
use std::io;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};
use swtor::afpacket::{RawSocket, RxFrame, SocketOptions};
use swtor::engine::{Engine, EngineOptions, Port};
use swtor::pool::FramePool;
use swtor::testing::{entry, hop, hosts_on, tables, timing, udp};
use swtor::{FabricSpec, SliceClock, monotonic_ns};

fn sh(args: &[&str]) {
    let o = Command::new(args[0])
        .args(&args[1..])
        .output()
        .expect("spawn");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

struct Setup {
    names: Vec<String>,
}
impl Drop for Setup {
    fn drop(&mut self) {
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

/// fabric ns + h1, h2; veths h{n}:eth0 <-> fabric:s{n}-eth1.
fn setup(tag: &str) -> Setup {
    let p = format!("swb{}-{tag}", std::process::id());
    let f = format!("{p}-f");
    let mut s = Setup { names: vec![] };
    sh(&["ip", "netns", "add", &f]);
    s.names.push(f.clone());
    for n in 1..=2 {
        let h = format!("{p}-h{n}");
        sh(&["ip", "netns", "add", &h]);
        s.names.push(h.clone());
        sh(&[
            "ip",
            "netns",
            "exec",
            &h,
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
        ]);
        sh(&[
            "ip",
            "netns",
            "exec",
            &h,
            "sysctl",
            "-qw",
            "net.ipv6.conf.default.disable_ipv6=1",
        ]);
        let tif = format!("s{n}-eth1");
        sh(&[
            "ip", "-n", &h, "link", "add", "eth0", "type", "veth", "peer", "name", &tif, "netns",
            &f,
        ]);
        sh(&[
            "ip",
            "-n",
            &h,
            "link",
            "set",
            "eth0",
            "address",
            &format!("02:00:00:00:00:0{n}"),
        ]);
        sh(&[
            "ip",
            "-n",
            &h,
            "addr",
            "add",
            &format!("10.0.0.{n}/8"),
            "dev",
            "eth0",
        ]);
        sh(&["ip", "-n", &h, "link", "set", "eth0", "up"]);
        sh(&["ip", "-n", &f, "link", "set", &tif, "up"]);
    }
    s
}

fn ns_path(n: &str) -> PathBuf {
    PathBuf::from(format!("/run/netns/{n}"))
}

fn rx_packets(ns: &str) -> u64 {
    let o = Command::new("ip")
        .args(["-n", ns, "-s", "-j", "link", "show", "eth0"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v[0]["stats64"]["rx"]["packets"].as_u64().unwrap()
}

/// IPv4/UDP frame h1 -> h2 of `len` bytes (at least 60; its IPv4 header
/// checksum is valid, so h2's kernel takes it).
fn frame(len: usize) -> Vec<u8> {
    udp(1, 2, 1234, len.max(60))
}

/// Blasts `len`-byte frames from h1 for `secs`; returns (sent, received at h2).
fn blast(s: &Setup, len: usize, secs: f64) -> (u64, u64) {
    let h1 = ns_path(&s.names[1]);
    let h2 = s.names[2].clone();
    let before = rx_packets(&h2);
    let sent = lh_netns::try_run_in(Some(&h1), move || {
        // Same weight as the data-plane thread, so parallel jobs on the
        // machine do not decide the result (applies to both fabrics).
        swtor::sched::set_thread_nice(swtor::DATAPLANE_NICE);
        let ix = swtor::afpacket::if_nametoindex("eth0")?;
        let mut sock = RawSocket::open(SocketOptions {
            ifindex: Some(ix),
            ..SocketOptions::default()
        })?;
        let mut pool = FramePool::new(64);
        let f = frame(len);
        let batch: Vec<(u32, i32)> = (0..64)
            .map(|_| (pool.alloc_from(&f).unwrap(), ix))
            .collect();
        let t0 = Instant::now();
        let mut n = 0u64;
        while t0.elapsed().as_secs_f64() < secs {
            n += sock.send_batch(&pool, &batch)? as u64;
        }
        Ok::<u64, io::Error>(n)
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    (sent, rx_packets(&h2) - before)
}

/// Two ToRs joined by an always-up circuit (one static slice), 100 Gb/s,
/// h1 on ToR 0 and h2 on ToR 1 (`s1-eth1`, `s2-eth1`).
fn spec() -> FabricSpec {
    let mut sch = Schedule::new(2, 1, 1);
    sch.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
        .unwrap();
    let to = |dst| vec![entry(dst, None, hop(0, None), vec![])];
    let t = tables(1, Lookup::Hop, vec![(0, to(1)), (1, to(0))]);
    let mut tm = timing(100_000, 0, 100_000_000_000);
    tm.model.host_rate = BitsPerSec(100_000_000_000);
    tm.model.queue_capacity = 16 << 20;
    swtor::testing::spec(sch, t, tm, hosts_on(&[0, 1]))
}

/// A port that offers the same frame forever and discards what is sent:
/// the engine's own per-frame cost without any syscall.
struct MemPort {
    frame: Vec<u8>,
    sent: u64,
}
impl Port for MemPort {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        let mut n = 0;
        while n < 32 {
            let Some(i) = pool.alloc_from(&self.frame) else {
                break;
            };
            pool.meta_mut(i).t = now;
            out.push(RxFrame {
                idx: i,
                ifindex: 1,
                truncated: false,
                csum_not_ready: false,
            });
            n += 1;
        }
        Ok(n)
    }
    fn send_batch(&mut self, _pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        self.sent += frames.len() as u64;
        Ok(frames.len())
    }
}

fn engine_only(len: usize, secs: f64) -> f64 {
    let sp = spec();
    let clock = SliceClock::aligned(monotonic_ns(), sp.timing.model.slice.0, 1);
    let port = MemPort {
        frame: frame(len),
        sent: 0,
    };
    let mut e = Engine::new(
        &sp,
        &[1, 2],
        port,
        clock,
        EngineOptions {
            pool_frames: 4096,
            host_queue_bytes: 64 << 20,
            epoch: None,
            ..Default::default()
        },
    )
    .unwrap();
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < secs {
        e.poll(monotonic_ns()).unwrap();
    }
    e.port_mut().sent as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    if std::env::var_os("SWTOR_BENCH_ENGINE_ONLY").is_some() {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let secs: f64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(2.0);
        for len in args.iter().skip(1).filter_map(|s| s.parse::<usize>().ok()) {
            println!("{len:>11}  {:>16.0}", engine_only(len, secs) / 1e3);
        }
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("bench_forward needs root (network namespaces, AF_PACKET)");
        std::process::exit(2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs: f64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let sizes: Vec<usize> = if args.len() > 1 {
        args[1..].iter().filter_map(|s| s.parse().ok()).collect()
    } else {
        vec![64, 1514]
    };
    println!(
        "frame_bytes  swtor_kpps  bridge_kpps  ratio  offered_swtor_kpps  offered_bridge_kpps  engine_only_kpps  swtor_busy_capacity_kpps  max_poll_gap_us  port_drops  load1"
    );
    for &len in &sizes {
        // swtor
        let s = setup("s");
        let fab = swtor::start(spec(), Some(&ns_path(&s.names[0]))).unwrap();
        let (sent_s, got_s) = blast(&s, len, secs);
        let c = fab.stop();
        assert!(c.conservation_holds(), "{c}");
        drop(s);
        // Linux bridge
        let b = setup("b");
        let f = &b.names[0];
        sh(&["ip", "-n", f, "link", "add", "br0", "type", "bridge"]);
        sh(&["ip", "-n", f, "link", "set", "s1-eth1", "master", "br0"]);
        sh(&["ip", "-n", f, "link", "set", "s2-eth1", "master", "br0"]);
        sh(&["ip", "-n", f, "link", "set", "br0", "up"]);
        let (sent_b, got_b) = blast(&b, len, secs);
        drop(b);
        let eng = engine_only(len, secs.min(2.0));
        let (ks, kb) = (got_s as f64 / secs / 1e3, got_b as f64 / secs / 1e3);
        println!(
            "{len:>11}  {ks:>10.0}  {kb:>11.0}  {:>5.2}  {:>18.0}  {:>19.0}  {:>16.0}  {:>24.0}  {:>15}  {:>10}  {}",
            ks / kb,
            sent_s as f64 / secs / 1e3,
            sent_b as f64 / secs / 1e3,
            eng / 1e3,
            c.delivered as f64 / (c.busy_ns.max(1) as f64 / 1e9) / 1e3,
            c.max_poll_gap_ns / 1000,
            c.port_drops,
            std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|l| l.split_whitespace().next().map(str::to_string))
                .unwrap_or_default()
        );
    }
}
