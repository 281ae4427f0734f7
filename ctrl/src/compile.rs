//! The whole controller pipeline for `lighthouse compile`: config →
//! schedule → routes → tables → files and a readable summary.

use crate::config::Config;
use crate::routing::RouteSet;
use crate::schedule::Schedule;
use crate::tables::Tables;

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("topology: {0}")]
    Schedule(#[from] crate::schedule::ScheduleError),
    #[error("routing: {0}")]
    Routing(#[from] crate::routing::RoutingError),
    #[error("tables: {0}")]
    Tables(#[from] crate::tables::TableError),
    #[error("{0}")]
    Other(String),
}

/// Everything the data plane and the CLI need from the controller.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub config: Config,
    pub schedule: Schedule,
    pub routes: RouteSet,
    pub tables: Tables,
}

/// Run the pipeline on a validated config.
pub fn compile(cfg: &Config) -> Result<Compiled, CompileError> {
    let _ = cfg;
    Err(CompileError::Other("compile pipeline not wired yet".into()))
}
