//! Link kinds besides the host veths ([`crate::run::bringup`]): the
//! optical ToR uplinks through the emulated OCS, and fat-tree links.

pub mod fattree;
pub mod optical;
