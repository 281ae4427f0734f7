//! `lighthouse lab`: the course labs (labs/NN-name/) and their auto-graders.
//!
//! Each lab is a folder with a README, starter files (the student's working
//! copy) and `solution/` (a complete reference working copy). A grader reads
//! the files of one working copy, derives the expected facts from the
//! controller library (`lh_ctrl`: compiled configs, schedules, tables, TA
//! matchings) and returns one [`Check`] per question. Graders never parse
//! CLI text.
//!
//! Only the student's work is graded: the files a lab says not to edit
//! (its configs, a given schedule) are embedded in the binary
//! ([`checks::Shipped`]); facts are derived from those, and one check per
//! such file fails, naming the first changed JSON path, if the working
//! copy's differs. Lab 07 compiles the student's program and runs it on
//! BMv2 (the one grader that creates kernel state: namespaces under a run
//! prefix, removed when it ends; it needs root).
//!
//! Exit codes of `lighthouse lab grade`: 0 full marks, 1 some check failed,
//! 2 the lab or a file could not be read at all ([`LabError`]), 3 the grade
//! is incomplete: some check could not run (a missing tool, no root), so
//! the score is not final whatever else passed or failed.

mod checks;
mod l01;
mod l02;
mod l03;
mod l04;
mod l05;
mod l06;
mod l07;
mod l08;
mod py;

pub use checks::{Answers, Check, Status};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Why a lab could not be graded at all (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("no lab {0:?}; labs are {1} (see `lighthouse lab list`)")]
    UnknownLab(String, String),
    #[error(
        "cannot find the labs folder (looked in $LIGHTHOUSE_LABS, ./labs and next to the binary)"
    )]
    NoLabsDir,
    #[error("{0}: not a folder")]
    NoDir(PathBuf),
    #[error("{file}: line {line}, column {column}: {msg}")]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        msg: String,
    },
    #[error("{file}: {source}")]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
}

/// What a grader gets: the working copy to grade and the repository (for
/// shared files such as the P4 program), if found.
pub struct Ctx {
    pub dir: PathBuf,
    pub repo: Option<PathBuf>,
    /// Lines shown under the report's title (which route was graded).
    pub notes: std::cell::RefCell<Vec<String>>,
}

impl Ctx {
    pub fn new(dir: PathBuf, repo: Option<PathBuf>) -> Ctx {
        Ctx {
            dir,
            repo,
            notes: Default::default(),
        }
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    /// Say something about what is graded (e.g. the route), under the title.
    pub fn note(&self, line: impl Into<String>) {
        self.notes.borrow_mut().push(line.into());
    }
}

type Grader = fn(&Ctx) -> Result<Vec<Check>, LabError>;

/// One lab of the course.
pub struct Lab {
    pub num: u8,
    /// Folder name under labs/, e.g. `01-first-network`.
    pub folder: &'static str,
    pub title: &'static str,
    /// Paper sections the lab is about.
    pub paper: &'static str,
    grade: Grader,
}

/// The course, in order.
pub const LABS: &[Lab] = &[
    Lab {
        num: 1,
        folder: "01-first-network",
        title: "A first optical network and the CLI",
        paper: "§2.1, §3, §9.1",
        grade: l01::grade,
    },
    Lab {
        num: 2,
        folder: "02-schedules",
        title: "Schedules: round robin vs Opera, and the RTTs",
        paper: "§2.1, §5 (topology API)",
        grade: l02::grade,
    },
    Lab {
        num: 3,
        folder: "03-routing",
        title: "Routing: direct, VLB and HOHO, and path lengths",
        paper: "§2.2, §5 (routing API)",
        grade: l03::grade,
    },
    Lab {
        num: 4,
        folder: "04-schedule-file",
        title: "Writing a schedule file",
        paper: "§5 (connect, topo), §9.1",
        grade: l04::grade,
    },
    Lab {
        num: 5,
        folder: "05-time-flow-tables",
        title: "Time-flow table entries by hand",
        paper: "§3, §4 (Fig. 4)",
        grade: l05::grade,
    },
    Lab {
        num: 6,
        folder: "06-slice-misses",
        title: "Slice misses and recirculation-free rerouting",
        paper: "§6.2, §6.3 (Fig. 5)",
        grade: l06::grade,
    },
    Lab {
        num: 7,
        folder: "07-p4-counter",
        title: "Changing the P4 ToR: a new counter",
        paper: "§6, docs/p4.md",
        grade: l07::grade,
    },
    Lab {
        num: 8,
        folder: "08-ta-hotspot",
        title: "TA mode: c-Through's hotspot scheduling",
        paper: "§2.1 (TA-1), §8",
        grade: l08::grade,
    },
];

/// `NN`, `N` or a folder name → the lab.
pub fn find(id: &str) -> Result<&'static Lab, LabError> {
    let id = id.trim().trim_end_matches('/');
    let by_num = id.parse::<u8>().ok();
    LABS.iter()
        .find(|l| Some(l.num) == by_num || l.folder == id)
        .ok_or_else(|| {
            LabError::UnknownLab(
                id.to_string(),
                LABS.iter()
                    .map(|l| format!("{:02}", l.num))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        })
}

/// The repository's `labs/` folder: `$LIGHTHOUSE_LABS`, `./labs`, a `labs/`
/// next to an ancestor of the binary (target/release/lighthouse), or the
/// source tree this binary was built from.
pub fn labs_root() -> Result<PathBuf, LabError> {
    let ok = |p: &Path| p.join("README.md").is_file() && p.join(LABS[0].folder).is_dir();
    if let Some(p) = std::env::var_os("LIGHTHOUSE_LABS") {
        let p = PathBuf::from(p);
        return if ok(&p) {
            Ok(p)
        } else {
            Err(LabError::NoDir(p))
        };
    }
    let mut cands = vec![PathBuf::from("labs")];
    if let Ok(exe) = std::env::current_exe() {
        cands.extend(exe.ancestors().skip(1).map(|a| a.join("labs")));
    }
    cands.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../labs"));
    cands
        .into_iter()
        .find(|p| ok(p))
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .ok_or(LabError::NoLabsDir)
}

/// `lighthouse lab list`.
pub fn list() -> String {
    let mut s = String::new();
    for l in LABS {
        let _ = writeln!(
            s,
            "{:02}  {:<22} {}  ({})",
            l.num, l.folder, l.title, l.paper
        );
    }
    s
}

/// A graded working copy.
pub struct Report {
    pub lab: &'static Lab,
    pub dir: PathBuf,
    /// What the grader said about the working copy (the route graded).
    pub notes: Vec<String>,
    pub checks: Vec<Check>,
}

/// Exit status of `lighthouse lab grade` when some check could not run.
pub const EXIT_INCOMPLETE: u8 = 3;

impl Report {
    /// (passed, all checks): a check that could not run is not passed.
    pub fn score(&self) -> (usize, usize) {
        let passed = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Pass)
            .count();
        (passed, self.checks.len())
    }

