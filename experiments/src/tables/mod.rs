//! `lighthouse experiment table3`: the paper's Table 3 (§9.3), scaled to
//! one machine. The native data plane ([`swtor::engine::Engine`]) runs in
//! virtual time on the in-memory port ([`swtor::MemPort`]) with synthetic
//! open-loop traffic (Poisson frames to uniformly random hosts plus
//! incast bursts), so the figures do not depend on how busy the 2 cores
//! are. Real TCP on veths would add the kernel's own pacing and losses;
//! docs/experiments.md says what is scaled and how.
//!
//! [`run`] is the virtual-time run both tables share; [`table2`] and
//! [`table3`] are each table's setting, report and claims.

use crate::{Check, Claim};
use anyhow::Context;
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use swtor::engine::{Engine, EngineOptions};
use swtor::{MemPort, SliceClock, TorFeatures};

mod run;
pub mod sweep;
mod table2;
mod table3;
#[cfg(test)]
mod tests;

pub use run::*;
pub use table2::*;
pub use table3::*;
