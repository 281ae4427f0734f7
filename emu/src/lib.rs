//! Lighthouse emulation: network namespaces and veths for hosts, the native
//! software ToRs and emulated OCS (swtor) between them, a Mininet-compatible
//! CLI, a built-in prober and flow tool, and `lighthouse clean`.

pub mod alloc;
pub mod apps;
pub mod clean;
pub mod cli;
pub mod compile_cmd;
pub mod exitguard;
pub mod experiment;
pub mod experiments;
pub mod fabric;
pub mod fatlink;
pub mod format;
pub mod hosttcp;
pub mod interrupt;
pub mod lab;
pub mod links;
pub mod mnflags;
pub mod mntopo;
pub mod netns;
pub mod network;
pub mod nicpace;
pub mod nodeshell;
pub mod offload;
pub mod optlink;
pub mod orchestrator;
pub mod p4check;
pub mod p4tor;
pub mod probe;
pub mod render;
pub mod securefs;
pub mod signals;
pub mod state;
pub mod ta_live;
pub mod target;
pub mod tcpinfo;
pub mod telemetry;
pub mod textsink;
pub mod topo;
pub mod workload;
