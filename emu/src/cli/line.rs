//! The interactive prompt's line editor, with Mininet's readline habits:
//! Tab completes commands and node names, and the history is kept in a
//! file between runs (`~/.lighthouse_history`, as Mininet's
//! `~/.mininet_history`; `LIGHTHOUSE_HISTORY` names another file, empty
//! turns it off), the last [`HISTORY_LINES`] lines.

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// Lines of history kept (Mininet: readline's `set_history_length(1000)`).
pub const HISTORY_LINES: usize = 1000;

/// Completes the first word from the commands and node names, later words
/// from the node names (`help` takes a command).
pub struct Complete {
    pub commands: Vec<String>,
    pub nodes: Vec<String>,
}

impl Complete {
    /// Candidates for the word that ends at `pos` in `line`: (its start,
    /// the names it may become).
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &head[start..];
        let first = head[..start].split_whitespace().next();
        let pool: Vec<&String> = match first {
            None => self.commands.iter().chain(&self.nodes).collect(),
            Some("help") => self.commands.iter().collect(),
            Some(_) => self.nodes.iter().collect(),
        };
        let mut v: Vec<String> = pool
            .into_iter()
            .filter(|c| c.starts_with(word))
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        (start, v)
    }
}

impl Completer for Complete {
    type Candidate = Pair;

    /// As readline: a completed word gets a space after it.
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, v) = self.candidates(line, pos);
        let pairs = v
            .into_iter()
            .map(|c| Pair {
                replacement: format!("{c} "),
                display: c,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for Complete {
    type Hint = String;
}
impl Highlighter for Complete {}
impl Validator for Complete {}
impl Helper for Complete {}

/// The history file: `LIGHTHOUSE_HISTORY`, else `~/.lighthouse_history`;
/// None when off (empty variable, no home).
pub fn history_path() -> Option<PathBuf> {
    match std::env::var_os("LIGHTHOUSE_HISTORY") {
        Some(p) if p.is_empty() => None,
        Some(p) => Some(PathBuf::from(p)),
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".lighthouse_history")),
    }
}

/// A line editor with completion over `complete` and the saved history.
pub fn editor(complete: Complete) -> rustyline::Result<Editor<Complete, DefaultHistory>> {
    let cfg = Config::builder()
        .completion_type(CompletionType::List)
        .max_history_size(HISTORY_LINES)?
        .auto_add_history(false)
        .build();
    let mut rl = Editor::with_config(cfg)?;
    rl.set_helper(Some(complete));
    if let Some(p) = history_path()
        && let Ok(text) = std::fs::read_to_string(&p)
    {
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        for l in &lines[lines.len().saturating_sub(HISTORY_LINES)..] {
            let _ = rl.add_history_entry(*l);
        }
        if lines.len() > 2 * HISTORY_LINES {
            // Keep the file short: rewrite it with the lines kept.
            let kept = lines[lines.len() - HISTORY_LINES..].join("\n") + "\n";
            if let Ok(mut f) = open(&p, false) {
                let _ = f.write_all(kept.as_bytes());
            }
        }
    }
    Ok(rl)
}

/// Opens the history file for writing: mode 0600, never through a symlink.
fn open(p: &std::path::Path, append: bool) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .append(append)
        .truncate(!append)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(p)
}

/// Adds `line` to the editor's history and appends it to the file (each
/// line at once, so a run that is killed keeps what was typed).
pub fn remember(rl: &mut Editor<Complete, DefaultHistory>, line: &str) {
    if line.trim().is_empty() || !rl.add_history_entry(line).unwrap_or(false) {
        return;
    }
    if let Some(p) = history_path()
        && let Ok(mut f) = open(&p, true)
    {
        let _ = writeln!(f, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_first_then_node_names() {
        let c = Complete {
            commands: ["pingall", "pingpair", "py", "help", "iperf"]
                .map(String::from)
                .to_vec(),
            nodes: ["client", "server", "s1"].map(String::from).to_vec(),
        };
        assert_eq!(c.candidates("pinga", 5), (0, vec!["pingall".to_string()]));
        assert_eq!(c.candidates("p", 1).1, ["pingall", "pingpair", "py"]);
        assert_eq!(c.candidates("s", 1).1, ["s1", "server"]);
        assert_eq!(c.candidates("iperf cl", 8), (6, vec!["client".to_string()]));
        assert_eq!(
            c.candidates("client ping se", 14),
            (12, vec!["server".to_string()])
        );
        assert_eq!(c.candidates("help pi", 7).1, ["pingall", "pingpair"]);
        assert!(c.candidates("iperf x", 7).1.is_empty());
    }
}
