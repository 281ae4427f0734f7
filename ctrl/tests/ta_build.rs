//! `ta::build()` from config.json: each scheduler's schedule shape, matrix
//! files and errors that name the JSON path.

use lh_ctrl::config::Config;
use lh_ctrl::schedule::Endpoint;
use lh_ctrl::ta::{TaError, build, traffic_matrix};

fn config(scheduler: &str, uplinks: u8, tm: &str) -> String {
    format!(
        r#"{{
  "mode": "TA",
  "tors": {{"count": 4, "uplinks": {uplinks}, "link_rate": "10Gbps",
            "hosts_per_tor": 1, "host_link_rate": "10Gbps"}},
  "ocs": {{"count": {uplinks}, "ports": 4, "reconfiguration_delay": "100us", "cabling": "auto"}},
  "slice": {{"duration": "1ms", "guardband": "10us"}},
  "topology": {{"kind": "traffic_aware"}},
  "routing": {{"algorithm": "direct"}},
  "ta": {{"update_interval": "10ms", "scheduler": "{scheduler}", "traffic_matrix": {tm}}}
}}"#
    )
}

const TM: &str = "[[0, 90, 1, 1], [80, 0, 1, 1], [1, 1, 0, 70], [2, 1, 60, 0]]";

fn parse(text: &str) -> Config {
    Config::from_json(text, "config.json").unwrap()
}

fn parse_unchecked(text: &str) -> Config {
    Config::parse_json(text, "config.json").unwrap()
}

fn peer(s: &lh_ctrl::schedule::Schedule, ts: u16, tor: u16, port: u8) -> Option<u16> {
    s.peer(ts, Endpoint::new(tor, port)).map(|e| e.tor)
}

#[test]
fn hotspot_one_slice_max_weight_pairs() {
    let s = build(&parse(&config("hotspot", 1, TM))).unwrap();
    assert_eq!(s.slices(), 1);
    assert_eq!(peer(&s, 0, 0, 0), Some(1));
    assert_eq!(peer(&s, 0, 2, 0), Some(3));
    // A second uplink gets the best matching among uncovered pairs.
    let s = build(&parse(&config("hotspot", 2, TM))).unwrap();
    assert_eq!(peer(&s, 0, 0, 0), Some(1));
    let p = peer(&s, 0, 0, 1).unwrap();
    assert!(p == 2 || p == 3, "uplink 1 repeats a covered pair: {p}");
}

#[test]
fn bvn_one_slice_per_term_on_one_uplink() {
    let cfg = parse(&config("bvn", 1, TM));
    let tm = traffic_matrix(&cfg).unwrap();
    let s = build(&cfg).unwrap();
    let terms = lh_ctrl::ta::bvn::decompose(&tm);
    assert!(s.slices() >= 1 && s.slices() <= 4.min(terms.len()));
    for ts in 0..s.slices() as u16 {
        // Uplink 0 carries a permutation (each ToR sends at most once and
        // receives at most once).
        let mut rx = [false; 4];
        for tor in 0..4 {
            if let Some(d) = peer(&s, ts, tor, 0) {
                assert_ne!(d, tor);
                assert!(!rx[d as usize]);
                rx[d as usize] = true;
            }
        }
    }
    // The heaviest term comes first and serves the hot pairs 0->1, 2->3.
    assert_eq!(peer(&s, 0, 0, 0), Some(1));
    assert_eq!(peer(&s, 0, 2, 0), Some(3));
    assert_eq!(peer(&s, 0, 1, 0), Some(0));
}

