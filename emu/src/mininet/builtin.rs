//! Mininet's built-in topologies (`--topo single,N | linear,N | tree,D[,F]
//! | reversed,N | torus,X,Y[,N] | minimal`), named and linked as Mininet
//! builds them.

use super::source::split_spec;
use super::{MnError, MnTopo};

/// `single,N`, `linear,N`, `tree,D[,F]`, built the way Mininet builds them.
pub fn builtin(spec: &str) -> Result<MnTopo, MnError> {
    let (name, args) = split_spec(spec);
    let bad = |m: &str| MnError::Spec(spec.to_string(), m.to_string());
    let num = |i: usize, default: Option<usize>| -> Result<usize, MnError> {
        match args.get(i) {
            Some(a) => a
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| bad(&format!("expected a positive integer, got {a:?}"))),
            None => default.ok_or_else(|| bad("missing a size, e.g. linear,4")),
        }
    };
    let mut t = MnTopo::default();
    let link = |t: &mut MnTopo, a: &str, b: &str| t.links.push((a.into(), b.into(), None));
    match name.as_str() {
        "single" | "minimal" => {
            let k = if name == "minimal" {
                2
            } else {
                num(0, Some(2))?
            };
            t.switches.push("s1".into());
            for h in 1..=k {
                t.hosts.push(format!("h{h}"));
                link(&mut t, &format!("h{h}"), "s1");
            }
        }
        "linear" => {
            let k = num(0, Some(2))?;
            for i in 1..=k {
                t.switches.push(format!("s{i}"));
                t.hosts.push(format!("h{i}"));
                link(&mut t, &format!("h{i}"), &format!("s{i}"));
                if i > 1 {
                    link(&mut t, &format!("s{i}"), &format!("s{}", i - 1));
                }
            }
        }
        "reversed" => {
            // Mininet's SingleSwitchReversedTopo: h1 on the last port.
            let k = num(0, Some(2))?;
            t.switches.push("s1".into());
            for h in 1..=k {
                t.hosts.push(format!("h{h}"));
                link(&mut t, &format!("h{h}"), "s1");
                t.ports.push((Some(0), Some(k - h + 1)));
            }
        }
        "torus" => {
            // Mininet's TorusTopo(x, y, n): switches sIxJ, hosts hIxJ (or
            // hIxJxK for n > 1), each switch linked to its right and lower
            // neighbours, wrapping around.
            let (x, y, n) = (num(0, None)?, num(1, None)?, num(2, Some(1))?);
            if x < 3 || y < 3 {
                return Err(bad("Please use 3x3 or greater (as Mininet's TorusTopo)"));
            }
            if x * y * n > 1024 {
                return Err(bad("more than 1024 hosts"));
            }
            let sw = |i: usize, j: usize| format!("s{}x{}", i + 1, j + 1);
            for i in 0..x {
                for j in 0..y {
                    t.switches.push(sw(i, j));
                    for k in 1..=n {
                        let h = if n == 1 {
                            format!("h{}x{}", i + 1, j + 1)
                        } else {
                            format!("h{}x{}x{k}", i + 1, j + 1)
                        };
                        t.hosts.push(h.clone());
                        link(&mut t, &h, &sw(i, j));
                    }
                }
            }
            for i in 0..x {
                for j in 0..y {
                    link(&mut t, &sw(i, j), &sw(i, (j + 1) % y));
                    link(&mut t, &sw(i, j), &sw((i + 1) % x, j));
                }
            }
        }
        "tree" => {
            let (depth, fanout) = (num(0, Some(1))?, num(1, Some(2))?);
            if fanout.checked_pow(depth as u32).is_none_or(|n| n > 1024) {
                return Err(bad("more than 1024 hosts"));
            }
            let (mut sw, mut h) = (1, 1);
            tree(&mut t, depth, fanout, &mut sw, &mut h);
        }
        _ => {
            return Err(bad(
                "unknown topology; built in: minimal single,N reversed,N linear,N tree,D[,F] torus,X,Y[,N] (use --custom FILE.py for others)",
            ));
        }
    }
    Ok(t)
}

fn tree(t: &mut MnTopo, depth: usize, fanout: usize, sw: &mut usize, h: &mut usize) -> String {
    if depth == 0 {
        let n = format!("h{h}");
        *h += 1;
        t.hosts.push(n.clone());
        return n;
    }
    let n = format!("s{sw}");
    *sw += 1;
    t.switches.push(n.clone());
    for _ in 0..fanout {
        let c = tree(t, depth - 1, fanout, sw, h);
        t.links.push((n.clone(), c, None));
    }
    n
}
