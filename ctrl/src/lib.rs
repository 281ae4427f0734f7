//! Lighthouse controller core and user API (paper §3–§5, Tables 1 and 5).
//!
//! The pipeline is `config` → `schedule` (topology API) → `routing` (routing
//! API) → `tables` (`entries()`, per-ToR time-flow tables). `net::LighthouseNet`
//! is the user-facing facade with the paper's function names; `compile` runs
//! the whole pipeline for `lighthouse compile`.

pub mod compile;
pub mod config;
pub mod estimate;
pub mod fattree;
pub mod htsim;
pub mod net;
pub mod otcp;
pub mod routing;
pub mod schedule;
pub mod ta;
pub mod tables;
pub mod textfile;
pub mod units;

/// Index of a ToR, `0..tors.count`.
pub type TorId = u16;
/// Index of an optical uplink on a ToR, `0..tors.uplinks`.
pub type PortId = u8;
/// Index of a time slice inside the optical cycle, `0..schedule.slices()`.
pub type SliceId = u16;
/// Absolute time slot: slice `t % S` of cycle `t / S`, counted from the cycle
/// in which a packet entered the network. Paths use slots so that waits past
/// the end of a cycle stay unambiguous.
pub type Slot = u32;
