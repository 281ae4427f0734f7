//! `lighthouse lab`: list the labs, grade a working copy (lh_labs).

use lh_labs::{EXIT_INCOMPLETE, LabError, grade, list};
use std::path::PathBuf;

/// `lighthouse lab ...`.
#[derive(clap::Subcommand, Debug)]
pub enum LabCmd {
    /// List the labs in course order.
    List,
    /// Grade a working copy of lab NN (default: the lab's own folder).
    Grade {
        /// Lab number (01..08) or folder name.
        lab: String,
        /// The working copy to grade.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// Run a `lab` subcommand: 0 full marks (or `list`), 1 not full marks,
/// [`EXIT_INCOMPLETE`] some check could not run; errors (exit 2 in `main`)
/// leave nothing behind.
pub fn run(cmd: LabCmd) -> Result<std::process::ExitCode, LabError> {
    use std::process::ExitCode;
    match cmd {
        LabCmd::List => {
            print!("{}", list());
            Ok(ExitCode::SUCCESS)
        }
        LabCmd::Grade { lab, dir } => {
            let r = grade(&lab, dir.as_deref())?;
            print!("{}", r.render());
            Ok(if !r.incomplete().is_empty() {
                ExitCode::from(EXIT_INCOMPLETE)
            } else if r.full_marks() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}
