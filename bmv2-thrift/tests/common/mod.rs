//! Test fixtures: a throwaway namespace with two veth pairs, the compiled
//! test program, a running switch, and raw frames in and out.
#![allow(dead_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use bmv2_thrift::{Bmv2Switch, SwitchOpts, compile, run_in_netns};

/// Writes straight to stderr: the harness captures `eprintln!`, and a skip
/// must be visible even when the test passes.
pub fn skip(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP: {msg}");
}

/// Returns false (after printing `SKIP: <reason>`) when the test cannot run
/// here: no simple_switch/p4c on PATH, or not root (namespaces).
pub fn can_run(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip(&format!("{test}: needs root to create network namespaces"));
        return false;
    }
    // Skips visibly, or fails where the toolchain is required (CI).
    bmv2_thrift::require::p4_test(test, &[]).is_some()
}

pub fn p4_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4")
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A unique small number per test in this process (device ids, names).
pub fn seq() -> u32 {
    SEQ.fetch_add(1, Ordering::Relaxed)
}

/// A network namespace with veth pairs a0/a1 and b0/b1, all up, IPv6 off (so
/// the kernel sends nothing on its own). Switch ports: 1@a0, 2@b0; the test
/// sends into a1 and listens on b1. Deleted on drop.
pub struct TestNs {
    pub name: String,
    pub path: PathBuf,
}

impl TestNs {
    pub fn new() -> TestNs {
        let name = format!("bmv2t-{}-{}", std::process::id(), seq());
        ip(&["netns", "add", &name]);
        let ns = TestNs {
            path: PathBuf::from(format!("/run/netns/{name}")),
            name,
        };
        let out = Command::new("ip")
            .args(["netns", "exec", &ns.name, "sysctl", "-qw"])
            .args([
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1",
            ])
            .output()
            .expect("sysctl");
        assert!(
            out.status.success(),
            "sysctl: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (x, y) in [("a0", "a1"), ("b0", "b1")] {
            ip(&[
                "-n", &ns.name, "link", "add", x, "type", "veth", "peer", "name", y,
            ]);
            ip(&["-n", &ns.name, "link", "set", x, "up"]);
            ip(&["-n", &ns.name, "link", "set", y, "up"]);
        }
        ns
    }
}

impl Drop for TestNs {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// A temporary state directory under /tmp (short: the IPC path must fit a
/// unix socket name).
pub fn state_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wt-bmv2-")
        .tempdir_in("/tmp")
        .expect("tempdir")
}

/// Compiles tests/p4/basic.p4 into `dir`.
pub fn basic_json(dir: &Path) -> PathBuf {
    compile(&p4_dir().join("basic.p4"), dir, &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Everything one switch test needs; fields drop in order: switch first,
/// then the namespace, then the state directory.
pub struct Rig {
    pub switch: Bmv2Switch,
    pub ns: TestNs,
    pub dir: tempfile::TempDir,
}

pub fn rig(name: &str) -> Rig {
    let dir = state_dir();
    let ns = TestNs::new();
    let json = basic_json(dir.path());
    let mut opts = SwitchOpts::new(
        name,
        json,
        4000 + (std::process::id() % 1000) as u64 * 16 + seq() as u64,
        9090,
        dir.path(),
    );
    opts.interfaces = vec![(1, "a0".into()), (2, "b0".into())];
    opts.netns = Some(ns.path.clone());
    let switch = Bmv2Switch::spawn(opts).unwrap_or_else(|e| panic!("{e}"));
    Rig { switch, ns, dir }
}

/// An AF_PACKET socket bound to `ifname` inside `ns`.
pub fn raw_socket(ns: &Path, ifname: &str) -> OwnedFd {
    let ifname = ifname.to_string();
    run_in_netns(Some(ns), move || {
        let proto = (libc::ETH_P_ALL as u16).to_be();
        // SAFETY: plain socket(2); the fd is owned right below.
        let fd = unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                proto as i32,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh socket owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let c = std::ffi::CString::new(ifname).unwrap();
        // SAFETY: c is a valid NUL-terminated string.
        let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
        if idx == 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: sockaddr_ll is plain old data.
        let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sa.sll_family = libc::AF_PACKET as u16;
        sa.sll_protocol = proto;
        sa.sll_ifindex = idx as i32;
        // SAFETY: sa is a valid sockaddr_ll of the given size.
        let r = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                &sa as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 100_000,
        };
        // SAFETY: tv is a valid timeval for SO_RCVTIMEO.
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                &tv as *const libc::timeval as *const libc::c_void,
                std::mem::size_of::<libc::timeval>() as u32,
            )
        };
        Ok(fd)
    })
    .expect("raw socket in namespace")
}

pub fn send(fd: &OwnedFd, frame: &[u8]) {
    // SAFETY: frame is a valid buffer of frame.len() bytes.
    let n = unsafe {
        libc::send(
            fd.as_raw_fd(),
            frame.as_ptr() as *const libc::c_void,
            frame.len(),
            0,
        )
    };
    assert_eq!(
        n,
        frame.len() as isize,
        "send: {}",
        std::io::Error::last_os_error()
    );
}

/// Frames received on `fd` within `wait` whose source MAC is `src`.
pub fn recv_from(fd: &OwnedFd, src: [u8; 6], want: usize, wait: Duration) -> Vec<Vec<u8>> {
    let deadline = Instant::now() + wait;
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while got.len() < want && Instant::now() < deadline {
        // SAFETY: buf is a valid writable buffer of buf.len() bytes.
        let n = unsafe {
            libc::recv(
                fd.as_raw_fd(),
                buf.as_mut_ptr() as *mut libc::c_void,
                buf.len(),
                0,
            )
        };
        if n >= 14 && buf[6..12] == src {
            got.push(buf[..n as usize].to_vec());
        }
    }
    got
}

/// A `len`-byte Ethernet frame.
pub fn frame(dst: [u8; 6], src: [u8; 6], ether_type: u16, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[..6].copy_from_slice(&dst);
    f[6..12].copy_from_slice(&src);
    f[12..14].copy_from_slice(&ether_type.to_be_bytes());
    f
}
