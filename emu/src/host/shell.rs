//! One persistent shell per node, like Mininet's `Node.shell`: `h1 cd /tmp`
//! then `h1 pwd` prints `/tmp`, and `h1 sleep 30 &` then `h1 kill %1`
//! works. Each node gets a `bash` started (on its first command) inside its
//! namespace, in a session of its own, with `<prefix>:<node>` on its command
//! line (so `ps` and the tests find a run's shells; `lighthouse clean` finds
//! them by namespace like every process of a run).
//!
//! A command is sent as one `eval` line followed by a `printf` of a marker
//! unique to the shell with the exit status (Mininet's `sendCmd` and
//! `waitOutput` use a marker the same way); the output before the marker is
//! forwarded to the CLI's output (stderr, Mininet's logger). A command
//! ending in `&` comes back at once; what it prints later shows with the
//! next command of that node.
//!
//! Ctrl-C ([`crate::kernel::signals`]) sends SIGINT to the shell's process group:
//! the foreground command stops, the shell (which traps SIGINT) lives on,
//! and `Interrupt` is printed, as in Mininet. Background jobs ignore
//! SIGINT (POSIX, for a shell without job control) and keep running. If
//! the command ignores SIGINT too, the shell and its group are killed after
//! [`KILL_AFTER`] and a new shell starts with the next command.
//!
//! Commands read their standard input from the terminal when the CLI runs
//! on one (`/proc/<lighthouse pid>/fd/0`, so `noecho h1 vi f` works), else
//! from `/dev/null` (a command never eats the lines of a script).

use crate::host::confine::Confined;
use crate::kernel::signals;
use crate::netns;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a command may outlive its SIGINT before its shell is killed.
pub const KILL_AFTER: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("starting a shell for {node}: {source}")]
    Spawn { node: String, source: io::Error },
    #[error("shell of {node}: {source}")]
    Io { node: String, source: io::Error },
    #[error(transparent)]
    Waiting(#[from] StillWaiting),
}

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The command's exit status (130 after an interrupt it obeyed).
    Status(i32),
    /// Interrupted, and the shell had to be killed (it ignored SIGINT).
    Killed,
    /// The shell itself exited (`h1 exit`); the next command starts a new one.
    ShellExited,
}

struct Shell {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// `\x01lh-<random hex> `: starts the line with the exit status.
    marker: Vec<u8>,
    /// Output read but not yet handed on: a tail that may start the marker.
    pending: Vec<u8>,
    /// A command sent with [`NodeShells::send`] has not printed its marker.
    waiting: bool,
}

/// `run` while a command sent with `send` has not ended.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0} is still waiting for its previous command (sendCmd): read its output first (waitOutput)"
)]
pub struct StillWaiting(pub String);

/// The shells of a run's nodes, by node name. Dropping it kills them all.
pub struct NodeShells {
    prefix: String,
    shells: BTreeMap<String, Shell>,
    /// Per node, the fd handed out as its `stdout` ([`NodeShells::ensure`]):
    /// one number for the run, pointed at each new shell's output, so a
    /// caller polling it never holds a closed (or reused) fd.
    stdout_fds: BTreeMap<String, OwnedFd>,
    /// Hosts' cgroups and mount namespaces (`CPULimitedHost`,
    /// `privateDirs`): their shells start inside.
    confined: BTreeMap<String, Confined>,
}

impl NodeShells {
    pub fn new(prefix: &str) -> NodeShells {
        NodeShells {
            prefix: prefix.to_string(),
            shells: BTreeMap::new(),
            stdout_fds: BTreeMap::new(),
            confined: BTreeMap::new(),
        }
    }

    /// From now on `node`'s shell starts in `c`'s cgroup and mount
    /// namespace.
    pub fn confine(&mut self, node: &str, c: Confined) {
        self.confined.insert(node.to_string(), c);
    }

    /// `node`'s cgroup and mount namespace, if it has them.
    pub fn confined(&self, node: &str) -> Option<&Confined> {
        self.confined.get(node)
    }

    /// Ends every confinement (after [`NodeShells::stop_all`]); what
    /// failed, as lines.
    pub fn release_confined(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        for (_, mut c) in std::mem::take(&mut self.confined) {
            errors.extend(c.stop());
        }
        errors
    }

    /// The pid of a node's shell, if it has one now.
    pub fn pid(&self, node: &str) -> Option<u32> {
        self.shells.get(node).map(|s| s.child.id())
    }