    /// The reasons of the checks that could not run.
    pub fn incomplete(&self) -> Vec<&str> {
        self.checks
            .iter()
            .filter_map(|c| match &c.status {
                Status::Incomplete(why) => Some(why.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn full_marks(&self) -> bool {
        let (p, n) = self.score();
        p == n && n > 0
    }

    /// Per-check feedback and the score line.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Lab {:02}: {} (grading {})",
            self.lab.num,
            self.lab.title,
            self.dir.display()
        );
        for n in &self.notes {
            let _ = writeln!(s, "  {n}");
        }
        for c in &self.checks {
            match &c.status {
                Status::Pass => {
                    let _ = writeln!(s, "  ✓ {}", c.name);
                }
                Status::Fail => {
                    let _ = writeln!(s, "  ✗ {}", c.name);
                    for l in c.hint.lines() {
                        let _ = writeln!(s, "      hint: {l}");
                    }
                }
                Status::Incomplete(why) => {
                    let _ = writeln!(s, "  ? {} (could not run: {why})", c.name);
                }
            }
        }
        let (p, n) = self.score();
        let _ = write!(s, "Score: {p}/{n}");
        let inc = self.incomplete();
        if !inc.is_empty() {
            let mut why = inc.clone();
            why.dedup();
            let _ = write!(
                s,
                ", INCOMPLETE: {} check{} could not run ({})",
                inc.len(),
                if inc.len() == 1 { "" } else { "s" },
                why.join("; ")
            );
        }
        s.push('\n');
        s
    }
}

/// Grade lab `id` in `dir` (default: the lab's own folder).
pub fn grade(id: &str, dir: Option<&Path>) -> Result<Report, LabError> {
    let lab = find(id)?;
    let root = labs_root();
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => root?.join(lab.folder),
    };
    if !dir.is_dir() {
        return Err(LabError::NoDir(dir));
    }
    let repo = labs_root()
        .ok()
        .and_then(|r| r.parent().map(Path::to_path_buf));
    let ctx = Ctx::new(std::fs::canonicalize(&dir).unwrap_or(dir), repo);
    let checks = (lab.grade)(&ctx)?;
    Ok(Report {
        lab,
        notes: ctx.notes.take(),
        dir: ctx.dir,
        checks,
    })
}
