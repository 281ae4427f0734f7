//! The crate layout's rule (docs/architecture.md): the emu library carries
//! no front-end dependency (argument parsing, plotting, progress bars) and
//! not the P4 conformance test crate; those belong to the binary, the
//! experiments and the labs.

use std::process::Command;

#[test]
fn the_emu_library_has_no_front_end_dependencies() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-p",
            "lighthouse-emu",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(root)
        .output()
        .expect("cargo tree");
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tree.starts_with("lighthouse-emu "), "{tree}");
    for front_end in [
        "clap ",
        "plotters ",
        "indicatif ",
        "resvg ",
        "lighthouse-conformance ",
        "lighthouse-experiments ",
        "lighthouse-labs ",
    ] {
        assert!(
            !tree.lines().any(|l| l.starts_with(front_end)),
            "lh_emu depends on {front_end}:\n{tree}"
        );
    }
    // The binary does carry them (the check can see a dependency at all).
    let bin = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-p",
            "lighthouse-cmd",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(root)
        .output()
        .expect("cargo tree");
    let bin = String::from_utf8_lossy(&bin.stdout);
    assert!(bin.lines().any(|l| l.starts_with("clap ")), "{bin}");
}