    /// Runs `cmdline` in `node`'s shell (started in namespace `ns` if it has
    /// none), forwarding its output to `out` until it ends. `on_spawn` is
    /// told the pid of a new shell.
    pub fn run(
        &mut self,
        node: &str,
        ns: &Path,
        cmdline: &str,
        out: &mut dyn Write,
        on_spawn: Option<&mut (dyn FnMut(u32) + '_)>,
    ) -> Result<Outcome, ShellError> {
        self.ensure(node, ns, on_spawn)?;
        let io_err = |source| ShellError::Io {
            node: node.to_string(),
            source,
        };
        let sh = self.shells.get_mut(node).expect("ensured above");
        if sh.waiting {
            return Err(StillWaiting(node.to_string()).into());
        }
        let line = format!("eval {} <{}\n__lh_done\n", quote(cmdline), stdin_path());
        if let Err(e) = sh.stdin.write_all(line.as_bytes()) {
            // The shell is gone (EPIPE): start afresh next time.
            self.kill(node);
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Ok(Outcome::ShellExited);
            }
            return Err(io_err(e));
        }
        let r = wait_marker(sh, out);
        let outcome = match r {
            Ok(Ended::Status(status)) => Outcome::Status(status),
            Ok(Ended::Eof) => {
                self.kill(node);
                let _ = writeln!(
                    out,
                    "*** The shell of {node} exited; a new one starts with its next command"
                );
                Outcome::ShellExited
            }
            Ok(Ended::Ignored) => {
                self.kill(node);
                let _ = writeln!(
                    out,
                    "Interrupt\n*** {node}: the command ignored the interrupt; its shell was killed (a new one starts with its next command)"
                );
                Outcome::Killed
            }
            Err(e) => {
                self.kill(node);
                return Err(io_err(e));
            }
        };
        let _ = out.flush();
        Ok(outcome)
    }

