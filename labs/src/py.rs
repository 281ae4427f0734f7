//! The Python route of a lab: the student's `topo.py`, `routing.py`,
//! `tables.py`, `tm.py` or `answers.py` run through the real `lighthouse` package by [`DRIVER`] (shipped in the
//! binary), with the project venv's interpreter. No interpreter that can
//! `import lighthouse` makes the Python checks incomplete (exit 3), never
//! passed.

use super::checks::{Check, read};
use super::{Ctx, LabError};
use serde_json::Value;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The driver: imports the student's file, runs it on the shipped config
/// (stdin, after a nonce line), prints `LHLAB-RESULT <nonce> <json>`.
pub const DRIVER: &str = include_str!("lab_driver.py");

const MARK: &str = "LHLAB-RESULT ";

/// How long a student's script may run before it is stopped (a loop that
/// never ends is a failed check, not a hung grader).
const TIMEOUT: Duration = Duration::from_secs(120);

/// What running the driver gave.
pub enum Run {
    /// The driver's result object (`status`: ok, error, refused, shortcut,
    /// missing, badpath).
    Done(Value),
    /// No interpreter with `import lighthouse`: the reason (for `?`).
    NoPython(String),
    /// The driver itself failed (killed, timed out, no result line).
    Broken(String),
}

