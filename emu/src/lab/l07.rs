//! Lab 07: changing the P4 ToR (docs/p4.md): a per-arrival-slice counter
//! `lab_arrivals`. Static checks on the student's copy of the program, then
//! `p4c` (when installed) and `lighthouse p4 check --p4 FILE` (when this
//! binary has it): either missing is a visible skip, not a failure.

use super::checks::{Check, read};
use super::{Ctx, LabError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Name of the counter the lab asks for.
pub const COUNTER: &str = "lab_arrivals";

/// The program and everything it includes from `include/`, as text.
fn sources(main: &Path) -> Result<String, LabError> {
    let mut text = read(main)?;
    let inc = main.parent().unwrap_or(Path::new(".")).join("include");
    if let Ok(rd) = std::fs::read_dir(&inc) {
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|x| x == "p4"))
        {
            text.push('\n');
            text.push_str(&read(f)?);
        }
    }
    Ok(text)
}

/// Drop `//` and `/* */` comments so a commented-out line does not count.
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(tool))
            .find(|f| f.is_file())
    })
}

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = Vec::new();
    let main = cx.path("lighthouse.p4");
    if !main.is_file() {
        let src = cx
            .repo
            .as_ref()
            .map(|r| r.join("labs").join("07-p4-counter").display().to_string())
            .unwrap_or_else(|| "labs/07-p4-counter".into());
        v.push(Check::fail(
            "lighthouse.p4 is in the working copy",
            format!(
                "copy the starter program first: cp -r {src}/lighthouse.p4 {src}/include {}",
                cx.dir.display()
            ),
        ));
        v.push(Check::fail(
            format!("a counter `{COUNTER}` is declared"),
            "see step 2 of the README",
        ));
        return Ok(v);
    }
    v.push(Check::pass("lighthouse.p4 is in the working copy"));
    let code = squash(&strip_comments(&sources(&main)?));
    let declared = code.contains(&format!("LH_COUNTER(LH_MAX_SLICES,{COUNTER})"))
        || code.contains(&format!("){COUNTER};"))
            && (code.contains("counter(") || code.contains("LH_COUNTER("));
    v.push(Check::when(
        declared,
        format!("a counter `{COUNTER}` with one cell per slice is declared"),
        "declare it next to the other counters in include/ingress.p4: LH_COUNTER(LH_MAX_SLICES, lab_arrivals); (arch.p4 maps it to v1model's counter)",
    ));
    let counted = code.contains(&format!("LH_COUNT({COUNTER},"))
        || code.contains(&format!("{COUNTER}.count("));
    v.push(Check::when(
        counted,
        format!("`{COUNTER}` is counted, indexed by the arrival slice"),
        "count it where a host frame's arrival slice is known, before the time-flow lookup: LH_COUNT(lab_arrivals, <arrival slice>)",
    ));
    v.push(match on_path("p4c").or_else(|| on_path("p4c-bm2-ss")) {
        None => Check::skip(
            "the program compiles with p4c (v1model)",
            "p4c is not installed (scripts/setup-p4.sh installs it)",
        ),
        Some(p4c) => {
            let out = tempfile::tempdir().map_err(|source| LabError::Io {
                file: std::env::temp_dir(),
                source,
            })?;
            let r = Command::new(&p4c)
                .args(["--target", "bmv2", "--arch", "v1model", "-o"])
                .arg(out.path())
                .arg(&main)
                .output();
            match r {
                Ok(o) if o.status.success() => {
                    Check::pass("the program compiles with p4c (v1model)")
                }
                Ok(o) => {
                    let err = String::from_utf8_lossy(&o.stderr);
                    let first: Vec<&str> = err
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .take(4)
                        .collect();
                    Check::fail("the program compiles with p4c (v1model)", first.join("\n"))
                }
                Err(e) => Check::skip(
                    "the program compiles with p4c (v1model)",
                    format!("cannot run {}: {e}", p4c.display()),
                ),
            }
        }
    });
    v.push(conformance(&main));
    Ok(v)
}

/// `lighthouse p4 check --p4 FILE` when this binary has the command.
fn conformance(main: &Path) -> Check {
    let name = "the conformance cases pass (`lighthouse p4 check`)";
    let Ok(exe) = std::env::current_exe() else {
        return Check::skip(name, "cannot locate the lighthouse binary");
    };
    let has = Command::new(&exe)
        .args(["p4", "check", "--help"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        return Check::skip(
            name,
            "this lighthouse has no `p4 check` command yet (the P4 target is merged separately)",
        );
    }
    match Command::new(&exe)
        .args(["p4", "check", "--p4"])
        .arg(main)
        .output()
    {
        Ok(o) if o.status.success() => Check::pass(name),
        Ok(o) => {
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let tail: Vec<&str> = all.lines().rev().take(6).collect();
            let hint = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
            if o.status.code() == Some(2) && all.contains("not installed") {
                Check::skip(name, hint)
            } else {
                Check::fail(name, hint)
            }
        }
        Err(e) => Check::skip(name, format!("cannot run the check: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_do_not_count() {
        let s = "a // LH_COUNT(lab_arrivals, x)\nb /* lab_arrivals.count(1) */ c";
        let t = strip_comments(s);
        assert!(!t.contains("lab_arrivals"));
        assert!(t.contains('a') && t.contains('b') && t.contains('c'));
    }
}
