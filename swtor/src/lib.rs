//! The native software ToR and the emulated OCS (paper §3, §6).
//!
//! [`start`] opens one AF_PACKET socket inside the fabric namespace (where
//! every ToR-side veth end lives) and spawns one busy-polling data-plane OS
//! thread that runs all ToRs and the OCS ([`engine::Engine`]). The handle
//! reads counters, queue occupancy and the slice clock, taps uplinks into
//! pcap files, and stops the thread. Design and measurements:
//! docs/dataplane.md; header layout: docs/wire-formats.md.
//!
//! Modules are private unless another crate needs their path; everything
//! else of the public API is re-exported here (and `unnameable_types`
//! keeps it that way).
#![warn(unnameable_types)]

mod active;
pub mod afpacket;
mod calendar;
mod capture;
mod circuits;
mod clock;
mod counters;
pub mod engine;
mod error;
mod estimator;
mod fastmap;
mod host;
mod lookup;
mod netem;
mod nic;
mod ocs;
pub mod pacer;
mod pcap;
pub mod pool;
mod port;
mod pushback;
pub mod remote;
mod rotorlb;
mod runtime;
pub mod sched;
mod spec;
mod switch;
pub mod testing;
pub mod timestamp;
mod tor;
mod usage;
pub mod wire;

pub use clock::{SliceClock, monotonic_ns};
pub use counters::{Counters, DelayHist, DropReason, LATENESS_BUCKETS};
pub use engine::{CapturePoint, EngineOptions, Port, TorFeatures};
pub use error::FabricError;
pub use estimator::{EstimatorError, Occupancy};
pub use lookup::LookupError;
pub use nic::FlowPausing;
pub use ocs::Ocs;
pub use pacer::TakenIn;
pub use port::{MemPort, SentFrame};
pub use pushback::PushbackTrigger;
pub use runtime::{
    ControlHandle, DATAPLANE_NICE, FabricHandle, UsageProbe, capture_iface, spawn, start,
    start_with,
};
pub use spec::{ExternalIfindexes, ExternalTor, FabricSpec, HostAttach, Ifindexes, Timing};
pub use switch::{FatTreeOptions, Scheme};
pub use usage::{PortUsage, SwitchPort};