    /// Starts `node`'s shell in namespace `ns` if it has none; the raw fd
    /// of its output (Mininet's `node.stdout`, for `poll`). The number
    /// stays the node's for the run: a shell that exited and was started
    /// again is behind the same fd (the old one reads as ended meanwhile).
    pub fn ensure(
        &mut self,
        node: &str,
        ns: &Path,
        on_spawn: Option<&mut (dyn FnMut(u32) + '_)>,
    ) -> Result<i32, ShellError> {
        let io_err = |source| ShellError::Io {
            node: node.to_string(),
            source,
        };
        if !self.shells.contains_key(node) {
            let sh = spawn(&self.prefix, node, ns, self.confined.get(node)).map_err(|source| {
                ShellError::Spawn {
                    node: node.to_string(),
                    source,
                }
            })?;
            if let Some(f) = on_spawn {
                f(sh.child.id());
            }
            let redirected = match self.stdout_fds.get(node) {
                Some(fd) => redirect(&sh.stdout, fd),
                None => Ok(()),
            };
            self.shells.insert(node.to_string(), sh);
            if let Err(e) = redirected {
                // Not left running behind an fd that is not its own.
                self.kill(node);
                return Err(io_err(e));
            }
        }
        if !self.stdout_fds.contains_key(node) {
            let fd = self.shells[node]
                .stdout
                .as_fd()
                .try_clone_to_owned()
                .map_err(io_err)?;
            self.stdout_fds.insert(node.to_string(), fd);
        }
        Ok(self.stdout_fds[node].as_raw_fd())
    }

    /// Mininet's `sendCmd`: sends `cmdline` to `node`'s shell (started if
    /// it has none) and returns at once; [`NodeShells::read`] gives its
    /// output and says when it ended.
    pub fn send(
        &mut self,
        node: &str,
        ns: &Path,
        cmdline: &str,
        on_spawn: Option<&mut (dyn FnMut(u32) + '_)>,
    ) -> Result<(), ShellError> {
        self.ensure(node, ns, on_spawn)?;
        let sh = self.shells.get_mut(node).expect("ensured above");
        if sh.waiting {
            return Err(StillWaiting(node.to_string()).into());
        }
        let line = format!("eval {} </dev/null\n__lh_done\n", quote(cmdline));
        if let Err(source) = sh.stdin.write_all(line.as_bytes()) {
            self.kill(node);
            return Err(ShellError::Io {
                node: node.to_string(),
                source,
            });
        }
        sh.waiting = true;
        Ok(())
    }

    /// Whether a command sent with [`NodeShells::send`] has not ended.
    pub fn waiting(&self, node: &str) -> bool {
        self.shells.get(node).is_some_and(|s| s.waiting)
    }

    /// Mininet's `monitor`: what `node`'s shell printed, after waiting up
    /// to `timeout` (None: until something comes) for output; one read at
    /// most. The status is there when the command sent with
    /// [`NodeShells::send`] ended (its marker, never in the text). A node
    /// without a shell, or whose shell exited, gives nothing.
    pub fn read(
        &mut self,
        node: &str,
        timeout: Option<Duration>,
    ) -> Result<(Vec<u8>, Option<i32>), ShellError> {
        let Some(sh) = self.shells.get_mut(node) else {
            return Ok((Vec::new(), None));
        };
        let io_err = |source| ShellError::Io {
            node: node.to_string(),
            source,
        };
        let mut pfd = libc::pollfd {
            fd: sh.stdout.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        let mut out = Vec::new();
        if n > 0 {
            let mut buf = [0u8; 4096];
            let k = sh.stdout.read(&mut buf).map_err(io_err)?;
            if k == 0 {
                // The shell exited: the next command starts a new one.
                out = std::mem::take(&mut sh.pending);
                self.kill(node);
                return Ok((out, Some(-1)));
            }
            sh.pending.extend_from_slice(&buf[..k]);
        }
        let status = take_until_marker(&mut sh.pending, &sh.marker, &mut out).map_err(io_err)?;
        if status.is_some() {
            sh.waiting = false;
            // What followed the marker is output too.
            out.append(&mut sh.pending);
        }
        // A character split between two reads waits for its other bytes.
        if let Err(e) = std::str::from_utf8(&out)
            && e.error_len().is_none()
        {
            let tail = out.split_off(e.valid_up_to());
            sh.pending.splice(0..0, tail);
        }
        Ok((out, status))
    }

    /// Mininet's `sendInt`: SIGINT to the node's shell's process group (the
    /// command sent stops; the shell, which traps it, lives on).
    pub fn interrupt(&self, node: &str) {
        if let Some(sh) = self.shells.get(node) {
            killpg(sh.child.id(), libc::SIGINT);
        }
    }

    /// Kills a node's shell with its whole process group (background jobs
    /// included) and reaps it.
    fn kill(&mut self, node: &str) {
        if let Some(mut s) = self.shells.remove(node) {
            // The shell leads its session and group (setsid); it is not
            // reaped yet, so its pid is still its own.
            killpg(s.child.id(), libc::SIGKILL);
            let _ = s.child.wait();
        }
    }

    /// Kills every shell (teardown).
    pub fn stop_all(&mut self) {
        let nodes: Vec<String> = self.shells.keys().cloned().collect();
        for n in nodes {
            self.kill(&n);
        }
    }
}

impl Drop for NodeShells {
    fn drop(&mut self) {
        self.stop_all();
        self.release_confined();
    }
}

/// Points `fd` at what `to` reads (dup3, close-on-exec kept): a node's
/// `stdout` fd follows its new shell.
fn redirect(to: &ChildStdout, fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: both are open fds borrowed for the call; dup3 replaces
    // `fd`'s open file atomically and keeps its number (and `fd` keeps
    // owning it, to close it once).
    let r = unsafe { libc::dup3(to.as_raw_fd(), fd.as_raw_fd(), libc::O_CLOEXEC) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn killpg(pid: u32, sig: libc::c_int) {
    // SAFETY: kill(2) on a process group we created; no memory involved.
    unsafe {
        libc::kill(-(pid as libc::pid_t), sig);
    }
}

/// Where commands read their standard input from.
fn stdin_path() -> String {
    use std::io::IsTerminal;
    if io::stdin().is_terminal() {
        format!("/proc/{}/fd/0", std::process::id())
    } else {
        "/dev/null".to_string()
    }
}

/// `s` as one single-quoted shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn spawn(prefix: &str, node: &str, ns: &Path, confined: Option<&Confined>) -> io::Result<Shell> {
    let mut c = Command::new("bash");
    if let Some(x) = confined {
        x.apply(&mut c)?;
    }
    // -s NAME: commands from stdin; NAME ($1) only marks the process.
    c.args(["--norc", "--noprofile", "-s", &format!("{prefix}:{node}")])
        .env("LH_RUN", prefix)
        .env("LH_NODE", node)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // A session of its own: the terminal's Ctrl-C never reaches it (the
    // CLI decides what to interrupt) and killpg reaches its jobs.
    let mut child = netns::spawn_in_session(ns, &mut c)?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(io::Error::other("no pipes to the shell"));
    };
    let marker = format!("\x01lh-{:016x} ", rand::random::<u64>()).into_bytes();
    // SIGINT stops the foreground command; a trapped signal is reset to the
    // default in the commands, so they still die of it. __lh_done prints
    // the marker and the status, and keeps `$?` for the next command.
    let init = format!(
        "trap : INT\n__lh_done() {{ local s=$?; printf '%s%d\\n' '{}' \"$s\"; return $s; }}\n",
        String::from_utf8_lossy(&marker)
    );
    if let Err(e) = stdin.write_all(init.as_bytes()) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok(Shell {
        child,
        stdin,
        stdout,
        marker,
        pending: Vec::new(),
        waiting: false,
    })
}

enum Ended {
    /// The marker line came, with this exit status.
    Status(i32),
    /// The shell closed its output (it exited).
    Eof,
    /// An interrupt was not obeyed within [`KILL_AFTER`].
    Ignored,
}

/// Forwards the shell's output to `out` until the marker line.
fn wait_marker(sh: &mut Shell, out: &mut dyn Write) -> io::Result<Ended> {
    let fd = sh.stdout.as_raw_fd();
    // Output a `read` left (a tail that could start the marker) comes first.
    let mut pending: Vec<u8> = std::mem::take(&mut sh.pending);
    let mut buf = [0u8; 4096];
    let mut interrupted: Option<Instant> = None;
    loop {
        if interrupted.is_none() && (signals::take_interrupt() || signals::terminating()) {
            killpg(sh.child.id(), libc::SIGINT);
            interrupted = Some(Instant::now());
        }
        if interrupted.is_some_and(|t| t.elapsed() > KILL_AFTER) {
            out.write_all(&pending)?;
            return Ok(Ended::Ignored);
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, 100) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            continue;
        }
        let k = match sh.stdout.read(&mut buf) {
            Ok(k) => k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if k == 0 {
            out.write_all(&pending)?;
            return Ok(Ended::Eof);
        }
        pending.extend_from_slice(&buf[..k]);
        if let Some(status) = take_until_marker(&mut pending, &sh.marker, out)? {
            out.write_all(&pending)?;
            if interrupted.is_some() {
                writeln!(out, "Interrupt")?;
            }
            return Ok(Ended::Status(status));
        }
    }
}

/// Writes the output in `pending` that cannot be part of the marker line to
/// `out`; when the whole marker line is there, returns its status and
/// leaves only what followed it in `pending`.
fn take_until_marker(
    pending: &mut Vec<u8>,
    marker: &[u8],
    out: &mut dyn Write,
) -> io::Result<Option<i32>> {
    match find(pending, marker) {
        Some(at) => {
            let Some(nl) = pending[at..].iter().position(|&b| b == b'\n') else {
                // The status is not complete yet.
                out.write_all(&pending[..at])?;
                pending.drain(..at);
                return Ok(None);
            };
            out.write_all(&pending[..at])?;
            let status = std::str::from_utf8(&pending[at + marker.len()..at + nl])
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(-1);
            pending.drain(..at + nl + 1);
            Ok(Some(status))
        }
        None => {
            // Keep only a tail that starts the marker (the output of a
            // background job must not wait for the next command's).
            let keep = (1..marker.len().min(pending.len() + 1))
                .rev()
                .find(|&k| pending.ends_with(&marker[..k]))
                .unwrap_or(0);
            let cut = pending.len() - keep;
            out.write_all(&pending[..cut])?;
            pending.drain(..cut);
            Ok(None)
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_split_across_reads_is_found_and_output_kept() {
        let m = b"\x01lh-00 ";
        let mut out = Vec::new();
        let mut p = b"hello\nwor\x01lh".to_vec();
        assert_eq!(take_until_marker(&mut p, m, &mut out).unwrap(), None);
        // Only a tail that starts the marker is held back.
        assert_eq!(out, b"hello\nwor");
        assert_eq!(p, b"\x01lh");
        let mut q = b"from-bg\n".to_vec();
        let mut bg = Vec::new();
        assert_eq!(take_until_marker(&mut q, m, &mut bg).unwrap(), None);
        assert_eq!(bg, b"from-bg\n", "nothing held back");
        p.extend_from_slice(b"-00 1");
        assert_eq!(take_until_marker(&mut p, m, &mut out).unwrap(), None);
        assert_eq!(out, b"hello\nwor");
        p.extend_from_slice(b"30\nlater");
        assert_eq!(take_until_marker(&mut p, m, &mut out).unwrap(), Some(130));
        assert_eq!(out, b"hello\nwor");
        assert_eq!(p, b"later");
    }

    #[test]
    fn a_character_split_between_reads_comes_whole() {
        let mut shells = NodeShells::new("lhtest");
        // The current namespace: /proc/self/ns/net.
        let ns = std::path::PathBuf::from("/proc/self/ns/net");
        if shells.ensure("n", &ns, None).is_err() {
            eprintln!("SKIPPED a_character_split_between_reads_comes_whole: no shell here");
            return;
        }
        // 'é' is two bytes: printf the first, pause, then the second.
        shells
            .send("n", &ns, r"printf '\303'; sleep 0.3; printf '\251'", None)
            .unwrap();
        let mut text = Vec::new();
        for _ in 0..50 {
            let (out, status) = shells.read("n", Some(Duration::from_millis(100))).unwrap();
            assert!(std::str::from_utf8(&out).is_ok(), "{out:?}");
            text.extend_from_slice(&out);
            if status.is_some() {
                break;
            }
        }
        assert_eq!(String::from_utf8(text).unwrap(), "\u{e9}");
        assert!(!shells.waiting("n"));
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("echo 'a b'"), r"'echo '\''a b'\'''");
    }
}
