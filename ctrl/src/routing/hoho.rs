//! `hoho()` (HOHO, "hop-on hop-off"): for every source, destination and
//! arrival slice the earliest-arrival path, ties to fewest hops, over the
//! time-expanded graph. Hops are unlimited (no budget; in practice bounded
//! by the ToR count) unless `opts.max_hop` is set. RotorNet style (one hop
//! per slot) unless `opts.same_slice_hops`. The search is destination-rooted,
//! so the paths decompose into consistent per-hop table entries.

use super::{RouteSet, RoutingError, RoutingOptions, UNLIMITED, earliest_routes};
use crate::schedule::Schedule;

pub fn hoho(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    let max_hop = opts.max_hop.unwrap_or(UNLIMITED);
    Ok(RouteSet {
        paths: earliest_routes(s, max_hop, opts.same_slice_hops)?,
        classes: None,
    })
}
