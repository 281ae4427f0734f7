//! The shipped cases load, and each one's fabric compiles.

#[test]
fn shipped_cases_load_and_compile() {
    let cases = lh_conformance::shipped_cases().expect("cases.json");
    assert!(cases.len() >= 9, "{} cases", cases.len());
    for c in &cases {
        let f = c.fabric().unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(f.tor < f.compiled.schedule.tors());
        for (i, s) in c.frames.iter().enumerate() {
            lh_conformance::frame::build(s, i as u32).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        }
    }
}

#[test]
fn a_bad_case_file_names_the_json_path() {
    let d = std::env::temp_dir().join(format!("lh-conf-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("bad.json");
    std::fs::write(&p, r#"[{"name": "x", "config": "c.json", "tor": "s1", "frames": [{"id": "a", "slice": "zero", "ingress": "h1", "dst": "h2"}], "expect": []}]"#).unwrap();
    let e = lh_conformance::load_cases(&p).unwrap_err().to_string();
    std::fs::remove_dir_all(&d).unwrap();
    assert!(e.contains("[0].frames[0].slice"), "{e}");
}
