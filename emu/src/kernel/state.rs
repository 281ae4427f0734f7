//! Run state on disk: /run/lighthouse/<prefix>/state.json, written before
//! any kernel object exists so that a crashed run can always be found and
//! cleaned, and so that two runs never pick the same prefix (the directory
//! is created with an exclusive mkdir).

use crate::kernel::securefs::{self, SecureFsError};
use crate::netns;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub const RUN_DIR: &str = "/run/lighthouse";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    pub prefix: String,
    pub pid: u32,
    #[serde(default)]
    pub config: Option<PathBuf>,
    /// Every namespace this run creates (listed before it is created).
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Processes the run started inside its namespaces.
    #[serde(default)]
    pub children: Vec<u32>,
    #[serde(default)]
    pub started_unix: u64,
    /// Start time of `pid` (clock ticks since boot, /proc/PID/stat field
    /// 22): with `exe`, what proves a live pid is still this run's.
    #[serde(default)]
    pub pid_start: Option<u64>,
    /// The executable of `pid` (/proc/PID/exe) when the run started.
    #[serde(default)]
    pub exe: Option<PathBuf>,
}

/// Start time of a process (clock ticks since boot), if it exists.
pub fn proc_start_time(pid: u32) -> Option<u64> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // comm may contain spaces and parentheses: fields follow the last ')'.
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// The executable of a process, without a " (deleted)" suffix.
pub fn proc_exe(pid: u32) -> Option<PathBuf> {
    let p = fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let s = p.to_string_lossy();
    Some(PathBuf::from(s.strip_suffix(" (deleted)").unwrap_or(&s)))
}

/// The identity to record for the calling process.
pub fn my_identity() -> (Option<u64>, Option<PathBuf>) {
    let me = std::process::id();
    (proc_start_time(me), proc_exe(me))
}

/// Is a namespace name one this run may own: `<prefix>-<node>` with a
/// node name of letters, digits, '-' or '_' (no '/', no "..").
pub fn ns_name_of_run(name: &str, prefix: &str) -> bool {
    prefix_of_ns(name) == Some(prefix)
}

#[cfg(test)]
mod identity_tests {
    use super::*;

