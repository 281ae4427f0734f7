//! Optical schedules (topology API, paper Table 1): which ToR uplink reaches
//! which in every time slice, built from `connect()`, then compiled into
//! per-OCS circuits and checked against the cabling.
//!
//! Time model (docs/time-model.md): a circuit that differs from the previous
//! slice's is dark for `max(guardband, reconfiguration_delay)` at the start
//! of the slice; a circuit that stays the same is usable for the whole slice.

pub mod file;
mod graph;
pub mod ocs;
pub mod opera;
pub mod round_robin;
pub mod shale;
pub mod static_topo;
pub mod timing;

pub use file::{schedule_from_file, schedule_from_json, schedule_to_json};
pub use ocs::OcsSchedule;
pub use opera::{Opera, opera};
pub use round_robin::{RoundRobin, round_robin};
pub use shale::{Shale, shale};
pub use static_topo::{Ring, full, ring};
pub use timing::{carries_frame, dark_time, routable, short_windows, usable_bytes, usable_window};

use crate::config::{Config, FabricKind, StaticGraph, Topology};
use crate::{PortId, SliceId, TorId};
use serde::{Deserialize, Serialize};

/// One end of a circuit: an uplink of a ToR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Endpoint {
    pub tor: TorId,
    pub port: PortId,
}

impl Endpoint {
    pub fn new(tor: TorId, port: PortId) -> Self {
        Endpoint { tor, port }
    }
}

impl From<(TorId, PortId)> for Endpoint {
    fn from((tor, port): (TorId, PortId)) -> Self {
        Endpoint { tor, port }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScheduleError {
    #[error("slice {ts}: ToR {tor} port {port} is already used in this slice")]
    PortInUse {
        ts: SliceId,
        tor: TorId,
        port: PortId,
    },
    #[error("slice {ts}: ToR {tor} cannot connect to itself")]
    SelfLoop { ts: SliceId, tor: TorId },
    #[error("slice {ts} is out of range (the cycle has {slices} slices)")]
    SliceOutOfRange { ts: SliceId, slices: usize },
    #[error("ToR {tor} port {port} does not exist ({tors} ToRs with {uplinks} uplinks)")]
    NoSuchPort {
        tor: TorId,
        port: PortId,
        tors: usize,
        uplinks: usize,
    },
    #[error("{0}")]
    Infeasible(String),
    /// A schedule file is malformed or asks for an impossible circuit.
    #[error("{file}: at {path}: {msg}")]
    File {
        file: String,
        path: String,
        msg: String,
    },
    /// A circuit whose two ends are cabled to different OCSes.
    #[error(
        "slice {ts}: circuit ToR {} port {} -> ToR {} port {} crosses OCS {from_ocs} and OCS {to_ocs} (both ends of a circuit must be cabled to the same OCS)",
        from.tor, from.port, to.tor, to.port
    )]
    CrossOcs {
        ts: SliceId,
        from: Endpoint,
        to: Endpoint,
        from_ocs: u16,
        to_ocs: u16,
    },
    /// A circuit uses a ToR uplink that the cabling leaves unconnected.
    #[error("slice {ts}: ToR {tor} port {port} carries a circuit but is not cabled to any OCS")]
    Uncabled {
        ts: SliceId,
        tor: TorId,
        port: PortId,
    },
    /// The cabling names an OCS or OCS port that does not exist.
    #[error(
        "ToR {tor} port {port} is cabled to OCS {ocs} port {ocs_port}, which does not exist ({ocs_count} OCSes with {ports} ports)"
    )]
    NoSuchOcsPort {
        tor: TorId,
        port: PortId,
        ocs: u16,
        ocs_port: u16,
        ocs_count: usize,
        ports: usize,
    },
    /// Two ToR uplinks share one OCS port.
    #[error("ToR {} port {} and ToR {} port {} are both cabled to OCS {ocs} port {ocs_port}", a.tor, a.port, b.tor, b.port)]
    SharedOcsPort {
        a: Endpoint,
        b: Endpoint,
        ocs: u16,
        ocs_port: u16,
    },
    /// A circuit asked for on an electrical port (hybrid schedules).
    #[error("ToR {tor} port {port} is electrical and carries no circuits")]
    ElectricalPort { tor: TorId, port: PortId },
    /// An OCS port would carry two circuits in one direction in one slice.
    #[error("slice {ts}: OCS {ocs} port {ocs_port} would {dir} two circuits at once")]
    OcsPortInUse {
        ts: SliceId,
        ocs: u16,
        ocs_port: u16,
        /// "send into" or "receive from".
        dir: &'static str,
    },
}

