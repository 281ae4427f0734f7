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

/// `links` for a fat tree's switch-to-switch links, each once (lower
/// switch first), Mininet style with 1-based ports: edge `sN` ports
/// `eth1..eth(k/2)` are its hosts, `eth(k/2+1)..` go up; aggregation
/// `aN` `eth1..eth(k/2)` go down, the rest up; core `cN` `eth(p+1)` to pod
/// `p`. `ok`: the data plane runs.
pub fn links_text(t: &FatTree, ok: bool) -> String {
    let mut s = String::new();
    for a in 0..t.switches() as u16 {
        for p in 0..t.ports() as u8 {
            let Some((b, q)) = t.peer(a, p) else { continue };
            if b < a {
                continue;
            }
            let end = |x: u16, port: u8| format!("{}-eth{}", t.name(x), port as usize + 1);
            s.push_str(&crate::format::link_line(&end(a, p), &end(b, q), ok, ok));
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k4_lists_each_of_the_32_switch_links_once() {
        let t = FatTree::new(4).unwrap();
        let text = links_text(&t, true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 32);
        assert_eq!(lines[0], "s1-eth3<->a1-eth1 (OK OK) ");
        assert!(lines.contains(&"a1-eth3<->c1-eth1 (OK OK) "), "{text}");
        assert!(lines.contains(&"a8-eth4<->c4-eth4 (OK OK) "), "{text}");
    }
}
