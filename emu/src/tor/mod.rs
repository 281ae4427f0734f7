//! The ToRs of a run: BMv2 ToRs (the Lighthouse P4 program on
//! `simple_switch`) and the native data plane (swtor) started on top of
//! the kernel side. Which target runs each ToR is part of the plan
//! ([`crate::plan::target`]).

pub mod bmv2;
pub mod fabric;
