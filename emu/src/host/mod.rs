//! What each host namespace gets: TCP knobs (OTCP's parameters), NIC
//! offloads, pacing, a shell for `<node> cmd`, and `TCP_INFO` readings.

pub mod nic_offload;
pub mod pacing;
pub mod shell;
pub mod tcp;
pub mod tcpinfo;
