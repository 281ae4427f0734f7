//! The resource estimate against what compiling really produces.

use lh_ctrl::compile::compile;
use lh_ctrl::config::Config;
use lh_ctrl::estimate::{Use, check, estimate};
use std::path::Path;

fn load(name: &str) -> Config {
    Config::load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../topologies")
            .join(name),
    )
    .unwrap()
}

#[test]
fn path_counts_match_the_compiled_routes() {
    for name in [
        "rotornet-8.json",
        "rotornet-8-direct.json",
        "rotornet-8-hoho.json",
        "rotornet-8-vlb.json",
        "opera-8.json",
        "shale-16.json",
        "static-2.json",
    ] {
        let cfg = load(name);
        let est = estimate(&cfg);
        let c = compile(&cfg).unwrap();
        assert_eq!(est.slices as usize, c.schedule.slices(), "{name}");
        assert_eq!(est.paths as usize, c.routes.paths.len(), "{name}");
        // Entries: an upper bound within a factor of two.
        let real = c.tables.total_entries() as u64;
        assert!(
            est.entries >= real && est.entries <= 2 * real.max(1),
            "{name}: {est:?} vs {real}"
        );
        assert!(est.run_bytes > est.compile_bytes, "{name}");
    }
}

#[test]
fn ucmp_classes_bound_the_paths() {
    let cfg = load("rotornet-8-ucmp.json");
    let est = estimate(&cfg);
    let c = compile(&cfg).unwrap();
    let real = c.routes.paths.len() as u64;
    assert!(
        est.paths >= real && est.paths <= 8 * real,
        "{est:?} vs {real}"
    );
}

#[test]
fn check_refuses_over_the_limit_and_names_the_drivers() {
    let cfg = load("opera-108.json");
    let est = check(&cfg, Use::Compile, u64::MAX, "test").unwrap();
    // 108 x 107 ordered pairs x 108 slices x 2 Opera classes.
    assert_eq!(est.paths, 108 * 107 * 108 * 2);
    let err = check(
        &cfg,
        Use::Compile,
        est.compile_bytes - 1,
        "the test's limit",
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("108 x 107 x 108 x 2"), "{msg}");
    assert!(msg.contains("topology.kind opera"), "{msg}");
    assert!(msg.contains("routing.algorithm opera (2 classes)"), "{msg}");
    assert!(msg.contains("the test's limit"), "{msg}");
    assert!(
        check(&cfg, Use::Run, est.compile_bytes, "l").is_err(),
        "run needs more"
    );
}
