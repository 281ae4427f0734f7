//! Compile a [`Schedule`] and the config's cabling into per-OCS circuit lists,
//! checking that the schedule is physically realisable: both ends of every
//! circuit are cabled to the same OCS, every OCS port exists and belongs to
//! one ToR uplink, and no OCS port sends or receives twice in one slice.

use super::{Endpoint, LinkKind, Schedule, ScheduleError};
use crate::config::Config;
use crate::{PortId, SliceId, TorId};
use serde::{Deserialize, Serialize};

/// Cabling entry of an uplink that is not connected to any OCS.
pub const UNCABLED: (u16, u16) = (u16::MAX, u16::MAX);

/// What every OCS does in every slice.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcsSchedule {
    /// Ports per OCS.
    pub ports: usize,
    /// Slices per cycle (1 for static and TA topologies).
    pub slices: usize,
    /// `ocs[o][ts]`: the circuits of OCS `o` in slice `ts` as
    /// `(in_port, out_port)`, sorted by `in_port`. A bidirectional ToR
    /// circuit appears in both directions. Empty for electrical fabrics.
    pub ocs: Vec<Vec<Vec<(u16, u16)>>>,
}

impl OcsSchedule {
    /// Where OCS `ocs` forwards light entering `in_port` in slice `ts`.
    pub fn out_port(&self, ocs: usize, ts: SliceId, in_port: u16) -> Option<u16> {
        let list = self.ocs.get(ocs)?.get(ts as usize % self.slices.max(1))?;
        list.binary_search_by_key(&in_port, |&(i, _)| i)
            .ok()
            .map(|k| list[k].1)
    }

    /// Directed circuits over all OCSes and slices.
    pub fn circuit_count(&self) -> usize {
        self.ocs.iter().flatten().map(Vec::len).sum()
    }
}

/// Compile `s` against `cabling` (`[tor * uplinks + port] -> (ocs,
/// ocs_port)`, [`UNCABLED`] for none) for `ocs_count` OCSes of `ports` ports.
pub fn compile(
    s: &Schedule,
    cabling: &[(u16, u16)],
    ocs_count: usize,
    ports: usize,
) -> Result<OcsSchedule, ScheduleError> {
    // Only optical uplinks are cabled; electrical ones (numbered after
    // them) carry no circuits.
    let (n, u) = (s.tors(), s.optical_uplinks());
    if s.kind() == LinkKind::Electrical {
        return Ok(OcsSchedule {
            ports,
            slices: s.slices(),
            ocs: Vec::new(),
        });
    }
    if cabling.len() != n * u {
        return Err(ScheduleError::Infeasible(format!(
            "the cabling lists {} uplinks but there are {n} ToRs with {u} uplinks",
            cabling.len()
        )));
    }
    let ep_of = |i: usize| Endpoint::new((i / u) as TorId, (i % u) as PortId);
    // Which uplink owns each OCS port, to refuse shared ports.
    let mut owner: Vec<Option<Endpoint>> = vec![None; ocs_count * ports];
    for (i, &(o, p)) in cabling.iter().enumerate() {
        if (o, p) == UNCABLED {
            continue;
        }
        let ep = ep_of(i);
        if o as usize >= ocs_count || p as usize >= ports {
            return Err(ScheduleError::NoSuchOcsPort {
                tor: ep.tor,
                port: ep.port,
                ocs: o,
                ocs_port: p,
                ocs_count,
                ports,
            });
        }
        let slot = &mut owner[o as usize * ports + p as usize];
        if let Some(a) = *slot {
            return Err(ScheduleError::SharedOcsPort {
                a,
                b: ep,
                ocs: o,
                ocs_port: p,
            });
        }
        *slot = Some(ep);
    }

    let slices = s.slices();
    let mut out = OcsSchedule {
        ports,
        slices,
        ocs: vec![vec![Vec::new(); slices]; ocs_count],
    };
    let mut in_used = vec![false; ocs_count * ports];
    let mut out_used = vec![false; ocs_count * ports];
    for ts in 0..slices {
        let ts = ts as SliceId;
        in_used.fill(false);
        out_used.fill(false);
        for (from, to) in s.circuits(ts) {
            let cab = |ep: Endpoint| {
                let c = cabling[ep.tor as usize * u + ep.port as usize];
                if c == UNCABLED {
                    Err(ScheduleError::Uncabled {
                        ts,
                        tor: ep.tor,
                        port: ep.port,
                    })
                } else {
                    Ok(c)
                }
            };
            let (fo, fp) = cab(from)?;
            let (to_ocs, tp) = cab(to)?;
            if fo != to_ocs {
                return Err(ScheduleError::CrossOcs {
                    ts,
                    from,
                    to,
                    from_ocs: fo,
                    to_ocs,
                });
            }
            let base = fo as usize * ports;
            // Unreachable after the ownership check and Schedule's own port
            // rules, but cheap and it keeps this function self-contained.
            for (used, p, dir) in [
                (&mut in_used, fp, "send into"),
                (&mut out_used, tp, "receive from"),
            ] {
                if std::mem::replace(&mut used[base + p as usize], true) {
                    return Err(ScheduleError::OcsPortInUse {
                        ts,
                        ocs: fo,
                        ocs_port: p,
                        dir,
                    });
                }
            }
            out.ocs[fo as usize][ts as usize].push((fp, tp));
        }
    }
    for list in out.ocs.iter_mut().flatten() {
        list.sort_unstable();
    }
    Ok(out)
}

/// Compile `s` against `cfg`'s OCSes and cabling.
pub fn compile_for(cfg: &Config, s: &Schedule) -> Result<OcsSchedule, ScheduleError> {
    if s.kind() == LinkKind::Electrical {
        return compile(s, &[], 0, 0);
    }
    if s.tors() != cfg.tors.count as usize || s.optical_uplinks() != cfg.tors.uplinks as usize {
        return Err(ScheduleError::Infeasible(format!(
            "the schedule is for {} ToRs with {} optical uplinks but the config has {} with {}",
            s.tors(),
            s.optical_uplinks(),
            cfg.tors.count,
            cfg.tors.uplinks
        )));
    }
    let Some(ocs) = &cfg.ocs else {
        return Err(ScheduleError::Infeasible(
            "an optical schedule needs an \"ocs\" section in the config".into(),
        ));
    };
    compile(s, &cfg.cabling(), ocs.count as usize, ocs.ports as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidirectional_circuit_appears_both_ways() {
        let mut s = Schedule::new(2, 1, 1);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        let o = compile(&s, &[(0, 3), (0, 5)], 1, 8).unwrap();
        assert_eq!(o.ocs[0][0], vec![(3, 5), (5, 3)]);
        assert_eq!(o.out_port(0, 0, 5), Some(3));
        assert_eq!(o.out_port(0, 0, 4), None);
        assert_eq!(o.circuit_count(), 2);
    }
}
