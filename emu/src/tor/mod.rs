//! The ToRs of a run: BMv2 ToRs (the Lighthouse P4 program on
//! `simple_switch`) and the native data plane (swtor) started on top of
//! the kernel side, in this process or as its own (`ocs`, `lighthouse
//! ocs`). Which target runs each ToR is part of the plan
//! ([`crate::plan::target`]).

pub mod bmv2;
pub mod fabric;
pub mod ocs;
