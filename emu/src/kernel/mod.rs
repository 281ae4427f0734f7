//! The kernel side of a run: namespaces, veths and addresses, the run's
//! state file and directory, signals, and `lighthouse clean`.

pub mod bringup;
pub mod clean;
pub mod exitguard;
pub mod interrupt;
pub mod netlink;
pub mod securefs;
pub mod signals;
pub mod state;
