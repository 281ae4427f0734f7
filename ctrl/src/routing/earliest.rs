//! `earliest_path(src, dst, ts, max_hop)`: earliest-arrival path search over
//! the time-expanded graph, ties to fewer hops.

use super::{Path, RoutingOptions};
use crate::schedule::Schedule;
use crate::{SliceId, TorId};

/// The earliest-arrival path from `src` to `dst` for a packet arriving in
/// slice `ts`, using at most `max_hop` hops; among paths that arrive
/// equally early, the one with fewest hops. `None` when no path exists.
pub fn earliest_path(
    s: &Schedule,
    src: TorId,
    dst: TorId,
    ts: SliceId,
    max_hop: u8,
    opts: &RoutingOptions,
) -> Option<Path> {
    let _ = (s, src, dst, ts, max_hop, opts);
    todo!("earliest_path")
}
