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

#[test]
fn lab01_shortcuts_score_below_full() {
    assert_tampers_fail(
        "01",
        &[
            (
                "config.json edited (200 us slices) and the answers follow it",
                true,
                |d| {
                    set_json(d, "config.json", &["slice", "duration"], "200us".into());
                    answer(d, "slice_us", 200.into());
                    answer(d, "bytes_per_slice", 23750.into());
                },
                "config.json",
            ),
            (
                "config.json deleted",
                true,
                |d| std::fs::remove_file(d.join("config.json")).unwrap(),
                "config.json",
            ),
            (
                "session.lh has the commands only in comments",
                true,
                |d| {
                    edit(d, "session.lh", |t| {
                        t.replace("\nschedule 2", "\n# schedule 2")
                    })
                },
                "session.lh",
            ),
        ],
    );
}

#[test]
fn lab02_shortcuts_score_below_full() {
    assert_tampers_fail(
        "02",
        &[
            (
                "rr.json edited (200 us slices) and rr_cycle_us follows it",
                true,
                |d| {
                    set_json(d, "rr.json", &["slice", "duration"], "200us".into());
                    answer(d, "rr_cycle_us", 1400.into());
                },
                "rr.json",
            ),
            (
                "opera.json with 1 host per ToR instead of rr.json's 2",
                true,
                |d| set_json(d, "opera.json", &["tors", "hosts_per_tor"], 1.into()),
                "opera.json",
            ),
            (
                "rr.json deleted",
                true,
                |d| std::fs::remove_file(d.join("rr.json")).unwrap(),
                "rr.json",
            ),
        ],
    );
}

#[test]
fn lab03_shortcuts_score_below_full() {
    assert_tampers_fail(
        "03",
        &[(
            "vlb.json and hoho.json switched to direct routing, answers copied from direct",
            true,
            |d| {
                let direct = serde_json::json!({"algorithm": "direct", "lookup": "hop"});
                set_json(d, "vlb.json", &["routing"], direct.clone());
                set_json(d, "hoho.json", &["routing"], direct);
                for n in ["vlb", "hoho"] {
                    answer(d, &format!("{n}_max_hops"), 1.into());
                    answer(d, &format!("{n}_worst_latency_slices"), 6.into());
                    answer(
                        d,
                        &format!("{n}_s1_s4_ts0_path"),
                        serde_json::json!(["s1", "s4"]),
                    );
                    answer(d, &format!("{n}_s1_s4_ts0_arrives_slice"), 5.into());
                }
            },
            "vlb.json",
        )],
    );
}

