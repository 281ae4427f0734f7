//! Lighthouse emulation: the network object ([`net::Network`]) and what it
//! is built from. Front ends (the `lighthouse` binary, the Mininet-style
//! [`cli`], graders, experiments, tests) drive a run through it.
//!
//! Layout, by role:
//! - [`plan`]: names and addresses of hosts, ToRs and ports (pure data);
//! - [`kernel`]: the kernel's tools: netlink (rtnetlink), the run's state
//!   file, signals;
//! - [`run`]: a run's bring-up (namespaces, veths, addresses) and
//!   `lighthouse clean`, above [`kernel`] and [`host`];
//! - [`link`]: the link kinds (host veths in [`run::bringup`], optical
//!   uplinks, fat-tree links);
//! - [`host`]: per-host TCP knobs, NIC offloads, pacing, node shells,
//!   `TCP_INFO`;
//! - [`tor`]: ToR targets (native swtor, BMv2) and the data plane on top of
//!   the kernel side;
//! - [`control`]: telemetry and live traffic-aware scheduling;
//! - [`traffic`]: the prober, workloads and applications;
//! - [`net`]: the network object and its typed operations;
//! - [`values`]: what those operations return, and [`values::NetworkError`]
//!   (below both [`net`] and [`text`]);
//! - [`text`]: text rendering and parsing (Mininet's formats and ours);
//! - [`progress`]: steps of long operations, for front ends to draw;
//! - [`cli`]: the Mininet-compatible command loop over [`net::Network`];
//! - [`mininet`]: importing Mininet topology scripts.

pub mod cli;
pub mod control;
pub mod host;
pub mod kernel;
pub mod link;
pub mod mininet;
pub mod net;
pub mod netns;
pub mod plan;
pub mod progress;
pub mod run;
pub mod text;
pub mod tor;
pub mod traffic;
pub mod values;
