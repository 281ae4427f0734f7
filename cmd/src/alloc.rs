//! Allocator tuning for the `lighthouse` binary (mimalloc).
//!
//! A run compiles millions of entries, frees the paths they were built from
//! and then lives for minutes. By default mimalloc commits whole arenas
//! eagerly and returns freed pages to the kernel only after a delay, so the
//! freed half of the compile stays resident: opera-108's `run --test
//! pingall` peaked at 322 MiB, 252 MiB with these two options
//! (docs/benchmarks.md).
//!
//! Commands that exit as soon as they have compiled (`compile`, `show`)
//! keep mimalloc's defaults instead: with eager commit the kernel backs its
//! arenas with transparent huge pages (when
//! /sys/kernel/mm/transparent_hugepage/enabled allows), and freed memory is
//! reused without faulting it in again. Compiling opera-108 with UCMP took
//! about 500 page faults instead of 147,000 and 0.05 s of system time
//! instead of 0.35 s (docs/benchmarks.md, "Compile time per algorithm").

use libmimalloc_sys as ffi;

/// `mi_option_arena_eager_commit` and `mi_option_purge_delay` in the
/// vendored mimalloc v3 header (`libmimalloc-sys` 0.1.49 builds v3 unless
/// its `v2` feature is on; both number them 4 and 15 in `enum
/// mi_option_e`); the Rust crate names only the older options.
/// `numbering_matches_the_header` checks them against their defaults.
const ARENA_EAGER_COMMIT: ffi::mi_option_t = 4;
const PURGE_DELAY: ffi::mi_option_t = 15;

/// Set by [`tune`] before it re-executes the binary.
const ENV: [(&str, &str); 2] = [
    ("MIMALLOC_ARENA_EAGER_COMMIT", "0"),
    ("MIMALLOC_PURGE_DELAY", "0"),
];

/// Commit arena memory on demand and purge freed pages at once. Call in
/// `main` before any real work (argument parsing is fine). mimalloc reads its options when the process starts and
/// has committed its first arena by the time `main` runs, so the binary
/// re-executes itself once with the options in its environment (288 MiB
/// set from `main`, 252 MiB from the start on opera-108). If that fails the
/// options are set here, for later allocations.
pub fn tune() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(ENV[0].0).is_none() {
        let mut args = std::env::args_os();
        let argv0 = args.next();
        let mut c = std::process::Command::new("/proc/self/exe");
        if let Some(a0) = argv0 {
            c.arg0(a0);
        }
        c.args(args).envs(ENV);
        // Only returns on failure.
        let _ = c.exec();
    }
    // SAFETY: mi_option_set only stores a value in mimalloc's option table;
    // both ids are valid options of the linked mimalloc (checked by test).
    unsafe {
        ffi::mi_option_set(ARENA_EAGER_COMMIT, 0);
        ffi::mi_option_set(PURGE_DELAY, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_matches_the_header() {
        // v3's defaults (src/options.c): arena_eager_commit 2 (commit on
        // overcommit systems), purge_delay 1000 ms. A renumbered enum in a
        // new mimalloc would read other options' values here.
        // SAFETY: mi_option_get reads mimalloc's option table.
        let (eager, purge) = unsafe {
            (
                ffi::mi_option_get(ARENA_EAGER_COMMIT),
                ffi::mi_option_get(PURGE_DELAY),
            )
        };
        assert_eq!((eager, purge), (2, 1000));
    }
}
