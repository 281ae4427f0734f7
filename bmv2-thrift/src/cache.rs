//! The compiled-P4 cache: `p4c-bm2-ss` takes 5-10 s on the Lighthouse
//! program, and `run --tor bmv2`, `p4 check` and the tests compiled it on
//! every start (issue 24). A program is keyed by a SHA-256 of what p4c
//! would compile: its preprocessed text (`p4c-bm2-ss -E`, so every
//! `#include`, the architecture's included, counts), the include
//! directories, and the compiler's path, size and modification time. Only
//! clean compiles (no warning) are stored, so a cached program never
//! hides a diagnostic.
//!
//! Line markers keep their line numbers but only the file's name, so the
//! same sources in another directory (each run writes the shipped program
//! into its own) hit; the JSON's `source_info` then names the files of the
//! run that compiled it, which only BMv2's log shows.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that moves the cache (a directory) or turns it off (`off`).
pub const ENV: &str = "LH_P4_CACHE";

/// Entries kept; the least recently used go first.
const KEEP: usize = 64;

/// Where compiled programs are kept, or nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct P4Cache {
    dir: Option<PathBuf>,
}

/// What [`crate::compile_in`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cached {
    /// Copied from the cache; p4c only preprocessed.
    Hit,
    /// Compiled, and stored.
    Miss,
    /// Compiled; no cache (turned off, not writable, or `-E` failed).
    Off,
}

impl P4Cache {
    /// `$LH_P4_CACHE`, else `$XDG_CACHE_HOME/lighthouse/p4c`, else
    /// `~/.cache/lighthouse/p4c`.
    pub fn from_env() -> P4Cache {
        let var = |k| std::env::var_os(k).filter(|v| !v.is_empty());
        match (var(ENV), var("XDG_CACHE_HOME"), var("HOME")) {
            (Some(v), _, _) if v == "off" => P4Cache::off(),
            (Some(v), _, _) => P4Cache::at(PathBuf::from(v)),
            (None, Some(x), _) => P4Cache::at(Path::new(&x).join("lighthouse/p4c")),
            (None, None, Some(h)) => P4Cache::at(Path::new(&h).join(".cache/lighthouse/p4c")),
            (None, None, None) => P4Cache::off(),
        }
    }

    pub fn at(dir: impl Into<PathBuf>) -> P4Cache {
        P4Cache {
            dir: Some(dir.into()),
        }
    }

