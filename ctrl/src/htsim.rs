//! A compiled Opera fabric in the topology format of the Opera authors'
//! simulator (TritonNetworking/opera-sim, read by its `DynExpTopology`),
//! so that their htsim and `lighthouse sim` run the same schedule and the
//! same paths (docs/fidelity.md, "Both simulators on one topology").
//!
//! The format, as their reader takes it (every index from zero):
//! - `hosts downlinks uplinks tors`;
//! - `3S eps delta r`: three topology slices per slice of ours (their
//!   "superslice"), and the picoseconds of each: `eps` and `delta` with
//!   every rotor up, `r` with the reconfiguring ones down;
//! - `3S` lines of `tors x uplinks` numbers: the ToR each uplink reaches
//!   in that topology slice (its own ToR when its rotor leaves it idle),
//!   `-1` for a reconfiguring rotor's. Their reader reads `hosts`
//!   numbers a line, so the format needs as many hosts per ToR as uplinks;
//! - the paths: a line with a topology slice's number, then one line a
//!   path, `src dst q q ...`, `q` the ToR port of each hop (uplink `p` is
//!   port `downlinks + p`), taken one after another in that slice's
//!   topology, without waiting. Lines are separated, not ended, by
//!   newlines (their reader parses an empty last line as a path).
//!
//! Their reconfiguration comes at the end of a superslice; ours at the
//! start of a slice (docs/time-model.md). Superslice `j` is our slice `j`:
//! `eps + delta` are its circuits, and `r` marks down the uplinks (rotors)
//! whose circuits change into slice `j + 1` (dark at its start here), so their schedule
//! runs one dark time ahead of ours. The paths are the class-0
//! (low-latency) ones of `opera()`, which leave out those circuits; a path
//! that waits for a later slice has no form in theirs and is counted in
//! [`Written::waiting`], not written.

use crate::compile::Compiled;
use crate::routing::Hop;
use crate::schedule::Endpoint;
use crate::{SliceId, Slot, TorId};
use std::io::Write;

/// What [`write_topology`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Our slices (their superslices; 3 topology slices each).
    pub slices: usize,
    /// Paths written, each three times (once per topology slice).
    pub paths: usize,
    /// Low-latency paths left out because a hop waits for a later slice.
    pub waiting: usize,
    /// (source, destination, slice) with no path written.
    pub missing: usize,
    /// The three topology slices' lengths, in picoseconds.
    pub eps_delta_r_ps: [u64; 3],
}