    #[test]
    fn own_identity_is_alive_and_a_changed_one_is_not() {
        let (start, exe) = my_identity();
        let mut s = RunState {
            pid: std::process::id(),
            pid_start: start,
            exe,
            ..Default::default()
        };
        assert!(owner_alive(&s));
        s.pid_start = s.pid_start.map(|t| t + 1);
        assert!(!owner_alive(&s), "start time differs: a reused pid");
        s.pid_start = start;
        s.exe = Some("/usr/bin/lighthouse".into());
        assert!(!owner_alive(&s), "another executable");
        s.exe = None;
        assert!(!owner_alive(&s), "nothing recorded: nothing proven");
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("invalid run prefix {0:?}: expected \"lh\" and 4 lowercase hex digits, e.g. lh3f2a")]
    BadPrefix(String),
    #[error("run prefix {0} is already in use (see `lighthouse clean --prefix {0}`)")]
    InUse(String),
    #[error("could not find a free run prefix")]
    Exhausted,
    #[error(transparent)]
    Secure(#[from] SecureFsError),
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> StateError {
    let path = path.display().to_string();
    move |source| StateError::Io { path, source }
}

/// `lh` + 4 lowercase hex digits: the only prefixes `clean` will touch.
pub fn valid_prefix(p: &str) -> bool {
    p.len() == 6
        && p.starts_with("lh")
        && p[2..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The run prefix of a namespace name `lhXXXX-...`, if it is one of ours.
pub fn prefix_of_ns(name: &str) -> Option<&str> {
    let (p, rest) = name.split_once('-')?;
    let node_ok = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    (valid_prefix(p) && node_ok).then_some(p)
}

pub fn run_dir(prefix: &str) -> PathBuf {
    Path::new(RUN_DIR).join(prefix)
}

pub fn state_file(prefix: &str) -> PathBuf {
    run_dir(prefix).join("state.json")
}

/// Claim a prefix: the requested one, or `lh` + 4 random hex digits not used
/// by any run directory or namespace. Returns with the run directory made.
pub fn allocate(requested: Option<&str>) -> Result<String, StateError> {
    let base = Path::new(RUN_DIR);
    if let Some(parent) = base.parent() {
        fs::create_dir_all(parent).map_err(io_at(parent))?;
    }
    securefs::ensure_dir(base, securefs::DIR_MODE)?;
    let existing = netns::list();
    let ns_used = |p: &str| existing.iter().any(|n| prefix_of_ns(n) == Some(p));
    for _ in 0..1000 {
        let p = match requested {
            Some(r) => {
                if !valid_prefix(r) {
                    return Err(StateError::BadPrefix(r.to_string()));
                }
                r.to_string()
            }
            None => format!("lh{:04x}", rand::random::<u16>()),
        };
        let taken = ns_used(&p)
            || match fs::DirBuilder::new()
                .mode(securefs::DIR_MODE)
                .create(run_dir(&p))
            {
                Ok(()) => {
                    // The umask may have cleared bits, never added them; set
                    // the mode explicitly anyway.
                    fs::set_permissions(
                        run_dir(&p),
                        fs::Permissions::from_mode(securefs::DIR_MODE),
                    )
                    .map_err(io_at(&run_dir(&p)))?;
                    false
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => true,
                Err(e) => return Err(io_at(&run_dir(&p))(e)),
            };
        if !taken {
            return Ok(p);
        }
        if requested.is_some() {
            return Err(StateError::InUse(p));
        }
    }
    Err(StateError::Exhausted)
}

/// Write the state atomically (temp file + rename).
pub fn save(s: &RunState) -> Result<(), StateError> {
    let path = state_file(&s.prefix);
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(s).expect("state serialises");
    let mut f = securefs::create_file(&tmp, securefs::FILE_MODE)?;
    f.write_all(text.as_bytes()).map_err(io_at(&tmp))?;
    drop(f);
    fs::rename(&tmp, &path).map_err(io_at(&path))
}

pub fn load(prefix: &str) -> Option<RunState> {
    let text = fs::read_to_string(state_file(prefix)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Prefixes that have a run directory.
pub fn runs() -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(RUN_DIR)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| valid_prefix(n))
        .collect();
    v.sort();
    v
}

pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Is the run's recorded owner still alive? Only if its pid, start time
/// and executable all match what state.json recorded: a reused pid, or a
/// process that merely calls itself `lighthouse`, is not the run.
pub fn owner_alive(s: &RunState) -> bool {
    let (Some(start), Some(exe)) = (s.pid_start, &s.exe) else {
        return false;
    };
    s.pid > 1 && proc_start_time(s.pid) == Some(start) && proc_exe(s.pid).as_ref() == Some(exe)
}

/// A state file written before identities were recorded (no start time or
/// executable) whose pid is a live process running a `lighthouse` binary:
/// it may be a live run of an older build. Never signalled (nothing is
/// proven), but not judged stale either.
pub fn legacy_maybe_alive(s: &RunState) -> bool {
    (s.pid_start.is_none() || s.exe.is_none())
        && s.pid > 1
        && proc_exe(s.pid)
            .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            .is_some_and(|f| f == "lighthouse")
}

/// A run whose owner is gone. A directory without a state file is only
/// considered abandoned after a grace period: its owner may be starting.
pub fn is_stale(prefix: &str) -> bool {
    match load(prefix) {
        Some(s) => s.pid != std::process::id() && !owner_alive(&s) && !legacy_maybe_alive(&s),
        None => fs::metadata(run_dir(prefix))
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_none_or(|age| age > Duration::from_secs(30)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_rules() {
        assert!(valid_prefix("lh3f2a"));
        assert!(!valid_prefix("lh3F2a"));
        assert!(!valid_prefix("lh3f2"));
        assert!(!valid_prefix("xx3f2a"));
        assert!(!valid_prefix("lh3f2g"));
        assert_eq!(prefix_of_ns("lh3f2a-h1"), Some("lh3f2a"));
        assert_eq!(prefix_of_ns("lh3f2a-fab"), Some("lh3f2a"));
        assert_eq!(prefix_of_ns("lh3f2a-"), None);
        assert_eq!(prefix_of_ns("lh3f2ab-h1"), None);
        assert_eq!(prefix_of_ns("myns"), None);
        assert_eq!(prefix_of_ns("lh3f2a-../../etc/passwd"), None);
        assert_eq!(prefix_of_ns("lh3f2a-h1/x"), None);
        assert_eq!(prefix_of_ns("lh3f2a-h_1-x"), Some("lh3f2a"));
    }

    #[test]
    fn state_roundtrips_json() {
        let s = RunState {
            prefix: "lh0001".into(),
            pid: 42,
            config: Some("/x/y.json".into()),
            namespaces: vec!["lh0001-h1".into()],
            children: vec![7],
            started_unix: 1,
            pid_start: Some(5),
            exe: Some("/usr/bin/lighthouse".into()),
        };
        let t = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<RunState>(&t).unwrap(), s);
    }
}
