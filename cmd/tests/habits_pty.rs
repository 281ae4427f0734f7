//! The interactive CLI on a real terminal (a pty). Ctrl-C interrupts
//! `pingall`, a long node command and `iperf`, prints `Interrupt`, and the
//! CLI goes on; no ping is lost to the interrupt; exit tears down cleanly.
//! Mininet's readline habits (parity check 15, docs/mininet.md): Tab
//! completes commands and node names, the history is kept in a file between
//! runs, `-v output` prints no banner before the prompt, `py`/`px` answer.

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
/// `run --topo/--custom/--topo-json` prints Mininet's.
const MN_PROMPT: &str = "mininet> ";

/// `lighthouse` on the slave side of a pty (its controlling terminal), so
/// Ctrl-C written to the master becomes SIGINT as from a keyboard.
struct Pty {
    master: File,
    child: Child,
    /// Everything read so far, and how much of it `expect` consumed.
    seen: String,
    at: usize,
    /// The prompt this run prints.
    prompt: &'static str,
}

impl Pty {
    fn spawn(args: &[&str]) -> Pty {
        Pty::spawn_env(args, &[])
    }

    fn spawn_env(args: &[&str], env: &[(&str, &std::path::Path)]) -> Pty {
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
            .envs(env.iter().copied())
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
        let mininet = args.iter().any(|a| matches!(*a, "--topo" | "--topo-json"));
        Pty {
            master,
            child,
            seen: String::new(),
            at: 0,
            prompt: if mininet { MN_PROMPT } else { PROMPT },
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
        self.expect(self.prompt, 5);
        (before, took)
    }

    /// Runs a command line and asserts its output contains `want`.
    fn answers(&mut self, line: &str, want: &str) {
        let out = self.cmd(line, 30);
        assert!(
            out.contains(want),
            "{line}: no {want:?} in {out:?}\n{}",
            self.seen
        );
    }

    /// Sends a command line and waits for the next prompt; returns what the
    /// command printed.
    fn cmd(&mut self, line: &str, secs: u64) -> String {
        self.send(&format!("{line}\r"));
        self.expect(self.prompt, secs)
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
    // 100 ms slices: a ping waits up to a 700 ms cycle (under the 1 s
    // timeout), so each of pingall's two batches of eight rows takes most
    // of a second and the interrupt, sent once h2's row is out (the first
    // batch), lands in the second.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("rotornet-8-100ms.json");
    let mut v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/../topologies/rotornet-8-1ms.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    v["slice"]["duration"] = "100ms".into();
    std::fs::write(&cfg, v.to_string()).unwrap();
    let cfg = cfg.to_str().unwrap();
    let mut p = Pty::spawn(&["run", cfg]);
    let intro = p.expect(PROMPT, 120);
    let prefix = run_prefix(&intro);

    // The node shell keeps its state on a terminal too.
    p.cmd("h1 cd /tmp", 10);
    p.answers("h1 pwd", "/tmp\r\n");

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
    p.answers("h1 echo status=$?", "status=130");
    p.answers("h1 pwd", "/tmp\r\n");

    // iperf (5 s) stops at once.
    p.send("iperf h1 h2\r");
    p.expect("*** Iperf: testing TCP bandwidth between h1 and h2", 10);
    std::thread::sleep(Duration::from_millis(1000));
    let (out, took) = p.ctrl_c();
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(!out.contains("*** Results"), "{out}");

    p.answers("h1 echo alive", "alive\r\n");
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

/// The run's end after `exit`: a clean status, nothing of `prefix` left.
fn exit_cleanly(p: &mut Pty, prefix: &str) {
    p.send("exit\r");
    let st = p.child.wait().unwrap();
    assert!(st.success(), "{st:?}\n{}", p.seen);
    assert_eq!(live_with_cmdline(&format!("{prefix}:")), Vec::<u32>::new());
    assert!(
        !lh_namespaces().iter().any(|n| n.starts_with(prefix)),
        "namespaces of {prefix} left"
    );
}

#[test]
fn tab_completes_commands_and_names_history_survives_runs_and_v_output_is_quiet() {
    if skip_unless_root(
        "tab_completes_commands_and_names_history_survives_runs_and_v_output_is_quiet",
    ) {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let custom = dir.path().join("cs.py");
    std::fs::write(
        &custom,
        "from mininet.topo import Topo\n\
         class CS(Topo):\n    def build(self):\n        s1 = self.addSwitch('s1')\n        \
         self.addLink(self.addHost('client'), s1)\n        self.addLink(self.addHost('server'), s1)\n\
         topos = {'cs': CS}\n",
    )
    .unwrap();
    let hist = dir.path().join("history");
    let env = [("LIGHTHOUSE_HISTORY", hist.as_path())];
    let cs = custom.to_str().unwrap();
    let (p1, p2) = (free_prefix(), free_prefix());
    let args = |p: &str| -> Vec<String> {
        [
            "run", "-v", "output", "--prefix", p, "--custom", cs, "--topo", "cs",
        ]
        .map(String::from)
        .to_vec()
    };
    let a1 = args(&p1);
    let mut p = Pty::spawn_env(&a1.iter().map(String::as_str).collect::<Vec<_>>(), &env);
    // -v output: nothing but the prompt, Mininet's (Mininet prints no
    // banner either).
    let intro = p.expect(MN_PROMPT, 120);
    assert!(!intro.contains("***"), "banners at -v output: {intro:?}");

    // Tab: a command, then a node name as the first word and as an argument.
    p.send("pinga\t");
    p.expect("pingall", 10);
    let out = p.cmd("", 30);
    assert!(
        out.contains("*** Results: 0% dropped (2/2 received)"),
        "{out}"
    );
    p.send("cli\t");
    p.expect("client ", 10);
    p.send("ping -c1 ser\t");
    p.expect("server ", 10);
    let out = p.cmd("", 30);
    assert!(out.contains("1 packets transmitted, 1 received"), "{out}");

    // py evaluates node expressions; px names the Python API.
    p.answers("py server.IP()", "10.0.0.2\r\n");
    p.answers("px x = 1", "lighthouse.mininet.cli");
    exit_cleanly(&mut p, &p1);
    let saved = std::fs::read_to_string(&hist).unwrap();
    assert!(
        saved.contains("py server.IP()\n") && saved.contains("client ping -c1 server \n"),
        "{saved:?}"
    );
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&hist).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);

    // A new run: Up brings back the lines of the previous one, newest
    // first (exit, px x = 1, py server.IP()).
    let a2 = args(&p2);
    let mut p = Pty::spawn_env(&a2.iter().map(String::as_str).collect::<Vec<_>>(), &env);
    p.expect(MN_PROMPT, 120);
    p.send("\x1b[A");
    p.expect("exit", 10);
    p.send("\x1b[A\x1b[A");
    p.expect("py server.IP()", 10);
    p.answers("", "10.0.0.2\r\n");
    exit_cleanly(&mut p, &p2);
}

#[test]
fn sigterm_at_the_prompt_removes_a_mininet_topologys_scratch_folder() {
    if skip_unless_root("sigterm_at_the_prompt_removes_a_mininet_topologys_scratch_folder") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let before = scratch_dirs();
    let mut p = Pty::spawn(&["run", "--topo", "linear,2"]);
    let prefix = run_prefix(&p.expect(MN_PROMPT, 120));
    assert_ne!(scratch_dirs(), before, "the run has its scratch folder");
    // At the prompt the line editor does not return on a signal: the
    // watcher tears the run down and exits (Pty's drop sends SIGTERM).
    drop(p);
    assert_eq!(scratch_dirs(), before, "scratch folders left behind");
    assert!(
        !lh_namespaces().iter().any(|n| n.starts_with(&prefix)),
        "namespaces of {prefix} left"
    );
}