#[test]
fn bvn_shares_every_uplink_by_weight() {
    // Mordia holds a permutation in proportion to its weight: with two
    // uplinks the cycle has twice the places, and the heavy term (the hot
    // pairs 0->1, 1->0, 2->3, 3->2) takes the extra ones, on uplink 1 too.
    let one = build(&parse(&config("bvn", 1, TM))).unwrap();
    let s = build(&parse(&config("bvn", 2, TM))).unwrap();
    assert_eq!(s.slices(), one.slices(), "the cycle keeps its length");
    let places = |a: u16, b: u16| {
        (0..s.slices() as u16)
            .flat_map(|ts| (0..2u8).map(move |p| (ts, p)))
            .filter(|&(ts, p)| peer(&s, ts, a, p) == Some(b))
            .count()
    };
    for ts in 0..s.slices() as u16 {
        for p in 0..2u8 {
            let mut rx = [false; 4];
            for tor in 0..4 {
                if let Some(d) = peer(&s, ts, tor, p) {
                    assert_ne!(d, tor);
                    assert!(!rx[d as usize], "slice {ts} uplink {p}: two send to {d}");
                    rx[d as usize] = true;
                }
            }
        }
    }
    let slices = s.slices();
    assert!(
        places(0, 1) > slices && places(2, 3) > slices,
        "hot pairs: {} and {} of {} places",
        places(0, 1),
        places(2, 3),
        2 * slices
    );
    assert_eq!(
        peer(&s, 0, 0, 1),
        Some(1),
        "uplink 1 carries the heavy term too"
    );
    // Every pair with demand still has a circuit.
    for i in 0..4u16 {
        for j in (0..4u16).filter(|&j| j != i) {
            assert!(places(i, j) >= 1, "{i}->{j} never has a circuit");
        }
    }
}

#[test]
fn bvn_cycle_covers_every_pair_with_demand() {
    // A dense matrix decomposes into more than N terms; the cycle keeps at
    // least N of them and more until every pair with demand has a circuit.
    let tm = "[[0, 7, 3, 11], [5, 0, 13, 2], [17, 1, 0, 4], [3, 19, 6, 0]]";
    let cfg = parse(&config("bvn", 1, tm));
    let terms = lh_ctrl::ta::bvn::decompose(&traffic_matrix(&cfg).unwrap());
    assert!(terms.len() > 4, "{} terms", terms.len());
    let s = build(&cfg).unwrap();
    assert!(
        s.slices() >= 4 && s.slices() <= terms.len(),
        "{} slices",
        s.slices()
    );
    for i in 0..4u16 {
        for j in (0..4u16).filter(|&j| j != i) {
            assert!(
                (0..s.slices() as u16).any(|ts| peer(&s, ts, i, 0) == Some(j)),
                "{i}->{j} never has a circuit"
            );
        }
    }
}

#[test]
fn mip_matching_p_on_uplink_p() {
    let s = build(&parse(&config("mip", 2, TM))).unwrap();
    assert_eq!(s.slices(), 1);
    assert_eq!(peer(&s, 0, 0, 0), Some(1));
    assert_eq!(peer(&s, 0, 2, 0), Some(3));
    // The second uplink must connect the two islands.
    let p = peer(&s, 0, 0, 1).unwrap();
    assert!(p == 2 || p == 3, "{p}");
}

#[test]
fn matrix_from_file_relative_to_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tm.json"), TM).unwrap();
    let cfg_path = dir.path().join("config.json");
    std::fs::write(&cfg_path, config("hotspot", 1, "\"tm.json\"")).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    assert_eq!(traffic_matrix(&cfg).unwrap()[0][1], 90);
    assert_eq!(peer(&build(&cfg).unwrap(), 0, 0, 0), Some(1));

    std::fs::write(
        dir.path().join("tm.json"),
        "[[0, 1, 2, 3], [0, 0, \"x\", 0]]",
    )
    .unwrap();
    let err = traffic_matrix(&cfg).unwrap_err();
    let TaError::Matrix { path, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(path.ends_with("tm.json: $[1][2]"), "{path}");

    std::fs::remove_file(dir.path().join("tm.json")).unwrap();
    assert!(matches!(traffic_matrix(&cfg), Err(TaError::Io { .. })));
}

