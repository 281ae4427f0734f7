//! A run's life on the kernel: its bring-up ([`bringup`]: namespaces,
//! veths, addresses, the hosts' TCP knobs and NIC offloads) and its
//! cleanup ([`clean`], `lighthouse clean`). It sits above [`crate::kernel`]
//! (the tools) and [`crate::host`] (per-host settings), which both stay
//! below it.

pub mod bringup;
pub mod clean;
