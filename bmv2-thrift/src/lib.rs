//! BMv2 runtime client for Lighthouse.

pub mod generated;
