//! Lab 07: changing the P4 ToR (docs/p4.md): a per-arrival-slice counter
//! `lab_arrivals`. Static checks on the files `lighthouse.p4` actually
//! includes, then the student's program itself: compiled with
//! `p4c-bm2-ss`, run on BMv2 with frames from hosts in known slices, and
//! the counter read through the Thrift runtime; the conformance cases must
//! still pass on it. A missing tool or no root makes those checks
//! incomplete (never passed).
//!
//! The BMv2 runs are registered under a run prefix like `lighthouse run`'s
//! (state file first, then namespaces `<prefix>-sw`, `<prefix>-t`), so a
//! killed grade is found by `lighthouse clean`; all of it is removed when
//! grading ends.

use super::checks::{Check, read};
use super::{Ctx, LabError};
use bmv2_thrift::toolchain::find_on_path;
use lh_conformance::bmv2::Bmv2Target;
use lh_conformance::case::matches;
use lh_conformance::{Case, Outcome};
use lh_emu::kernel::state;
use lh_emu::netns;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Name of the counter the lab asks for.
pub const COUNTER: &str = "lab_arrivals";

/// The lab's case on RotorNet-4 (ToR s1, hosts h1 h2): host frames to other
/// ToRs arriving 1, 2 and 3 per slice, and frames from the fabric (for a
/// local host, and one in transit that takes the same path as host frames
/// do). The departures are 2 per slice, so a counter indexed by departure,
/// by a constant or counting fabric frames too reads differently from
/// [`WANT`].
const CASE: &str = r#"[{
  "name": "lab 07: host frames by arrival slice",
  "config": "configs/rr4-direct.json",
  "tor": "s1",
  "frames": [
    {"id": "a", "slice": 0, "ingress": "h1", "dst": "h3"},
    {"id": "fab0", "slice": 0, "ingress": "up0", "src": "h7", "dst": "h2"},
    {"id": "b", "slice": 1, "ingress": "h1", "dst": "h5"},
    {"id": "c", "slice": 1, "ingress": "h2", "dst": "h7"},
    {"id": "fab1", "slice": 1, "ingress": "up0", "src": "h5", "dst": "h1"},
    {"id": "transit", "slice": 1, "ingress": "up0", "src": "h5", "dst": "h7"},
    {"id": "d", "slice": 2, "ingress": "h2", "dst": "h3"},
    {"id": "e", "slice": 2, "ingress": "h1", "dst": "h5"},
    {"id": "f", "slice": 2, "ingress": "h2", "dst": "h7"}
  ],
  "expect": [
    {"id": "a", "out": "up0", "depart": 2},
    {"id": "fab0", "out": "h2"},
    {"id": "b", "out": "up0", "depart": 1},
    {"id": "c", "out": "up0", "depart": 0},
    {"id": "fab1", "out": "h1"},
    {"id": "transit", "out": "up0", "depart": 0},
    {"id": "d", "out": "up0", "depart": 2},
    {"id": "e", "out": "up0", "depart": 1},
    {"id": "f", "out": "up0", "depart": 0}
  ]
}]"#;

/// `lab_arrivals[0..3]` after [`CASE`].
const WANT: [u64; 3] = [1, 2, 3];

const FILES: &str = "lighthouse.p4 and every file it includes are in the working copy";
const COMPILES: &str = "the program compiles with p4c-bm2-ss (v1model, warnings are failures)";
const COUNTS: &str = "on BMv2, `lab_arrivals` counts each host frame in its arrival slice's cell";
const CONFORMS: &str = "on BMv2, the conformance cases still pass (forwarding is unchanged)";

fn lab_case() -> Case {
    let mut v = lh_conformance::parse_cases(CASE, "lab 07 case", &lh_conformance::cases_dir())
        .expect("the lab 07 case is valid");
    v.remove(0)
}

/// Drop `//` and `/* */` comments so a commented-out line does not count;
/// newlines stay, so line numbers do not move.
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").map_or(r.len(), |i| i + 2);
            out.extend(r[..end].chars().filter(|&c| c == '\n'));
            rest = &r[end..];
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// `#include "name"` on this line (angle-bracket includes are p4c's own).
fn quoted_include(line: &str) -> Option<&str> {
    let r = line.trim_start().strip_prefix('#')?.trim_start();
    let r = r.strip_prefix("include")?.trim_start().strip_prefix('"')?;
    r.split_once('"').map(|(name, _)| name)
}