#[test]
fn lab04_shortcuts_score_below_full() {
    assert_tampers_fail(
        "04",
        &[
            (
                "config.json switched to round_robin, sched.json untouched",
                false,
                |d| {
                    set_json(
                        d,
                        "config.json",
                        &["topology"],
                        serde_json::json!({"kind": "round_robin"}),
                    )
                },
                "config.json",
            ),
            (
                "config.json reads the solution's schedule, sched.json untouched",
                false,
                |d| {
                    let (_, lab) = folders().into_iter().find(|(n, _)| n == "04").unwrap();
                    std::fs::create_dir_all(d.join("solution")).unwrap();
                    std::fs::copy(
                        lab.join("solution/sched.json"),
                        d.join("solution/sched.json"),
                    )
                    .unwrap();
                    set_json(
                        d,
                        "config.json",
                        &["topology", "path"],
                        "solution/sched.json".into(),
                    );
                },
                "config.json",
            ),
            (
                "config.json shrunk to 2 ToRs, sched.json one circuit",
                false,
                |d| {
                    set_json(d, "config.json", &["tors", "count"], 2.into());
                    set_json(d, "config.json", &["ocs", "ports"], 2.into());
                    std::fs::write(
                        d.join("sched.json"),
                        r#"{"tors": 2, "uplinks": 1, "slices": 1, "circuits": [
                            {"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0}]}"#,
                    )
                    .unwrap();
                },
                "config.json",
            ),
        ],
    );
}

#[test]
fn lab05_shortcuts_score_below_full() {
    assert_tampers_fail(
        "05",
        &[
            (
                "config.json and schedule.json shrunk to 2 ToRs, 1 slice",
                false,
                |d| {
                    set_json(d, "config.json", &["tors", "count"], 2.into());
                    set_json(d, "config.json", &["ocs", "ports"], 2.into());
                    std::fs::write(
                        d.join("schedule.json"),
                        r#"{"tors": 2, "uplinks": 1, "slices": 1, "circuits": [
                            {"ts": 0, "tor1": 0, "port1": 0, "tor2": 1, "port2": 0}]}"#,
                    )
                    .unwrap();
                    let e = |dst| {
                        serde_json::json!({"match": {"dst": dst, "arrival": 0, "ingress": "any",
                            "class": null, "bucket": null},
                            "action": {"hop": {"port": 0, "depart": 0}}})
                    };
                    let t = serde_json::json!({"slices": 1, "lookup": "hop", "multipath": "none",
                        "buckets": 1, "tors": [{"tor": 0, "entries": [e(1)]},
                                               {"tor": 1, "entries": [e(0)]}]});
                    std::fs::write(d.join("tables.json"), t.to_string()).unwrap();
                },
                "config.json",
            ),
            (
                "tables.json copied from `lighthouse compile config.json --out out/`",
                false,
                |d| {
                    let out = d.join("out");
                    let o = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
                        .args(["compile", d.join("config.json").to_str().unwrap(), "--out"])
                        .arg(&out)
                        .output()
                        .unwrap();
                    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                    std::fs::copy(out.join("tables.json"), d.join("tables.json")).unwrap();
                },
                "tables.json",
            ),
        ],
    );
}

#[test]
fn lab06_shortcuts_score_below_full() {
    assert_tampers_fail(
        "06",
        &[(
            "direct.json edited (200 us slices) and the burst answers follow it",
            true,
            |d| {
                // The answers.json route (the solution's answers.py would
                // take the Python one).
                std::fs::remove_file(d.join("answers.py")).unwrap();
                set_json(d, "direct.json", &["slice", "duration"], "200us".into());
                answer(d, "frames_per_slice", 15.into());
                answer(d, "direct_burst10_dropped", 0.into());
                answer(d, "hoho_burst25_rerouted", 10.into());
                answer(d, "hoho_burst25_dropped", 0.into());
            },
            "direct.json",
        )],
    );
}

#[test]
fn lab08_shortcuts_score_below_full() {
    assert_tampers_fail(
        "08",
        &[
            (
                "config.json recomputes every 1 s and the answer follows it",
                true,
                |d| {
                    set_json(d, "config.json", &["ta", "update_interval"], "1s".into());
                    answer(d, "reconfigure_every_ms", 1000.into());
                },
                "config.json",
            ),
            (
                "config.json reads another matrix file, tm.txt untouched",
                true,
                |d| {
                    std::fs::rename(d.join("tm.txt"), d.join("mine.txt")).unwrap();
                    let (_, lab) = folders().into_iter().find(|(n, _)| n == "08").unwrap();
                    std::fs::copy(lab.join("tm.txt"), d.join("tm.txt")).unwrap();
                    set_json(
                        d,
                        "config.json",
                        &["ta", "traffic_matrix"],
                        "mine.txt".into(),
                    );
                },
                "config.json",
            ),
        ],
    );
}

/// The solution's ingress.p4 with `from` replaced by `to`.
fn edit_ingress(d: &Path, from: &str, to: &str) {
    edit(d, "include/ingress.p4", |t| {
        assert!(t.contains(from), "ingress.p4 has no {from:?}");
        t.replace(from, to)
    });
}

const DECLARE: &str =
    "    LH_COUNTER(LH_MAX_SLICES, lab_arrivals); /* lab 07: host frames by arrival slice */";
