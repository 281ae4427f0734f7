//! `link sX sY down|up` for the optical uplinks between two ToRs: the
//! emulated OCS fails (restores) every circuit that joins them, in every
//! slice and both directions, and counts the frames it loses as
//! `link_down`. Routing is not told, as in Mininet (which has none): a ToR
//! whose table sends over a failed circuit loses those frames; routes over
//! other ToRs still work.

use crate::plan::Plan;
use lh_ctrl::compile::Compiled;
use lh_ctrl::schedule::Endpoint;
use lh_ctrl::{PortId, SliceId, TorId};
use swtor::FabricHandle;

/// Fails (`up == false`) or restores the circuits between ToRs named `x`
/// and `y`. Errors name what is wrong (no such ToR, no circuit between
/// them in any slice, no data plane).
pub fn set_tor_link(
    plan: &Plan,
    compiled: Option<&Compiled>,
    fabric: Option<&FabricHandle>,
    x: &str,
    y: &str,
    up: bool,
) -> Result<(), String> {
    let (Some(a), Some(b)) = (plan.tor(x), plan.tor(y)) else {
        return Err(format!("no link between {x} and {y}"));
    };
    let (Some(c), Some(f)) = (compiled, fabric) else {
        return Err("no data plane in this run (--no-fabric): no optical links".into());
    };
    if a == b || circuit_slices(c, a as TorId, b as TorId).is_empty() {
        return Err(format!(
            "no link between {x} and {y}: the schedule has no optical circuit joining them"
        ));
    }
    f.set_link(a as TorId, b as TorId, up)
        .map_err(|e| e.to_string())
}

/// The slices in which some uplink of ToR `a` has a circuit to ToR `b`.
pub fn circuit_slices(c: &Compiled, a: TorId, b: TorId) -> Vec<SliceId> {
    let s = &c.schedule;
    (0..s.slices() as SliceId)
        .filter(|&ts| {
            (0..s.uplinks() as PortId).any(|p| {
                !s.is_electrical(p) && s.peer(ts, Endpoint::new(a, p)).is_some_and(|e| e.tor == b)
            })
        })
        .collect()
}
