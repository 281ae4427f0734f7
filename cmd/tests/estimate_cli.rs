//! The resource estimate through the binary: a config too large for the
//! memory limit is refused before compiling, quickly and without
//! allocating, with an error that names the fields driving the size.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

/// A round-robin config with `n` ToRs and `u` uplinks.
fn round_robin(n: u32, u: u32, alg: &str) -> String {
    format!(
        r#"{{"mode": "TO",
  "tors": {{"count": {n}, "uplinks": {u}, "link_rate": "10Gbps", "hosts_per_tor": 1, "host_link_rate": "10Gbps"}},
  "ocs": {{"count": {u}, "ports": {n}, "reconfiguration_delay": "1us", "cabling": "auto"}},
  "slice": {{"duration": "100us", "guardband": "1us"}},
  "topology": {{"kind": "round_robin"}},
  "routing": {{"algorithm": "{alg}"}}}}"#
    )
}

struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    stdout: String,
    max_rss_kb: i64,
    wall: Duration,
}

/// Run the binary and measure its own peak RSS (`wait4` on its pid, so
/// other tests' children do not count). `wait4` reaps the child.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&str]) -> Outcome {
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let rd = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut so, &mut s).unwrap();
        s
    });
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut se, &mut stderr).unwrap();
    let stdout = rd.join().unwrap();
    let mut status = 0;
    // SAFETY: plain syscall on our own child; rusage is written by the kernel.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert_eq!(r, child.id() as i32);
    let st = std::process::ExitStatus::from_raw(status);
    Outcome {
        code: st.code(),
        signal: st.signal(),
        stderr,
        stdout,
        max_rss_kb: ru.ru_maxrss,
        wall: t0.elapsed(),
    }
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn assert_refused(o: &Outcome, what: &str) {
    assert_eq!(o.signal, None, "{what}: killed by a signal: {}", o.stderr);
    assert_eq!(o.code, Some(2), "{what}: {}", o.stderr);
    let e = &o.stderr;
    assert!(e.contains("configuration too large"), "{what}: {e}");
    for field in ["tors.count", "tors.uplinks", "routing.algorithm"] {
        assert!(e.contains(field), "{what}: {field} not named: {e}");
    }
    assert!(e.contains(" paths"), "{what}: {e}");
    assert_eq!(
        e.trim_end().lines().count(),
        1,
        "{what}: one statement: {e}"
    );
    assert!(o.wall < Duration::from_secs(1), "{what}: took {:?}", o.wall);
    assert!(
        o.max_rss_kb < 100 * 1024,
        "{what}: peak RSS {} KiB",
        o.max_rss_kb
    );
    assert!(o.stdout.is_empty(), "{what}: {}", o.stdout);
}

#[test]
fn thousand_tor_round_robin_is_refused_by_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "rr1000.json", &round_robin(1000, 1, "direct"));
    let o = run_measured(&["compile", &cfg]);
    assert_refused(&o, "compile rr-1000");
    assert!(o.stderr.contains("1000 x 999 x 999 x 1"), "{}", o.stderr);
    assert!(o.stderr.contains("memory available"), "{}", o.stderr);
    // `show` goes through the same check.
    let o = run_measured(&["show", &cfg, "--tor", "0"]);
    assert_refused(&o, "show rr-1000");
}

#[test]
fn two_thousand_tor_hoho_is_refused_by_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "hoho2000.json", &round_robin(2000, 1, "hoho"));
    let o = run_measured(&[
        "compile",
        &cfg,
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_refused(&o, "compile hoho-2000");
    assert!(o.stderr.contains("routing.algorithm hoho"), "{}", o.stderr);
    assert!(!dir.path().join("o").exists(), "nothing written");
    // `run` refuses before anything exists, as any user.
    let o = run_measured(&["run", &cfg, "--test", "none"]);
    assert_refused(&o, "run hoho-2000");
}

#[test]
fn max_memory_overrides_the_limit_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    // 24 ToRs: small enough for any machine, too large for 1 MiB.
    let cfg = write(dir.path(), "rr24.json", &round_robin(24, 1, "direct"));
    let o = run_measured(&["compile", &cfg, "--max-memory", "1MiB"]);
    assert_refused(&o, "rr-24 under 1MiB");
    assert!(o.stderr.contains("--max-memory"), "{}", o.stderr);
    assert!(o.stderr.contains("24 x 23 x 23 x 1"), "{}", o.stderr);
    let o = run_measured(&["compile", &cfg, "--max-memory", "2GiB"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout.contains("estimate      12,696 paths"),
        "{}",
        o.stdout
    );
    let o = run_measured(&["compile", &cfg, "--max-memory", "lots"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("not a size"), "{}", o.stderr);
}
