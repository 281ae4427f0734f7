//! Text: Mininet 2.3's output formats ([`format`]), the optical verbs'
//! renderers ([`render`]), and a writer to read back what a run printed.

pub mod format;
pub mod render;
pub mod sink;
