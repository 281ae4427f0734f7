//! The flat tables against the expanded form: conversion both ways, the
//! same lookups, and the compact file form round-tripping exactly.

use lh_ctrl::compile::compile;
use lh_ctrl::config::Config;
use lh_ctrl::tables::{FlatTables, Ingress, Match, file};
use std::path::PathBuf;

fn compiled(name: &str) -> lh_ctrl::compile::Compiled {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../topologies")
        .join(name);
    compile(&Config::load(&p).unwrap()).unwrap()
}

const CONFIGS: [&str; 6] = [
    "opera-8.json",
    "rotornet-8.json",
    "rotornet-8-vlb.json",
    "rotornet-8-ucmp.json",
    "rotornet-8-hoho.json",
    "clos-8.json",
];

#[test]
fn expanded_and_flat_forms_convert_both_ways_and_look_up_alike() {
    let mut with_alternates = 0;
    for name in CONFIGS {
        let c = compiled(name);
        let expanded = c.tables.to_tables();
        assert_eq!(expanded.total_entries(), c.tables.total_entries(), "{name}");
        let back = FlatTables::from_tables(&expanded).unwrap();
        assert_eq!(back.to_tables(), expanded, "{name}");
        let alts: usize = c
            .tables
            .tors
            .iter()
            .flat_map(|t| t.iter())
            .map(|e| e.alternate_count())
            .sum();
        let slices = c.tables.slices;
        let n = c.schedule.tors() as u16;
        for tor in 0..n {
            for dst in (0..n).filter(|&d| d != tor) {
                for arrival in (0..slices as u16).map(Some).chain([None]) {
                    for ingress in [Ingress::Host, Ingress::Fabric] {
                        for class in [None, Some(0), Some(1)] {
                            let key = Match {
                                dst,
                                arrival,
                                ingress,
                                class,
                                bucket: None,
                            };
                            let a = expanded.lookup(tor, &key).unwrap().cloned();
                            let b = c.tables.lookup(tor, &key).unwrap().map(|e| e.to_entry());
                            assert_eq!(a, b, "{name} ToR {tor} {key:?}");
                        }
                    }
                }
            }
        }
        with_alternates += usize::from(alts > 0);
    }
    // Some configs have alternates, so the comparison covers them.
    assert!(
        with_alternates >= 2,
        "{with_alternates} configs with alternates"
    );
}

#[test]
fn file_form_round_trips_and_rejects_damage() {
    for name in CONFIGS {
        let c = compiled(name);
        let mut buf = Vec::new();
        file::write(&c.tables, &mut buf).unwrap();
        let back = file::read(&mut buf.as_slice()).unwrap();
        assert_eq!(&back, &*c.tables, "{name}");
        // Truncated anywhere: an error, never a panic or a partial table.
        for cut in [0, 7, 12, buf.len() / 2, buf.len() - 1] {
            assert!(file::read(&mut &buf[..cut]).is_err(), "{name} cut at {cut}");
        }
        let mut bad = buf.clone();
        bad[0] = b'X';
        let e = file::read(&mut bad.as_slice()).unwrap_err();
        assert!(e.to_string().contains("magic"), "{e}");
        let mut newer = buf.clone();
        newer[8] = 2;
        let e = file::read(&mut newer.as_slice()).unwrap_err();
        assert!(e.to_string().contains("version 2"), "{e}");
    }
}
