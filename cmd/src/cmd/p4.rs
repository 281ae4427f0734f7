//! `lighthouse p4 check [--p4 FILE] [CONFIG]`: the one-command smoke test
//! for a change to the P4 program. Compiles it with warnings as failures,
//! runs the conformance suite on the native ToR and on BMv2, then pingall
//! on a mixed fabric (one BMv2 ToR beside native ones), and prints a
//! pass/fail report; the exit code matches.
//!
//! The check is a run like `lighthouse run`'s: it claims a prefix
//! (`lhXXXX`, state in /run/lighthouse/<prefix>/), its BMv2 switches run in
//! `<prefix>-sw` with the test ends in `<prefix>-t`, so `lighthouse clean`
//! finds whatever a killed check left. On Ctrl-C or SIGTERM it stops at the
//! next case (or forwards the signal to the pingall's `lighthouse run` and
//! waits for it), removes its run and exits 130.

use crate::say;
use lh_conformance::bmv2::{Bmv2RunError, Bmv2Target};
use lh_conformance::case::matches;
use lh_emu::kernel::{signals, state};
use lh_emu::run::clean;
use lh_emu::tor::bmv2::{self, P4Source};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub struct CheckArgs {
    pub p4: Option<PathBuf>,
    /// Config for the mixed-fabric pingall.
    pub config: Option<PathBuf>,
    /// The ToR put on BMv2 in the mixed fabric.
    pub tor: String,
    /// Stop at the first failing step (and, inside a conformance step, at
    /// the first case that differs); the later steps are reported as not run.
    pub fail_fast: bool,
}

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckResult {
    Passed,
    Failed,
    /// Ctrl-C or SIGTERM: stopped early, the run removed (exit 130).
    Interrupted,
}

/// Held by whoever tears the check's run down (the main thread at the end,
/// or the signal watcher), so it happens once.
static TEARDOWN: Mutex<()> = Mutex::new(());
static DONE: AtomicBool = AtomicBool::new(false);
/// The pid of the pingall's `lighthouse run` while it runs (the main thread
/// forwards a terminating signal to it and waits for its own teardown).
static CHILD: AtomicU32 = AtomicU32::new(0);

/// The repository's default fabric for the mixed pingall.
pub fn default_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8-1ms.json")
}

struct Report {
    rows: Vec<(String, bool, String)>,
}

impl Report {
    fn failed(&self) -> bool {
        self.rows.iter().any(|r| !r.1)
    }

    fn step(&mut self, name: &str, ok: bool, detail: String) {
        say!(
            "[{}] {name}: {}",
            if ok { "PASS" } else { "FAIL" },
            detail.lines().next().unwrap_or("")
        );
        for l in detail.lines().skip(1) {
            say!("       {l}");
        }
        let _ = std::io::stderr().flush();
        self.rows.push((name.into(), ok, detail));
    }
}

/// Runs the check. Errors are set-up problems (no toolchain, not root,
/// unreadable files).
pub fn check(a: &CheckArgs) -> anyhow::Result<CheckResult> {
    bmv2_thrift::toolchain()?;
    let src = match &a.p4 {
        Some(f) if !f.is_file() => anyhow::bail!("--p4 {}: no such file", f.display()),
        Some(f) => P4Source::File(f.clone()),
        None => P4Source::Shipped,
    };
    let config = a.config.clone().unwrap_or_else(default_config);
    if !config.is_file() {
        anyhow::bail!("{}: no such config", config.display());
    }
    // A run of its own, recorded before any namespace exists, so that
    // `lighthouse clean` can always remove what a killed check left.
    let prefix = state::allocate(None)?;
    let (pid_start, exe) = state::my_identity();
    state::save(&state::RunState {
        prefix: prefix.clone(),
        pid: std::process::id(),
        config: Some(config.clone()),
        namespaces: vec![format!("{prefix}-sw"), format!("{prefix}-t")],
        children: Vec::new(),
        started_unix: state::now_unix(),
        pid_start,
        exe,
    })?;
    signals::install();
    spawn_watcher(prefix.clone());
    let work = state::run_dir(&prefix);
    let result = run_steps(a, &src, &config, &prefix, &work);
    // Remove the run (its namespaces are gone already unless a case
    // failed half-way; the compiled program and the switches' logs go too).
    let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
    DONE.store(true, Ordering::Relaxed);
    let rep = clean::clean(clean::Scope::Prefix(&prefix));
    for e in &rep.errors {
        say!("*** Error removing run {prefix}: {e}");
    }
    let r = result?;
    if r == CheckResult::Interrupted {
        say!("*** P4 check interrupted: run {prefix} removed");
    }
    Ok(r)
}

