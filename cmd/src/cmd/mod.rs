//! One file per `lighthouse` subcommand.

pub mod clean;
pub mod compile;
pub mod experiment;
pub mod lab;
pub mod ocs;
pub mod p4;
pub mod run;
pub mod sim;
pub mod sweep;
