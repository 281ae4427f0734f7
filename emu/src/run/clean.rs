//! `lighthouse clean`: remove exactly what lighthouse runs made -- their
//! namespaces (`lhXXXX-*`), the processes inside them (found by namespace
//! inode, never by name), the run process itself (only if /proc says it is a
//! lighthouse binary), its hosts' cgroups (`<prefix>-<host>`) and the state
//! directory. Nothing else is touched.

use crate::kernel::state;
use crate::netns;
use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// `(prefix, pid)` of live runs that stopped on SIGTERM.
    pub runs_stopped: Vec<(String, u32)>,
    /// `(prefix, pid)` of run processes killed (no exit within the timeout).
    pub runs_killed: Vec<(String, u32)>,
    /// `(pid, comm)` of processes killed inside run namespaces.
    pub procs_killed: Vec<(u32, String)>,
    pub namespaces: Vec<String>,
    pub dirs: Vec<PathBuf>,
    /// Objects that looked like a run's but cannot be proven to be (e.g. a
    /// symlink under /run/netns): not touched.
    pub left_alone: Vec<String>,
    /// Problems that did not stop the rest of the cleanup.
    pub errors: Vec<String>,
}

impl CleanReport {
    pub fn is_empty(&self) -> bool {
        self.runs_killed.is_empty()
            && self.runs_stopped.is_empty()
            && self.procs_killed.is_empty()
            && self.namespaces.is_empty()
            && self.dirs.is_empty()
    }

    /// Human-readable lines in Mininet's `mn -c` style.
    pub fn lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        for (p, pid) in &self.runs_stopped {
            v.push(format!(
                "*** Stopped run {p} (lighthouse pid {pid}, SIGTERM)"
            ));
        }
        for (p, pid) in &self.runs_killed {
            v.push(format!("*** Killed run {p} (lighthouse pid {pid})"));
        }
        if !self.procs_killed.is_empty() {
            let l: Vec<String> = self
                .procs_killed
                .iter()
                .map(|(p, c)| format!("{p}({c})"))
                .collect();
            v.push(format!(
                "*** Killed processes in run namespaces: {}",
                l.join(" ")
            ));
        }
        if !self.namespaces.is_empty() {
            v.push(format!(
                "*** Removed namespaces: {}",
                self.namespaces.join(" ")
            ));
        }
        for d in &self.dirs {
            v.push(format!("*** Removed {}", d.display()));
        }
        for l in &self.left_alone {
            v.push(format!("*** Left alone: {l}"));
        }
        for e in &self.errors {
            v.push(format!("*** Error: {e}"));
        }
        if self.is_empty() && self.errors.is_empty() && self.left_alone.is_empty() {
            v.push("*** Nothing to clean".into());
        }
        v
    }
}

/// Which runs to clean.
#[derive(Clone, Debug)]
pub enum Scope<'a> {
    /// Every lighthouse run; live ones are stopped (`lighthouse clean`).
    All,
    /// One run (`lighthouse clean --prefix P`).
    Prefix(&'a str),
    /// Runs whose owner process is gone (`lighthouse clean --stale`, and at
    /// every `lighthouse run`).
    Stale,
}

fn send_kill(pid: u32) -> bool {
    // SAFETY: kill(2) with a specific positive pid; never 0 or -1.
    pid > 1 && unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) } == 0
}

