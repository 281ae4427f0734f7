//! Every lab's shortcuts and tampered files score below full marks, and
//! lab 07 without the P4 toolchain is incomplete, never full marks.

use super::*;

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
