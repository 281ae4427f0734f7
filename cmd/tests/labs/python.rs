//! The Python routes of labs 03, 04, 05, 06 and 08: full marks for the
//! reference solution, bad files named with their line, the route chosen
//! and named, and incomplete without the Python package.

use super::*;

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
    let cases: [(&str, &str, &[&str]); 5] = [
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
        (
            "a topo that starts the network",
            "def topo(net):\n    net.start()\n    return True\n",
            &["topo.py, line 2: RuntimeError: net.start() brings up a live network"],
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