/// `$LIGHTHOUSE_PYTHON` if set (and only it), else the first
/// `.venv/bin/python` that can `import lighthouse`: in the repository the
/// labs came from, next to an ancestor of the binary, or in the source tree
/// it was built from.
pub fn interpreter(cx: &Ctx) -> Result<PathBuf, String> {
    let setup = "run scripts/setup-python.sh (it builds .venv with the lighthouse package), or set LIGHTHOUSE_PYTHON to a python that has it";
    if let Some(p) = std::env::var_os("LIGHTHOUSE_PYTHON") {
        let p = PathBuf::from(p);
        return match probe(&p) {
            Ok(()) => Ok(p),
            Err(e) => Err(format!("LIGHTHOUSE_PYTHON={}: {e}; {setup}", p.display())),
        };
    }
    let mut cands: Vec<PathBuf> = Vec::new();
    if let Some(r) = &cx.repo {
        cands.push(r.join(".venv/bin/python"));
    }
    if let Ok(exe) = std::env::current_exe() {
        cands.extend(exe.ancestors().skip(1).map(|a| a.join(".venv/bin/python")));
    }
    cands.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python"));
    let mut tried = Vec::new();
    for c in cands {
        if !c.exists() || tried.contains(&c) {
            continue;
        }
        match probe(&c) {
            Ok(()) => return Ok(c),
            Err(_) => tried.push(c),
        }
    }
    Err(if tried.is_empty() {
        format!("no Python with `import lighthouse` (no .venv/bin/python found); {setup}")
    } else {
        format!(
            "no Python with `import lighthouse` ({} cannot import it); {setup}",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Can `py` import lighthouse?
fn probe(py: &Path) -> Result<(), String> {
    let o = Command::new(py)
        .args(["-I", "-B", "-c", "import lighthouse"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    if o.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&o.stderr);
    Err(err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("`import lighthouse` failed")
        .trim()
        .to_string())
}

/// Run the driver in `mode` (`topo`, `routing`, `tables`, `tm`,
/// `answers`) on the student's `file` with the shipped `config` text (a
/// JSON list of configs: one net each). Runs in the working copy (the student's
/// relative paths work) and writes nothing there (`-B`: no __pycache__).
pub fn run(cx: &Ctx, mode: &str, file: &Path, config: &str) -> Run {
    let py = match interpreter(cx) {
        Ok(p) => p,
        Err(why) => return Run::NoPython(why),
    };
    let child = Command::new(&py)
        .args(["-I", "-B", "-c", DRIVER, mode])
        .arg(file)
        .current_dir(&cx.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Run::NoPython(format!("cannot run {}: {e}", py.display())),
    };
    let nonce = format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(format!("{nonce}\n{config}").as_bytes());
    }
    // Read both pipes on threads so a chatty script cannot block on a full pipe.
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if t0.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let out = t_out.join().unwrap_or_default();
    let err = t_err.join().unwrap_or_default();
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    if status.is_none() {
        return Run::Broken(format!(
            "{name} did not finish within {} s (an endless loop?)",
            TIMEOUT.as_secs()
        ));
    }
    let mark = format!("{MARK}{nonce} ");
    match out
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(mark.as_str()))
    {
        Some(j) => match serde_json::from_str::<Value>(j) {
            Ok(v) if v["status"] == "nolighthouse" => Run::NoPython(format!(
                "{}: {}; run scripts/setup-python.sh",
                py.display(),
                v["message"].as_str().unwrap_or("")
            )),
            Ok(v) => Run::Done(v),
            Err(e) => Run::Broken(format!("the lab driver's result is not JSON: {e}")),
        },
        None => {
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
                .to_string();
            Run::Broken(format!(
                "running {name} with {} ended without a result ({}): {last}",
                py.display(),
                status.map(|s| s.to_string()).unwrap_or_default()
            ))
        }
    }
}

/// The hint for a driver result that is not `ok`: the student's file and
/// line, and what went wrong (the traceback's last line, the refusal, the
/// built-in that was called).
pub fn problem(v: &Value, lab_about: &str) -> Option<String> {
    let file = v["file"].as_str().unwrap_or("the script");
    let at = match v["line"].as_u64() {
        Some(l) => format!("{file}, line {l}"),
        None => file.to_string(),
    };
    let msg = v["message"].as_str().unwrap_or("");
    Some(match v["status"].as_str()? {
        "ok" => return None,
        "error" => match v["code"].as_str().filter(|c| !c.is_empty()) {
            Some(code) => format!("{at}: {msg}\n    {code}"),
            None => format!("{at}: {msg}"),
        },
        "refused" => format!("{at}: {msg}"),
        "shortcut" => format!(
            "{at}: calls the built-in net.{}(); {lab_about}",
            v["builtin"].as_str().unwrap_or("?")
        ),
        "missing" => format!("{msg}: define it at the top level of {file}"),
        "badpath" => format!("{file}: {msg}"),
        other => format!("{file}: unexpected result {other:?}"),
    })
}

/// Does `src` define `name` at the top level (`def name(`)?
pub fn defines(src: &str, name: &str) -> bool {
    let head = format!("def {name}(");
    src.lines().any(|l| l.starts_with(&head))
}

/// A scratch folder for what the driver and the checks read (gone when
/// dropped); nothing is written into the working copy.
pub fn scratch() -> Result<tempfile::TempDir, LabError> {
    tempfile::tempdir().map_err(|source| LabError::Io {
        file: std::env::temp_dir(),
        source,
    })
}

/// The shipped `config` for the driver, with the file it names at
/// `pointer` (a JSON pointer, e.g. `/topology/path`) written into `dir` as
/// `name` from the shipped `text`: the net the script sees reads no file
/// of the working copy.
pub fn config_with_file(
    dir: &Path,
    config: &str,
    pointer: &str,
    name: &str,
    text: &str,
) -> Result<String, LabError> {
    let file = dir.join(name);
    std::fs::write(&file, text).map_err(|source| LabError::Io {
        file: file.clone(),
        source,
    })?;
    let mut cfg: Value = serde_json::from_str(config).expect("shipped JSON");
    *cfg.pointer_mut(pointer)
        .expect("the shipped config names the file") = Value::from(file.to_string_lossy().as_ref());
    Ok(cfg.to_string())
}

/// A lab's Python route: the student's file, the function it defines and
/// the shipped stub (left untouched, the route is not taken).
pub struct Script {
    /// `topo`, `routing`, `tables`, `tm` or `answers`: the function, and
    /// the driver's mode.
    pub func: &'static str,
    /// Its parameters, for messages: `net`, or one per config.
    pub args: &'static str,
    pub stub: &'static str,
    /// What the lab is about, for the hint when a built-in is called.
    pub about: &'static str,
}

impl Script {
    pub fn file(&self) -> String {
        format!("{}.py", self.func)
    }

    /// `topo(net)`: the function as the student defines it.
    pub fn call(&self) -> String {
        format!("{}({})", self.func, self.args)
    }

    /// Is the Python route taken: the file defines `func(net)` and is not
    /// the untouched stub? Notes the route either way (`python`: what is
    /// graded then; `otherwise`: what is graded if not).
    pub fn taken(&self, cx: &Ctx, python: &str, otherwise: &str) -> Result<bool, LabError> {
        let (file, func, call) = (self.file(), self.func, self.call());
        let f = cx.path(&file);
        let why_not = if !f.is_file() {
            format!("no {file}")
        } else {
            let src = read(&f)?;
            let norm = |s: &str| s.replace('\r', "").trim().to_string();
            if norm(&src) == norm(self.stub) {
                format!("{file} is the untouched stub; edit its {call} for the Python route")
            } else if !defines(&src, func) {
                format!("{file} defines no top-level `def {call}:`")
            } else {
                cx.note(format!(
                    "route: {python} ({file}'s {call}, run through the lighthouse package)"
                ));
                return Ok(true);
            }
        };
        cx.note(format!("route: {otherwise} ({why_not})"));
        Ok(false)
    }

    /// Run the script on `config`: its result, or None after pushing the
    /// failed (or, without an interpreter, incomplete) check `runs` and
    /// the `later` checks that need the result.
    pub fn run(
        &self,
        cx: &Ctx,
        config: &str,
        runs: &str,
        later: &[&str],
        v: &mut Vec<Check>,
    ) -> Option<Value> {
        let file = self.file();
        let hint = match run(cx, self.func, &cx.path(&file), config) {
            Run::NoPython(why) => {
                v.push(Check::incomplete(runs, why));
                let needs = format!("needs what {file} builds");
                v.extend(later.iter().map(|n| Check::incomplete(*n, needs.clone())));
                return None;
            }
            Run::Broken(why) => why,
            Run::Done(r) => match problem(&r, self.about) {
                None => return Some(r),
                Some(h) => h,
            },
        };
        v.push(Check::fail(runs, hint));
        v.extend(Check::blocked(
            later,
            &format!("fix {file} so that {} runs", self.call()),
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_top_level_def_takes_the_route() {
        assert!(defines("import x\n\ndef topo(net):\n    pass\n", "topo"));
        assert!(!defines(
            "class A:\n    def topo(self, net):\n        pass\n",
            "topo"
        ));
        assert!(!defines("# def topo(net):\n", "topo"));
        assert!(!defines("def topology(net):\n", "topo"));
    }

    #[test]
    fn problems_name_the_file_and_line() {
        let about = "write it yourself";
        let p = |v| problem(&v, about);
        assert_eq!(p(json!({"status": "ok"})), None);
        assert_eq!(
            p(json!({"status": "error", "file": "topo.py", "line": 3,
                     "code": "return t[5]", "message": "IndexError: list index out of range"})),
            Some("topo.py, line 3: IndexError: list index out of range\n    return t[5]".into())
        );
        assert_eq!(
            p(
                json!({"status": "shortcut", "file": "topo.py", "line": 2, "builtin": "round_robin"})
            ),
            Some("topo.py, line 2: calls the built-in net.round_robin(); write it yourself".into())
        );
        assert_eq!(
            p(json!({"status": "refused", "file": "topo.py", "line": null,
                     "message": "topology refused: x"})),
            Some("topo.py: topology refused: x".into())
        );
    }
}