const COUNT: &str = "                if (meta.kind == KIND_HOST) {
                    LH_COUNT(lab_arrivals, meta.arrival);
                }";

#[test]
fn lab07_shortcuts_score_below_full() {
    if let Some(why) = p4_missing("lab07_shortcuts_score_below_full") {
        eprintln!("SKIPPED lab07_shortcuts_score_below_full: {why}");
        return;
    }
    let ns_before = common::lh_namespaces();
    assert_tampers_fail(
        "07",
        &[
            (
                "the counter's text in a file lighthouse.p4 never includes",
                false,
                |d| {
                    std::fs::write(d.join("include/lab.p4"), format!("{DECLARE}\n{COUNT}\n"))
                        .unwrap()
                },
                "lab_arrivals",
            ),
            (
                "the counter's text inside #if 0",
                true,
                |d| {
                    edit_ingress(d, DECLARE, &format!("#if 0\n{DECLARE}\n#endif"));
                    edit_ingress(d, COUNT, &format!("#if 0\n{COUNT}\n#endif"));
                },
                "lab_arrivals",
            ),
            (
                "counted, but always in cell 0",
                true,
                |d| {
                    edit_ingress(
                        d,
                        "LH_COUNT(lab_arrivals, meta.arrival);",
                        "LH_COUNT(lab_arrivals, 0);",
                    )
                },
                "lab_arrivals",
            ),
            (
                "counting every frame, from the fabric too",
                true,
                |d| {
                    edit_ingress(
                        d,
                        COUNT,
                        "                LH_COUNT(lab_arrivals, meta.arrival);",
                    )
                },
                "lab_arrivals",
            ),
            (
                "counted by departure slice (meta.depart0) instead of arrival",
                true,
                |d| {
                    edit_ingress(
                        d,
                        "LH_COUNT(lab_arrivals, meta.arrival);",
                        "LH_COUNT(lab_arrivals, meta.depart0);",
                    )
                },
                "lab_arrivals",
            ),
            (
                "lighthouse.p4 includes the reference solution's ingress.p4",
                false,
                |d| {
                    let (_, lab) = folders().into_iter().find(|(n, _)| n == "07").unwrap();
                    let sol = lab.join("solution/include/ingress.p4");
                    edit(d, "lighthouse.p4", |t| {
                        t.replace(
                            "#include \"include/ingress.p4\"",
                            &format!("#include \"{}\"", sol.display()),
                        )
                    });
                },
                "outside the working copy",
            ),
        ],
    );
    assert_eq!(
        ours_left(&ns_before),
        Vec::<String>::new(),
        "lab 07 grading left namespaces"
    );
}