    pub fn off() -> P4Cache {
        P4Cache { dir: None }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The cache key of `p4` as `p4c` would compile it with `includes`;
    /// None when the cache is off or p4c cannot preprocess it (the compile
    /// then reports why).
    pub(crate) fn key(&self, p4c: &Path, p4: &Path, includes: &[&Path]) -> Option<String> {
        self.dir.as_ref()?;
        let mut cmd = Command::new(p4c);
        for i in includes {
            cmd.arg("-I").arg(i);
        }
        let out = cmd.arg("-E").arg(p4).output().ok()?;
        // p4c 1.2.4 exits 1 after `-E` even when it preprocessed cleanly:
        // a clean run is text on stdout and nothing on stderr.
        if out.stdout.is_empty() || !out.stderr.is_empty() {
            return None;
        }
        let meta = std::fs::metadata(p4c).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let mut h = Sha256::new();
        h.update(b"lighthouse p4c cache 1\0");
        h.update(p4c.as_os_str().as_encoded_bytes());
        h.update(format!("\0{} {}\0", meta.len(), mtime.as_nanos()));
        for i in includes {
            h.update(i.as_os_str().as_encoded_bytes());
            h.update(b"\0");
        }
        h.update(normalize(&String::from_utf8_lossy(&out.stdout)));
        Some(format!("{:x}", h.finalize()))
    }

    fn entry(&self, key: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{key}.json")))
    }

    /// Copies the entry of `key` to `json`; false when there is none.
    pub(crate) fn get(&self, key: &str, json: &Path) -> bool {
        let Some(e) = self.entry(key) else {
            return false;
        };
        if std::fs::copy(&e, json).is_err() {
            return false;
        }
        // Most recently used: eviction goes by modification time.
        if let Ok(f) = std::fs::File::options().append(true).open(&e) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        true
    }

    /// Stores `json` under `key` (atomically: concurrent runs may race);
    /// false when the cache cannot be written.
    pub(crate) fn put(&self, key: &str, json: &Path) -> bool {
        let (Some(dir), Some(e)) = (self.dir.as_ref(), self.entry(key)) else {
            return false;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return false;
        }
        let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
        if std::fs::copy(json, &tmp).is_err() || std::fs::rename(&tmp, &e).is_err() {
            let _ = std::fs::remove_file(&tmp);
            return false;
        }
        self.evict(dir);
        true
    }

    fn evict(&self, dir: &Path) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<(std::time::SystemTime, PathBuf)> = rd
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if entries.len() <= KEEP {
            return;
        }
        entries.sort();
        for (_, p) in &entries[..entries.len() - KEEP] {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// cpp's line markers (`# 12 "/some/dir/ingress.p4" 1`) with the file's
/// name only; every other line as it is.
fn normalize(pre: &str) -> String {
    let mut out = String::with_capacity(pre.len());
    for line in pre.lines() {
        match marker(line) {
            Some((lno, file, rest)) => {
                let name = Path::new(file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| file.to_string());
                out.push_str(&format!("# {lno} \"{name}\"{rest}"));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// `# 12 "file" flags` -> (12, file, " flags").
fn marker(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("# ")?;
    let sp = rest.find(' ')?;
    let lno = &rest[..sp];
    if lno.is_empty() || !lno.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let q = rest[sp + 1..].strip_prefix('"')?;
    let end = q.find('"')?;
    Some((lno, &q[..end], &q[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_markers_keep_numbers_and_file_names_only() {
        let pre = "# 1 \"/run/lh/a1/p4/src/lighthouse.p4\"\n\
                   # 7 \"/opt/p4/share/p4c/p4include/core.p4\" 1\n\
                   control C() { apply { } }\n\
                   # 12 \"include/ingress.p4\" 2\n\
                   # not a marker\n";
        assert_eq!(
            normalize(pre),
            "# 1 \"lighthouse.p4\"\n\
             # 7 \"core.p4\" 1\n\
             control C() { apply { } }\n\
             # 12 \"ingress.p4\" 2\n\
             # not a marker\n"
        );
        // The same sources elsewhere are the same program; a moved line is not.
        assert_eq!(
            normalize("# 3 \"/tmp/x/a.p4\"\nx;\n"),
            normalize("# 3 \"/var/y/a.p4\"\nx;\n")
        );
        assert_ne!(
            normalize("# 3 \"/tmp/x/a.p4\"\nx;\n"),
            normalize("# 4 \"/tmp/x/a.p4\"\nx;\n")
        );
    }

    #[test]
    fn the_least_recently_used_entries_go_beyond_the_limit() {
        let d = tempfile::tempdir().unwrap();
        let c = P4Cache::at(d.path().join("cache"));
        let src = d.path().join("src.json");
        std::fs::write(&src, "{}").unwrap();
        let t0 = std::time::SystemTime::now() - std::time::Duration::from_secs(10_000);
        for i in 0..KEEP {
            assert!(c.put(&format!("k{i}"), &src));
            let f = std::fs::File::options()
                .append(true)
                .open(d.path().join(format!("cache/k{i}.json")))
                .unwrap();
            f.set_modified(t0 + std::time::Duration::from_secs(i as u64))
                .unwrap();
        }
        // k0 is the oldest, but a hit makes it the newest.
        let out = d.path().join("out.json");
        assert!(c.get("k0", &out));
        assert!(c.put("new", &src));
        let has = |k: &str| d.path().join(format!("cache/{k}.json")).exists();
        assert!(has("k0"), "used last: kept");
        assert!(!has("k1"), "least recent: evicted");
        assert!(has("k2") && has("new"));
        assert!(!c.get("k1", &out), "an evicted entry is a miss");
        assert!(!P4Cache::off().put("x", &src));
    }
}
