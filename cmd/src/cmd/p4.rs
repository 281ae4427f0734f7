//! `lighthouse p4 check [--p4 FILE] [CONFIG]`: the one-command smoke test
//! for a change to the P4 program. Compiles it with warnings as failures,
//! runs the conformance suite on the native ToR and on BMv2, then pingall
//! on a mixed fabric (one BMv2 ToR beside native ones), and prints a
//! pass/fail report; the exit code matches.

use lh_conformance::bmv2::Bmv2Target;
use lh_conformance::case::matches;
use lh_emu::tor::bmv2::{self, P4Source};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct CheckArgs {
    pub p4: Option<PathBuf>,
    /// Config for the mixed-fabric pingall.
    pub config: Option<PathBuf>,
    /// The ToR put on BMv2 in the mixed fabric.
    pub tor: String,
}

/// The repository's default fabric for the mixed pingall.
pub fn default_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8-1ms.json")
}

struct Report {
    rows: Vec<(String, bool, String)>,
}

impl Report {
    fn step(&mut self, name: &str, ok: bool, detail: String) {
        eprintln!(
            "[{}] {name}: {}",
            if ok { "PASS" } else { "FAIL" },
            detail.lines().next().unwrap_or("")
        );
        for l in detail.lines().skip(1) {
            eprintln!("       {l}");
        }
        let _ = std::io::stderr().flush();
        self.rows.push((name.into(), ok, detail));
    }
}

/// Runs the check; Ok(true) when every step passed. Errors are set-up
/// problems (no toolchain, not root, unreadable files).
pub fn check(a: &CheckArgs) -> anyhow::Result<bool> {
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
    let work = tempfile::Builder::new()
        .prefix("lh-p4check-")
        .tempdir_in("/run")?;
    let shown =
        a.p4.as_ref()
            .map_or("the shipped p4/lighthouse.p4".to_string(), |p| {
                p.display().to_string()
            });
    eprintln!("*** P4 check of {shown}");
    let mut r = Report { rows: Vec::new() };
    let t0 = Instant::now();

    // 1. Compile.
    let json = match bmv2::compile(&src, work.path()) {
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

    // 2. Conformance on the native ToR: the reference the program must match.
    let cases = lh_conformance::shipped_cases()?;
    let frames: usize = cases.iter().map(|c| c.expect.len()).sum();
    let mut bad = Vec::new();
    for c in &cases {
        match lh_conformance::native::run(c) {
            Ok(got) => bad.extend(mismatches(c, &got)),
            Err(e) => bad.push(format!("{}: {e}", c.name)),
        }
    }
    r.step(
        "conformance on the native ToR",
        bad.is_empty() && frames > 0,
        summary(cases.len(), frames, &bad),
    );

    // 3. Conformance on BMv2.
    if let Some(json) = &json {
        let t = Bmv2Target {
            json: json.clone(),
            work: work.path().join("sw"),
            settle: Duration::from_secs(3),
        };
        let mut bad = Vec::new();
        for c in &cases {
            match t.run(c) {
                Ok(got) => bad.extend(mismatches(c, &got)),
                Err(e) => bad.push(format!("{}: {e}", c.name)),
            }
        }
        r.step(
            "conformance on BMv2",
            bad.is_empty() && frames > 0,
            summary(cases.len(), frames, &bad),
        );
    } else {
        r.step("conformance on BMv2", false, "not run: no program".into());
    }

    // 4. pingall on a mixed fabric, through the real `lighthouse run`.
    if json.is_some() {
        let exe = std::env::current_exe()?;
        let mut cmd = Command::new(exe);
        cmd.args(["run", &config.display().to_string(), "--tor"])
            .arg(format!("bmv2:{}", a.tor))
            .args(["--test", "pingall"]);
        if let Some(p) = &a.p4 {
            cmd.arg("--p4").arg(p);
        }
        let o = cmd.stdin(Stdio::null()).output()?;
        let err = String::from_utf8_lossy(&o.stderr);
        let result = err
            .lines()
            .filter(|l| l.starts_with("*** Results:") || l.starts_with("*** Fabric:"))
            .collect::<Vec<_>>()
            .join("; ");
        let detail = if o.status.success() {
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
            o.status.success(),
            detail,
        );
    } else {
        r.step(
            "pingall on a mixed fabric",
            false,
            "not run: no program".into(),
        );
    }

    let passed = r.rows.iter().filter(|x| x.1).count();
    let ok = passed == r.rows.len();
    eprintln!(
        "*** P4 check {}: {passed}/{} steps passed in {:.1} s",
        if ok { "PASSED" } else { "FAILED" },
        r.rows.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(ok)
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
