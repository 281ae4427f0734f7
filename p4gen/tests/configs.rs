//! Every shipped topology (opera-108 included) compiles into P4 entries that fit the
//! program (names, widths, limits), with timing from its config.

mod common;

use lh_ctrl::config::Config;
use lh_p4gen::{FabricTiming, HostPlan, P4Inputs, Target, translate};

#[test]
fn shipped_topologies_translate_within_the_program_limits() {
    let dir = common::repo().join("topologies");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for path in names {
        let cfg = Config::load(&path).unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap();
        let timing = FabricTiming::from_config(&c.config, &c.schedule);
        let hosts: Vec<HostPlan> = (0..c.schedule.tors())
            .map(|t| HostPlan {
                ip: std::net::Ipv4Addr::new(10, 0, 0, t as u8 + 1),
                mac: [2, 0, 0, 0, 0, t as u8 + 1],
                tor: t as u16,
            })
            .collect();
        // p4gen reads the expanded form (P4 fabrics are small).
        let expanded = c.tables.to_tables();
        let inp = P4Inputs {
            tables: &expanded,
            hosts: &hosts,
            timing: &timing,
            target: Target::Bmv2,
        };
        // Big fabrics: the first and the last ToR are enough (time).
        let n = c.schedule.tors();
        let tors: Vec<u16> = if n > 16 {
            vec![0, n as u16 - 1]
        } else {
            (0..n as u16).collect()
        };
        let progs: Vec<_> = tors
            .iter()
            .map(|&t| translate(&inp, t).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .collect();
        for p in &progs {
            p.check_schema()
                .unwrap_or_else(|e| panic!("{}: ToR {}: {e}", path.display(), p.tor));
            let n = p
                .entries
                .iter()
                .filter(|e| e.table == lh_p4gen::schema::T_TIME_FLOW)
                .count();
            assert_eq!(n, c.tables.table(p.tor).unwrap().len());
        }
        println!(
            "{}: {} ToRs, {} time-flow entries",
            path.display(),
            progs.len(),
            c.tables.total_entries()
        );
    }
}
