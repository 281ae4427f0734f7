//! What each host namespace gets: TCP knobs (OTCP's parameters), NIC
//! offloads, pacing, a shell for `<node> cmd`, `TCP_INFO` readings, and
//! Mininet's CPU limits and private directories.

pub mod confine;
pub mod nic_offload;
pub mod pacing;
pub mod shell;
pub mod tcp;
pub mod tcpinfo;