/// Whether a ToR's uplinks are circuits (one peer per slice) or lead to an
/// electrical packet switch that reaches every ToR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinkKind {
    Optical,
    Electrical,
}

/// A cyclic optical schedule: `slices` slices, each a set of directed
/// port-to-port circuits. Bidirectional circuits are two directed ones.
///
/// Ports may be of mixed kind (a hybrid electrical-optical fabric such as
/// c-Through): the highest `electrical_ports` uplinks lead to an electrical
/// packet switch that forwards by destination, the rest are optical.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    tors: usize,
    uplinks: usize,
    slices: usize,
    kind: LinkKind,
    /// How many of the highest-numbered uplinks are electrical (all of them
    /// when `kind` is Electrical).
    #[serde(default)]
    electrical_ports: usize,
    /// `tx[ts * tors * uplinks + tor * uplinks + port]`: where a frame sent
    /// on that port in that slice lands.
    tx: Vec<Option<Endpoint>>,
    /// The reverse map, to refuse two circuits into one receiver.
    rx: Vec<Option<Endpoint>>,
}

impl Schedule {
    /// An empty optical schedule (no circuits yet).
    pub fn new(tors: usize, uplinks: usize, slices: usize) -> Self {
        let n = tors * uplinks * slices.max(1);
        Schedule {
            tors,
            uplinks,
            slices: slices.max(1),
            kind: LinkKind::Optical,
            electrical_ports: 0,
            tx: vec![None; n],
            rx: vec![None; n],
        }
    }

    /// An electrical fabric: one slice, uplink `p` of every ToR reaches every
    /// other ToR through spine `p`.
    pub fn electrical(tors: usize, uplinks: usize) -> Self {
        let mut s = Schedule::new(tors, uplinks, 1);
        s.kind = LinkKind::Electrical;
        s.electrical_ports = uplinks;
        s
    }

    /// A hybrid schedule: uplinks `0..optical` are optical (circuits via
    /// `connect`), uplinks `optical..optical + electrical` are electrical.
    pub fn hybrid(tors: usize, optical: usize, electrical: usize, slices: usize) -> Self {
        let mut s = Schedule::new(tors, optical + electrical, slices);
        s.electrical_ports = electrical;
        if optical == 0 && electrical > 0 {
            s.kind = LinkKind::Electrical;
        }
        s
    }

    /// This schedule with `slices` slices: the circuits of the slices both
    /// have are kept, new slices start empty. A `topo()` written in a script
    /// grows its schedule this way as it connects later slices.
    pub fn with_slices(&self, slices: usize) -> Schedule {
        let mut s = self.clone();
        let per = self.tors * self.uplinks;
        s.slices = slices.max(1);
        s.tx.resize(per * s.slices, None);
        s.rx.resize(per * s.slices, None);
        s
    }

    /// This schedule with `extra` electrical uplinks appended after the
    /// existing ones (which keep their circuits).
    pub fn with_electrical_ports(&self, extra: usize) -> Schedule {
        if extra == 0 {
            return self.clone();
        }
        let mut s = Schedule::hybrid(
            self.tors,
            self.optical_uplinks(),
            self.electrical_ports() + extra,
            self.slices,
        );
        for ts in 0..self.slices {
            for t in 0..self.tors {
                for p in 0..self.uplinks {
                    let ep = Endpoint::new(t as TorId, p as PortId);
                    let (i, j) = (self.idx(ts as SliceId, ep), s.idx(ts as SliceId, ep));
                    s.tx[j] = self.tx[i];
                    s.rx[j] = self.rx[i];
                }
            }
        }
        s
    }

    pub fn tors(&self) -> usize {
        self.tors
    }
    pub fn uplinks(&self) -> usize {
        self.uplinks
    }
    /// Slices per optical cycle (1 for static and TA topologies).
    pub fn slices(&self) -> usize {
        self.slices
    }
    /// Electrical only when every uplink is; a hybrid schedule is Optical
    /// (ask [`Schedule::is_electrical`] per port).
    pub fn kind(&self) -> LinkKind {
        self.kind
    }

