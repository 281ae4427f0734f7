//! A tiny real setup for data-plane tests: one fabric namespace holding the
//! ToR-side veth ends and one namespace per host, built with iproute2 and
//! always deleted on drop.

#![allow(dead_code)]

use lh_ctrl::TorId;
use lh_ctrl::units::{BitsPerSec, Nanos};
use std::net::{Ipv4Addr, UdpSocket};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use swtor::{HostAttach, SliceClock, Timing, monotonic_ns, testing};

static SEQ: AtomicU32 = AtomicU32::new(0);

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

static SERIAL: Mutex<()> = Mutex::new(());

/// Prints straight to stderr: the test harness captures `eprintln!`, and a
/// skip must be visible even when the test passes.
pub fn skip(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {msg}");
}

/// Returns a guard that serialises the tests of this binary (each runs a
/// busy-polling data-plane thread, and timing checks need a free core), or
/// None (after printing why) when the test cannot run here.
pub fn can_run(test: &str) -> Option<MutexGuard<'static, ()>> {
    if !is_root() {
        skip(&format!(
            "{test}: needs root (network namespaces, AF_PACKET)"
        ));
        return None;
    }
    if Command::new("ip").arg("-V").output().is_err() {
        skip(&format!("{test}: iproute2 `ip` not found"));
        return None;
    }
    Some(SERIAL.lock().unwrap_or_else(|e| e.into_inner()))
}

pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

pub fn run(args: &[&str]) {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .expect("spawn");
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A host's namespace and its attachment ([`testing::hosts_on`]).
pub struct TestHost {
    pub ns: String,
    pub ip: Ipv4Addr,
    pub mac: [u8; 6],
    pub attach: HostAttach,
}

pub struct Net {
    pub fabric: String,
    pub hosts: Vec<TestHost>,
}

impl Net {
    /// One host per entry of `tors` (its ToR), h1 = 10.0.0.1 and so on,
    /// MACs and ToR-side names as [`testing::hosts_on`] gives them.
    pub fn new(tors: &[TorId]) -> Net {
        let prefix = format!(
            "swt{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let fabric = format!("{prefix}-f");
        let mut net = Net {
            fabric: fabric.clone(),
            hosts: Vec::new(),
        };
        run(&["ip", "netns", "add", &fabric]);
        run(&["ip", "-n", &fabric, "link", "set", "lo", "up"]);
        for (k, attach) in testing::hosts_on(tors).into_iter().enumerate() {
            let n = k + 1;
            let ns = format!("{prefix}-h{n}");
            run(&["ip", "netns", "add", &ns]);
            let (ip, m) = (attach.ip, attach.mac);
            net.hosts.push(TestHost {
                ns: ns.clone(),
                ip,
                mac: m,
                attach,
            });
            for key in ["all", "default"] {
                run(&[
                    "ip",
                    "netns",
                    "exec",
                    &ns,
                    "sysctl",
                    "-qw",
                    &format!("net.ipv6.conf.{key}.disable_ipv6=1"),
                ]);
            }
            let tor_if = net.hosts[k].attach.ifname.clone();
            run(&[
                "ip", "-n", &ns, "link", "add", "eth0", "type", "veth", "peer", "name", &tor_if,
                "netns", &fabric,
            ]);
            let mac = format!(
                "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                m[0], m[1], m[2], m[3], m[4], m[5]
            );
            run(&["ip", "-n", &ns, "link", "set", "eth0", "address", &mac]);
            run(&[
                "ip",
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{ip}/8"),
                "dev",
                "eth0",
            ]);
            run(&["ip", "-n", &ns, "link", "set", "eth0", "up"]);
            run(&["ip", "-n", &ns, "link", "set", "lo", "up"]);
            run(&["ip", "-n", &fabric, "link", "set", &tor_if, "up"]);
        }
        net
    }

    pub fn fabric_path(&self) -> PathBuf {
        PathBuf::from(format!("/run/netns/{}", self.fabric))
    }
    pub fn host_path(&self, h: usize) -> PathBuf {
        PathBuf::from(format!("/run/netns/{}", self.hosts[h].ns))
    }

    pub fn attach(&self) -> Vec<HostAttach> {
        self.hosts.iter().map(|h| h.attach.clone()).collect()
    }

    /// Turns TX checksum offload (and so TSO) off on host `h`'s interface,
    /// as a user-space forwarder requires for TCP. False if ethtool is absent.
    pub fn tx_off(&self, h: usize) -> bool {
        if !have("ethtool") {
            return false;
        }
        run(&[
            "ip",
            "netns",
            "exec",
            &self.hosts[h].ns,
            "ethtool",
            "-K",
            "eth0",
            "tx",
            "off",
        ]);
        true
    }

    /// `ip neigh` of host `h`.
    pub fn neigh(&self, h: usize) -> String {
        let o = Command::new("ip")
            .args(["-n", &self.hosts[h].ns, "neigh", "show"])
            .output()
            .expect("ip neigh");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for h in &self.hosts {
            let _ = Command::new("ip").args(["netns", "del", &h.ns]).status();
        }
        let _ = Command::new("ip")
            .args(["netns", "del", &self.fabric])
            .status();
    }
}

/// Runs `f` on a thread inside the namespace at `ns` and returns its result.
pub fn in_ns<T: Send>(ns: PathBuf, f: impl FnOnce() -> T + Send) -> T {
    lh_netns::run_in(Some(&ns), f).expect("in the namespace")
}

/// A UDP socket bound inside host namespace `ns` (the socket stays there).
pub fn udp_in(ns: PathBuf, ip: Ipv4Addr, port: u16) -> UdpSocket {
    in_ns(ns, move || UdpSocket::bind((ip, port)).expect("bind"))
}

/// Receives datagrams until `quiet` passes without one; returns
/// (CLOCK_MONOTONIC receive time, payload) per datagram. The time is the
/// kernel's receive stamp, so it does not depend on when this thread runs.
pub fn collect(sock: &UdpSocket, quiet: Duration) -> Vec<(u64, Vec<u8>)> {
    swtor::timestamp::enable(sock).unwrap();
    sock.set_read_timeout(Some(quiet)).unwrap();
    let off = swtor::timestamp::realtime_minus_monotonic();
    let mut out = Vec::new();
    let mut buf = [0u8; 2048];
    while let Ok((n, ts)) = swtor::timestamp::recv(sock, &mut buf) {
        let t = ts.map_or_else(monotonic_ns, |t| (t as i64 - off) as u64);
        out.push((t, buf[..n].to_vec()));
    }
    out
}

/// Waits (sleep, then spin) until the OCS clock is in `slice`, at least
/// `after` ns into it and with at least `room` ns of the slice left.
pub fn wait_phase(c: &SliceClock, slice: u16, after: u64, room: u64) {
    loop {
        let t = monotonic_ns();
        let (s, _) = c.slice_of(t);
        let into = t - c.slot_start(t);
        if s == slice && into >= after && c.slice - into >= room {
            return;
        }
        if c.slice > 200_000 {
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}

/// [`testing::timing`] in us for real veths: 1 us propagation, 10 Gb/s
/// host links.
pub fn timing(slice_us: u64, guard_us: u64, rate: u64) -> Timing {
    let mut t = testing::timing(slice_us * 1000, guard_us * 1000, rate);
    t.model.propagation = Nanos(1000);
    t.model.host_rate = BitsPerSec(10_000_000_000);
    t
}
