//! `Compiled::timing()`: the one time model the data plane takes its
//! timing from, checked against the config fields it reads.

use lh_ctrl::compile::compile;
use lh_ctrl::config::Config;
use lh_ctrl::schedule::timing::{TimeModel, port_rate, reconfig_dark};
use lh_ctrl::units::Nanos;
use std::path::PathBuf;

fn load(name: &str) -> Config {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../topologies")
        .join(name);
    Config::load(&p).unwrap()
}

#[test]
fn dark_time_is_the_larger_of_guardband_and_reconfiguration() {
    let mut cfg = load("rotornet-8.json");
    let c = compile(&cfg).unwrap();
    let m = c.timing();
    assert_eq!(m, TimeModel::from_config(&cfg));
    assert_eq!(m.dark(), m.guardband.max(m.reconfiguration));
    assert_eq!(m.dark(), reconfig_dark(&cfg));
    // Swap which one is larger: the dark time follows.
    let big = Nanos(m.slice.0 / 2);
    cfg.slice.guardband = big;
    assert_eq!(TimeModel::from_config(&cfg).dark(), big);
}

#[test]
fn hybrid_electrical_port_runs_at_its_own_rate() {
    let cfg = load("c-through-8.json");
    let c = compile(&cfg).unwrap();
    let m = c.timing();
    let s = &c.schedule;
    let rates = m.port_rates(s);
    assert_eq!(rates.len(), s.uplinks());
    let elec: Vec<usize> = (0..s.uplinks())
        .filter(|&p| s.is_electrical(p as u8))
        .collect();
    assert!(!elec.is_empty(), "c-through-8 has an electrical port");
    for (p, r) in rates.iter().enumerate() {
        let want = if elec.contains(&p) {
            m.electrical_rate.unwrap_or(m.link_rate)
        } else {
            m.link_rate
        };
        assert_eq!(*r, want, "port {p}");
        assert_eq!(*r, port_rate(&cfg, s, p as u8), "port {p}");
    }
    assert_ne!(
        m.electrical_rate, None,
        "c-through-8 sets ta.electrical_rate"
    );
    assert_ne!(m.electrical_rate, Some(m.link_rate));
}