#[test]
fn lab07_without_the_p4_toolchain_is_incomplete_never_full_marks() {
    // The solution, graded where p4c-bm2-ss and simple_switch are not on
    // PATH: the checks that need them could not run.
    let w = work("07", true);
    let path = "/usr/bin:/bin:/usr/sbin:/sbin";
    let hidden = ["p4c-bm2-ss", "simple_switch"]
        .iter()
        .all(|t| !std::env::split_paths(path).any(|d| d.join(t).exists()));
    if !hidden {
        eprintln!(
            "SKIPPED lab07_without_the_p4_toolchain_is_incomplete: the toolchain is in {path}"
        );
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .args(["lab", "grade", "07", "--dir"])
        .arg(w.path())
        .env("PATH", path)
        .env("LIGHTHOUSE_LABS", labs())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{out}");
    let (x, y) = score(&out);
    assert!(x < y, "{out}");
    assert!(
        out.contains(&format!(
            "Score: {x}/{y}, INCOMPLETE: 3 checks could not run (p4c-bm2-ss not on PATH"
        )),
        "{out}"
    );
    assert!(
        !out.contains('✗'),
        "nothing failed, it could not run: {out}"
    );
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

/// Grade lab `num`'s solution (its Python file over the starter): exit 0,
/// `checks` of `checks` passed, the report names `route`, and nothing is
/// written into the working copy (no __pycache__). The working copy.
fn python_solution_full_marks(num: &str, route: &str, checks: u32) -> tempfile::TempDir {
    let w = work(num, true);
    let before = snapshot(w.path());
    let o = grade_dir(num, w.path());
    assert_eq!(o.code, 0, "lab {num}: {}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains(route), "{}", o.stdout);
    assert_eq!(score(&o.stdout), (checks, checks), "{}", o.stdout);
    assert!(!o.stdout.contains('✗'), "{}", o.stdout);
    assert_eq!(snapshot(w.path()), before, "lab {num}: grading wrote files");
    w
}

#[test]
fn lab04_python_route_solution_scores_full_marks_and_the_stub_below() {
    if no_venv("lab04 Python route").is_some() {
        return;
    }
    // The reference topo.py: the Python route, full marks.
    let w = python_solution_full_marks("04", "route: Python", 6);
    // Not vacuous: the Python route grades topo.py, not the solution's
    // sched.json that sits beside it. A circle that forgets to rotate
    // repeats slice 0's pairs.
    edit(w.path(), "topo.py", |t| {
        t.replace("tors.insert(1, tors.pop())", "pass")
    });
    let o = grade_dir("04", w.path());
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        hints_of(&o.stdout, "every pair of ToRs meets exactly once")
            .contains("meet more than once"),
        "{}",
        o.stdout
    );
    // The stub, once the student starts editing it: slice 0 only.
    let w = work("04", false);
    edit(w.path(), "topo.py", |t| {
        t + "\n# started on the Python route\n"
    });
    let o = grade_dir("04", w.path());
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("route: Python"), "{}", o.stdout);
    let (x, y) = score(&o.stdout);
    assert!(x < y, "the stub scored {x}/{y}\n{}", o.stdout);
    assert!(
        hints_of(&o.stdout, "the cycle is as short as possible").contains("you have 1 slices"),
        "{}",
        o.stdout
    );
}

#[test]
fn lab08_python_route_solution_scores_full_marks_and_bad_matrices_are_named() {
    if no_venv("lab08 Python route").is_some() {
        return;
    }
    // The reference tm.py: the Python route, full marks.
    let w = python_solution_full_marks("08", "route: Python, tm.txt is not graded", 10);
    // Not vacuous: tm.py is graded, not the solution's tm.txt beside it.
    // A heavier s1 -> s2 takes s1's circuit.
    edit(w.path(), "tm.py", |t| {
        t.replace("(0, 5, 50_000_000)", "(0, 1, 500_000_000)")
    });
    let o = grade_dir("08", w.path());
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        hints_of(&o.stdout, "the hotspot matching connects s1 and s6")
            .contains("s1 is matched with"),
        "{}",
        o.stdout
    );
    // What tm(net) returns is checked and named, before the scheduler.
    for (body, says) in [
        (
            "return [[1] * 8 for _ in range(8)]",
            "expected 0 on the diagonal",
        ),
        (
            "return [[0] * 8 for _ in range(7)]",
            "it returned 7 rows of 8",
        ),
        ("return 42", "it returned a int"),
        (
            "m = [[0] * 8 for _ in range(8)]\n    m[0][1] = 'x'\n    return m",
            "row 1, column 2 is 'x'",
        ),
    ] {
        write(w.path(), "tm.py", &format!("def tm(net):\n    {body}\n"));
        assert_hint(
            "08",
            w.path(),
            "tm.py's tm(net) returns an 8 x 8 matrix",
            says,
            (1, 10),
        );
    }
    // The untouched stub: the tm.txt route, named.
    let w = work("08", false);
    let o = grade_dir("08", w.path());
    assert!(
        o.stdout
            .contains("route: matrix file (tm.txt) (tm.py is the untouched stub"),
        "{}",
        o.stdout
    );
}

