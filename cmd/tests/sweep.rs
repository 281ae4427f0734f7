//! `lighthouse sweep` (docs/virtual-time.md, "Sweeps"): one CSV row per
//! point, the same table for any number of jobs, bad input refused before
//! anything runs, progress on a terminal only. The Dask side is
//! python/tests/test_sweep.py's, which starts its own cluster.

mod common;

fn sweep(args: &[&str]) -> std::process::Output {
    common::lighthouse("sweep", args)
}

const GRID: [&str; 13] = [
    "topologies/rotornet-8.json",
    "--axis",
    "routing.algorithm=direct,vlb",
    "--axis",
    "seed=1,2",
    "--workload",
    "kvstore",
    "--load",
    "0.3",
    "--duration",
    "2ms",
    "--drain",
    "200ms",
];

#[test]
fn a_sweep_is_one_table_the_same_for_any_number_of_jobs() {
    let one = sweep(&[&GRID[..], &["--jobs", "1"]].concat());
    let two = sweep(&[&GRID[..], &["--jobs", "2"]].concat());
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(one.stdout, two.stdout);
    let text = String::from_utf8(one.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with("routing.algorithm,seed,flows,completed,fct_p50_us,"));
    let points: Vec<String> = lines[1..]
        .iter()
        .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(points, ["direct,1", "direct,2", "vlb,1", "vlb,2"]);
    // Each point is the run `lighthouse sim --workload` gives.
    // (The grid's workload flags, with the second seed.)
    let sim = common::sim(&[&GRID[..1], &GRID[5..], &["--seed", "2", "--json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    let flows = v["flows"]["flows"].as_u64().unwrap();
    let p50 = v["flows"]["buckets"][3]["p50"].as_u64().unwrap() as f64 / 1e3;
    let row: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(row[2], flows.to_string());
    assert_eq!(row[4], p50.to_string());
    // The wall-time summary is on stderr.
    assert!(String::from_utf8_lossy(&one.stderr).contains("4 points in"));
}

#[test]
fn bad_input_is_refused_naming_the_point_and_field_before_anything_runs() {
    let dir = tempfile_dir();
    let out = dir.join("t.csv");
    let o = sweep(&[
        "topologies/rotornet-8.json",
        "--axis",
        "slice.duration=100us,soon",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("point slice.duration=soon: ") && e.contains("at $.slice.duration: "),
        "{e}"
    );
    assert!(!out.exists(), "nothing is written");
    for (axis, says) in [
        ("load=0.1,0", "load 0: a fraction"),
        ("routing.algorithm=warp", "at $.routing.algorithm"),
        ("nowhere", "NAME=V1,V2"),
    ] {
        let o = sweep(&["topologies/rotornet-8.json", "--axis", axis]);
        assert_eq!(o.status.code(), Some(2), "{axis}");
        assert!(o.stdout.is_empty());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{axis}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn progress_is_drawn_on_a_terminal_only() {
    let args = GRID.join(" ");
    let (ok, tty) = common::on_terminal(&format!("sweep {args} --jobs 1"));
    assert!(ok, "{tty}");
    assert!(tty.contains("sweep ["), "a bar on a terminal: {tty:?}");
    let (ok, quiet) = common::on_terminal(&format!("sweep {args} --jobs 1 --quiet"));
    assert!(ok && !quiet.contains("sweep ["), "{quiet:?}");
    let piped = sweep(&GRID);
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("sweep ["));
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("lh-sweep-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