#[derive(Debug, thiserror::Error)]
pub enum HtsimError {
    #[error("{0}")]
    Unfit(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A full frame's serialization (1500 bytes) plus the propagation delay:
/// their `delta`, "the queuing + flight time" of one hop.
fn delta_ns(c: &Compiled) -> u64 {
    let t = c.timing();
    let rate = t.link_rate.0.max(1);
    t.propagation.0 + (1500 * 8 * 1_000_000_000u64).div_ceil(rate)
}

/// Write `c` in their topology format (see the module docs). Refused, with
/// the config field named, when the fabric has no form in it.
pub fn write_topology(c: &Compiled, out: &mut impl Write) -> Result<Written, HtsimError> {
    let cfg = &c.config;
    let s = &c.schedule;
    let (n, u, d) = (s.tors(), s.uplinks(), cfg.tors.hosts_per_tor as usize);
    if d != u {
        return Err(HtsimError::Unfit(format!(
            "$.tors.hosts_per_tor ({d}) must equal $.tors.uplinks ({u}): their reader takes \
             as many hosts per ToR as uplinks"
        )));
    }
    if s.slices() < 2 {
        return Err(HtsimError::Unfit(
            "$.topology: their format is for a schedule of several slices".into(),
        ));
    }
    let t = c.timing();
    let (slice, r, delta) = (t.slice.0, t.dark().0, delta_ns(c));
    let Some(eps) = slice.checked_sub(r + delta) else {
        return Err(HtsimError::Unfit(format!(
            "$.slice.duration ({slice} ns) is shorter than the dark time ({r} ns) plus a \
             frame's hop ({delta} ns)"
        )));
    };
    let slices = s.slices();
    let mut w = Written {
        slices,
        eps_delta_r_ps: [eps * 1000, delta * 1000, r * 1000],
        ..Written::default()
    };
    writeln!(out, "{} {d} {u} {n}", n * d)?;
    write!(
        out,
        "{} {} {} {}",
        3 * slices,
        eps * 1000,
        delta * 1000,
        r * 1000
    )?;
    // An idle uplink (a ToR its rotor's matching pairs with itself) is
    // written as that ToR, as their generator writes such a matching.
    let peer = |ts: usize, t: usize, p: usize| {
        s.peer(ts as SliceId, Endpoint::new(t as TorId, p as _))
            .map_or(t as i64, |e| i64::from(e.tor))
    };
    for j in 0..slices {
        let next = (j + 1) % slices;
        // Their rotors reconfigure whole: uplink `p` of every ToR is down
        // in `r` when any of its circuits changes into the next slice.
        let changing: Vec<bool> = (0..u)
            .map(|p| (0..n).any(|t| s.changed(next as SliceId, Endpoint::new(t as TorId, p as _))))
            .collect();
        for sub in 0..3 {
            let row: Vec<String> = (0..n)
                .flat_map(|t| (0..u).map(move |p| (t, p)))
                .map(|(t, p)| {
                    if sub == 2 && changing[p] {
                        -1
                    } else {
                        peer(j, t, p)
                    }
                    .to_string()
                })
                .collect();
            write!(out, "\n{}", row.join(" "))?;
        }
    }
    // The low-latency path of each (src, dst, arrival), in arrival order.
    let mut by_slice: Vec<Vec<(TorId, TorId, &[Hop])>> = vec![Vec::new(); slices];
    let mut have = vec![false; n * n * slices];
    for p in c.routes.paths.iter() {
        let (Some(a), Some(0) | None) = (p.arrival, p.class) else {
            continue;
        };
        let a = a as usize;
        let cell = (p.src as usize * n + p.dst as usize) * slices + a;
        if have[cell] {
            continue;
        }
        if p.hops.iter().any(|h| h.depart != Some(a as Slot)) {
            w.waiting += 1;
            continue;
        }
        have[cell] = true;
        by_slice[a].push((p.src, p.dst, p.hops));
    }
    for (j, paths) in by_slice.iter_mut().enumerate() {
        paths.sort_by_key(|&(src, dst, _)| (src, dst));
        for sub in 0..3 {
            write!(out, "\n{}", 3 * j + sub)?;
            for (src, dst, hops) in paths.iter() {
                write!(out, "\n{src} {dst}")?;
                for h in hops.iter() {
                    write!(out, " {}", d + h.port as usize)?;
                }
            }
        }
        w.paths += paths.len();
    }
    w.missing = n * (n - 1) * slices - w.paths;
    // No newline after the last path: their reader takes every line up to
    // the end of the file as a path, and an empty one would be read as a
    // path with no source.
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// opera-8's JSON with its hosts per ToR set to its uplinks.
    fn opera8() -> Compiled {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../topologies/opera-8.json"
        ))
        .unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let u = v["tors"]["uplinks"].clone();
        v["tors"]["hosts_per_tor"] = u;
        let cfg = crate::config::Config::parse_json(&v.to_string(), "opera-8.json").unwrap();
        crate::compile::compile(&cfg).unwrap()
    }

    /// Their reader, as far as the walk goes: the header, the adjacency
    /// rows and the paths per topology slice.
    struct Read {
        head: Vec<i64>,
        times: Vec<i64>,
        adjacency: Vec<Vec<i64>>,
        paths: Vec<(usize, i64, i64, Vec<i64>)>,
    }

    fn read(text: &str) -> Read {
        // Split as their `getline` loop reads: a newline at the end would
        // give one more, empty, line (a path with no source).
        let mut lines = text.split('\n');
        let nums =
            |l: &str| -> Vec<i64> { l.split_whitespace().map(|x| x.parse().unwrap()).collect() };
        let head = nums(lines.next().unwrap());
        let times = nums(lines.next().unwrap());
        let adjacency: Vec<Vec<i64>> = (0..times[0]).map(|_| nums(lines.next().unwrap())).collect();
        let (mut slice, mut paths) = (usize::MAX, Vec::new());
        for l in lines {
            let v = nums(l);
            if v.len() == 1 {
                slice = v[0] as usize;
            } else {
                paths.push((slice, v[0], v[1], v[2..].to_vec()));
            }
        }
        Read {
            head,
            times,
            adjacency,
            paths,
        }
    }

