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

/// Whether `prog` is an executable file on `PATH`.
pub fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            let f = d.join(prog);
            f.metadata().is_ok_and(|m| m.is_file())
        })
    })
}