/// Grading `dir` as lab `num` fails (exit 1) and scores `want`, with
/// `says` in the hints of the check whose name starts with `check`.
fn assert_hint(num: &str, dir: &Path, check: &str, says: &str, want: (u32, u32)) {
    let o = grade_dir(num, dir);
    assert_eq!(o.code, 1, "{says}: {}{}", o.stdout, o.stderr);
    assert!(
        hints_of(&o.stdout, check).contains(says),
        "want {says:?} under {check:?}:\n{}",
        o.stdout
    );
    assert_eq!(score(&o.stdout), want, "{says}: {}", o.stdout);
}

#[test]
fn lab05_python_route_solution_scores_full_marks_and_bad_paths_are_named() {
    if no_venv("lab05 Python route").is_some() {
        return;
    }
    // The reference tables.py: the Python route, full marks.
    let w = python_solution_full_marks("05", "route: Python, tables.json is not graded", 10);
    let starter = "paths = [net.path([0, 1, 3], [0, 1], 0)]";
    // Not vacuous: tables.py is graded, not the solution's tables.json
    // beside it. s1 -> s4 arriving in slice 1 via s2 waits for the next
    // cycle's s1-s2 circuit: it arrives a whole cycle later.
    edit(w.path(), "tables.py", |t| {
        assert!(t.contains(starter), "{t}");
        t.replace(
            starter,
            "paths = [net.path([0, 1, 3], [0, 1], 0), net.path([0, 1, 3], [3, 4], 1)]",
        )
    });
    assert_hint(
        "05",
        w.path(),
        "every packet from s1 reaches its destination",
        "hint: s1 -> s4 arriving in slice 1: delivered 3 slices later, more than a cycle",
        (9, 10),
    );
    // Direct paths only: the starter's two-hop path is gone, named.
    let w = work("05", true);
    edit(w.path(), "tables.py", |t| {
        t.replace(starter, "paths = []")
            .replace(" and (src, dst, ts) != (0, 3, 0)", "")
    });
    assert_hint(
        "05",
        w.path(),
        "the starter's two-hop path is kept",
        "tables.py: it goes s1 -> s4; keep the starter's path net.path([0, 1, 3], [0, 1], 0)",
        (9, 10),
    );
    // What tables(net) returns goes through entries(); what it refuses,
    // and the built-ins that would work the slices out, are named.
    for (body, says) in [
        (
            "return [net.path([0, 2], [0], 0)]",
            "tables.py, line 2: lighthouse.PathError: path 0->2 arriving in slice 0: hop 0 (ToR 0 -> ToR 2)",
        ),
        (
            // Two paths through s2 for s4, arriving in slice 0: one leaves
            // in slice 1, the other in slice 2.
            "return [net.path([0, 1, 3], [0, 1], 0), net.path([0, 1, 2, 3], [3, 5, 6], 2)]",
            "per-hop conflict at ToR 1",
        ),
        (
            "return [net.earliest_path(0, 3, 0)]",
            "tables.py, line 2: calls the built-in net.earliest_path()",
        ),
        (
            "return net.hoho()",
            "tables.py, line 2: calls the built-in net.hoho()",
        ),
        (
            "return 42",
            "tables(net) returned a int, not a list of paths",
        ),
    ] {
        write(
            w.path(),
            "tables.py",
            &format!("def tables(net):\n    {body}\n"),
        );
        assert_hint(
            "05",
            w.path(),
            "tables.py's tables(net) runs",
            says,
            (2, 10),
        );
    }
    // The stub, begun: the starter's path only, every source misses some.
    let w = work("05", false);
    edit(w.path(), "tables.py", |t| t + "\n# begun\n");
    assert_hint(
        "05",
        w.path(),
        "every packet from s3 reaches",
        "s3 (ToR 2) has no entry for dst s1 (dst: 0) arrival 0",
        (6, 10),
    );
}

