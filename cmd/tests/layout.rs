//! The crate layout's rule (docs/architecture.md): the emu library carries
//! no front-end dependency (argument parsing, plotting, progress bars) and
//! not the P4 conformance test crate; those belong to the binary, the
//! experiments and the labs.

use std::process::Command;

/// `cargo tree -e normal` of `package`, one crate per line.
fn tree(package: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
        ])
        .arg(package)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_emu_library_has_no_front_end_dependencies() {
    let emu = tree("lighthouse-emu");
    assert!(emu.starts_with("lighthouse-emu "), "{emu}");
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
            !emu.lines().any(|l| l.starts_with(front_end)),
            "lh_emu depends on {front_end}:\n{emu}"
        );
    }
    // The binary does carry them (the check can see a dependency at all).
    let bin = tree("lighthouse-cmd");
    assert!(bin.lines().any(|l| l.starts_with("clap ")), "{bin}");
}