/// On a terminating signal, gives the main thread time to stop at its next
/// case (or to let the pingall's `lighthouse run` tear itself down), then
/// removes the run and exits 130 itself if the main thread is stuck.
fn spawn_watcher(prefix: String) {
    std::thread::Builder::new()
        .name("lh-p4-signals".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(50));
                if !signals::terminating() {
                    continue;
                }
                // A BMv2 case ends within a few seconds; a `lighthouse run`
                // gets its own teardown time (clean's STOP_TIMEOUT).
                let t = Instant::now();
                while t.elapsed() < Duration::from_secs(5)
                    || (CHILD.load(Ordering::Relaxed) != 0 && t.elapsed() < clean::STOP_TIMEOUT)
                {
                    if DONE.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
                if DONE.load(Ordering::Relaxed) {
                    return;
                }
                say!("\n*** Signal: removing P4 check run {prefix}");
                let rep = clean::clean(clean::Scope::Prefix(&prefix));
                for l in rep.lines() {
                    say!("{l}");
                }
                std::process::exit(130);
            }
        })
        .expect("spawn signal watcher");
}

fn run_steps(
    a: &CheckArgs,
    src: &P4Source,
    config: &Path,
    prefix: &str,
    work: &Path,
) -> anyhow::Result<CheckResult> {
    let shown =
        a.p4.as_ref()
            .map_or("the shipped p4/lighthouse.p4".to_string(), |p| {
                p.display().to_string()
            });
    say!("*** P4 check of {shown} (run {prefix})");
    let mut r = Report { rows: Vec::new() };
    let t0 = Instant::now();
    // Whether the next step may run: not after a signal, and with
    // --fail-fast not after a failed step.
    let go_on = |r: &Report| !signals::terminating() && (!a.fail_fast || !r.failed());
    let steps_total = 4;

    // 1. Compile.
    let json = match bmv2::compile(src, work) {
        Ok(j) => {
            r.step(
                "compile (p4c-bm2-ss, warnings are failures)",
                true,
                format!("{:.1} s", t0.elapsed().as_secs_f64()),
            );
            Some(j)
        }
        Err(e) => {
            r.step(
                "compile (p4c-bm2-ss, warnings are failures)",
                false,
                e.to_string(),
            );
            None
        }
    };

    let cases = lh_conformance::shipped_cases()?;
    let frames: usize = cases.iter().map(|c| c.expect.len()).sum();

    // 2. Conformance on the native ToR: the reference the program must match.
    if go_on(&r) {
        let mut bad = Vec::new();
        for c in &cases {
            if signals::terminating() || (a.fail_fast && !bad.is_empty()) {
                break;
            }
            match lh_conformance::native::run(c) {
                Ok(got) => bad.extend(mismatches(c, &got)),
                Err(e) => bad.push(format!("{}: {e}", c.name)),
            }
        }
        if !signals::terminating() {
            r.step(
                "conformance on the native ToR",
                bad.is_empty() && frames > 0,
                summary(cases.len(), frames, &bad),
            );
        }
    }

    // 3. Conformance on BMv2.
    if go_on(&r) {
        if let Some(json) = &json {
            let t = Bmv2Target {
                json: json.clone(),
                work: work.join("sw"),
                settle: Duration::from_secs(3),
            };
            let mut bad = Vec::new();
            for c in &cases {
                if signals::terminating() || (a.fail_fast && !bad.is_empty()) {
                    break;
                }
                match t.run_with(c, prefix, &mut |_| Ok(())) {
                    Ok(got) => bad.extend(mismatches(c, &got)),
                    // The program's own count, a contract like a frame's
                    // outcome (docs/p4.md, "Pacing").
                    Err(Bmv2RunError::FabricCount { counted, sent }) => bad.push(format!(
                        "{}: frames counted by fabric_rx (what swtor paces itself to): expected {sent}, got {counted}",
                        c.name
                    )),
                    Err(e) => bad.push(format!("{}: {e}", c.name)),
                }
            }
            if !signals::terminating() {
                r.step(
                    "conformance on BMv2",
                    bad.is_empty() && frames > 0,
                    summary(cases.len(), frames, &bad),
                );
            }
        } else {
            r.step("conformance on BMv2", false, "not run: no program".into());
        }
    }

    // 4. pingall on a mixed fabric, through the real `lighthouse run`.
    if go_on(&r) {
        if json.is_some() {
            let exe = std::env::current_exe()?;
            let mut cmd = Command::new(exe);
            cmd.args(["run", &config.display().to_string(), "--tor"])
                .arg(format!("bmv2:{}", a.tor))
                .args(["--test", "pingall"]);
            if let Some(p) = &a.p4 {
                cmd.arg("--p4").arg(p);
            }
            let (status, err) = run_child(cmd)?;
            if !signals::terminating() {
                let result = err
                    .lines()
                    .filter(|l| l.starts_with("*** Results:") || l.starts_with("*** Fabric:"))
                    .collect::<Vec<_>>()
                    .join("; ");
                let detail = if status.success() {
                    result
                } else {
                    let tail: Vec<&str> = err.lines().rev().take(8).collect();
                    format!(
                        "{result}\n{}",
                        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                    )
                };
                r.step(
                    &format!(
                        "pingall on {} with {} on BMv2",
                        config.file_name().unwrap_or_default().to_string_lossy(),
                        a.tor
                    ),
                    status.success(),
                    detail,
                );
            }
        } else {
            r.step(
                "pingall on a mixed fabric",
                false,
                "not run: no program".into(),
            );
        }
    }

    let passed = r.rows.iter().filter(|x| x.1).count();
    let skipped = steps_total - r.rows.len();
    if signals::terminating() {
        say!(
            "*** P4 check INTERRUPTED: {passed}/{} steps passed, {skipped} not run, after {:.1} s",
            r.rows.len(),
            t0.elapsed().as_secs_f64()
        );
        return Ok(CheckResult::Interrupted);
    }
    let ok = passed == steps_total;
    say!(
        "*** P4 check {}: {passed}/{steps_total} steps passed{} in {:.1} s",
        if ok { "PASSED" } else { "FAILED" },
        if skipped > 0 {
            format!(" ({skipped} not run: --fail-fast)")
        } else {
            String::new()
        },
        t0.elapsed().as_secs_f64()
    );
    Ok(if ok {
        CheckResult::Passed
    } else {
        CheckResult::Failed
    })
}

