//! Ctrl-C in the interactive CLI, on a real terminal (a pty): it interrupts
//! `pingall`, a long node command and `iperf`, prints `Interrupt`, and the
//! CLI goes on; no ping is lost to the interrupt; exit tears down cleanly.

mod common;

use common::*;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");
const PROMPT: &str = "lighthouse> ";

/// `lighthouse` on the slave side of a pty (its controlling terminal), so
/// Ctrl-C written to the master becomes SIGINT as from a keyboard.
struct Pty {
    master: File,
    child: Child,
    /// Everything read so far, and how much of it `expect` consumed.
    seen: String,
    at: usize,
}

impl Pty {
    fn spawn(args: &[&str]) -> Pty {
        let (mut m, mut s) = (0, 0);
        let ws = libc::winsize {
            ws_row: 40,
            ws_col: 200,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: out-pointers to two ints and a valid winsize.
        let r =
            unsafe { libc::openpty(&mut m, &mut s, std::ptr::null_mut(), std::ptr::null(), &ws) };
        assert_eq!(r, 0, "openpty");
        // SAFETY: openpty returned two fresh descriptors that we own.
        let (master, slave) = unsafe { (File::from_raw_fd(m), File::from_raw_fd(s)) };
        let mut c = Command::new(BIN);
        c.args(args)
            .env("TERM", "xterm")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        // SAFETY: setsid and ioctl are async-signal-safe; fd 0 is the pty.
        unsafe {
            c.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = c.spawn().unwrap();
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let fl = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(master.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
        Pty {
            master,
            child,
            seen: String::new(),
            at: 0,
        }
    }

    /// Reads until `needle` appears after what was consumed; returns the
    /// text up to it and consumes through it. Panics after `secs`.
    fn expect(&mut self, needle: &str, secs: u64) -> String {
        let t = Instant::now();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(i) = self.seen[self.at..].find(needle) {
                let before = self.seen[self.at..self.at + i].to_string();
                self.at += i + needle.len();
                return before;
            }
            assert!(
                t.elapsed() < Duration::from_secs(secs),
                "no {needle:?} within {secs} s; output:\n{}",
                self.seen
            );
            match self.master.read(&mut buf) {
                Ok(n) if n > 0 => self.seen.push_str(&String::from_utf8_lossy(&buf[..n])),
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    fn send(&mut self, s: &str) {
        self.master.write_all(s.as_bytes()).unwrap();
    }

    /// Ctrl-C: returns what came before `Interrupt` and how long it took
    /// (the next prompt must follow within 5 s).
    fn ctrl_c(&mut self) -> (String, Duration) {
        let t = Instant::now();
        self.send("\x03");
        let before = self.expect("Interrupt", 10);
        let took = t.elapsed();
        self.expect(PROMPT, 5);
        (before, took)
    }

    /// Sends a command line and waits for the next prompt; returns what the
    /// command printed.
    fn cmd(&mut self, line: &str, secs: u64) -> String {
        self.send(&format!("{line}\r"));
        self.expect(PROMPT, secs)
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // A failed test: SIGTERM makes the run tear itself down.
            // SAFETY: kill(2) on our own child, not yet reaped.
            unsafe {
                libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            }
            let _ = self.child.wait();
        }
    }
}

#[test]
fn ctrl_c_interrupts_pingall_a_node_command_and_iperf_and_the_cli_survives() {
    if skip_unless_root("ctrl_c_interrupts_pingall_a_node_command_and_iperf_and_the_cli_survives") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // 1 ms slices: a ping waits up to a 7 ms cycle, so pingall takes
    // seconds and the interrupt lands in the middle of it.
    let cfg = format!(
        "{}/../topologies/rotornet-8-1ms.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut p = Pty::spawn(&["run", &cfg]);
    let intro = p.expect(PROMPT, 120);
    let prefix = run_prefix(&intro);

    // The node shell keeps its state on a terminal too.
    p.cmd("h1 cd /tmp", 10);
    assert!(p.cmd("h1 pwd", 10).contains("/tmp\r\n"), "{}", p.seen);

    // pingall: Ctrl-C after the first row; the rows so far are intact.
    p.send("pingall\r");
    p.expect("*** Ping: testing ping reachability", 10);
    p.expect("h2 -> ", 30);
    let (rows, _) = p.ctrl_c();
    assert!(
        !rows.contains('X'),
        "a ping was lost to the interrupt: {rows}"
    );
    assert!(!rows.contains("*** Results"), "{rows}");

    // A long node command stops; the shell lives on with status 130.
    p.send("h1 sleep 30\r");
    std::thread::sleep(Duration::from_millis(500));
    let (_, took) = p.ctrl_c();
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(
        p.cmd("h1 echo status=$?", 10).contains("status=130"),
        "{}",
        p.seen
    );
    assert!(
        p.cmd("h1 pwd", 10).contains("/tmp\r\n"),
        "same shell: {}",
        p.seen
    );

    // iperf (5 s) stops at once.
    p.send("iperf h1 h2\r");
    p.expect("*** Iperf: testing TCP bandwidth between h1 and h2", 10);
    std::thread::sleep(Duration::from_millis(1000));
    let (out, took) = p.ctrl_c();
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(!out.contains("*** Results"), "{out}");

    assert!(
        p.cmd("h1 echo alive", 10).contains("alive\r\n"),
        "{}",
        p.seen
    );
    // Ctrl-C at the prompt: Interrupt, and the CLI still answers.
    p.ctrl_c();
    p.send("exit\r");
    p.expect("*** Done", 60);
    let st = p.child.wait().unwrap();
    assert!(st.success(), "{st:?}\n{}", p.seen);
    assert!(p.seen.contains("(conservation OK)"), "{}", p.seen);
    assert_eq!(live_with_cmdline(&format!("{prefix}:")), Vec::<u32>::new());
    assert!(
        !lh_namespaces().iter().any(|n| n.starts_with(&prefix)),
        "namespaces of {prefix} left"
    );
}
