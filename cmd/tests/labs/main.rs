//! The course labs (labs/NN-name/): every starter must fail with feedback,
//! every reference solution must score full marks, and bad input (an unknown
//! lab, a broken JSON file, a missing folder) is a clear exit-2 error that
//! leaves nothing behind. Here the helpers and those; what a shortcut or a
//! tampered file scores (`shortcuts`); the Python routes (`python`).

#[path = "../common/mod.rs"]
mod common;
mod python;
mod shortcuts;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Every lighthouse this test binary ran.
static PIDS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Namespaces that appeared since `before` and belong to a run started by
/// one of our lighthouse processes. (Other worktrees' tests on this machine
/// make their own `lh*` namespaces concurrently, so a plain before/after
/// comparison would blame us for them.)
fn ours_left(before: &[String]) -> Vec<String> {
    let pids = PIDS.lock().unwrap().clone();
    common::lh_namespaces()
        .into_iter()
        .filter(|n| !before.contains(n))
        .filter(|n| {
            lh_emu::kernel::state::prefix_of_ns(n)
                .and_then(lh_emu::kernel::state::load)
                .is_some_and(|st| pids.contains(&st.pid))
        })
        .collect()
}

fn labs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../labs")
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

fn lighthouse(args: &[&str]) -> Out {
    lighthouse_env(args, &[])
}

/// `lighthouse` with extra environment variables.
fn lighthouse_env(args: &[&str], envs: &[(&str, &str)]) -> Out {
    let t = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .args(args)
        .env("LIGHTHOUSE_LABS", labs())
        .envs(envs.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run lighthouse");
    let pid = child.id();
    let o = child.wait_with_output().expect("wait for lighthouse");
    PIDS.lock().unwrap().push(pid);
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        took: t.elapsed(),
    }
}

/// (passed, all checks) from the `Score: X/Y` line.
fn score(out: &str) -> (u32, u32) {
    try_score(out).unwrap_or_else(|| panic!("no Score line in:\n{out}"))
}

fn try_score(out: &str) -> Option<(u32, u32)> {
    let line = out.lines().find_map(|l| l.strip_prefix("Score: "))?;
    let (x, rest) = line.split_once('/')?;
    let y: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((x.parse().ok()?, y.parse().ok()?))
}

/// Why lab 07's BMv2 checks cannot run here (they need root, simple_switch
/// and p4c-bm2-ss), or None. Where the toolchain is required (CI), its
/// absence fails `test` instead (bmv2_thrift::require).
fn p4_missing(test: &str) -> Option<String> {
    if !common::is_root() {
        return Some("needs root (network namespaces)".into());
    }
    match bmv2_thrift::require::p4_test(test, &[]) {
        Some(_) => None,
        None => Some("the P4 toolchain is not on PATH".into()),
    }
}

/// Why the labs' Python route cannot run here (the project venv has no
/// `import lighthouse`: run scripts/setup-python.sh, as CI does), or None.
/// Prints a SKIP line naming `test` when it cannot.
fn no_venv(test: &str) -> Option<String> {
    let py = labs().join("../.venv/bin/python");
    let ok = Command::new(&py)
        .args(["-I", "-B", "-c", "import lighthouse"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return None;
    }
    let why = format!(
        "{} cannot import lighthouse (run scripts/setup-python.sh)",
        py.display()
    );
    eprintln!("SKIP {test}: {why}");
    Some(why)
}

fn folders() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(labs())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        // A lab is a folder `NN-name`; `src/` beside them is the graders' crate.
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            p.is_dir() && n.len() > 3 && n.as_bytes()[..2].iter().all(u8::is_ascii_digit)
        })
        .map(|p| (p.file_name().unwrap().to_string_lossy()[..2].to_string(), p))
        .collect();
    v.sort();
    v
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().unwrap() != "solution" {
                copy_dir(&p, &to.join(e.file_name()));
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Every file under `d` with its length: grading must not write anything.
fn snapshot(d: &Path) -> Vec<(PathBuf, u64)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(snapshot(&p));
        } else {
            v.push((p.clone(), p.metadata().unwrap().len()));
        }
    }
    v.sort();
    v
}

