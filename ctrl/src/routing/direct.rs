//! `direct()` (RotorNet's direct-path routing, paper Fig. 6c): a packet
//! waits at its source ToR for the next circuit straight to its destination
//! (`earliest_path` with `max_hop = 1`), at most one cycle. On a static
//! schedule this is [`static_routes::direct`](super::static_routes::direct).

use super::{RouteSet, RoutingError, RoutingOptions, earliest_routes, is_static};
use crate::schedule::Schedule;

pub fn direct(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    if is_static(s) {
        return super::static_routes::direct(s, opts);
    }
    // One hop from the source: RotorNet and Opera styles coincide.
    Ok(RouteSet {
        paths: earliest_routes(s, 1, false)?,
        classes: None,
    })
}
