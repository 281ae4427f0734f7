//! Signal flags: handlers only store to atomics (async-signal-safe); the
//! run loop and a watcher thread act on them. Never kills anything by name.

use std::sync::atomic::{AtomicBool, Ordering};

/// SIGTERM/SIGHUP, or SIGINT outside the interactive prompt: tear down.
pub static TERMINATE: AtomicBool = AtomicBool::new(false);
/// SIGINT while the interactive CLI runs a command: stop that command.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);
/// Set while an interactive CLI owns the terminal (SIGINT = interrupt).
pub static INTERACTIVE: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    if sig == libc::SIGINT && INTERACTIVE.load(Ordering::Relaxed) {
        INTERRUPT.store(true, Ordering::Relaxed);
    } else {
        TERMINATE.store(true, Ordering::Relaxed);
    }
}

pub fn install() {
    // A closed stdout/stderr pipe must give EPIPE on write, never kill the
    // process before it has torn the run down.
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        set_handler(sig);
    }
}

fn set_handler(sig: libc::c_int) {
    // SAFETY: a zeroed sigaction with a handler that only touches atomics
    // is valid; no SA_RESTART so blocking reads see EINTR.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
}

/// Puts our SIGINT handler back. The line editor (rustyline) installs its
/// own when it is created and keeps it until it is dropped, so a Ctrl-C
/// while a command ran never reached [`INTERRUPT`] (issue 9). At its
/// prompt the terminal is raw and Ctrl-C is a key, so it needs no handler.
pub fn reclaim_sigint() {
    set_handler(libc::SIGINT);
}

pub fn terminating() -> bool {
    TERMINATE.load(Ordering::Relaxed)
}

/// Take (and clear) a pending interrupt.
pub fn take_interrupt() -> bool {
    INTERRUPT.swap(false, Ordering::Relaxed)
}

static SAVED_TTY: std::sync::Mutex<Option<libc::termios>> = std::sync::Mutex::new(None);

/// Remember the terminal settings, so a teardown from the signal watcher can
/// undo the prompt's raw mode before the process exits.
pub fn save_tty() {
    // SAFETY: termios is plain data; tcgetattr fills it or fails.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(libc::STDIN_FILENO, &mut t) == 0 {
            *SAVED_TTY.lock().unwrap_or_else(|e| e.into_inner()) = Some(t);
        }
    }
}

pub fn restore_tty() {
    if let Some(t) = *SAVED_TTY.lock().unwrap_or_else(|e| e.into_inner()) {
        // SAFETY: restoring settings previously read from the same fd.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &t);
        }
    }
}