#[test]
fn lab06_python_route_solution_scores_full_marks_and_bad_answers_are_named() {
    if no_venv("lab06 Python route").is_some() {
        return;
    }
    // The reference answers.py: the Python route, full marks.
    let w = python_solution_full_marks("06", "route: Python, answers.json is not graded", 14);
    // Not vacuous: answers.py is graded, not the solution's answers.json
    // beside it. A slice without its dark time carries 8 frames, and the
    // bursts' answers follow that mistake.
    edit(w.path(), "answers.py", |t| {
        let dark = t
            .lines()
            .find(|l| l.trim_start().starts_with("dark = "))
            .unwrap();
        t.replace(dark, "    dark = 0")
    });
    assert_hint(
        "06",
        w.path(),
        "frames_per_slice",
        "8 is not right",
        (10, 14),
    );
    assert_hint(
        "06",
        w.path(),
        "hoho_burst25_dropped",
        "1 is not right",
        (10, 14),
    );
    // What answers(direct, hoho) returns is checked and named.
    for (text, says) in [
        (
            "def answers(direct, hoho):\n    return [5]\n",
            "answers.py: answers(direct, hoho) returns a dict {question: answer}; it returned a list",
        ),
        (
            "def answers(direct, hoho):\n    return {\"direct_primary_slice\": 5, \"hoho_primary_path\": {0, 2}}\n",
            "answers.py: answers(direct, hoho)['hoho_primary_path'] is a set",
        ),
        (
            "def answers(net):\n    return {}\n",
            "TypeError: answers() takes 1 positional argument but 2 were given",
        ),
        (
            "def answers(direct, hoho):\n    return {\"frames_per_slice\": hoho.table(9)}\n",
            "answers.py, line 2: IndexError",
        ),
    ] {
        write(w.path(), "answers.py", text);
        assert_hint(
            "06",
            w.path(),
            "answers.py's answers(direct, hoho) runs",
            says,
            (2, 14),
        );
    }
    // A question left out is "not answered yet", naming answers.py.
    write(
        w.path(),
        "answers.py",
        "def answers(direct, hoho):\n    return {\"drop_reason\": \"slice_miss\"}\n",
    );
    assert_hint(
        "06",
        w.path(),
        "frames_per_slice",
        "not answered yet (\"frames_per_slice\" is missing or null in what answers.py's answers(direct, hoho) returns)",
        (4, 14),
    );
}

#[test]
fn lab05_and_lab06_routes_are_chosen_and_named() {
    // (lab, the Python file, its function, the file it replaces, checks
    // of the file route). The untouched stub leaves the file graded (no
    // Python needed), and so does a script without the function; the
    // solution's file alone scores full marks.
    for (num, py, def, file, checks) in [
        ("05", "tables.py", "tables(net)", "tables.json", 10),
        (
            "06",
            "answers.py",
            "answers(direct, hoho)",
            "answers.json",
            13,
        ),
    ] {
        let w = work(num, false);
        let o = grade_dir(num, w.path());
        assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
        assert!(
            o.stdout.contains(&format!(
                "({file}) ({py} is the untouched stub; edit its {def} for the Python route)"
            )),
            "{}",
            o.stdout
        );
        let w = work(num, true);
        std::fs::remove_file(w.path().join(py)).unwrap();
        let o = grade_dir(num, w.path());
        assert_eq!(o.code, 0, "the {file} solution: {}{}", o.stdout, o.stderr);
        assert!(o.stdout.contains(&format!("(no {py})")), "{}", o.stdout);
        assert_eq!(score(&o.stdout), (checks, checks), "{}", o.stdout);
        write(w.path(), py, "def build(net):\n    return None\n");
        let o = grade_dir(num, w.path());
        assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
        assert!(
            o.stdout
                .contains(&format!("{py} defines no top-level `def {def}:`")),
            "{}",
            o.stdout
        );
    }
}

