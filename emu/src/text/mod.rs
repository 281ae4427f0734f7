//! Text: Mininet 2.3's output formats ([`format`]), the optical verbs'
//! renderers ([`render`]), the text of every operation's value ([`view`]),
//! a writer to read back what a run printed, and Mininet's log levels
//! ([`level`]).

pub mod format;
pub mod level;
pub mod render;
pub mod sink;
pub mod view;