    #[test]
    fn every_path_walks_to_its_destination_in_its_topology_slice() {
        let c = opera8();
        let mut buf = Vec::new();
        let w = write_topology(&c, &mut buf).unwrap();
        let r = read(std::str::from_utf8(&buf).unwrap());
        let (n, u, s) = (c.schedule.tors(), c.schedule.uplinks(), c.schedule.slices());
        assert_eq!(r.head, [(n * u) as i64, u as i64, u as i64, n as i64]);
        assert_eq!(r.times[0], 3 * s as i64);
        // The three lengths add up to the slice.
        assert_eq!(
            r.times[1..].iter().sum::<i64>(),
            c.timing().slice.0 as i64 * 1000
        );
        assert_eq!(r.adjacency.len(), 3 * s);
        assert!(r.adjacency.iter().all(|row| row.len() == n * u));
        assert_eq!(w.paths + w.missing, n * (n - 1) * s);
        assert!(w.paths > 0);
        assert_eq!(r.paths.len(), 3 * w.paths);
        for (slice, src, dst, ports) in &r.paths {
            let mut at = *src;
            for q in ports {
                let p = q - u as i64;
                assert!((0..u as i64).contains(&p), "port {q} is not an uplink");
                at = r.adjacency[*slice][(at * u as i64 + p) as usize];
                assert!(
                    at >= 0,
                    "slice {slice}: {src} -> {dst} uses a circuit that is down"
                );
            }
            assert_eq!(at, *dst, "slice {slice}: {src} -> {dst} ends at {at}");
        }
    }

    #[test]
    fn the_reconfiguration_slice_marks_down_what_changes_next() {
        let c = opera8();
        let mut buf = Vec::new();
        write_topology(&c, &mut buf).unwrap();
        let r = read(std::str::from_utf8(&buf).unwrap());
        let s = c.schedule.slices();
        let (u, mut downs) = (c.schedule.uplinks(), 0);
        for j in 0..s {
            let (eps, delta, rec) = (
                &r.adjacency[3 * j],
                &r.adjacency[3 * j + 1],
                &r.adjacency[3 * j + 2],
            );
            assert_eq!(eps, delta);
            assert!(
                eps.iter().all(|&t| t >= 0),
                "slice {j}: every uplink reaches a ToR"
            );
            let next = &r.adjacency[3 * ((j + 1) % s)];
            for p in 0..u {
                let column = |row: &Vec<i64>| -> Vec<i64> {
                    row.iter().skip(p).step_by(u).copied().collect()
                };
                let (now, then, down) = (column(eps), column(next), column(rec));
                if down.iter().all(|&t| t == -1) {
                    downs += 1;
                    assert_ne!(now, then, "slice {j}: uplink {p} marked down but unchanged");
                } else {
                    assert_eq!(now, down, "slice {j}: uplink {p} partly down");
                    assert_eq!(
                        now, then,
                        "slice {j}: uplink {p} changes but is not marked down"
                    );
                }
            }
        }
        assert!(downs > 0, "Opera reconfigures a rotor every slice");
    }

    #[test]
    fn hosts_other_than_uplinks_name_both_fields() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../topologies/opera-8.json"
        ))
        .unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["tors"]["hosts_per_tor"] = serde_json::json!(1);
        v["tors"]["uplinks"] = serde_json::json!(4);
        let cfg = crate::config::Config::parse_json(&v.to_string(), "opera-8.json").unwrap();
        let c = crate::compile::compile(&cfg).unwrap();
        let e = write_topology(&c, &mut Vec::new()).unwrap_err().to_string();
        assert!(
            e.contains("$.tors.hosts_per_tor") && e.contains("$.tors.uplinks"),
            "{e}"
        );
    }
}