fn comm(pid: u32) -> String {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn wait_gone(pid: u32, limit: Duration) {
    let t = Instant::now();
    // A zombie keeps /proc/PID but has no namespaces left; that is enough.
    while t.elapsed() < limit && fs::metadata(format!("/proc/{pid}/ns/net")).is_ok() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Pids whose network namespace is one of `ids`.
pub fn pids_in(ids: &BTreeSet<(u64, u64)>) -> Vec<u32> {
    let me = std::process::id();
    let mut v = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        if let Ok(id) = netns::ns_id(&e.path().join("ns/net"))
            && ids.contains(&id)
        {
            v.push(pid);
        }
    }
    v
}

/// Kill every process inside the given namespaces; returns what was killed.
/// A namespace is identified through [`netns::inspect`] (never through a
/// symlink), so a link planted under /run/netns cannot point the killing at
/// someone else's namespace.
pub fn kill_in_namespaces(paths: &[PathBuf]) -> Vec<(u32, String)> {
    let ids: BTreeSet<(u64, u64)> = paths
        .iter()
        .filter_map(|p| match netns::inspect(p) {
            Ok(netns::NsFile::Mounted(id)) => Some(id),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    let mut killed = Vec::new();
    // Repeat: a dying shell may have forked just before it got the signal.
    for _ in 0..5 {
        let pids = pids_in(&ids);
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            let c = comm(pid);
            if send_kill(pid) && !killed.iter().any(|(p, _)| *p == pid) {
                killed.push((pid, c));
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for (pid, _) in &killed {
        wait_gone(*pid, Duration::from_secs(2));
    }
    killed
}

/// How long a live run gets to tear itself down after SIGTERM.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Signal a run's owner through a pidfd opened after its identity was
/// checked, so a pid reused in between cannot receive it.
fn signal_owner(s: &state::RunState, sig: libc::c_int) -> bool {
    // SAFETY: pidfd_open takes a pid and flags, returns an fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, s.pid as libc::pid_t, 0) };
    if fd < 0 {
        return false;
    }
    // SAFETY: fd is a fresh pidfd we own.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd as i32) };
    // Re-check with the pidfd held: it pins the process it refers to.
    if !state::owner_alive(s) {
        return false;
    }
    // SAFETY: pidfd_send_signal on our pidfd, null siginfo, no flags.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            std::os::fd::AsRawFd::as_raw_fd(&fd),
            sig,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        ) == 0
    }
}

/// Ask a live run to stop (SIGTERM), SIGKILL it after `limit`. Returns
/// whether it had to be killed.
fn stop_run(s: &state::RunState, limit: Duration) -> bool {
    if !signal_owner(s, libc::SIGTERM) {
        return false;
    }
    let t = Instant::now();
    while t.elapsed() < limit {
        if !state::owner_alive(s) || is_zombie(s.pid) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = signal_owner(s, libc::SIGKILL);
    wait_gone(s.pid, Duration::from_secs(3));
    killed
}

fn is_zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let r = s.rfind(')')?;
            s[r + 1..].split_whitespace().next().map(|c| c == "Z")
        })
        .unwrap_or(true)
}

pub fn clean(scope: Scope<'_>) -> CleanReport {
    clean_with(scope, &mut |_| {})
}

/// [`clean`], telling `notify` about each live run before it is stopped.
pub fn clean_with(scope: Scope<'_>, notify: &mut dyn FnMut(&str)) -> CleanReport {
    let mut rep = CleanReport::default();
    let ns_all = netns::list();
    let mut prefixes: BTreeSet<String> = BTreeSet::new();
    let stale_only = matches!(scope, Scope::Stale);
    match scope {
        Scope::All | Scope::Stale => {
            prefixes.extend(state::runs());
            prefixes.extend(
                ns_all
                    .iter()
                    .filter_map(|n| state::prefix_of_ns(n).map(str::to_string)),
            );
            let cgroups = crate::host::confine::top_cgroups();
            prefixes.extend(cgroups.iter().filter_map(|c| {
                let n = c.file_name()?.to_str()?;
                state::prefix_of_ns(n).map(str::to_string)
            }));
        }
        Scope::Prefix(p) => {
            prefixes.insert(p.to_string());
        }
    }
    let me = std::process::id();
    for p in prefixes {
        if !state::valid_prefix(&p) {
            continue;
        }
        if stale_only && !state::is_stale(&p) {
            // Live (this process's own, another's), or starting.
            continue;
        }
        let st = state::load(&p);
        if let Some(s) = &st {
            // A state file that names anything but this run's own objects
            // is forged or corrupt: act on none of it.
            let bad: Vec<&String> = s
                .namespaces
                .iter()
                .filter(|n| !state::ns_name_of_run(n, &p))
                .collect();
            if s.prefix != p || !bad.is_empty() {
                rep.errors.push(format!(
                    "{}: lists objects that are not run {p}'s ({}): refusing to clean this run",
                    state::state_file(&p).display(),
                    if s.prefix != p {
                        format!("prefix {:?}", s.prefix)
                    } else {
                        format!("namespaces {bad:?}")
                    }
                ));
                continue;
            }
            if s.pid != me && state::legacy_maybe_alive(s) && !state::owner_alive(s) {
                if !stale_only {
                    rep.errors.push(format!(
                        "run {p}: pid {} may be a live run of an older lighthouse (no identity recorded); not touched",
                        s.pid
                    ));
                }
                continue;
            }
            if s.pid != me && state::owner_alive(s) {
                if stale_only {
                    continue;
                }
                notify(&format!(
                    "*** Stopping live run {p} (lighthouse pid {}): SIGTERM, SIGKILL after {}s",
                    s.pid,
                    STOP_TIMEOUT.as_secs()
                ));
                if stop_run(s, STOP_TIMEOUT) {
                    rep.runs_killed.push((p.clone(), s.pid));
                } else {
                    rep.runs_stopped.push((p.clone(), s.pid));
                }
            }
        }
        let mut names: BTreeSet<String> = netns::list()
            .into_iter()
            .filter(|n| state::ns_name_of_run(n, &p))
            .collect();
        if let Some(s) = &st {
            names.extend(
                s.namespaces
                    .iter()
                    .filter(|n| netns::ns_path(n).symlink_metadata().is_ok())
                    .cloned(),
            );
        }
        let mut paths = Vec::new();
        for n in &names {
            let path = netns::ns_path(n);
            match netns::inspect(&path) {
                Ok(netns::NsFile::Mounted(_)) | Ok(netns::NsFile::Plain) => paths.push((n, path)),
                Ok(netns::NsFile::Missing) => {}
                Ok(netns::NsFile::Symlink) => rep
                    .left_alone
                    .push(format!("{} (a symbolic link)", path.display())),
                Ok(netns::NsFile::Other) => rep
                    .left_alone
                    .push(format!("{} (not a namespace file)", path.display())),
                Err(e) => rep.errors.push(format!("{}: {e}", path.display())),
            }
        }
        let plain: Vec<PathBuf> = paths.iter().map(|(_, p)| p.clone()).collect();
        rep.procs_killed.extend(kill_in_namespaces(&plain));
        for (n, path) in &paths {
            match netns::delete_path(path) {
                Ok(()) => rep.namespaces.push((*n).clone()),
                Err(e) => rep.errors.push(e.to_string()),
            }
        }
        // CPULimitedHost's cgroups (`<prefix>-<host>`), empty now that
        // the processes of the run's namespaces are gone.
        for cg in crate::host::confine::run_cgroups(&p) {
            match crate::host::confine::remove_cgroup(&cg) {
                Ok(()) => rep.dirs.push(cg),
                Err(e) => rep.errors.push(format!("{}: {e}", cg.display())),
            }
        }
        let dir = state::run_dir(&p);
        if dir.symlink_metadata().is_ok() {
            match fs::remove_dir_all(&dir) {
                Ok(()) => rep.dirs.push(dir),
                Err(e) => rep.errors.push(format!("{}: {e}", dir.display())),
            }
        }
    }
    rep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_say_what_was_removed() {
        let r = CleanReport {
            runs_stopped: vec![],
            left_alone: vec![],
            runs_killed: vec![("lh3f2a".into(), 42)],
            procs_killed: vec![(7, "sleep".into()), (8, "iperf3".into())],
            namespaces: vec!["lh3f2a-fab".into(), "lh3f2a-h1".into()],
            dirs: vec!["/run/lighthouse/lh3f2a".into()],
            errors: vec![],
        };
        assert_eq!(
            r.lines(),
            vec![
                "*** Killed run lh3f2a (lighthouse pid 42)",
                "*** Killed processes in run namespaces: 7(sleep) 8(iperf3)",
                "*** Removed namespaces: lh3f2a-fab lh3f2a-h1",
                "*** Removed /run/lighthouse/lh3f2a",
            ]
        );
        assert_eq!(CleanReport::default().lines(), vec!["*** Nothing to clean"]);
    }
}
