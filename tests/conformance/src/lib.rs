//! The ToR conformance suite (docs/p4.md, "Conformance"). A case is a small
//! fabric, one ToR under test, frames in with their arrival slices, and the
//! expected result per frame: the output port, the departure slice, the
//! source-route steps left, or a drop reason. Every case runs on the native
//! ToR ([`native`]) and, where the P4 toolchain is present, on BMv2.

pub mod bmv2;
pub mod case;
pub mod frame;
pub mod native;

pub use case::{Case, CaseError, Expect, FrameSpec, Outcome, load_cases, parse_cases};

/// Where the shipped cases and their configs (`configs/`) are.
pub fn cases_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cases shipped with the repository (`tests/conformance/cases.json`).
pub fn shipped_cases() -> Result<Vec<Case>, CaseError> {
    load_cases(&cases_dir().join("cases.json"))
}
