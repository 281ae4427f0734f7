//! The course labs (labs/NN-name/): every starter must fail with feedback,
//! every reference solution must score full marks, and bad input (an unknown
//! lab, a broken JSON file, a missing folder) is a clear exit-2 error that
//! leaves nothing behind.

mod common;

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
            lh_emu::state::prefix_of_ns(n)
                .and_then(lh_emu::state::load)
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
    let t = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .args(args)
        .env("LIGHTHOUSE_LABS", labs())
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

/// (passed, counted) from the `Score: X/Y` line.
fn score(out: &str) -> (u32, u32) {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("Score: "))
        .unwrap_or_else(|| panic!("no Score line in:\n{out}"));
    let (x, rest) = line.split_once('/').expect("X/Y");
    let y: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (x.parse().unwrap(), y.parse().unwrap())
}

fn folders() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(labs())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
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
        assert_eq!(
            s.code, 1,
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
        assert_eq!(score(&again.stdout), (x, y), "lab {num}: --dir differs");

        let sol = dir.join("solution");
        let r = lighthouse(&["lab", "grade", &num, "--dir", sol.to_str().unwrap()]);
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
        assert!(s.took < Duration::from_secs(30) && r.took < Duration::from_secs(30));
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
