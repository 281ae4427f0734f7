//! Finding the P4 toolchain and compiling a program with `p4c-bm2-ss`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::{Cached, P4Cache};

/// Paths of the stock BMv2 tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub simple_switch: PathBuf,
    pub p4c_bm2_ss: PathBuf,
}

const HOW_TO_INSTALL: &str = "install the P4 toolchain: in the Lighthouse workplace run \
`bash ../shared/toolchains/install-p4.sh` (as root); on Ubuntu install p4lang's packages \
`p4lang-bmv2` and `p4lang-p4c`; or build p4lang/behavioral-model and p4lang/p4c";

#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    #[error("{} not found on PATH; {HOW_TO_INSTALL}", .missing.join(" and "))]
    Missing { missing: Vec<&'static str> },
}

/// Looks for an executable file named `name` in the directories of PATH.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Finds `simple_switch` and `p4c-bm2-ss` on PATH.
pub fn toolchain() -> Result<Toolchain, ToolchainError> {
    let ss = find_on_path("simple_switch");
    let p4c = find_on_path("p4c-bm2-ss");
    match (ss, p4c) {
        (Some(simple_switch), Some(p4c_bm2_ss)) => Ok(Toolchain {
            simple_switch,
            p4c_bm2_ss,
        }),
        (ss, p4c) => {
            let mut missing = Vec::new();
            if ss.is_none() {
                missing.push("simple_switch");
            }
            if p4c.is_none() {
                missing.push("p4c-bm2-ss");
            }
            Err(ToolchainError::Missing { missing })
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One diagnostic of p4c. Displays as `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: Option<PathBuf>,
    pub line: Option<u32>,
    pub severity: Severity,
    /// The message without p4c's `[--Wwarn=...]` tag, e.g.
    /// `error: undefined_thing: declaration not found`.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{l}: {}", p.display(), self.message),
            (Some(p), None) => write!(f, "{}: {}", p.display(), self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Why [`compile`] failed. Warnings count as failures.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("cannot run {program}: {source}")]
    Run {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("p4c-bm2-ss failed on {}{}:\n{}", .p4.display(), status_suffix(.status), list(.diagnostics, .output))]
    Diagnostics {
        p4: PathBuf,
        /// None when p4c exited 0 but printed warnings.
        status: Option<i32>,
        diagnostics: Vec<Diagnostic>,
        /// p4c's whole output (stdout then stderr).
        output: String,
    },
}

fn status_suffix(s: &Option<i32>) -> String {
    match s {
        Some(c) => format!(" (exit status {c})"),
        None => " (warnings are treated as errors)".to_string(),
    }
}

fn list(d: &[Diagnostic], output: &str) -> String {
    if d.is_empty() {
        return output.trim_end().to_string();
    }
    d.iter()
        .map(|d| format!("  {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses p4c's output: `file(line): [--Wtag] error: msg` or
/// `file(line):syntax error, ...` or a bare `error: msg`. The source excerpt
/// and caret lines that follow a diagnostic are skipped.
pub fn parse_diagnostics(output: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for raw in output.lines() {
        let line = raw.trim_end();
        if line.is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        let (file, lno, rest) = match split_location(line) {
            Some((f, l, r)) => (Some(PathBuf::from(f)), Some(l), r.trim_start()),
            None => (None, None, line),
        };
        let rest = strip_tag(rest);
        let lower = rest.to_ascii_lowercase();
        let severity = if lower.starts_with("warning") {
            Severity::Warning
        } else if lower.starts_with("error") || lower.contains("error") && file.is_some() {
            Severity::Error
        } else {
            continue;
        };
        out.push(Diagnostic {
            file,
            line: lno,
            severity,
            message: rest.to_string(),
        });
    }
    out
}

/// `path(12): rest` or `path(12):rest` -> (path, 12, rest).
fn split_location(line: &str) -> Option<(&str, u32, &str)> {
    let close = line.find("):")?;
    let open = line[..close].rfind('(')?;
    let lno: u32 = line[open + 1..close].parse().ok()?;
    let file = &line[..open];
    if file.is_empty() {
        return None;
    }
    Some((file, lno, &line[close + 2..]))
}

/// Drops a leading `[--Wwarn=unused] ` tag.
fn strip_tag(s: &str) -> &str {
    if s.starts_with("[--W")
        && let Some(i) = s.find("] ")
    {
        return &s[i + 2..];
    }
    s
}

/// Compiles a v1model program with `p4c-bm2-ss` into `out_dir/<stem>.json`
/// and returns that path. Any warning fails the build: the P4 program's
/// author should see it, and BMv2 would run the program as compiled. A
/// program compiled before comes from the cache ([`P4Cache::from_env`]).
pub fn compile(p4: &Path, out_dir: &Path, includes: &[&Path]) -> Result<PathBuf, CompileError> {
    compile_in(p4, out_dir, includes, &P4Cache::from_env()).map(|(json, _)| json)
}

/// [`compile`] with an explicit cache; also says whether it was used.
pub fn compile_in(
    p4: &Path,
    out_dir: &Path,
    includes: &[&Path],
    cache: &P4Cache,
) -> Result<(PathBuf, Cached), CompileError> {
    let tc = toolchain()?;
    let stem = p4
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    std::fs::create_dir_all(out_dir).map_err(|source| CompileError::Run {
        program: format!("mkdir {}", out_dir.display()),
        source,
    })?;
    let json = out_dir.join(format!("{stem}.json"));
    let key = cache.key(&tc.p4c_bm2_ss, p4, includes);
    if let Some(k) = &key
        && cache.get(k, &json)
    {
        tracing::debug!(p4 = %p4.display(), key = %k, "compiled P4 from the cache");
        return Ok((json, Cached::Hit));
    }
    let mut cmd = Command::new(&tc.p4c_bm2_ss);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.arg("-o").arg(&json).arg(p4);
    tracing::debug!(?cmd, "compiling P4");
    let out = cmd.output().map_err(|source| CompileError::Run {
        program: tc.p4c_bm2_ss.display().to_string(),
        source,
    })?;
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let diagnostics = parse_diagnostics(&output);
    if !out.status.success() || !diagnostics.is_empty() {
        return Err(CompileError::Diagnostics {
            p4: p4.to_path_buf(),
            status: if out.status.success() {
                None
            } else {
                Some(out.status.code().unwrap_or(-1))
            },
            diagnostics,
            output,
        });
    }
    let stored = key.is_some_and(|k| cache.put(&k, &json));
    Ok((json, if stored { Cached::Miss } else { Cached::Off }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_toolchain_says_how_to_install() {
        let e = ToolchainError::Missing {
            missing: vec!["simple_switch", "p4c-bm2-ss"],
        }
        .to_string();
        assert!(
            e.contains("simple_switch and p4c-bm2-ss not found on PATH"),
            "{e}"
        );
        assert!(e.contains("bash ../shared/toolchains/install-p4.sh"), "{e}");
        assert!(e.contains("p4lang-bmv2") && e.contains("p4lang-p4c"), "{e}");
    }

    #[test]
    fn parses_p4c_diagnostics() {
        let out = "broken.p4(9): [--Werror=not-found] error: undefined_thing: declaration not found\n        undefined_thing(x);\n        ^^^^^^^^^^^^^^^\n\
/a/b(c).p4(14): [--Wwarn=unused] warning: unused_reg: unused instance\n\
x.p4(3):syntax error, unexpected IDENTIFIER \"y\"\n\
error: 1 errors encountered, aborting compilation\n";
        let d = parse_diagnostics(out);
        assert_eq!(d.len(), 4, "{d:?}");
        assert_eq!(
            d[0].to_string(),
            "broken.p4:9: error: undefined_thing: declaration not found"
        );
        assert_eq!(
            d[1].to_string(),
            "/a/b(c).p4:14: warning: unused_reg: unused instance"
        );
        assert_eq!(d[1].severity, Severity::Warning);
        assert_eq!(
            d[2].to_string(),
            "x.p4:3: syntax error, unexpected IDENTIFIER \"y\""
        );
        assert_eq!(d[3].file, None);
    }
}