    /// Uplinks that are electrical (the highest-numbered ones).
    pub fn electrical_ports(&self) -> usize {
        if self.kind == LinkKind::Electrical {
            self.uplinks
        } else {
            self.electrical_ports.min(self.uplinks)
        }
    }

    /// Uplinks `0..optical_uplinks()` are optical (cabled to OCSes).
    pub fn optical_uplinks(&self) -> usize {
        self.uplinks - self.electrical_ports()
    }

    /// True when uplink `port` leads to an electrical switch that reaches
    /// every ToR (no circuits, never dark).
    #[inline]
    pub fn is_electrical(&self, port: PortId) -> bool {
        (port as usize) >= self.optical_uplinks()
    }

    /// The ToR a frame for `dst` reaches when sent on `ep` in slice `ts`:
    /// the destination itself on an electrical port (the switch forwards by
    /// destination), the circuit peer on an optical one.
    #[inline]
    pub fn next_tor(&self, ts: SliceId, ep: Endpoint, dst: TorId) -> Option<TorId> {
        if self.is_electrical(ep.port) {
            Some(dst)
        } else {
            self.peer(ts, ep).map(|e| e.tor)
        }
    }

    /// `ts` within the cycle. Callers mostly pass a slice already in it
    /// (`check_path` asks for every hop of millions of paths), so the
    /// division is only done when needed.
    #[inline]
    fn wrap(&self, ts: SliceId) -> SliceId {
        if (ts as usize) < self.slices {
            ts
        } else {
            ts % self.slices as SliceId
        }
    }

    fn idx(&self, ts: SliceId, ep: Endpoint) -> usize {
        (ts as usize * self.tors + ep.tor as usize) * self.uplinks + ep.port as usize
    }

    fn check(&self, ts: SliceId, ep: Endpoint) -> Result<(), ScheduleError> {
        if ts as usize >= self.slices {
            return Err(ScheduleError::SliceOutOfRange {
                ts,
                slices: self.slices,
            });
        }
        if ep.tor as usize >= self.tors || ep.port as usize >= self.uplinks {
            return Err(ScheduleError::NoSuchPort {
                tor: ep.tor,
                port: ep.port,
                tors: self.tors,
                uplinks: self.uplinks,
            });
        }
        if self.is_electrical(ep.port) {
            return Err(ScheduleError::ElectricalPort {
                tor: ep.tor,
                port: ep.port,
            });
        }
        Ok(())
    }

    /// The paper's `connect(ToR1, port1, ToR2, port2, ts)`: a bidirectional
    /// circuit. Refuses a port used twice in a slice, and self-loops.
    pub fn connect(&mut self, a: Endpoint, b: Endpoint, ts: SliceId) -> Result<(), ScheduleError> {
        self.check(ts, a)?;
        self.check(ts, b)?;
        if a.tor == b.tor {
            return Err(ScheduleError::SelfLoop { ts, tor: a.tor });
        }
        for ep in [a, b] {
            let i = self.idx(ts, ep);
            if self.tx[i].is_some() || self.rx[i].is_some() {
                return Err(ScheduleError::PortInUse {
                    ts,
                    tor: ep.tor,
                    port: ep.port,
                });
            }
        }
        let (ia, ib) = (self.idx(ts, a), self.idx(ts, b));
        self.tx[ia] = Some(b);
        self.rx[ib] = Some(a);
        self.tx[ib] = Some(a);
        self.rx[ia] = Some(b);
        Ok(())
    }

    /// A one-way circuit (Shale's cyclic shifts): `from`'s transmitter to
    /// `to`'s receiver. Each transmitter and receiver is used once per slice.
    pub fn connect_directed(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        ts: SliceId,
    ) -> Result<(), ScheduleError> {
        self.check(ts, from)?;
        self.check(ts, to)?;
        if from.tor == to.tor {
            return Err(ScheduleError::SelfLoop { ts, tor: from.tor });
        }
        let (i, j) = (self.idx(ts, from), self.idx(ts, to));
        if self.tx[i].is_some() {
            return Err(ScheduleError::PortInUse {
                ts,
                tor: from.tor,
                port: from.port,
            });
        }
        if self.rx[j].is_some() {
            return Err(ScheduleError::PortInUse {
                ts,
                tor: to.tor,
                port: to.port,
            });
        }
        self.tx[i] = Some(to);
        self.rx[j] = Some(from);
        Ok(())
    }

