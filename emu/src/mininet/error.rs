//! Why a Mininet topology could not become a run's config.

#[derive(Debug, thiserror::Error)]
pub enum MnError {
    #[error("--topo {0:?}: {1}")]
    Spec(String, String),
    #[error("{file}: topology {name:?} failed: {last}")]
    Python {
        file: String,
        name: String,
        last: String,
    },
    #[error("cannot run {0}: {1} (the Mininet exporter needs Python 3)")]
    NoPython(String, std::io::Error),
    #[error("{0}: {1}")]
    File(String, String),
    #[error("{0}")]
    Shape(String),
    #[error("give a CONFIG or a Mininet topology (--topo, --topo-json), not both")]
    Both,
    #[error("writing the generated config: {0}")]
    Io(#[from] std::io::Error),
}
