//! The data plane's error type.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum FabricError {
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
    #[error("time-flow tables: {0}")]
    Lookup(#[from] crate::lookup::LookupError),
    #[error("fabric spec: {0}")]
    Spec(String),
    #[error("the data-plane thread is not running")]
    Stopped,
    #[error("link: {0}")]
    Link(String),
}

pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> FabricError {
    let what = what.into();
    move |source| FabricError::Io { what, source }
}