    /// Where a frame sent on `ep` in slice `ts` lands (optical fabrics).
    pub fn peer(&self, ts: SliceId, ep: Endpoint) -> Option<Endpoint> {
        self.tx[self.idx(self.wrap(ts), ep)]
    }

    /// Remove the circuit `ep` transmits on in slice `ts` (one direction).
    /// Used for the routing view that avoids circuits too dark to carry a
    /// frame ([`timing::routable`]); the data plane keeps the real schedule.
    pub fn cut(&mut self, ts: SliceId, ep: Endpoint) {
        let i = self.idx(self.wrap(ts), ep);
        if let Some(to) = self.tx[i].take() {
            let j = self.idx(self.wrap(ts), to);
            self.rx[j] = None;
        }
    }

    /// Which transmitter feeds `ep`'s receiver in slice `ts`.
    pub fn rx_peer(&self, ts: SliceId, ep: Endpoint) -> Option<Endpoint> {
        self.rx[self.idx(self.wrap(ts), ep)]
    }

    /// Every `(uplink, next ToR)` reachable from `tor` in slice `ts`. An
    /// electrical uplink reaches every other ToR.
    pub fn links(&self, tor: TorId, ts: SliceId) -> Vec<(PortId, TorId)> {
        let mut v = Vec::new();
        self.for_each_link(tor, ts, |p, t| v.push((p, t)));
        v
    }

    /// Allocation-free form of [`Schedule::links`] for hot loops.
    #[inline]
    pub fn for_each_link(&self, tor: TorId, ts: SliceId, mut f: impl FnMut(PortId, TorId)) {
        let ts = ts % self.slices as SliceId;
        let optical = self.optical_uplinks();
        for p in 0..optical {
            if let Some(e) = self.tx[self.idx(ts, Endpoint::new(tor, p as PortId))] {
                f(p as PortId, e.tor);
            }
        }
        for p in optical..self.uplinks {
            for t in 0..self.tors {
                if t != tor as usize {
                    f(p as PortId, t as TorId);
                }
            }
        }
    }

