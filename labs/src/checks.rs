//! The building blocks of the graders: checks, the student's answers file,
//! file readers that turn syntax errors into [`LabError::Syntax`], and the
//! files a lab says not to edit ([`Shipped`]).

use super::{Ctx, LabError};
use lh_ctrl::config::Config;
use serde_json::Value;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// The check could not run (a tool is missing, no root): counted as
    /// not passed, and the grade is incomplete. The reason is shown.
    Incomplete(String),
}

/// One graded question: its name, its result and, on failure, a hint.
#[derive(Clone, Debug)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub hint: String,
}

impl Check {
    pub fn pass(name: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Pass,
            hint: String::new(),
        }
    }
    pub fn fail(name: impl Into<String>, hint: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Fail,
            hint: hint.into(),
        }
    }
    pub fn incomplete(name: impl Into<String>, why: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Incomplete(why.into()),
            hint: String::new(),
        }
    }
    /// Checks that cannot run because an earlier step failed: they count
    /// as failed so the score's denominator does not depend on the error.
    pub fn blocked(names: &[&str], why: &str) -> Vec<Check> {
        names
            .iter()
            .map(|n| Check::fail(*n, format!("not checked: {why}")))
            .collect()
    }
    /// Pass if `ok`, else fail with `hint`.
    pub fn when(ok: bool, name: impl Into<String>, hint: impl Into<String>) -> Check {
        if ok {
            Check::pass(name)
        } else {
            Check::fail(name, hint)
        }
    }
}

/// Read a file as text.
pub fn read(file: &Path) -> Result<String, LabError> {
    std::fs::read_to_string(file).map_err(|source| LabError::Io {
        file: file.to_path_buf(),
        source,
    })
}

/// Parse JSON; a syntax error (the file cannot be graded at all) names the
/// file and line. Shape errors are the caller's business.
pub fn read_json(file: &Path) -> Result<Value, LabError> {
    let text = read(file)?;
    serde_json::from_str(&text).map_err(|e| LabError::Syntax {
        file: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        msg: strip_position(&e.to_string()),
    })
}

fn strip_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// Load a config: JSON syntax errors are fatal ([`LabError::Syntax`]),
/// anything the controller rejects comes back as `Err(message)` for a ✗.
pub fn load_config(file: &Path) -> Result<Result<Config, String>, LabError> {
    read_json(file)?;
    Ok(Config::load(file).map_err(|e| e.to_string()))
}

/// A file the lab says not to edit, as shipped. Embedded in the binary at
/// build time, so neither the working copy nor `$LIGHTHOUSE_LABS` can move
/// the reference the grader derives its facts from.
pub struct Shipped {
    /// Folder of the lab under labs/, for the "restore it" hint.
    pub lab: &'static str,
    pub name: &'static str,
    pub text: &'static str,
}

/// Top-level fields of a protected config that no graded fact depends on.
const FREE: &[&str] = &["name", "monitoring"];

impl Shipped {
    /// ✓ if the working copy's file still says what the shipped one does
    /// (JSON values equal, but for [`FREE`] fields); ✗ names the first
    /// difference by its JSON path. A syntax error is fatal, as for any
    /// JSON file of the working copy.
    pub fn unchanged(&self, cx: &Ctx) -> Result<Check, LabError> {
        let name = format!("{} is as shipped (the lab says not to edit it)", self.name);
        let restore = format!(
            "the grader uses the shipped file; restore yours from labs/{}/{}",
            self.lab, self.name
        );
        let file = cx.path(self.name);
        if !file.is_file() {
            return Ok(Check::fail(
                name,
                format!("{} is missing; {restore}", self.name),
            ));
        }
        let mut got = read_json(&file)?;
        let mut want: Value = serde_json::from_str(self.text).expect("shipped JSON is valid");
        for v in [&mut want, &mut got] {
            if let Value::Object(m) = v {
                m.retain(|k, _| !FREE.contains(&k.as_str()));
            }
        }
        Ok(match first_difference("$", &got, &want) {
            None => Check::pass(name),
            Some(d) => Check::fail(name, format!("{}: {d}; {restore}", self.name)),
        })
    }

    /// The shipped config, with the files it names (a schedule, a traffic
    /// matrix: the student's work) read from the working copy. Errors are
    /// the loader's, for a ✗.
    pub fn config(&self, cx: &Ctx) -> Result<Config, String> {
        Config::from_json_in(self.text, self.name, &cx.dir).map_err(|e| e.to_string())
    }
}

/// `$.a.b: ...` for the first place where `got` differs from `want`.
fn first_difference(at: &str, got: &Value, want: &Value) -> Option<String> {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, wv) in w {
                let here = format!("{at}.{k}");
                match g.get(k) {
                    None => return Some(format!("{here} is missing (shipped: {wv})")),
                    Some(gv) => {
                        if let Some(d) = first_difference(&here, gv, wv) {
                            return Some(d);
                        }
                    }
                }
            }
            g.keys()
                .find(|k| !w.contains_key(*k))
                .map(|k| format!("{at}.{k} is not in the shipped file"))
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (gv, wv))| first_difference(&format!("{at}[{i}]"), gv, wv)),
        _ if got == want => None,
        _ => Some(format!("{at} is {got}, shipped {want}")),
    }
}

