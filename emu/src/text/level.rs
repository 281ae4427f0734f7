//! Mininet's log levels (`-v debug|info|output|warning|error|critical`,
//! `setLogLevel`): at `output` and above the banners (`*** Adding hosts`,
//! `*** Stopping network`, ...) are not printed, only what commands print.
//! One level per process, as Mininet's `lg`.

use std::sync::atomic::{AtomicU8, Ordering};

/// Mininet's numeric levels (logging's, plus `output` = 25).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    Debug = 10,
    Info = 20,
    Output = 25,
    Warning = 30,
    Error = 40,
    Critical = 50,
}

/// The names `-v` and `setLogLevel` take.
pub const NAMES: &str = "debug, info, output, warning, error, critical";

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "debug" => Level::Debug,
            "info" => Level::Info,
            "output" => Level::Output,
            "warning" | "warn" => Level::Warning,
            "error" => Level::Error,
            "critical" => Level::Critical,
            _ => return None,
        })
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Info as u8);

pub fn set(l: Level) {
    LEVEL.store(l as u8, Ordering::Relaxed);
}

/// Whether messages of level `l` are printed.
pub fn shows(l: Level) -> bool {
    l as u8 >= LEVEL.load(Ordering::Relaxed)
}

/// Whether banners (Mininet's `info`) are printed.
pub fn banners() -> bool {
    shows(Level::Info)
}