    /// The paper's `neighbors(ToR, ts)`: ToRs with a direct circuit from
    /// `tor` in `ts`, sorted, without repeats.
    pub fn neighbors(&self, tor: TorId, ts: SliceId) -> Vec<TorId> {
        let mut v: Vec<TorId> = self.links(tor, ts).into_iter().map(|(_, t)| t).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// True when `ep`'s circuit in `ts` differs from the previous slice's
    /// (cyclically), so the circuit is dark for the reconfiguration time.
    pub fn changed(&self, ts: SliceId, ep: Endpoint) -> bool {
        if self.is_electrical(ep.port) {
            return false;
        }
        let s = self.slices as SliceId;
        let prev = (ts % s + s - 1) % s;
        self.peer(ts, ep) != self.peer(prev, ep)
    }

    /// All directed (optical) circuits of a slice as `(from, to)`, sorted.
    pub fn circuits(&self, ts: SliceId) -> Vec<(Endpoint, Endpoint)> {
        let mut v = Vec::new();
        for t in 0..self.tors {
            for p in 0..self.uplinks {
                let ep = Endpoint::new(t as TorId, p as PortId);
                if let Some(to) = self.peer(ts, ep) {
                    v.push((ep, to));
                }
            }
        }
        v
    }

    /// Total directed circuits over the cycle.
    pub fn circuit_count(&self) -> usize {
        self.tx.iter().filter(|x| x.is_some()).count()
    }

    /// Size a schedule for `topo` and let it fill the circuits.
    pub fn from_topo(topo: &dyn Topo, tors: usize, uplinks: usize) -> Result<Self, ScheduleError> {
        let slices = topo.slices(tors, uplinks)?;
        let mut s = Schedule::new(tors, uplinks, slices);
        topo.build(&mut s)?;
        Ok(s)
    }

    /// The paper's validity check: the circuits are realisable on `cfg`'s
    /// OCSes and cabling. Returns the per-OCS circuits.
    pub fn verify(&self, cfg: &Config) -> Result<OcsSchedule, ScheduleError> {
        ocs::compile_for(cfg, self)
    }

    /// Worst-case hop count between any ordered pair of ToRs using only the
    /// circuits of slice `ts` on the uplinks `use_port` accepts; `None` when
    /// some ToR cannot reach another. An electrical uplink makes it one hop.
    pub fn diameter(&self, ts: SliceId, use_port: impl Fn(PortId) -> bool) -> Option<u32> {
        if self.tors < 2 {
            return Some(0);
        }
        if (self.optical_uplinks()..self.uplinks).any(|p| use_port(p as PortId)) {
            return Some(1);
        }
        if self.kind == LinkKind::Electrical {
            return None;
        }
        let ts = ts % self.slices as SliceId;
        let deg = self.uplinks;
        let mut adj = vec![graph::NONE; self.tors * deg];
        for t in 0..self.tors {
            for p in 0..deg {
                if !use_port(p as PortId) || self.is_electrical(p as PortId) {
                    continue;
                }
                if let Some(e) = self.peer(ts, Endpoint::new(t as TorId, p as PortId)) {
                    adj[t * deg + p] = e.tor as u32;
                }
            }
        }
        graph::diameter(self.tors, deg, &adj, u32::MAX)
    }
}

/// Build the schedule a config asks for and check it against the cabling
/// (every circuit inside one OCS, no OCS port used twice per direction).
pub fn from_config(cfg: &Config) -> Result<Schedule, ScheduleError> {
    from_config_with_ocs(cfg).map(|(s, _)| s)
}

/// [`from_config`], also returning what every OCS does in every slice.
pub fn from_config_with_ocs(cfg: &Config) -> Result<(Schedule, OcsSchedule), ScheduleError> {
    let n = cfg.tors.count as usize;
    let u = cfg.tors.uplinks as usize;
    let electrical = cfg.fabric == FabricKind::Electrical;
    if cfg.fabric == FabricKind::FatTree {
        // The ToRs' view of a fat tree (they are its edge switches): one
        // electrical uplink per aggregation switch. The switches above
        // forward by `crate::fattree` tables, not by this schedule.
        let s = full(n, u);
        let o = s.verify(cfg)?;
        return Ok((s, o));
    }
    let s = match &cfg.topology {
        Topology::Static {
            graph: StaticGraph::Full,
        } => {
            if !electrical {
                return Err(ScheduleError::Infeasible(
                    "static graph \"full\" needs an electrical fabric (\"fabric\": \"electrical\"); an optical fabric can use \"ring\"".into(),
                ));
            }
            full(n, u)
        }
        _ if electrical => {
            return Err(ScheduleError::Infeasible(
                "an electrical fabric only supports the static \"full\" topology".into(),
            ));
        }
        Topology::RoundRobin => round_robin(n, u)?,
        Topology::Opera { seed } => opera(n, u, seed.unwrap_or(opera::DEFAULT_SEED))?,
        Topology::Shale { h } => shale(n, u, *h)?,
        Topology::Static {
            graph: StaticGraph::Ring,
        } => ring(n, u)?,
        Topology::File { path } => schedule_from_file(&cfg.base_dir.join(path), n, u)?,
        Topology::TrafficAware => {
            return Err(ScheduleError::Infeasible(
                "traffic-aware topologies are built by ta::build".into(),
            ));
        }
        Topology::FatTree { .. } => {
            return Err(ScheduleError::Infeasible(
                "topology fat_tree needs fabric \"fattree\"".into(),
            ));
        }
    };
    // A hybrid TO fabric (`tors.electrical_rate`): one electrical uplink
    // after the optical ones.
    let s = with_electrical(cfg, s);
    let o = s.verify(cfg)?;
    let (prop, dark) = (cfg.slice.propagation, cfg.dark_time());
    if s.slices() > 1 && prop > dark {
        tracing::warn!(
            "$.slice.propagation: {prop} exceeds the dark time {dark} at a slice start: frames sent at the end of a slice may reach the next circuit"
        );
    }
    Ok((s, o))
}

/// `s` plus the electrical port of a hybrid config (`ta.electrical_rate`
/// or `tors.electrical_rate` set), numbered after the optical uplinks; `s` unchanged otherwise.
pub fn with_electrical(cfg: &Config, s: Schedule) -> Schedule {
    let hybrid = cfg.electrical_rate().is_some();
    if hybrid && s.electrical_ports() == 0 {
        s.with_electrical_ports(1)
    } else {
        s
    }
}

/// The paper's abstract `topo()`: something that fills a schedule using
/// `connect()`. Generators in this module implement it; users may too.
pub trait Topo {
    /// Slices per cycle this generator produces for `tors` ToRs with
    /// `uplinks` uplinks, or an explanation why it cannot.
    fn slices(&self, tors: usize, uplinks: usize) -> Result<usize, ScheduleError>;
    /// Fill `s` (already sized) with circuits.
    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_refuses_port_reuse_and_self_loops() {
        let mut s = Schedule::new(4, 1, 2);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        assert_eq!(
            s.connect(Endpoint::new(1, 0), Endpoint::new(2, 0), 0),
            Err(ScheduleError::PortInUse {
                ts: 0,
                tor: 1,
                port: 0
            })
        );
        assert_eq!(
            s.connect(Endpoint::new(2, 0), Endpoint::new(2, 0), 1),
            Err(ScheduleError::SelfLoop { ts: 1, tor: 2 })
        );
        assert_eq!(s.neighbors(0, 0), vec![1]);
        assert_eq!(s.neighbors(1, 0), vec![0]);
        assert!(s.changed(0, Endpoint::new(0, 0)));
        assert!(s.neighbors(0, 1).is_empty());
    }