#[test]
fn lab04_routes_are_chosen_and_named() {
    // The untouched stub leaves sched.json graded (no Python needed): the
    // starter's sched.json route, and the JSON solution without topo.py.
    let w = work("04", false);
    let o = grade_dir("04", w.path());
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("route: schedule file (sched.json) (topo.py is the untouched stub"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("sched.json loads"), "{}", o.stdout);
    let w = work("04", true);
    std::fs::remove_file(w.path().join("topo.py")).unwrap();
    let o = grade_dir("04", w.path());
    assert_eq!(
        o.code, 0,
        "the sched.json solution: {}{}",
        o.stdout, o.stderr
    );
    assert!(o.stdout.contains("(no topo.py)"), "{}", o.stdout);
    // A topo.py without `def topo(net):` is not the Python route.
    write(
        w.path(),
        "topo.py",
        "def build(net):\n    return net.round_robin()\n",
    );
    let o = grade_dir("04", w.path());
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("defines no top-level `def topo(net):`"),
        "{}",
        o.stdout
    );
}

#[test]
fn lab04_python_shortcuts_score_below_full() {
    if no_venv("lab04 Python shortcuts").is_some() {
        return;
    }
    assert_tampers_fail(
        "04",
        &[
            (
                "topo.py calls the built-in net.round_robin()",
                true,
                |d| {
                    write(
                        d,
                        "topo.py",
                        "def topo(net):\n    return net.round_robin()\n",
                    )
                },
                "topo.py, line 2: calls the built-in net.round_robin()",
            ),
            (
                "topo.py reaches round_robin through getattr",
                true,
                |d| {
                    write(
                        d,
                        "topo.py",
                        "def topo(net):\n    f = getattr(net, 'round' + '_robin')\n    return f()\n",
                    )
                },
                "topo.py, line 3: calls the built-in net.round_robin()",
            ),
            (
                "topo.py calls the class's round_robin on the net",
                true,
                |d| {
                    write(
                        d,
                        "topo.py",
                        "import lighthouse\n\n\ndef topo(net):\n    return lighthouse.LighthouseNet.round_robin(net)\n",
                    )
                },
                "topo.py, line 5: calls the built-in net.round_robin()",
            ),
            (
                "topo.py prints a forged result line",
                true,
                |d| {
                    write(
                        d,
                        "topo.py",
                        "import os\n\n\ndef topo(net):\n    os.write(1, b'LHLAB-RESULT {\"status\": \"ok\"}\\n')\n    os._exit(0)\n",
                    )
                },
                "ended without a result",
            ),
        ],
    );
}

