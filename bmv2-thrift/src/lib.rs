//! BMv2 runtime client for Lighthouse's P4 ToRs.
//!
//! - [`generated`]: Thrift bindings generated from BMv2's IDL (`regen.sh`).
//! - [`Bmv2Client`]: a typed client that encodes every key and action
//!   parameter to the bit width in the switch's JSON, and names the table,
//!   action or field when something does not fit or does not exist.
//!   [`Bmv2Client::connect_in_netns`] reaches a switch inside a network
//!   namespace without moving the calling thread.
//! - [`Bmv2Switch`]: one `simple_switch` process per ToR, started in its
//!   namespace, waited for, checked, stopped.
//! - [`toolchain`] and [`compile`]: finding and running `p4c-bm2-ss`,
//!   through the compiled-program cache ([`P4Cache`]).
//! - [`require`]: whether the toolchain must be there, and what a P4 test
//!   does when it is not (skip visibly, or fail where it is required).

mod cache;
mod client;
mod error;
pub mod generated;
pub mod model;
mod sys;

pub use cache::{Cached, ENV as P4_CACHE_ENV, P4Cache};
pub use client::{Bmv2Client, EntryHandle, Key, Value};
pub use error::Error;
/// Runs a closure on a fresh thread inside a network namespace
/// ([`lh_netns::try_run_in`], kept under this name for this crate's users).
pub use lh_netns::try_run_in as run_in_netns;
pub use model::{ActionInfo, CounterInfo, KeyField, MatchKind, Pipeline, RegisterInfo, TableInfo};
/// A child process's nice value and its SIGKILL when the spawning thread
/// exits, as every `simple_switch` gets; also used for `lighthouse ocs`
/// started by a run (`lh_emu::tor::ocs`).
pub use sys::child_setup;
pub mod require;
mod switch;
pub mod toolchain;

pub use switch::{
    Bmv2Switch, ProcessRecord, SwitchError, SwitchOpts, clean, log_tail, proc_start_time,
};
pub use toolchain::{
    CompileError, Diagnostic, Severity, Toolchain, ToolchainError, compile, compile_in, toolchain,
};
