//! `link X Y down|up` between two switches of a fat tree (`fabric:
//! "fattree"`; names `s1..` edge, `a1..` aggregation, `c1..` core, see
//! `lh_ctrl::fattree`): the data plane drops what is sent on the link as
//! `link_down` at once and withdraws the paths over it after
//! `routing.failure_detection` (swtor/src/switch.rs).

use lh_ctrl::PortId;
use lh_ctrl::compile::Compiled;
use lh_ctrl::fattree::{FatTree, SwitchId};
use swtor::FabricHandle;

/// The fat tree of a compiled fat-tree config.
pub fn fat_tree(c: Option<&Compiled>) -> Option<FatTree> {
    c?.config.fat_tree()
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

/// The names of a fat tree's aggregation and core switches (its edge
/// switches are the ToRs `s1..`), in switch order.
pub fn inner_switches(t: &FatTree) -> Vec<String> {
    (t.edges()..t.switches())
        .map(|x| t.name(x as SwitchId))
        .collect()
}

/// Mininet `net` pairs of switch `name`'s switch-facing ports: its own
/// port (`a1-eth3`) and the far end (`c1-eth1`), numbered as in
/// [`links_text`]. `None`: no such switch.
pub fn switch_ports(t: &FatTree, name: &str) -> Option<Vec<(String, String)>> {
    let x = t.by_name(name)?;
    let end = |s: SwitchId, p: PortId| format!("{}-eth{}", t.name(s), p as usize + 1);
    Some(
        (0..t.ports() as PortId)
            .filter_map(|p| t.peer(x, p).map(|(b, q)| (end(x, p), end(b, q))))
            .collect(),
    )
}

/// A fat tree's switch-to-switch links, each once (lower
/// switch first), Mininet style with 1-based ports: edge `sN` ports
/// `eth1..eth(k/2)` are its hosts, `eth(k/2+1)..` go up; aggregation
/// `aN` `eth1..eth(k/2)` go down, the rest up; core `cN` `eth(p+1)` to pod
/// `p`.
pub fn switch_links(t: &FatTree) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for a in 0..t.switches() as u16 {
        for p in 0..t.ports() as u8 {
            let Some((b, q)) = t.peer(a, p) else { continue };
            if b < a {
                continue;
            }
            let end = |x: u16, port: u8| format!("{}-eth{}", t.name(x), port as usize + 1);
            v.push((end(a, p), end(b, q)));
        }
    }
    v
}

/// [`switch_links`] as `links` prints them (`ok`: the data plane runs).
pub fn links_text(t: &FatTree, ok: bool) -> String {
    let mut s = String::new();
    for (a, b) in switch_links(t) {
        s.push_str(&crate::text::format::link_line(&a, &b, ok, ok));
        s.push('\n');
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

    #[test]
    fn k4_names_its_inner_switches_and_their_ports_like_links() {
        let t = FatTree::new(4).unwrap();
        let names = inner_switches(&t);
        assert_eq!(names.len(), 8 + 4);
        assert_eq!((names[0].as_str(), names[11].as_str()), ("a1", "c4"));
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        // Edge: only the two uplinks (eth1, eth2 are hosts).
        assert_eq!(
            switch_ports(&t, "s1").unwrap(),
            vec![pair("s1-eth3", "a1-eth1"), pair("s1-eth4", "a2-eth1")]
        );
        let a1 = switch_ports(&t, "a1").unwrap();
        assert_eq!(a1.len(), 4);
        assert_eq!(a1[2], pair("a1-eth3", "c1-eth1"));
        assert_eq!(switch_ports(&t, "c4").unwrap().len(), 4);
        assert_eq!(switch_ports(&t, "c5"), None);
        // Every pair is a line of `links`, in one direction or the other.
        let text = links_text(&t, true);
        for n in ["s3", "a5", "c2"] {
            for (a, b) in switch_ports(&t, n).unwrap() {
                assert!(
                    text.contains(&format!("{a}<->{b} ")) || text.contains(&format!("{b}<->{a} ")),
                    "{n}: {a} {b}"
                );
            }
        }
    }
}
