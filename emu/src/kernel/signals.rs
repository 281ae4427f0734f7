//! Signal flags: handlers only store to atomics (async-signal-safe); the
//! run loop and a watcher thread act on them. Never kills anything by name.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// SIGTERM/SIGHUP, or SIGINT outside the interactive prompt: tear down.
pub static TERMINATE: AtomicBool = AtomicBool::new(false);
/// SIGINT while the interactive CLI runs a command: stop that command.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);
/// Set while an interactive CLI owns the terminal (SIGINT = interrupt).
pub static INTERACTIVE: AtomicBool = AtomicBool::new(false);
/// SIGINTs our handler has seen (whoever then took [`INTERRUPT`]).
static SIGINTS: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    if sig == libc::SIGINT {
        SIGINTS.fetch_add(1, Ordering::Relaxed);
    }
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

/// While it lives, SIGINT is the interactive CLI's interrupt: it sets
/// [`INTERRUPT`], which long operations poll (a pingall stops between its
/// rows, a child process is killed). Dropped, the process's previous SIGINT
/// disposition is back. How an embedding interpreter lets Ctrl-C stop a
/// long call: Python's own handler only runs between its bytecodes, never
/// while the call is in Rust.
pub struct SigintInterrupts {
    old: libc::sigaction,
    was_interactive: bool,
    /// [`SIGINTS`] when it was taken.
    seen: u64,
}

impl SigintInterrupts {
    pub fn take() -> SigintInterrupts {
        // SAFETY: reading the current disposition into a zeroed struct.
        let old = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old);
            old
        };
        INTERRUPT.store(false, Ordering::Relaxed);
        let was_interactive = INTERACTIVE.swap(true, Ordering::Relaxed);
        let seen = SIGINTS.load(Ordering::Relaxed);
        set_handler(libc::SIGINT);
        SigintInterrupts {
            old,
            was_interactive,
            seen,
        }
    }

    /// Whether a SIGINT came since it was taken, whether or not an
    /// operation stopped for it (one that was ending anyway may not have
    /// looked). Clears a pending [`INTERRUPT`].
    pub fn interrupted(&self) -> bool {
        INTERRUPT.store(false, Ordering::Relaxed);
        SIGINTS.load(Ordering::Relaxed) != self.seen
    }
}

impl Drop for SigintInterrupts {
    fn drop(&mut self) {
        // SAFETY: restoring a disposition read by `take`.
        unsafe {
            libc::sigaction(libc::SIGINT, &self.old, std::ptr::null_mut());
        }
        INTERACTIVE.store(self.was_interactive, Ordering::Relaxed);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The process's SIGINT handler now.
    fn sigint_handler() -> usize {
        // SAFETY: reading the current disposition into a zeroed struct.
        unsafe {
            let mut now: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGINT, std::ptr::null(), &mut now);
            now.sa_sigaction
        }
    }

    #[test]
    fn sigint_interrupts_are_lent_for_a_call_and_given_back() {
        // SAFETY: ignoring SIGINT has no preconditions; it stands in for
        // an embedding interpreter's own disposition.
        unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
        let before = sigint_handler();
        let was = INTERACTIVE.load(Ordering::Relaxed);
        {
            let g = SigintInterrupts::take();
            assert_eq!(sigint_handler(), on_signal as *const () as usize);
            assert!(!g.interrupted(), "no SIGINT yet");
            // SAFETY: raising a signal whose handler only stores atomics.
            unsafe { libc::raise(libc::SIGINT) };
            // What a long operation polls, and what the guard reports even
            // after the operation took the flag.
            assert!(take_interrupt());
            assert!(g.interrupted());
            assert!(!INTERRUPT.load(Ordering::Relaxed));
        }
        assert_eq!(sigint_handler(), before, "the previous disposition is back");
        assert_eq!(INTERACTIVE.load(Ordering::Relaxed), was);
        // SAFETY: as above; the test harness's default comes back.
        unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
    }
}
