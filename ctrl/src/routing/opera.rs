//! `opera()` (Opera, NSDI'20): two flow-size classes.
//!
//! - Class 0, low-latency flows: the fewest-hop path inside the arrival
//!   slice's graph of circuits that stay up into the next slice (every hop
//!   departs in the arrival slot; Opera's expander slices make this the
//!   common case). Opera's paths in a slice leave out the rotor that
//!   reconfigures at its end, so a packet that reaches a ToR after its
//!   slice has ended still finds its circuit up (the ToR sends it then:
//!   swtor's calendar, "late source-route hops"). When that graph cannot
//!   reach the destination in the slice, the earliest-arrival path on it
//!   instead. Both are exactly the Opera-style (`same_slice_hops`)
//!   earliest-arrival path on [`Adjacency::stable`], which this class
//!   always uses whatever `opts.same_slice_hops` says. On a schedule where
//!   some circuit lasts a single slice (RotorNet's rotors all reconfigure
//!   together) no graph of lasting circuits reaches every ToR: there the
//!   class uses every circuit, and a late packet waits for its slice.
//! - Class 1, bulk flows: the direct path (wait for the direct circuit).
//!
//! Thresholds `[0, T]`: flows of at least `T` bytes are bulk. Opera used
//! 15 MB at 10 Gb/s with a ~10 ms cycle, i.e. about one cycle's worth of
//! one uplink; `T = bytes_per_slice × S` scales the same way.
//!
//! Opera uses source routing; the class-0 paths are destination-rooted, so
//! per-hop tables also work for them.

#[cfg(doc)]
use super::earliest::Adjacency;
use super::{
    ClassThresholds, RouteSet, RoutingError, RoutingOptions, Search, UNLIMITED,
    paths_per_destination_with,
};
use crate::schedule::{Endpoint, Schedule};
use crate::{PortId, SliceId, TorId};

/// Class of Opera's low-latency (multi-hop, same-slice) paths.
pub const LOW_LATENCY: u8 = 0;
/// Class of Opera's bulk (direct) paths.
pub const BULK: u8 = 1;

/// The bulk threshold in bytes: `opts.bulk_threshold` (config
/// `routing.bulk_threshold`), else one cycle of one uplink (see the module
/// docs).
pub fn bulk_threshold(s: &Schedule, opts: &RoutingOptions) -> u64 {
    opts.bulk_threshold.unwrap_or_else(|| {
        opts.bytes_per_slice
            .max(1)
            .saturating_mul(s.slices() as u64)
    })
}

pub fn opera(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    // Per destination: the Opera-style earliest path (class 0) and the
    // direct path (class 1), interleaved in (dst, src, ts) order, as
    // `earliest_routes(s, UNLIMITED, true)` and `earliest_routes(s, 1,
    // false)` would give them.
    let (n, slices) = (s.tors(), s.slices());
    let per_dst = 2 * n.saturating_sub(1) * slices;
    let searches = [
        Search {
            stable: circuits_outlast_a_slice(s),
            ..Search::new(UNLIMITED, true)
        },
        Search::new(1, false),
    ];
    let paths = paths_per_destination_with(s, &searches, per_dst, |dp, out| {
        let d = dp[0].dst();
        for src in (0..n as TorId).filter(|&x| x != d) {
            for ts in 0..slices as SliceId {
                for (class, dp, budget) in [(LOW_LATENCY, &dp[0], UNLIMITED), (BULK, &dp[1], 1)] {
                    let found = out.push_with(src, d, Some(ts), Some(class), |h| {
                        dp.path_into(src, ts, budget as usize, h)
                    });
                    if !found {
                        return Err(RoutingError::NoPath {
                            src,
                            dst: d,
                            ts,
                            max_hop: budget,
                        });
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(RouteSet {
        paths,
        classes: Some(ClassThresholds {
            thresholds: vec![0, bulk_threshold(s, opts).max(1)],
        }),
    })
}

/// Whether every circuit is up for at least two slices in a row: then each
/// one is in [`Adjacency::stable`] in some slice, so a path on lasting
/// circuits exists wherever any path does (waits are allowed).
fn circuits_outlast_a_slice(s: &Schedule) -> bool {
    let n = s.slices();
    n > 1
        && (0..n as SliceId).all(|ts| {
            (0..s.tors() as TorId).all(|t| {
                (0..s.optical_uplinks() as PortId).all(|p| {
                    let ep = Endpoint::new(t, p);
                    s.peer(ts, ep).is_none()
                        || !(s.changed(ts, ep) && s.changed(((ts as usize + 1) % n) as SliceId, ep))
                })
            })
        })
}
