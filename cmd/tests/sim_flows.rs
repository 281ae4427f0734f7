//! `lighthouse sim --flows`: a flow list in htsim's format replayed over
//! the simulated TCP with the config's transport knobs (`hosts.tcp`), per
//! flow results as CSV, and clear errors (docs/fidelity.md).

mod common;

use common::sim;

/// rotornet-8 (16 hosts) with `hosts.tcp` set to `tcp`, in `dir`.
fn config(dir: &std::path::Path, tcp: serde_json::Value) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../topologies/rotornet-8.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root).unwrap()).unwrap();
    v["hosts"] = serde_json::json!({ "tcp": tcp });
    let p = dir.join(format!("rotornet-8-{}.json", tcp.to_string().len()));
    std::fs::write(&p, v.to_string()).unwrap();
    p.display().to_string()
}

/// (src, dst, bytes, start_ns, fct_ns, data_fct_ns) of each CSV line.
type Row = (String, String, u64, u64, Option<u64>, Option<u64>);

fn csv_rows(path: &std::path::Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "id,src,dst,size_bytes,start_ns,fct_ns,retrans,timeouts,reord_seen,ooo_pkts,data_fct_ns"
        )
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].to_string(),
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().ok(),
                f[10].parse().ok(),
            )
        })
        .collect()
}

#[test]
fn a_flow_list_replays_with_the_configs_window_and_writes_each_flow() {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows.htsim");
    // htsim's format: src dst bytes start_ns, hosts from 0.
    std::fs::write(&flows, "0 5 1000 0\n3 12 200000 50000\n15 0 30000 100000\n").unwrap();
    let run = |cfg: &str, csv: &std::path::Path| {
        let o = sim(&[
            cfg,
            "--flows",
            flows.to_str().unwrap(),
            "--fct-csv",
            csv.to_str().unwrap(),
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["conservation_holds"], true);
        csv_rows(csv)
    };
    let wide = run(
        &config(dir.path(), serde_json::json!({"initial_window": 20})),
        &dir.path().join("wide.csv"),
    );
    assert_eq!(
        wide.iter()
            .map(|r| (r.0.as_str(), r.1.as_str(), r.2, r.3))
            .collect::<Vec<_>>(),
        vec![
            ("h1", "h6", 1000, 0),
            ("h4", "h13", 200000, 50000),
            ("h16", "h1", 30000, 100000)
        ]
    );
    assert!(wide.iter().all(|r| r.4.is_some()), "{wide:?}");
    // As htsim measures it (first data out to the last ACK back): no
    // handshake, so shorter than connect-to-receipt for a one-packet flow
    // (the handshake is a round trip, the last ACK half of one).
    let (fct, data) = (wide[0].4.unwrap(), wide[0].5.unwrap());
    assert!(
        data < fct,
        "1000 B: {data} ns from data to ACK, {fct} ns from connect"
    );
    // A window capped at 2 segments takes more round trips for 200 KB: the
    // config's knob reaches the simulated stack (virtual time: the same
    // figures on every run).
    let narrow = run(
        &config(
            dir.path(),
            serde_json::json!({"initial_window": 2, "max_window": 2}),
        ),
        &dir.path().join("narrow.csv"),
    );
    let (w, n) = (wide[1].4.unwrap(), narrow[1].4.unwrap());
    assert!(
        n > w + 1_000_000,
        "200 KB: {n} ns with 2 segments, {w} ns with 20"
    );
}

#[test]
fn bad_flow_lists_and_transport_knobs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("f.htsim");
    let cfg = "topologies/rotornet-8.json";
    let err = |args: &[&str]| {
        let o = sim(args);
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    std::fs::write(&flows, "0 1 100 0\n0 1 x 0\n").unwrap();
    let f = flows.to_str().unwrap();
    let e = err(&[cfg, "--flows", f]);
    assert!(
        e.contains("f.htsim:2: bytes \"x\" is not a whole number"),
        "{e}"
    );
    std::fs::write(&flows, "0 16 100 0\n").unwrap();
    let e = err(&[cfg, "--flows", f]);
    assert!(
        e.contains("f.htsim:1: dst 16: the network has hosts 0..15"),
        "{e}"
    );
    let e = err(&[cfg, "--fct-csv", "x.csv"]);
    assert!(
        e.contains("--fct-csv: only with --workload or --flows"),
        "{e}"
    );
    std::fs::write(&flows, "0 1 100 0\n").unwrap();
    let sack = config(dir.path(), serde_json::json!({"sack": true}));
    let e = err(&[&sack, "--flows", f]);
    assert!(e.contains("$.hosts.tcp.sack"), "{e}");
    // Pings use no TCP: the same config runs them.
    assert!(
        sim(&[&sack, "--count", "1", "--ping", "h1", "h2"])
            .status
            .success()
    );
}
