//! The kernel's tools for a run: netlink (veths, addresses, routes), the
//! run's state file and directory, signals, exit guards and safe file
//! access. What a run makes with them and how it is cleaned up is
//! [`crate::run`], above both this and [`crate::host`].

pub mod exitguard;
pub mod interrupt;
pub mod netlink;
pub mod securefs;
pub mod signals;
pub mod state;

/// Whether `prog` is an executable file on `PATH`.
pub fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            let f = d.join(prog);
            f.metadata().is_ok_and(|m| m.is_file())
        })
    })
}
