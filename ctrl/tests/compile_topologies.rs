//! Every shipped config compiles end to end, and its tables reproduce its
//! paths when walked hop by hop (a sample, to keep the test quick).

use lh_ctrl::compile::compile;
use lh_ctrl::config::Config;
use lh_ctrl::tables::walk;
use std::path::PathBuf;

fn topologies() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../topologies");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_shipped_config_compiles_and_its_tables_walk_its_paths() {
    let files = topologies();
    assert!(
        files.len() >= 12,
        "expected the shipped configs, found {files:?}"
    );
    for f in files {
        let cfg = Config::load(&f).unwrap_or_else(|e| panic!("{e}"));
        let c = compile(&cfg).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let n = cfg.tors.count as usize;
        assert_eq!(c.tables.tors.len(), n, "{}", f.display());
        assert!(!c.routes.paths.is_empty(), "{}", f.display());
        // Every ordered pair has at least one path for every arrival slice.
        let s = c.schedule.slices();
        let mut seen = vec![false; n * n * s];
        for p in &c.routes.paths {
            let a = p.arrival.map_or(0..s, |a| a as usize..a as usize + 1);
            for ts in a {
                seen[(p.src as usize * n + p.dst as usize) * s + ts] = true;
            }
        }
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                for ts in 0..s {
                    assert!(
                        seen[(src * n + dst) * s + ts],
                        "{}: no path {src}->{dst} at {ts}",
                        f.display()
                    );
                }
            }
        }
        // Walk a sample of paths (the first alternative of each class).
        let step = (c.routes.paths.len() / 300).max(1);
        for p in c.routes.paths.iter().step_by(step) {
            let bucket = if c.tables.buckets > 1 { Some(0) } else { None };
            let w = walk(
                &c.tables,
                &c.schedule,
                p.src,
                p.dst,
                p.arrival,
                p.class,
                bucket,
            )
            .unwrap_or_else(|e| panic!("{}: walking {p:?}: {e}", f.display()));
            assert_eq!(w.dst, p.dst, "{}", f.display());
            if bucket.is_none() {
                assert_eq!(
                    w.hops.len(),
                    p.hops.len(),
                    "{}: {p:?} vs {w:?}",
                    f.display()
                );
            }
        }
        let sum = c.summary();
        assert_eq!(sum.tors, n);
        assert!(sum.to_string().contains("entries"));
    }
}

/// The hybrid RotorNet (`tors.electrical_rate`): one electrical uplink
/// after the rotor's optical one, at its own rate; direct routing sends a
/// pair's packets over the circuit in its slice and over the electrical
/// port in every other slice, never waiting.
#[test]
fn hybrid_rotornet_uses_the_circuit_when_up_and_the_electrical_port_otherwise() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../topologies");
    let cfg = Config::load(&dir.join("rotornet-8-hybrid.json")).unwrap();
    let c = compile(&cfg).unwrap();
    let s = &c.schedule;
    assert_eq!((s.uplinks(), s.optical_uplinks(), s.slices()), (2, 1, 7));
    assert!(s.is_electrical(1) && !s.is_electrical(0));
    let rates = lh_ctrl::schedule::timing::TimeModel::from_config(&cfg).port_rates(s);
    assert_eq!(
        rates.iter().map(|r| r.0).collect::<Vec<_>>(),
        [1_000_000_000, 100_000_000]
    );
    let (mut optical, mut electrical) = (0, 0);
    for p in c.routes.paths.iter() {
        let ts = p.arrival.expect("timed paths");
        assert_eq!(p.hops.len(), 1);
        let h = &p.hops[0];
        assert_eq!(h.depart, Some(ts.into()), "never waits");
        let up = s
            .peer(ts, lh_ctrl::schedule::Endpoint::new(p.src, 0))
            .is_some_and(|e| e.tor == p.dst);
        assert_eq!(h.port, if up { 0 } else { 1 }, "{p:?}");
        if up {
            optical += 1;
        } else {
            electrical += 1;
        }
    }
    // Each of the 56 pairs has its circuit in 1 of the 7 slices.
    assert_eq!((optical, electrical), (56, 56 * 6));
}
