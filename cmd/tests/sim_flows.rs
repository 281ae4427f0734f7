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

/// The Opera authors' published files (public repository
/// TritonNetworking/opera-sim), under `$LH_OPERA_SIM` or
/// `../shared/fidelity/opera-sim` beside the repository, at their paths in
/// that repository. The project does not ship them (they are the authors'
/// data); where they are absent the test says so and checks nothing.
fn opera_sim_file(rel: &str) -> Option<std::path::PathBuf> {
    let base = std::env::var_os("LH_OPERA_SIM").map_or_else(
        || {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/fidelity/opera-sim")
        },
        std::path::PathBuf::from,
    );
    let p = base.join(rel);
    p.exists().then_some(p)
}

/// Nearest-rank percentile of `v` (sorted here).
fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[k - 1]
}

#[test]
fn the_opera_authors_websearch_flows_agree_with_their_fcts() {
    const FLOWS: &str = "Figure9_websearch/opera/traffic_gen/flows_1percLLload_1sec_648hosts.htsim";
    const FCTS: &str = "Figure9_websearch/opera/sim/FCT_cwnd20_1perc_LL_5paths.txt";
    let (Some(flows), Some(fcts)) = (opera_sim_file(FLOWS), opera_sim_file(FCTS)) else {
        // Straight to stderr (the harness captures `eprintln!`), so that
        // `make test`'s summary counts the skip (scripts/test-summary.sh).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_opera_authors_websearch_flows_agree_with_their_fcts: the Opera authors' {FLOWS} and {FCTS} are not under $LH_OPERA_SIM or ../shared/fidelity/opera-sim (docs/fidelity.md)"
        );
        return;
    };
    // A window: the first 1000 flows (the first 0.23 s of the 1 s list).
    let dir = tempfile::tempdir().unwrap();
    let window = dir.path().join("window.htsim");
    let text = std::fs::read_to_string(&flows).unwrap();
    let lines: Vec<&str> = text.lines().take(1000).collect();
    std::fs::write(&window, lines.join("\n") + "\n").unwrap();
    let csv = dir.path().join("ours.csv");
    let o = sim(&[
        "topologies/opera-108-htsim-fig9.json",
        "--flows",
        window.to_str().unwrap(),
        "--fct-csv",
        csv.to_str().unwrap(),
        "--drain",
        "1s",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Theirs: `FCT src dst bytes fct_ms start_ms`, matched by (src, dst,
    // bytes) and a start within 1 us.
    let theirs: Vec<(u64, u64, u64, f64, f64)> = std::fs::read_to_string(&fcts)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 6 && f[0] == "FCT").then(|| {
                (
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                    f[5].parse::<f64>().unwrap() * 1e6,
                )
            })
        })
        .collect();
    let ours = csv_rows(&csv);
    // Per size bucket under 1 MB: (theirs, ours) FCTs in ms, by the htsim
    // measure (first data out to the last ACK back).
    let mut buckets = vec![(Vec::new(), Vec::new()); 3];
    for r in &ours {
        let (s, d): (u64, u64) = (
            r.0[1..].parse::<u64>().unwrap() - 1,
            r.1[1..].parse::<u64>().unwrap() - 1,
        );
        let b = match r.2 {
            0..10_000 => 0,
            10_000..100_000 => 1,
            100_000..1_000_000 => 2,
            _ => continue,
        };
        let th = theirs
            .iter()
            .find(|t| (t.0, t.1, t.2) == (s, d, r.2) && (t.4 - r.3 as f64).abs() <= 1000.0);
        if let (Some(t), Some(ours)) = (th, r.5) {
            buckets[b].0.push(t.3);
            buckets[b].1.push(ours as f64 / 1e6);
        }
    }
    // issue 45's target: medians within 25%, p99 within 2x.
    for (k, (mut th, mut ou)) in buckets.into_iter().enumerate() {
        assert!(th.len() > 50, "bucket {k}: {} flows matched", th.len());
        let (t50, o50) = (pct(&mut th, 50.0), pct(&mut ou, 50.0));
        let (t99, o99) = (pct(&mut th, 99.0), pct(&mut ou, 99.0));
        assert!(
            (o50 / t50 - 1.0).abs() <= 0.25 && o99 / t99 <= 2.0 && t99 / o99 <= 2.0,
            "bucket {k}: median {o50:.4} ms vs their {t50:.4} ms, p99 {o99:.4} ms vs {t99:.4} ms"
        );
    }
}

