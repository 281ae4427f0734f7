//! ToR targets: which target runs each ToR (native swtor or BMv2), the
//! BMv2 ToRs, and the data plane started on top of the kernel side.

pub mod bmv2;
pub mod fabric;
pub mod target;
