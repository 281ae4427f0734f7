//! `link X Y down|up` between two switches of a fat tree (`fabric:
//! "fattree"`; names `s1..` edge, `a1..` aggregation, `c1..` core, see
//! `lh_ctrl::fattree`): the data plane drops what is sent on the link as
//! `link_down` at once and withdraws the paths over it after
//! `routing.failure_detection` (swtor/src/switch.rs).

use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Topology;
use lh_ctrl::fattree::FatTree;
use swtor::FabricHandle;

/// The fat tree of a compiled fat-tree config.
pub fn fat_tree(c: Option<&Compiled>) -> Option<FatTree> {
    match c?.config.topology {
        Topology::FatTree { k } => FatTree::new(k).ok(),
        _ => None,
    }
}

/// Fails (`up == false`) or restores the link between switches `x` and
/// `y` of fat tree `t` (None: no fat tree). Errors name what is wrong.
pub fn set_switch_link(
    t: Option<FatTree>,
    fabric: Option<&FabricHandle>,
    (x, y): (&str, &str),
    up: bool,
) -> Result<(), String> {
    let t = t.ok_or_else(|| format!("no link between {x} and {y}"))?;
    let (Some(a), Some(b)) = (t.by_name(x), t.by_name(y)) else {
        return Err(format!(
            "no link between {x} and {y} (fat-tree switches are s1..s{}, a1..a{}, c1..c{})",
            t.edges(),
            t.aggs(),
            t.cores()
        ));
    };
    if !t.linked(a, b) {
        return Err(format!("no link between {x} and {y} in the fat tree"));
    }
    let f = fabric.ok_or("no data plane in this run (--no-fabric): no switch links")?;
    f.set_switch_link(a, b, up).map_err(|e| e.to_string())
}