/// The Opera authors' setting (`topologies/opera-108-htsim-{fig}.json`).
fn opera_config(fig: &str) -> serde_json::Value {
    let root = format!(
        "{}/../topologies/opera-108-htsim-{fig}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(root).unwrap()).unwrap()
}

/// Issue 45's lone flow (15.76 MB from host 642 to host 622 at 0) replayed
/// on config `v` in `dir`: its CSV line's fields and the `--json` output.
fn lone_flow(v: &serde_json::Value, dir: &std::path::Path) -> (Vec<String>, serde_json::Value) {
    let flows = dir.join("lone.htsim");
    std::fs::write(&flows, "642 622 15759080 0\n").unwrap();
    let cfg = dir.join("lone.json");
    std::fs::write(&cfg, v.to_string()).unwrap();
    let csv = dir.join("lone.csv");
    let o = sim(&[
        cfg.to_str().unwrap(),
        "--flows",
        flows.to_str().unwrap(),
        "--fct-csv",
        csv.to_str().unwrap(),
        "--drain",
        "3s",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(out["conservation_holds"], true, "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let row = text.lines().nth(1).unwrap().split(',').map(String::from);
    (row.collect(), out)
}

#[test]
fn a_lone_opera_flow_never_waits_a_cycle_for_a_circuit_that_is_up() {
    // Issue 45's second defect: with source routes, a window of 20, RTO
    // min 10 ms and no duplicate-ACK retransmit, a lone 15.76 MB flow from
    // host 642 to host 622 stalled with frames parked a cycle at transit
    // ToRs (538 ms where this takes 173 ms; carried_over 136 there).
    let dir = tempfile::tempdir().unwrap();
    let mut v = opera_config("fig9");
    v["hosts"]["tcp"] = serde_json::json!({"initial_window": 20, "max_window": 20,
        "rto_min": "10ms", "reordering": 300, "max_reordering": 300});
    // Over TCP all the way: bulk waits for its direct circuit.
    v["routing"]["bulk"] = "direct".into();
    let fct = |bulk: Option<u64>| {
        let mut v = v.clone();
        match bulk {
            Some(b) => v["routing"]["bulk_threshold"] = b.into(),
            None => {
                v["routing"]
                    .as_object_mut()
                    .unwrap()
                    .remove("bulk_threshold");
            }
        }
        let (row, out) = lone_flow(&v, dir.path());
        let m = &out["slice_misses"];
        assert_eq!(
            (&m["carried_over"], &m["deferred"]),
            (&0.into(), &0.into()),
            "{m}"
        );
        assert_eq!(row[7], "0", "no timeout: {row:?}");
        row[5].parse::<u64>().unwrap()
    };
    // Under the 30 MB threshold the flow stays on low-latency paths: near
    // the line rate (15 759 080 B in 1460-byte segments of 1514 wire bytes
    // at 10 Gb/s: 13.07 ms).
    let ll = fct(Some(30_000_000));
    assert!(ll < 13_070_000 * 12 / 10, "{ll} ns");
    // Past the default threshold (one cycle of one uplink) it waits for its
    // direct circuit, and still no frame waits a cycle it need not.
    assert!(fct(None) > ll);
}

#[test]
fn rotorlb_carries_a_bulk_flow_over_direct_and_relayed_circuits_with_nothing_lost() {
    // Opera sends bulk over RotorLB (routing.bulk: rotorlb): the host sends
    // without a window and its ToR spreads the flow over direct circuits
    // and relays. A lone 15.76 MB flow over the 15 MB threshold: no faster
    // than its host link (10 794 frames of 1514 B at 10 Gb/s: 13.07 ms),
    // both kinds of hop used, every byte there within the drain (a bulk
    // frame is never resent, so nothing was dropped). With `direct` the
    // same flow goes over TCP and no frame is relayed.
    let dir = tempfile::tempdir().unwrap();
    let run = |bulk: &str| {
        let mut v = opera_config("fig7");
        v["routing"]["bulk"] = bulk.into();
        let (row, out) = lone_flow(&v, dir.path());
        (row[5].parse::<u64>().expect("the flow completes"), out)
    };
    let (fct, out) = run("rotorlb");
    let r = &out["rotorlb"];
    assert!(r["direct"].as_u64().unwrap() > 0, "{r}");
    assert!(r["indirect"].as_u64().unwrap() > 0, "{r}");
    assert!(fct >= 13_070_000, "{fct} ns is faster than the host link");
    let (_, out) = run("direct");
    assert_eq!(out["rotorlb"]["indirect"], 0, "{out}");
}
