//! Run state on disk: /run/lighthouse/<prefix>/state.json, written before
//! any kernel object exists so that a crashed run can always be found and
//! cleaned, and so that two runs never pick the same prefix (the directory
//! is created with an exclusive mkdir).

use crate::netns;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
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
    (valid_prefix(p) && !rest.is_empty()).then_some(p)
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
    fs::create_dir_all(base).map_err(io_at(base))?;
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
            || match fs::create_dir(run_dir(&p)) {
                Ok(()) => false,
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
    fs::write(&tmp, text).map_err(io_at(&tmp))?;
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

/// Is `pid` a live `lighthouse` process (not a reused pid)?
pub fn is_lighthouse(pid: u32) -> bool {
    let Ok(cmd) = fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let argv0 = cmd.split(|b| *b == 0).next().unwrap_or_default();
    let base = argv0.rsplit(|b| *b == b'/').next().unwrap_or_default();
    if base == b"lighthouse" {
        return true;
    }
    // Test harnesses may exec it under another argv[0]; trust /proc/PID/exe.
    fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
        .is_some_and(|f| f == "lighthouse" || f.starts_with("lighthouse "))
}

/// A run whose owner is gone. A directory without a state file is only
/// considered abandoned after a grace period: its owner may be starting.
pub fn is_stale(prefix: &str) -> bool {
    match load(prefix) {
        Some(s) => s.pid != std::process::id() && !is_lighthouse(s.pid),
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
        };
        let t = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<RunState>(&t).unwrap(), s);
    }
}