#[test]
fn lab_list_shows_eight_labs_with_readme_starter_and_solution() {
    let o = lighthouse(&["lab", "list"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: Vec<&str> = o.stdout.lines().collect();
    assert!(rows.len() >= 8, "{}", o.stdout);
    for (i, (num, dir)) in folders().iter().enumerate() {
        assert_eq!(num, &format!("{:02}", i + 1), "labs are numbered 01..");
        assert!(rows[i].starts_with(num.as_str()), "{}", rows[i]);
        assert!(dir.join("README.md").is_file(), "{}", dir.display());
        assert!(dir.join("solution").is_dir(), "{}", dir.display());
    }
    assert!(folders().len() >= 8);
}

#[test]
fn every_starter_fails_with_hints_and_every_solution_scores_full_marks() {
    let ns_before = common::lh_namespaces();
    for (num, dir) in folders() {
        let before = snapshot(&dir);
        let s = lighthouse(&["lab", "grade", &num]);
        // Lab 07 without the P4 toolchain or root is incomplete (exit 3).
        let want = if num == "07" && p4_missing("lab 07 starter").is_some() {
            3
        } else {
            1
        };
        assert_eq!(
            s.code, want,
            "lab {num} starter must fail:\n{}{}",
            s.stdout, s.stderr
        );
        assert!(s.stdout.contains('✗'), "lab {num}: no ✗\n{}", s.stdout);
        assert!(
            s.stdout.contains("hint: "),
            "lab {num}: no hint\n{}",
            s.stdout
        );
        let (x, y) = score(&s.stdout);
        assert!(x < y, "lab {num} starter scored {x}/{y}");
        // `--dir` pointing at the lab folder is the same working copy.
        let again = lighthouse(&["lab", "grade", &num, "--dir", dir.to_str().unwrap()]);
        assert_eq!(
            score(&again.stdout),
            (x, y),
            "lab {num}: --dir differs\nfirst:\n{}{}\nwith --dir:\n{}{}",
            s.stdout,
            s.stderr,
            again.stdout,
            again.stderr
        );

        let sol = dir.join("solution");
        let r = lighthouse(&["lab", "grade", &num, "--dir", sol.to_str().unwrap()]);
        if num == "07"
            && let Some(why) = p4_missing("lab 07 solution")
        {
            eprintln!("SKIPPED lab 07 solution full marks: {why}; checking it is INCOMPLETE");
            assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
            assert!(r.stdout.contains("INCOMPLETE"), "{}", r.stdout);
            continue;
        }
        // The solutions of labs 03, 04, 05, 06 and 08 take the Python route.
        if ["03", "04", "05", "06", "08"].contains(&num.as_str())
            && let Some(why) = no_venv(&format!("lab {num} solution full marks"))
        {
            eprintln!("checking lab {num}'s solution is INCOMPLETE instead ({why})");
            assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
            assert!(r.stdout.contains("setup-python.sh"), "{}", r.stdout);
            continue;
        }
        assert_eq!(
            r.code, 0,
            "lab {num} solution must pass:\n{}{}",
            r.stdout, r.stderr
        );
        assert!(!r.stdout.contains('✗'), "{}", r.stdout);
        let (x, y) = score(&r.stdout);
        assert!(x == y && y >= 3, "lab {num} solution scored {x}/{y}");
        eprintln!(
            "lab {num}: starter {x0}/{y0} in {:.2?}, solution {x}/{y} in {:.2?}",
            s.took,
            r.took,
            x0 = score(&s.stdout).0,
            y0 = score(&s.stdout).1
        );
        assert_eq!(snapshot(&dir), before, "lab {num}: grading wrote files");
    }
    assert_eq!(
        ours_left(&ns_before),
        Vec::<String>::new(),
        "grading left namespaces"
    );
}

#[test]
fn unknown_lab_and_missing_folder_are_exit_2() {
    let ns_before = common::lh_namespaces();
    for bad in ["99", "0", "labz"] {
        let o = lighthouse(&["lab", "grade", bad]);
        assert_eq!(o.code, 2, "{bad}: {}{}", o.stdout, o.stderr);
        assert!(
            o.stderr.contains(&format!("no lab \"{bad}\"")),
            "{}",
            o.stderr
        );
        assert!(o.stderr.contains("01, 02"), "lists the labs: {}", o.stderr);
        assert!(!o.stdout.contains("Score"), "{}", o.stdout);
    }
    let o = lighthouse(&["lab", "grade", "01", "--dir", "/nonexistent/lab01"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("/nonexistent/lab01: not a folder"),
        "{}",
        o.stderr
    );
    assert_eq!(ours_left(&ns_before), Vec::<String>::new());
}

#[test]
fn a_broken_json_file_is_exit_2_naming_file_and_line() {
    // (lab, the student's file) for every lab whose starter is JSON.
    let cases = [
        ("01", "answers.json"),
        ("02", "opera.json"),
        ("03", "answers.json"),
        ("04", "sched.json"),
        ("05", "tables.json"),
        ("06", "answers.json"),
        ("08", "answers.json"),
    ];
    let ns_before = common::lh_namespaces();
    for (num, file) in cases {
        let (_, dir) = folders().into_iter().find(|(n, _)| n == num).unwrap();
        let work = tempfile::tempdir().unwrap();
        copy_dir(&dir, work.path());
        let f = work.path().join(file);
        let text = std::fs::read_to_string(&f).unwrap();
        // Drop the closing brace of line 3's value: a syntax error at line 3/4.
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines[2] = format!("{} ,,", lines[2]);
        std::fs::write(&f, lines.join("\n")).unwrap();
        let before = snapshot(work.path());
        let o = lighthouse(&["lab", "grade", num, "--dir", work.path().to_str().unwrap()]);
        assert_eq!(o.code, 2, "lab {num} {file}: {}{}", o.stdout, o.stderr);
        assert!(
            o.stderr.contains(&format!("{file}: line 3")),
            "lab {num}: names {file} and line 3: {}",
            o.stderr
        );
        assert!(!o.stdout.contains("Score"), "{}", o.stdout);
        assert_eq!(snapshot(work.path()), before);
    }
    assert_eq!(ours_left(&ns_before), Vec::<String>::new());
}

// ---- Tamper tests: every shortcut a student could take scores below full.

/// A working copy of lab `num` in a tempdir: the starter, or the solution
/// (its files over the starter's, as a student who did the work has).
fn work(num: &str, solution: bool) -> tempfile::TempDir {
    let (_, dir) = folders().into_iter().find(|(n, _)| n == num).unwrap();
    let w = tempfile::tempdir().unwrap();
    copy_dir(&dir, w.path());
    if solution {
        copy_dir(&dir.join("solution"), w.path());
    }
    w
}

/// Set the JSON value at `path` (object keys) in `dir/file`.
fn set_json(dir: &Path, file: &str, path: &[&str], value: serde_json::Value) {
    let f = dir.join(file);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let (last, parents) = path.split_last().unwrap();
    let mut cur = &mut v;
    for p in parents {
        cur = cur.get_mut(*p).unwrap_or_else(|| panic!("{file}: no {p}"));
    }
    cur[*last] = value;
    std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// Set answer `key` in `dir/answers.json`.
fn answer(dir: &Path, key: &str, value: serde_json::Value) {
    set_json(dir, "answers.json", &[key], value);
}

fn edit(dir: &Path, file: &str, f: impl FnOnce(String) -> String) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, f(text)).unwrap();
}

/// One shortcut: what it does, whether it starts from the solution, the
/// edit, and a text the failing feedback must contain (the tampered file).
type Tamper = (&'static str, bool, fn(&Path), &'static str);

/// Applies each shortcut to a fresh working copy and asserts that the
/// grade is below full marks, the exit status says so, and the feedback
/// names the tampered file.
fn assert_tampers_fail(num: &str, tampers: &[Tamper]) {
    let mut wrong = Vec::new();
    for (what, from_solution, apply, names) in tampers {
        let w = work(num, *from_solution);
        apply(w.path());
        let o = lighthouse(&["lab", "grade", num, "--dir", w.path().to_str().unwrap()]);
        let Some((x, y)) = try_score(&o.stdout) else {
            wrong.push(format!(
                "lab {num}, {what}: no score, exit {}\n{}{}",
                o.code, o.stdout, o.stderr
            ));
            continue;
        };
        // The feedback from the first failing check on.
        let failing: String = o
            .stdout
            .lines()
            .skip_while(|l| !l.trim_start().starts_with('✗'))
            .collect::<Vec<_>>()
            .join("\n");
        eprintln!("lab {num}, {what}: {x}/{y}, exit {}", o.code);
        if x >= y || !(o.code == 1 || o.code == 3) || !failing.contains(names) {
            wrong.push(format!(
                "lab {num}, {what}: scored {x}/{y}, exit {} (want below full, exit 1 or 3, a failing check naming {names:?})\n{}{}",
                o.code, o.stdout, o.stderr
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---- The Python route (labs 03, 04, 05, 06 and 08): the student's topo.py /
// routing.py / tables.py / answers.py / tm.py run through the real lighthouse
// package.

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

fn grade_dir(num: &str, d: &Path) -> Out {
    lighthouse(&["lab", "grade", num, "--dir", d.to_str().unwrap()])
}

/// The hint lines under the check whose name starts with `check`.
fn hints_of<'a>(out: &'a str, check: &str) -> String {
    out.lines()
        .skip_while(|l| {
            !l.trim_start()
                .trim_start_matches(['✓', '✗', '?'])
                .trim_start()
                .starts_with(check)
        })
        .skip(1)
        .take_while(|l| l.trim_start().starts_with("hint:"))
        .collect::<Vec<&'a str>>()
        .join("\n")
}
