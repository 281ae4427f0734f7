//! `entries(paths, lookup, multipath)`: paths → per-ToR time-flow tables
//! (paper §4, Fig. 4 and 5c). Wire and file format: docs/tables.md.
//!
//! Match: destination ToR, arrival slice (or wildcard), where the packet came
//! from (a host port or the fabric), flow-size class and hash bucket (both
//! optional). Action: (uplink, departure slice) for per-hop lookup, or the
//! whole hop list for source routing; plus ordered alternates for later
//! slice-miss rerouting (§6.3, recirculation-free: all in one entry).
//! Packets for the ToR's own hosts are delivered without a table lookup.
//!
//! Two forms of the same tables:
//! - [`FlatTables`], what compiling produces and the data plane, the CLI and
//!   `--out` use: per ToR one entry array, one action array and one step
//!   array; an entry names its action and its alternates by index, so a
//!   table costs three allocations however many entries it has.
//! - [`Tables`], the expanded form (`Vec` per entry and action): easy to
//!   build by hand, used by tests, small JSON files and [`entries`].
//!
//! Modules: [`model`] (types and lookup), `build` (paths → tables),
//! `alternates` (slice-miss alternates of one block), [`walk`] (follow the
//! tables as the data plane would; `check_path`).

mod alternates;
mod build;
mod dims;
pub mod file;
pub mod model;
pub mod walk;

pub use build::{entries, entries_flat, entries_with_threads};
pub use model::*;
pub use walk::{TableView, check_path, walk, walk_alternate};