#[test]
fn matrix_shape_errors_name_the_json_path() {
    // Config validation refuses these too; ta::build must not rely on it.
    let cfg = parse_unchecked(&config(
        "mip",
        1,
        "[[0, 1, 1, 1], [1, 0, 1], [1, 1, 0, 1], [1, 1, 1, 0]]",
    ));
    let err = build(&cfg).unwrap_err();
    assert_eq!(
        err.to_string(),
        "$.ta.traffic_matrix[1]: expected 4 columns (one per ToR), got 3"
    );
    let cfg = parse_unchecked(&config("mip", 1, "[[0, 1], [1, 0]]"));
    let err = build(&cfg).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("$.ta.traffic_matrix: expected 4 rows"),
        "{err}"
    );
    let mut cfg = parse_unchecked(&config("mip", 1, TM));
    cfg.ta = None;
    assert!(matches!(build(&cfg), Err(TaError::Missing)));
}

#[test]
fn all_zero_matrix_means_uniform() {
    let zero = "[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]";
    for sched in ["hotspot", "mip", "bvn"] {
        let s = build(&parse(&config(sched, 1, zero))).unwrap();
        assert!(s.circuit_count() > 0, "{sched}");
    }
    // Uniform BvN: every pair gets a slice within the cycle.
    let s = build(&parse(&config("bvn", 1, zero))).unwrap();
    for a in 0..4u16 {
        for b in 0..4u16 {
            if a != b {
                assert!(
                    (0..s.slices() as u16).any(|ts| peer(&s, ts, a, 0) == Some(b)),
                    "{a}->{b}"
                );
            }
        }
    }
}

#[test]
fn c_through_config_gets_one_electrical_port_after_the_optical_ones() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/c-through-8.json");
    let cfg = Config::load(&path).unwrap();
    let s = build(&cfg).unwrap();
    assert_eq!((s.uplinks(), s.optical_uplinks()), (2, 1));
    assert!(s.is_electrical(1));
    // The hot pairs (i, i + 4) get the circuits.
    for t in 0..8u16 {
        assert_eq!(peer(&s, 0, t, 0), Some((t + 4) % 8));
    }
    s.verify(&cfg).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    for p in &c.routes.paths {
        let hot = (p.src + 4) % 8 == p.dst;
        assert_eq!(p.hops.len(), 1);
        assert_eq!(p.hops[0].port, u8::from(!hot), "{p:?}");
    }
    // Without electrical_rate the same config stays circuit-only.
    let mut plain = cfg.clone();
    plain.ta.as_mut().unwrap().electrical_rate = None;
    assert_eq!(build(&plain).unwrap().uplinks(), 1);
}

/// docs/config.md allows a text matrix file; `build` must read the same
/// file the config's validation accepted (it used to demand JSON).
#[test]
fn text_matrix_file_builds_like_json() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("tm.txt"),
        "# heavy pairs 0-1 and 2-3\n0 90 1 1\n80, 0, 1, 1\n1 1 0 70\n2 1 60 0\n",
    )
    .unwrap();
    let f = d.path().join("config.json");
    std::fs::write(&f, config("hotspot", 1, "\"tm.txt\"")).unwrap();
    let cfg = Config::load(&f).unwrap();
    let s = build(&cfg).unwrap();
    assert_eq!(peer(&s, 0, 0, 0), Some(1));
    assert_eq!(peer(&s, 0, 2, 0), Some(3));
    assert_eq!(traffic_matrix(&cfg).unwrap()[1][0], 80);
    // A bad text row is an error that names the file and the line.
    std::fs::write(
        d.path().join("tm.txt"),
        "0 1 1 1\n1 0 x 1\n1 1 0 1\n1 1 1 0\n",
    )
    .unwrap();
    let e = match build(&cfg) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a bad row must not build"),
    };
    assert!(e.contains("tm.txt") && e.contains("line 2"), "{e}");
}