/// The program's files, comments stripped: `main` and what it includes
/// with `#include "..."`, transitively, each once. A quoted include
/// resolves against the including file's folder (p4c's preprocessor) and
/// must stay inside the working copy. `Err` is the ✗ hint.
fn sources(cx: &Ctx, main: &Path) -> Result<Result<Vec<String>, String>, LabError> {
    let root = std::fs::canonicalize(&cx.dir).unwrap_or_else(|_| cx.dir.clone());
    let show = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut todo = vec![std::fs::canonicalize(main).unwrap_or_else(|_| main.to_path_buf())];
    let mut texts = Vec::new();
    while let Some(f) = todo.pop() {
        if seen.contains(&f) {
            continue;
        }
        let text = strip_comments(&read(&f)?);
        let dir = f.parent().unwrap_or(Path::new("/")).to_path_buf();
        for (i, line) in text.lines().enumerate() {
            let Some(name) = quoted_include(line) else {
                continue;
            };
            let at = format!("{} line {}: #include \"{name}\"", show(&f), i + 1);
            match std::fs::canonicalize(dir.join(name)) {
                Err(_) => return Ok(Err(format!("{at}: no such file"))),
                Ok(p) if !p.starts_with(&root) => {
                    return Ok(Err(format!(
                        "{at} is outside the working copy ({}); the program you hand in is the files in it",
                        p.display()
                    )));
                }
                Ok(p) => todo.push(p),
            }
        }
        seen.push(f);
        texts.push(text);
    }
    Ok(Ok(texts))
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub fn grade(cx: &Ctx) -> Result<Vec<Check>, LabError> {
    let mut v = Vec::new();
    let declared = format!("a counter `{COUNTER}` with one cell per slice is declared");
    let counted = format!("`{COUNTER}` is counted, indexed by the arrival slice");
    let later = [
        declared.as_str(),
        counted.as_str(),
        COMPILES,
        COUNTS,
        CONFORMS,
    ];
    let main = cx.path("lighthouse.p4");
    if !main.is_file() {
        let src = cx
            .repo
            .as_ref()
            .map(|r| r.join("labs").join("07-p4-counter").display().to_string())
            .unwrap_or_else(|| "labs/07-p4-counter".into());
        v.push(Check::fail(
            FILES,
            format!(
                "lighthouse.p4 is missing; copy the starter program first: cp -r {src}/lighthouse.p4 {src}/include {}",
                cx.dir.display()
            ),
        ));
        v.extend(Check::blocked(&later, "there is no lighthouse.p4"));
        return Ok(v);
    }
    let texts = match sources(cx, &main)? {
        Ok(t) => {
            v.push(Check::pass(FILES));
            t
        }
        Err(e) => {
            v.push(Check::fail(FILES, e));
            v.extend(Check::blocked(
                &later,
                "the program's files are not all there",
            ));
            return Ok(v);
        }
    };
    // Only what the program includes counts: text in a file it never
    // includes is not part of it.
    let code = squash(&texts.join("\n"));
    let is_declared = code.contains(&format!("LH_COUNTER(LH_MAX_SLICES,{COUNTER})"))
        || code.contains(&format!("){COUNTER};"))
            && (code.contains("counter(") || code.contains("LH_COUNTER("));
    v.push(Check::when(
        is_declared,
        declared,
        "declare it next to the other counters in include/ingress.p4: LH_COUNTER(LH_MAX_SLICES, lab_arrivals); (arch.p4 maps it to v1model's counter); a file lighthouse.p4 does not include does not count",
    ));
    let is_counted = code.contains(&format!("LH_COUNT({COUNTER},"))
        || code.contains(&format!("{COUNTER}.count("));
    v.push(Check::when(
        is_counted,
        counted,
        "count it where a host frame's arrival slice is known, before the time-flow lookup: LH_COUNT(lab_arrivals, <arrival slice>)",
    ));
    v.extend(run_program(&main));
    Ok(v)
}

/// Compile the student's program and run it on BMv2: the compile, counter
/// and conformance checks.
fn run_program(main: &Path) -> Vec<Check> {
    let Some(_) = find_on_path("p4c-bm2-ss") else {
        let why = "p4c-bm2-ss not on PATH (scripts/setup-p4.sh installs it)";
        return [COMPILES, COUNTS, CONFORMS]
            .map(|n| Check::incomplete(n, why))
            .into();
    };
    let tmp = if is_root() {
        // Short: BMv2's notification socket path must fit a sockaddr_un.
        tempfile::Builder::new()
            .prefix("lh-lab07-")
            .tempdir_in("/run")
    } else {
        tempfile::tempdir()
    };
    let tmp = match tmp {
        Ok(t) => t,
        Err(e) => {
            let why = format!("no temporary folder: {e}");
            return [COMPILES, COUNTS, CONFORMS]
                .map(|n| Check::incomplete(n, why.clone()))
                .into();
        }
    };
    let json = match bmv2_thrift::compile(main, &tmp.path().join("build"), &[]) {
        Ok(j) => j,
        Err(e) => {
            let mut v = vec![Check::fail(COMPILES, e.to_string())];
            v.extend(Check::blocked(
                &[COUNTS, CONFORMS],
                "the program does not compile",
            ));
            return v;
        }
    };
    let mut v = vec![Check::pass(COMPILES)];
    let missing: Vec<&str> = ["simple_switch", "ip"]
        .into_iter()
        .filter(|t| find_on_path(t).is_none())
        .collect();
    let why = if !is_root() {
        Some(
            "BMv2 runs in network namespaces, which needs root: sudo lighthouse lab grade 07"
                .into(),
        )
    } else if !missing.is_empty() {
        Some(format!(
            "{} not on PATH (scripts/setup-p4.sh installs BMv2)",
            missing.join(" and ")
        ))
    } else {
        None
    };
    if let Some(why) = why {
        v.push(Check::incomplete(COUNTS, &why));
        v.push(Check::incomplete(CONFORMS, why));
        return v;
    }
    let run = match Registered::new() {
        Ok(r) => r,
        Err(e) => {
            v.push(Check::incomplete(COUNTS, &e));
            v.push(Check::incomplete(CONFORMS, e));
            return v;
        }
    };
    let t = Bmv2Target {
        json,
        work: tmp.path().join("sw"),
        settle: Duration::from_secs(3),
    };
    let case = lab_case();
    let mut cells = Vec::new();
    let lab = t.run_with(&case, &run.prefix, &mut |c| {
        for i in 0..WANT.len() as u32 {
            cells.push(c.counter_read(COUNTER, i)?.0);
        }
        Ok(())
    });
    let mut bad = Vec::new();
    v.push(match &lab {
        Ok(got) => {
            bad.extend(mismatches(&case, got));
            Check::when(
                cells == WANT,
                COUNTS,
                format!(
                    "after host frames arriving in slices 0, 1, 1, 2, 2, 2 (and 3 frames from the fabric), `{COUNTER}` cells 0..2 read {cells:?}; count each frame from a host once, in the cell of its final meta.arrival"
                ),
            )
        }
        Err(e) => Check::fail(
            COUNTS,
            format!("the program on BMv2: {e}\n(is `{COUNTER}` declared and used in the program lighthouse.p4 compiles?)"),
        ),
    });
    match lh_conformance::shipped_cases() {
        Ok(cases) => {
            for c in &cases {
                match t.run_with(c, &run.prefix, &mut |_| Ok(())) {
                    Ok(got) => bad.extend(mismatches(c, &got)),
                    Err(e) => bad.push(format!("{}: {e}", c.name)),
                }
            }
            let n = bad.len();
            bad.truncate(4);
            if n > 4 {
                bad.push(format!("... {} more", n - 4));
            }
            v.push(Check::when(
                n == 0,
                CONFORMS,
                format!(
                    "{}\nyour change must not alter forwarding; `sudo lighthouse p4 check --p4 lighthouse.p4` shows every step",
                    bad.join("\n")
                ),
            ));
        }
        Err(e) => v.push(Check::incomplete(CONFORMS, e.to_string())),
    }
    v
}

fn mismatches(c: &Case, got: &[(String, Outcome)]) -> Vec<String> {
    c.expect
        .iter()
        .filter_map(|e| match got.iter().find(|(id, _)| *id == e.id) {
            Some((_, o)) if matches(e, o) => None,
            Some((_, o)) => Some(format!("{} / {}: expected {e}, got {o}", c.name, e.id)),
            None => Some(format!("{} / {}: no outcome", c.name, e.id)),
        })
        .collect()
}

/// This grade's kernel state, registered like a `lighthouse run`'s: the
/// state file lists the namespaces before they exist, so `lighthouse
/// clean` finds them if grading is killed. Dropping it removes the
/// namespaces (if still there) and the run directory.
struct Registered {
    prefix: String,
    namespaces: Vec<String>,
}

impl Registered {
    fn new() -> Result<Registered, String> {
        let prefix = state::allocate(None).map_err(|e| format!("no run prefix: {e}"))?;
        let (pid_start, exe) = state::my_identity();
        let r = Registered {
            namespaces: vec![format!("{prefix}-sw"), format!("{prefix}-t")],
            prefix,
        };
        state::save(&state::RunState {
            prefix: r.prefix.clone(),
            pid: std::process::id(),
            namespaces: r.namespaces.clone(),
            started_unix: state::now_unix(),
            pid_start,
            exe,
            ..Default::default()
        })
        .map_err(|e| format!("cannot record the run: {e}"))?;
        Ok(r)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        for n in &self.namespaces {
            if netns::list().contains(n) {
                let _ = netns::delete(n);
            }
        }
        let _ = std::fs::remove_dir_all(state::run_dir(&self.prefix));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_do_not_count_and_lines_stay() {
        let s = "a // LH_COUNT(lab_arrivals, x)\nb /* lab_arrivals\n.count(1) */ c\nd";
        let t = strip_comments(s);
        assert!(!t.contains("lab_arrivals"));
        assert!(t.contains('a') && t.contains('b') && t.contains('c'));
        assert_eq!(t.lines().nth(3), Some("d"));
    }

    #[test]
    fn includes_are_followed_and_unused_files_ignored() {
        let top = tempfile::tempdir().unwrap();
        let work = top.path().join("work");
        let inc = work.join("include");
        std::fs::create_dir_all(&inc).unwrap();
        std::fs::write(
            work.join("lighthouse.p4"),
            "#include <core.p4>\n// #include \"include/c.p4\"\n  #  include \"include/a.p4\"\n",
        )
        .unwrap();
        std::fs::write(
            inc.join("a.p4"),
            "A\n#include \"b.p4\"\n#include \"a.p4\"\n",
        )
        .unwrap();
        std::fs::write(inc.join("b.p4"), "B\n").unwrap();
        std::fs::write(inc.join("c.p4"), "C\n").unwrap();
        let cx = Ctx::new(work.clone(), None);
        let t = sources(&cx, &cx.path("lighthouse.p4")).unwrap().unwrap();
        let all = t.join("");
        assert!(
            all.contains('A') && all.contains('B') && !all.contains('C'),
            "{t:?}"
        );
        assert_eq!(t.len(), 3, "each file once");

        std::fs::write(inc.join("b.p4"), "#include \"../../x.p4\"\n").unwrap();
        std::fs::write(top.path().join("x.p4"), "X").unwrap();
        let e = sources(&cx, &cx.path("lighthouse.p4"))
            .unwrap()
            .unwrap_err();
        assert!(
            e.contains("include/b.p4 line 1") && e.contains("outside"),
            "{e}"
        );
        std::fs::write(inc.join("b.p4"), "#include \"gone.p4\"\n").unwrap();
        let e = sources(&cx, &cx.path("lighthouse.p4"))
            .unwrap()
            .unwrap_err();
        assert!(
            e.contains("include/b.p4 line 1: #include \"gone.p4\": no such file"),
            "{e}"
        );
    }

    #[test]
    fn the_lab_case_matches_the_native_tor() {
        let case = lab_case();
        let got = lh_conformance::native::run(&case).expect("native ToR");
        assert_eq!(mismatches(&case, &got), Vec::<String>::new());
        let host: Vec<u16> = case
            .frames
            .iter()
            .filter(|f| f.ingress.starts_with('h'))
            .map(|f| f.slice)
            .collect();
        let by_slice: Vec<u64> = (0..3)
            .map(|s| host.iter().filter(|&&x| x == s).count() as u64)
            .collect();
        assert_eq!(by_slice, WANT);
    }
}
