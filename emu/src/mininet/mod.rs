//! Mininet topologies for `lighthouse run` (docs/mininet.md):
//! `--topo single,N | linear,N | tree,D[,F]`, `--custom FILE.py --topo
//! NAME[,args]` (a Mininet `Topo` subclass, exported by a shim of
//! `mininet.topo` run with /usr/bin/python3, never the real mininet), and
//! `--topo-json FILE` (p4lang tutorials' `topology.json`).
//!
//! Switches become ToRs `s1..` (natural name order), hosts `h1..` in ToR
//! order. Switch-switch links become *static circuits*: a one-slice optical
//! schedule (a `file` topology) whose circuits never change, so they are
//! never dark and behave like point-to-point links, routed by earliest
//! arrival within the slice (= fewest hops). ToRs may have different host
//! counts (a tree has none on its inner switches): the plan carries them.
//!
//! By concept: where a topology comes from ([`MnSource`], `source.rs`);
//! the topology as Mininet describes it (`topo.rs`: [`MnTopo`] and the
//! options of its links and hosts); its readers: Mininet's built-in
//! topologies (`builtin.rs`), a custom file through the Python exporter
//! (`custom.rs`), p4lang's `topology.json` (`p4json.rs`); the topology as a
//! Lighthouse config (`fabric.rs`: [`to_fabric`]) and the names the run
//! keeps (`names.rs`: [`MnNames`]); and what `lighthouse run` gets from it
//! (`prepare.rs`: [`prepare`], [`Prepared`]). [`MnError`] (`error.rs`) says
//! why a topology could not become a config.

mod builtin;
mod custom;
mod error;
mod fabric;
mod names;
mod p4json;
mod prepare;
mod source;
mod topo;

pub use builtin::builtin;
pub use custom::{EXPORTER, TOPO_SHIM, custom};
pub use error::MnError;
pub use fabric::{Fabric, MAX_NAME, to_fabric};
pub use names::{MnExtra, MnNames};
pub use p4json::p4_topology_json;
pub use prepare::{Prepared, prepare, prepare_topo};
pub use source::MnSource;
pub use topo::{
    HostOpts, LinkEnd, LinkNetem, MnTopo, TC_QUEUE_FRAMES, host_opts_from_json, parse_ip,
    tc_queue_bytes,
};

#[cfg(test)]
mod tests;
