//! `lighthouse compile` and `lighthouse show` from the command line: files,
//! summary, one table, one slice, and errors with a non-zero exit.

mod common;

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

fn topo(name: &str) -> String {
    format!("{}/../topologies/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn compile_shows_its_stage_on_a_terminal_only() {
    // Off a terminal stderr stays empty; on one, a spinner names each
    // stage (opera-108 takes about a second: the first stage is drawn).
    let (ok, stdout, stderr) = run(&["compile", &topo("opera-108.json")]);
    assert!(ok && stderr.is_empty(), "{stderr}");
    let (ok, shown) = common::on_terminal("compile topologies/opera-108.json");
    assert!(ok, "{shown}");
    assert!(shown.contains("compile [00:00:0"), "{shown}");
    assert!(shown.contains("schedule..."), "{shown}");
    // The summary is the same, after the spinner's line is cleared.
    let last = stdout.lines().last().unwrap();
    assert!(shown.contains(last), "{last:?} not in {shown}");
}

#[test]
fn compile_writes_schedule_tables_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (ok, stdout, stderr) = run(&[
        "compile",
        &topo("rotornet-8.json"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("8 ToRs x 1 uplinks"), "{stdout}");
    assert!(
        stdout.contains("cycle         7 slices of 100us"),
        "{stdout}"
    );
    assert!(
        stdout.contains("per ToR: min 49 / mean 49.00 / max 49 (total 392)"),
        "{stdout}"
    );
    for f in [
        "schedule.json",
        "ocs.json",
        "tables.json",
        "summary.json",
        "summary.txt",
    ] {
        assert!(Path::new(&out.join(f)).exists(), "{f} missing");
    }
    let tables: lh_ctrl::tables::Tables =
        serde_json::from_str(&std::fs::read_to_string(out.join("tables.json")).unwrap()).unwrap();
    assert_eq!(tables.tors.len(), 8);
    assert_eq!(tables.total_entries(), 392);
}

#[test]
fn compile_writes_binary_tables_on_request_equal_to_the_json_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, json) = (dir.path().join("bin"), dir.path().join("json"));
    for (out, format) in [(&bin, "binary"), (&json, "json")] {
        let (ok, stdout, stderr) = run(&[
            "compile",
            &topo("opera-8.json"),
            "--out",
            out.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert!(ok, "{stderr}");
        let file = if format == "binary" {
            "tables.lht"
        } else {
            "tables.json"
        };
        assert!(stdout.contains(file), "{stdout}");
    }
    assert!(!bin.join("tables.json").exists());
    assert!(!json.join("tables.lht").exists());
    let flat = lh_ctrl::tables::file::read(&mut std::io::BufReader::new(
        std::fs::File::open(bin.join("tables.lht")).unwrap(),
    ))
    .unwrap();
    let expanded: lh_ctrl::tables::Tables =
        serde_json::from_str(&std::fs::read_to_string(json.join("tables.json")).unwrap()).unwrap();
    assert!(expanded.total_entries() > 0);
    assert_eq!(flat.to_tables(), expanded);
    // A bad format is refused before anything is written.
    let none = dir.path().join("none");
    let (ok, _, stderr) = run(&[
        "compile",
        &topo("opera-8.json"),
        "--out",
        none.to_str().unwrap(),
        "--format",
        "xml",
    ]);
    assert!(!ok && stderr.contains("xml"), "{stderr}");
    assert!(!none.exists());
}

#[test]
fn show_prints_one_table_or_one_slice() {
    let (ok, stdout, stderr) = run(&["show", &topo("rotornet-8.json"), "--tor", "0"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("*** s1 time-flow table: 49 entries"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 50);
    let (ok, stdout, stderr) = run(&["show", &topo("rotornet-8.json"), "--slice", "0"]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("*** Slice 0 of 7"), "{stdout}");
    // Eight directed circuits: four bidirectional pairs.
    assert_eq!(
        stdout.lines().filter(|l| l.contains(" -> ")).count(),
        8,
        "{stdout}"
    );
}

#[test]
fn compile_and_show_errors_exit_non_zero_and_name_the_problem() {
    let (ok, _, stderr) = run(&["show", &topo("rotornet-8.json"), "--slice", "99"]);
    assert!(!ok);
    assert!(
        stderr.contains("slice 99 does not exist (the cycle has 7 slices)"),
        "{stderr}"
    );
    let (ok, _, stderr) = run(&["show", &topo("rotornet-8.json"), "--tor", "8"]);
    assert!(!ok);
    assert!(stderr.contains("ToR 8 does not exist"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let text = std::fs::read_to_string(topo("rotornet-8.json"))
        .unwrap()
        .replace("\"uplinks\": 1", "\"uplinks\": \"one\"");
    std::fs::write(&bad, text).unwrap();
    let out = dir.path().join("out");
    let (ok, _, stderr) = run(&[
        "compile",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("$.tors.uplinks"), "{stderr}");
    assert!(!out.exists(), "a failed compile writes nothing");
}

#[test]
fn compile_writes_the_htsim_topology_or_refuses_before_the_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    // opera-8 has 2 hosts per ToR and 4 uplinks: their format needs equal.
    let refused = dir.path().join("refused.txt");
    let (ok, _, stderr) = run(&[
        "compile",
        &topo("opera-8.json"),
        "--htsim-topology",
        refused.to_str().unwrap(),
    ]);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("$.tors.hosts_per_tor") && stderr.contains("$.tors.uplinks"),
        "{stderr}"
    );
    assert!(!refused.exists());
    // The authors' own setting: 108 slices x 3 topology slices, a path for
    // every pair in every slice, none waiting.
    let file = dir.path().join("topology.txt");
    let (ok, stdout, stderr) = run(&[
        "compile",
        &topo("opera-108-htsim-fig9.json"),
        "--htsim-topology",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains(
            "108 slices x 3 (eps 38.7 us, delta 1.7 us, r 10 us), 1248048 paths; 0 waiting"
        ),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("648 6 6 108"));
    assert_eq!(lines.next(), Some("324 38700000 1700000 10000000"));
}