/// Runs `lighthouse run ...`: stdin closed, stdout dropped, stderr
/// collected. On a terminating signal the child gets SIGTERM (it tears its
/// own run down) and is waited for; SIGKILL after clean's stop timeout.
fn run_child(mut cmd: Command) -> anyhow::Result<(std::process::ExitStatus, String)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    CHILD.store(child.id(), Ordering::Relaxed);
    let mut pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let mut signalled: Option<Instant> = None;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if signals::terminating() {
            match signalled {
                None => {
                    // SAFETY: kill(2) on our own child, not yet reaped (so
                    // its pid cannot have been reused).
                    unsafe {
                        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
                    }
                    signalled = Some(Instant::now());
                }
                Some(t) if t.elapsed() > clean::STOP_TIMEOUT => {
                    let _ = child.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    CHILD.store(0, Ordering::Relaxed);
    let err = reader.join().unwrap_or_default();
    Ok((status, err))
}

fn mismatches(c: &lh_conformance::Case, got: &[(String, lh_conformance::Outcome)]) -> Vec<String> {
    c.expect
        .iter()
        .filter_map(|e| {
            let o = got.iter().find(|(id, _)| *id == e.id).map(|x| &x.1);
            match o {
                Some(o) if matches(e, o) => None,
                Some(o) => Some(format!("{} / {}: expected {e}, got {o}", c.name, e.id)),
                None => Some(format!("{} / {}: no outcome", c.name, e.id)),
            }
        })
        .collect()
}

fn summary(cases: usize, frames: usize, bad: &[String]) -> String {
    if frames == 0 {
        // Zero cases would otherwise read as "all as expected".
        "no conformance case ran: tests/conformance/cases.json has no frames to check".into()
    } else if bad.is_empty() {
        format!("{cases} cases, {frames} frames as expected")
    } else {
        format!(
            "{} of {frames} frames differ\n{}",
            bad.len(),
            bad.join("\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn zero_cases_never_read_as_all_expected() {
        assert!(summary(0, 0, &[]).starts_with("no conformance case ran"));
        assert_eq!(summary(9, 42, &[]), "9 cases, 42 frames as expected");
        assert!(summary(9, 42, &["a: x".into()]).starts_with("1 of 42 frames differ"));
    }
}