/// The student's `answers.json`: an object of question → answer. `null`
/// means not answered yet.
pub struct Answers {
    file: String,
    map: serde_json::Map<String, Value>,
}

impl Answers {
    pub fn load(file: &Path) -> Result<Answers, LabError> {
        let v = read_json(file)?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match v {
            Value::Object(map) => Ok(Answers { file: name, map }),
            _ => Err(LabError::Syntax {
                file: file.to_path_buf(),
                line: 1,
                column: 1,
                msg: "expected a JSON object {\"question\": answer, ...}".into(),
            }),
        }
    }

    /// Answers handed over as a JSON object (the Python route's dict);
    /// `file` names where they came from in hints. Anything else answers
    /// nothing.
    pub fn of(file: &str, v: &Value) -> Answers {
        Answers {
            file: file.to_string(),
            map: v.as_object().cloned().unwrap_or_default(),
        }
    }

    /// The name of the check of answer `key`.
    pub fn name(key: &str, question: &str) -> String {
        format!("{key}: {question}")
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// Compare answer `key` with the derived fact `expected`; `hint` tells
    /// the student where to look (never the answer itself).
    pub fn check(&self, key: &str, question: &str, expected: Value, hint: &str) -> Check {
        let name = Answers::name(key, question);
        match self.get(key) {
            None => Check::fail(
                name,
                format!(
                    "not answered yet (\"{key}\" is missing or null in {}); {hint}",
                    self.file
                ),
            ),
            Some(got) if same(got, &expected) => Check::pass(name),
            Some(got) => Check::fail(name, format!("{got} is not right; {hint}")),
        }
    }
}

/// Equality for answers: numbers by value (1% tolerance for fractions),
/// strings case- and space-insensitively, arrays element by element.
pub fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(0.0));
            if b.fract() == 0.0 && a.fract() == 0.0 {
                a == b
            } else {
                (a - b).abs() <= 0.01 * b.abs().max(0.01)
            }
        }
        (Value::String(a), Value::String(b)) => norm(a) == norm(b),
        (Value::String(a), Value::Number(_)) => a
            .trim()
            .parse::<f64>()
            .is_ok_and(|x| same(&serde_json::json!(x), want)),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Bool(a), Value::Bool(b)) => a == b,
        _ => false,
    }
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<String>().to_lowercase()
}

/// `sN` for ToR index N-1 (the CLI's names).
pub fn tor_name(t: usize) -> String {
    format!("s{}", t + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_compare_by_value() {
        assert!(same(&json!(7), &json!(7)));
        assert!(!same(&json!(6), &json!(7)));
        assert!(same(&json!("7"), &json!(7)));
        assert!(same(&json!(" S5 "), &json!("s5")));
        assert!(!same(&json!("s4"), &json!("s5")));
        assert!(same(&json!(0.335), &json!(0.333)));
        assert!(!same(&json!(0.5), &json!(0.333)));
        assert!(same(&json!(["s1", "s3"]), &json!(["s1", "s3"])));
        assert!(!same(&json!(["s3", "s1"]), &json!(["s1", "s3"])));
    }

    #[test]
    fn differences_are_named_by_json_path() {
        let w = json!({"topology": {"kind": "file", "path": "sched.json"}, "a": [1, 2]});
        let d = |g: Value| first_difference("$", &g, &w);
        assert_eq!(d(w.clone()), None);
        assert_eq!(
            d(json!({"topology": {"kind": "round_robin", "path": "sched.json"}, "a": [1, 2]})),
            Some("$.topology.kind is \"round_robin\", shipped \"file\"".into())
        );
        assert_eq!(
            d(json!({"topology": {"kind": "file"}, "a": [1, 2]})),
            Some("$.topology.path is missing (shipped: \"sched.json\")".into())
        );
        assert_eq!(
            d(json!({"topology": {"kind": "file", "path": "sched.json"}, "a": [1, 3]})),
            Some("$.a[1] is 3, shipped 2".into())
        );
        assert!(
            d(json!({"topology": {"kind": "file", "path": "sched.json"}, "a": [1, 2], "x": 1}))
                .unwrap()
                .contains("$.x is not in the shipped file")
        );
    }

    #[test]
    fn syntax_errors_name_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("answers.json");
        std::fs::write(&f, "{\n  \"a\": 1,\n  \"b\": \n}\n").unwrap();
        match Answers::load(&f) {
            Err(LabError::Syntax { line, file, .. }) => {
                assert_eq!(line, 4);
                assert_eq!(file, f);
            }
            other => panic!("expected a syntax error, got {:?}", other.err()),
        }
    }
}