    #[test]
    fn with_slices_keeps_shared_slices_and_adds_empty_ones() {
        let mut s = Schedule::new(4, 1, 2);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        s.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 1)
            .unwrap();
        let g = s.with_slices(3);
        assert_eq!(g.slices(), 3);
        assert_eq!(g.neighbors(0, 0), vec![1]);
        assert_eq!(g.neighbors(0, 1), vec![2]);
        assert!(g.neighbors(0, 2).is_empty());
        let t = g.with_slices(1);
        assert_eq!(t.slices(), 1);
        assert_eq!(t.circuits(0), s.circuits(0));
        assert_eq!(t.with_slices(2).neighbors(0, 1), Vec::<TorId>::new());
        // Two uplinks: slices are tors x uplinks apart.
        let mut s = Schedule::new(3, 2, 1);
        s.connect(Endpoint::new(0, 1), Endpoint::new(2, 1), 0)
            .unwrap();
        let g = s.with_slices(2);
        assert_eq!(g.peer(0, Endpoint::new(0, 1)), Some(Endpoint::new(2, 1)));
        assert_eq!(g.peer(1, Endpoint::new(0, 1)), None);
        assert_eq!(g.circuits(0), s.circuits(0));
    }

    #[test]
    fn hybrid_ports_reach_every_tor_and_never_change() {
        let mut s = Schedule::hybrid(3, 1, 1, 2);
        s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0)
            .unwrap();
        assert_eq!((s.uplinks(), s.optical_uplinks()), (2, 1));
        assert_eq!(s.kind(), LinkKind::Optical);
        assert_eq!(s.links(0, 0), vec![(0, 1), (1, 1), (1, 2)]);
        assert_eq!(s.links(2, 0), vec![(1, 0), (1, 1)]);
        assert_eq!(s.circuits(0).len(), 2, "optical circuits only");
        assert!(s.changed(0, Endpoint::new(0, 0)));
        assert!(!s.changed(0, Endpoint::new(0, 1)));
        assert_eq!(s.next_tor(1, Endpoint::new(0, 1), 2), Some(2));
        assert_eq!(s.next_tor(0, Endpoint::new(0, 0), 2), Some(1));
        assert_eq!(s.next_tor(1, Endpoint::new(0, 0), 2), None);
        assert_eq!(
            s.connect(Endpoint::new(1, 1), Endpoint::new(2, 1), 1),
            Err(ScheduleError::ElectricalPort { tor: 1, port: 1 })
        );
        assert_eq!(s.diameter(0, |_| true), Some(1));
        assert_eq!(s.diameter(0, |p| p == 0), None);
        // Appending an electrical port keeps the circuits.
        let mut o = Schedule::new(3, 1, 1);
        o.connect(Endpoint::new(0, 0), Endpoint::new(2, 0), 0)
            .unwrap();
        let h = o.with_electrical_ports(1);
        assert_eq!(h.peer(0, Endpoint::new(2, 0)), Some(Endpoint::new(0, 0)));
        assert!(h.is_electrical(1) && !h.is_electrical(0));
        let e = Schedule::electrical(3, 2);
        assert!(e.is_electrical(0) && e.optical_uplinks() == 0);
    }
}
