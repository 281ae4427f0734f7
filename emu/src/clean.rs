//! `lighthouse clean`: remove exactly what lighthouse runs made -- their
//! namespaces (`lhXXXX-*`), the processes inside them (found by namespace
//! inode, never by name), the run process itself (only if /proc says it is a
//! lighthouse binary) and the state directory. Nothing else is touched.

use crate::netns;
use crate::state;
use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// `(prefix, pid)` of run processes killed.
    pub runs_killed: Vec<(String, u32)>,
    /// `(pid, comm)` of processes killed inside run namespaces.
    pub procs_killed: Vec<(u32, String)>,
    pub namespaces: Vec<String>,
    pub dirs: Vec<PathBuf>,
    /// Problems that did not stop the rest of the cleanup.
    pub errors: Vec<String>,
}

impl CleanReport {
    pub fn is_empty(&self) -> bool {
        self.runs_killed.is_empty()
            && self.procs_killed.is_empty()
            && self.namespaces.is_empty()
            && self.dirs.is_empty()
    }

    /// Human-readable lines in Mininet's `mn -c` style.
    pub fn lines(&self) -> Vec<String> {
        let mut v = Vec::new();
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
        for e in &self.errors {
            v.push(format!("*** Error: {e}"));
        }
        if self.is_empty() && self.errors.is_empty() {
            v.push("*** Nothing to clean".into());
        }
        v
    }
}

/// Which runs to clean.
#[derive(Clone, Debug)]
pub enum Scope<'a> {
    /// Every lighthouse run, live or not (`lighthouse clean`).
    All,
    /// One run (`lighthouse clean --prefix P`).
    Prefix(&'a str),
    /// Runs whose owner process is gone (done at every `lighthouse run`).
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
pub fn kill_in_namespaces(paths: &[PathBuf]) -> Vec<(u32, String)> {
    let ids: BTreeSet<(u64, u64)> = paths.iter().filter_map(|p| netns::ns_id(p).ok()).collect();
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

pub fn clean(scope: Scope<'_>) -> CleanReport {
    let mut rep = CleanReport::default();
    let ns_all = netns::list();
    let mut prefixes: BTreeSet<String> = BTreeSet::new();
    match scope {
        Scope::All => {
            prefixes.extend(state::runs());
            prefixes.extend(
                ns_all
                    .iter()
                    .filter_map(|n| state::prefix_of_ns(n).map(str::to_string)),
            );
        }
        Scope::Prefix(p) => {
            prefixes.insert(p.to_string());
        }
        Scope::Stale => {
            prefixes.extend(state::runs().into_iter().filter(|p| state::is_stale(p)));
        }
    }
    let me = std::process::id();
    for p in prefixes {
        let st = state::load(&p);
        if let Some(s) = &st
            && s.pid != me
            && state::is_lighthouse(s.pid)
        {
            if send_kill(s.pid) {
                rep.runs_killed.push((p.clone(), s.pid));
            }
            wait_gone(s.pid, Duration::from_secs(3));
        }
        let mut names: BTreeSet<String> = ns_all
            .iter()
            .filter(|n| state::prefix_of_ns(n) == Some(p.as_str()))
            .cloned()
            .collect();
        if let Some(s) = &st {
            names.extend(
                s.namespaces
                    .iter()
                    .filter(|n| netns::ns_path(n).exists())
                    .cloned(),
            );
        }
        let paths: Vec<PathBuf> = names.iter().map(|n| netns::ns_path(n)).collect();
        rep.procs_killed.extend(kill_in_namespaces(&paths));
        for (n, path) in names.iter().zip(&paths) {
            match netns::delete_path(path) {
                Ok(()) => rep.namespaces.push(n.clone()),
                Err(e) => rep.errors.push(e.to_string()),
            }
        }
        let dir = state::run_dir(&p);
        if dir.exists() {
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