#[test]
fn lab04_python_errors_are_hints_naming_the_line() {
    if no_venv("lab04 Python errors").is_some() {
        return;
    }
    let runs = "topo.py's topo(net) runs";
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "an exception",
            "def topo(net):\n    tors = [0, 1]\n    return net.connect(tors[5], 0, 0, 0, 0)\n",
            &[
                "topo.py, line 3: IndexError: list index out of range",
                "return net.connect(tors[5], 0, 0, 0, 0)",
            ],
        ),
        (
            "a refused connect()",
            "def topo(net):\n    net.connect(0, 0, 1, 0, 0)\n    net.connect(0, 0, 2, 0, 0)\n    return True\n",
            &[
                "topo.py, line 3: connect(0, 0, 2, 0, 0) refused",
                "ToR 0 port 0 is already used",
            ],
        ),
        (
            "a syntax error",
            "def topo(net)\n    return True\n",
            &["topo.py, line 1: SyntaxError"],
        ),
        (
            "a topo that connects nothing",
            "def topo(net):\n    return True\n",
            &["topology refused", "connected nothing"],
        ),
    ];
    let mut wrong = Vec::new();
    for (what, text, want) in cases {
        let w = work("04", false);
        write(w.path(), "topo.py", text);
        let o = grade_dir("04", w.path());
        let h = hints_of(&o.stdout, runs);
        eprintln!("lab 04, {what}: {h}");
        if o.code != 1 || want.iter().any(|s| !h.contains(s)) {
            wrong.push(format!(
                "{what}: exit {}, want hints {want:?} under {runs:?}\n{}{}",
                o.code, o.stdout, o.stderr
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn lab03_python_route_grades_routing_py() {
    if no_venv("lab03 Python route").is_some() {
        return;
    }
    python_solution_full_marks("03", "route: answers.json and Python", 19);
    // Each failing routing.py, from the solution's answers: the check and
    // the hint it must give.
    let late = "routing.py: every path delivers no later";
    let cases: [(&str, String, &str, &[&str]); 5] = [
        (
            "the stub, begun (direct paths only)",
            std::fs::read_to_string(labs().join("03-routing/routing.py")).unwrap() + "\n# begun\n",
            late,
            &["are delivered later than they could be", "a 2-hop path takes"],
        ),
        (
            "a path over a circuit that is not up",
            "def routing(net):\n    return [net.path([0, 5], [0], 0)]\n".into(),
            "routing.py's routing(net) runs",
            &["routing.py, line 2: lighthouse.PathError: path 0->5 arriving in slice 0: hop 0", "slice 0"],
        ),
        (
            "one path only",
            "def routing(net):\n    return [net.earliest_path(0, 1, 0, 2)]\n".into(),
            "routing.py covers every",
            &["391 of 392", "ToR 0 -> ToR 1 arriving in slice 1"],
        ),
        (
            "returning the built-in net.hoho()",
            "def routing(net):\n    return net.hoho()\n".into(),
            "routing.py's routing(net) runs",
            &["routing.py, line 2: calls the built-in net.hoho()"],
        ),
        (
            "returning the built-in hoho's paths, 4 hops allowed (Fig. 6c with max_hop=4)",
            "def routing(net):\n    n = net.config.tor_num\n    return [net.earliest_path(s, d, t, 4) for s in range(n) for d in range(n) if s != d for t in range(net.ts_num)]\n".into(),
            "routing.py: every path has at most 2 hops",
            &["paths have more than 2 hops"],
        ),
    ];
    let mut wrong = Vec::new();
    for (what, text, check, want) in cases {
        let w = work("03", true);
        write(w.path(), "routing.py", &text);
        let o = grade_dir("03", w.path());
        let h = hints_of(&o.stdout, check);
        let (x, y) = try_score(&o.stdout).unwrap_or((0, 0));
        eprintln!("lab 03, {what}: {x}/{y}: {h}");
        if o.code != 1 || x >= y || want.iter().any(|s| !h.contains(s)) {
            wrong.push(format!(
                "{what}: {x}/{y}, exit {}, want hints {want:?} under {check:?}\n{}{}",
                o.code, o.stdout, o.stderr
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn python_route_without_lighthouse_is_incomplete_never_full_marks() {
    // A python that cannot import lighthouse (the system one), and one
    // that does not exist: exit 3, INCOMPLETE naming scripts/setup-python.sh.
    let system = Command::new("/usr/bin/python3")
        .args(["-I", "-c", "import lighthouse"])
        .output()
        .is_ok_and(|o| !o.status.success());
    let mut pythons = vec!["/nonexistent/python3"];
    if system {
        pythons.push("/usr/bin/python3");
    } else {
        eprintln!("SKIP /usr/bin/python3 case: it is missing or can import lighthouse");
    }
    for py in pythons {
        for num in ["03", "04", "05", "06", "08"] {
            let w = work(num, true);
            let o = lighthouse_env(
                &["lab", "grade", num, "--dir", w.path().to_str().unwrap()],
                &[("LIGHTHOUSE_PYTHON", py)],
            );
            assert_eq!(o.code, 3, "lab {num}, {py}: {}{}", o.stdout, o.stderr);
            let (x, y) = score(&o.stdout);
            assert!(x < y, "lab {num}, {py}: {x}/{y}");
            assert!(o.stdout.contains("INCOMPLETE"), "{}", o.stdout);
            assert!(
                o.stdout.contains(&format!("LIGHTHOUSE_PYTHON={py}"))
                    && o.stdout.contains("scripts/setup-python.sh"),
                "{}",
                o.stdout
            );
        }
    }
}
