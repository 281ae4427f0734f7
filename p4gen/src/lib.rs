//! `lh_p4gen`: translate Lighthouse time-flow tables (`lh_ctrl::tables`)
//! into the table entries and register writes of the P4 ToR
//! (`p4/lighthouse.p4`, contract in docs/p4.md).
//!
//! The output is target-neutral ([`TorProgram`]: [`TableEntry`] and
//! [`RegisterWrite`] with the P4 names and bit widths); [`TorProgram::to_cli`]
//! renders it for `simple_switch_CLI`, [`bfrt::to_bfrt_json`] for the
//! Tofino BF Runtime.
//!
//! ```text
//! time_flow  (dst exact 16, arrival ternary 16, ingress ternary 2,
//!             class ternary 8, bucket ternary 8) -> set_choices
//! priority   = 1 + number of wildcard fields among arrival, ingress,
//!              class, bucket (BMv2: the lowest number wins, so the most
//!              specific entry wins)
//! ```

pub mod bfrt;
mod cli;
pub mod fixture;
pub mod load;
pub mod schema;

use lh_ctrl::config::{Config, Lookup, Multipath};
use lh_ctrl::schedule::{Endpoint, Schedule, timing};
use lh_ctrl::tables::{Action, Entry, Ingress, MAX_ALTERNATES, Match, Step, Tables};
use lh_ctrl::units::{BitsPerSec, Nanos};
use lh_ctrl::{PortId, SliceId, TorId};
use schema::*;
use serde::Serialize;
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// Steps per source route the program's header stack holds.
pub const MAX_STEPS: usize = 8;
/// Choices per time-flow entry: the primary and `MAX_ALTERNATES`.
pub const MAX_CHOICES: usize = 1 + MAX_ALTERNATES;
/// Uplinks per ToR (BMv2 ports 32..64).
pub const MAX_UPLINKS: usize = 32;
/// Slices per cycle (the occupancy registers are indexed `uplink << 8 | slice`).
pub const MAX_SLICES: usize = 256;
/// Hosts per ToR (BMv2 ports 1..32).
pub const MAX_HOSTS_PER_TOR: usize = 31;
/// "Leave now" in a departure field.
pub const DEPART_NOW: u64 = 0xFFFF;

/// What the registers' time unit is: BMv2 timestamps count microseconds,
/// Tofino's nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Bmv2,
    Tofino2,
}

impl Target {
    /// Nanoseconds per timestamp unit.
    pub fn ns_per_unit(self) -> u64 {
        match self {
            Target::Bmv2 => 1000,
            Target::Tofino2 => 1,
        }
    }
}

/// One host of the fabric: its address, its MAC and the ToR it hangs off.
/// Within a ToR, hosts are numbered in the order they appear (host `k` is
/// BMv2 port `1 + k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPlan {
    pub ip: Ipv4Addr,
    pub mac: [u8; 6],
    pub tor: TorId,
}

/// The timing the estimator needs (docs/time-model.md).
#[derive(Clone, Debug, PartialEq)]
pub struct FabricTiming {
    pub slice: Nanos,
    /// Bytes per calendar queue.
    pub queue_capacity: u64,
    pub tors: usize,
    pub uplinks: usize,
    pub slices: usize,
    /// Rate of each uplink.
    pub rates: Vec<BitsPerSec>,
    /// Start of the usable window (dark time) per `(tor, slice, uplink)`,
    /// index `(tor * slices + slice) * uplinks + uplink`; `slice` when the
    /// uplink has no circuit in that slice.
    pub window_start: Vec<Nanos>,
}

impl FabricTiming {
    /// From a config and its schedule, like the native ToR.
    pub fn from_config(cfg: &Config, s: &Schedule) -> FabricTiming {
        let (tors, uplinks, slices) = (s.tors(), s.uplinks(), s.slices());
        let mut window_start = Vec::with_capacity(tors * slices * uplinks);
        for t in 0..tors {
            for ts in 0..slices {
                for p in 0..uplinks {
                    let ep = Endpoint::new(t as TorId, p as PortId);
                    window_start.push(timing::usable_window(cfg, s, ts as SliceId, ep).0);
                }
            }
        }
        FabricTiming {
            slice: cfg.slice.duration,
            queue_capacity: cfg.queue_capacity_bytes(),
            tors,
            uplinks,
            slices,
            rates: (0..uplinks)
                .map(|p| timing::port_rate(cfg, s, p as PortId))
                .collect(),
            window_start,
        }
    }

    /// Every circuit usable for the whole slice at `rate` (tests, fixtures).
    pub fn uniform(
        tors: usize,
        uplinks: usize,
        slices: usize,
        slice: Nanos,
        rate: BitsPerSec,
        queue_capacity: u64,
    ) -> FabricTiming {
        FabricTiming {
            slice,
            queue_capacity,
            tors,
            uplinks,
            slices,
            rates: vec![rate; uplinks],
            window_start: vec![Nanos(0); tors * slices * uplinks],
        }
    }

    pub fn window_start(&self, tor: TorId, slice: usize, port: usize) -> Nanos {
        self.window_start[(tor as usize * self.slices + slice) * self.uplinks + port]
    }
}

/// Everything the translation reads.
#[derive(Clone, Copy, Debug)]
pub struct P4Inputs<'a> {
    pub tables: &'a Tables,
    pub hosts: &'a [HostPlan],
    pub timing: &'a FabricTiming,
    pub target: Target,
}

/// A key field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyValue {
    Exact(u64),
    Ternary { value: u64, mask: u64 },
    Range { lo: u64, hi: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Key {
    pub name: &'static str,
    pub width: u32,
    pub value: KeyValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Param {
    pub name: &'static str,
    pub width: u32,
    pub value: u64,
}

/// One table entry. `priority` is set for ternary and range tables; the
/// lowest number wins (BMv2 simple_switch; checked in p4/tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableEntry {
    pub table: &'static str,
    pub keys: Vec<Key>,
    pub action: &'static str,
    pub params: Vec<Param>,
    pub priority: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterWrite {
    pub register: &'static str,
    pub index: u32,
    pub value: u64,
}

/// What one ToR's P4 switch is loaded with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TorProgram {
    pub tor: TorId,
    pub target: Target,
    pub entries: Vec<TableEntry>,
    pub registers: Vec<RegisterWrite>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum P4GenError {
    #[error("ToR {tor} has no time-flow table")]
    NoTor { tor: TorId },
    #[error("ToR {tor}, entry {index} ({m:?}): {n} alternates, the P4 program holds {max}")]
    TooManyAlternates {
        tor: TorId,
        index: usize,
        m: Match,
        n: usize,
        max: usize,
    },
    #[error(
        "ToR {tor}, entry {index} ({m:?}): source route of {n} steps, the P4 program holds {max}"
    )]
    TooManySteps {
        tor: TorId,
        index: usize,
        m: Match,
        n: usize,
        max: usize,
    },
    #[error("ToR {tor}, entry {index} ({m:?}): departure slice {depart} is not below S = {slices}")]
    BadDepart {
        tor: TorId,
        index: usize,
        m: Match,
        depart: SliceId,
        slices: usize,
    },
    #[error("ToR {tor}: {what} is {n}, the P4 program holds at most {max}")]
    Limit {
        tor: TorId,
        what: &'static str,
        n: usize,
        max: usize,
    },
    #[error("timing is for {got}, the tables need {want}")]
    Timing { got: String, want: String },
}

fn wildcard_count(m: &Match) -> u32 {
    m.arrival.is_none() as u32
        + (m.ingress == Ingress::Any) as u32
        + m.class.is_none() as u32
        + m.bucket.is_none() as u32
}

/// Time-flow priority of a match: 1 (all fields set) to 5 (all wildcards).
pub fn priority(m: &Match) -> u32 {
    1 + wildcard_count(m)
}

fn ternary<T: Into<u64>>(v: Option<T>, width: u32) -> KeyValue {
    match v {
        Some(v) => KeyValue::Ternary {
            value: v.into(),
            mask: (1u64 << width) - 1,
        },
        None => KeyValue::Ternary { value: 0, mask: 0 },
    }
}

fn key(table: &'static str, i: usize, value: KeyValue) -> Key {
    let k = &schema::table(table).expect("schema table").keys[i];
    Key {
        name: k.name,
        width: k.width,
        value,
    }
}

fn entry(
    table: &'static str,
    keys: Vec<KeyValue>,
    action: &'static str,
    values: &[u64],
    priority: Option<u32>,
) -> TableEntry {
    let a = schema::action(action).expect("schema action");
    debug_assert_eq!(a.params.len(), values.len(), "{action}");
    TableEntry {
        table,
        keys: keys
            .into_iter()
            .enumerate()
            .map(|(i, v)| key(table, i, v))
            .collect(),
        action,
        params: a
            .params
            .iter()
            .zip(values)
            .map(|(&(name, width), &value)| Param { name, width, value })
            .collect(),
        priority,
    }
}

fn reg(register: &'static str, index: u32, value: u64) -> RegisterWrite {
    RegisterWrite {
        register,
        index,
        value,
    }
}

fn mac_u64(m: [u8; 6]) -> u64 {
    m.iter().fold(0, |a, &b| (a << 8) | b as u64)
}

/// Translate the tables, hosts and timing for ToR `tor`.
pub fn translate(inp: &P4Inputs, tor: TorId) -> Result<TorProgram, P4GenError> {
    let t = inp.tables;
    let tm = inp.timing;
    let table = t.table(tor).ok_or(P4GenError::NoTor { tor })?;
    // S is the schedule's (rotation packets count its slices, as swtor's
    // clock does); tables without arrival slices say 1.
    let s = tm.slices.max(1);
    let limit = |what, n, max| {
        if n > max {
            Err(P4GenError::Limit { tor, what, n, max })
        } else {
            Ok(())
        }
    };
    limit("slices per cycle", s, MAX_SLICES)?;
    limit("uplinks", tm.uplinks, MAX_UPLINKS)?;
    if (tor as usize) >= tm.tors || (t.slices.max(1) != s && t.slices.max(1) != 1) {
        return Err(P4GenError::Timing {
            got: format!("{} ToRs x {} slices", tm.tors, tm.slices),
            want: format!("ToR {tor} and {} slices", t.slices),
        });
    }
    let mut entries = Vec::new();
    let mut registers = Vec::new();

    // ---- hosts and proxy ARP
    let mut local = 0usize;
    for h in inp.hosts {
        let ip = u32::from(h.ip) as u64;
        if h.tor == tor {
            local += 1;
            limit("hosts", local, MAX_HOSTS_PER_TOR)?;
            entries.push(entry(
                T_HOSTS,
                vec![KeyValue::Exact(ip)],
                A_TO_HOST,
                &[local as u64],
                None,
            ));
        } else {
            entries.push(entry(
                T_HOSTS,
                vec![KeyValue::Exact(ip)],
                A_TO_TOR,
                &[h.tor as u64],
                None,
            ));
        }
    }
    for h in inp.hosts {
        entries.push(entry(
            T_ARP,
            vec![KeyValue::Exact(u32::from(h.ip) as u64)],
            A_ARP,
            &[mac_u64(h.mac)],
            None,
        ));
    }

    // ---- UCMP classes: class i for bytes seen in [t_i, t_{i+1})
    let thresholds = t
        .classes
        .as_ref()
        .map(|c| c.thresholds.clone())
        .unwrap_or_default();
    let use_classes = thresholds.len() > 1;
    if use_classes {
        let max = u32::MAX as u64;
        for (i, &lo) in thresholds.iter().enumerate() {
            let hi = thresholds.get(i + 1).map_or(max, |&n| n.saturating_sub(1));
            let lo = lo.min(max);
            if i > 255 || lo > hi.min(max) || thresholds.get(i + 1).is_some_and(|&n| n <= lo) {
                continue;
            }
            entries.push(entry(
                T_CLASS,
                vec![KeyValue::Range {
                    lo,
                    hi: hi.min(max),
                }],
                A_CLASS,
                &[i as u64],
                Some(1 + i as u32),
            ));
        }
    }

    // ---- time-flow entries and the source routes they push
    let mut routes: HashMap<Vec<Step>, u64> = HashMap::new();
    let mut route_entries = Vec::new();
    for (index, e) in table.entries.iter().enumerate() {
        entries.push(time_flow_entry(
            tor,
            index,
            e,
            s,
            &mut routes,
            &mut route_entries,
        )?);
    }
    entries.extend(route_entries);

    // ---- registers
    let unit = inp.target.ns_per_unit();
    let to_units = |n: Nanos| n.0 / unit;
    let slice_len = to_units(tm.slice);
    limit(
        "slice length in timestamp units",
        slice_len as usize,
        u32::MAX as usize,
    )?;
    registers.push(reg(R_N_SLICES, 0, s as u64));
    registers.push(reg(R_SLICE_LEN, 0, slice_len));
    registers.push(reg(R_N_UPLINKS, 0, tm.uplinks as u64));
    registers.push(reg(
        R_MULTIPATH,
        0,
        match t.multipath {
            Multipath::None => 0,
            Multipath::Packet => 1,
            Multipath::Flow => 2,
        },
    ));
    registers.push(reg(R_BUCKETS, 0, t.buckets.max(1) as u64));
    registers.push(reg(R_CLASSES, 0, use_classes as u64));
    registers.push(reg(R_SLICE_CHECK, 0, (s > 1) as u64));
    registers.push(reg(R_QUEUE_CAP, 0, tm.queue_capacity.min(u32::MAX as u64)));
    for (p, r) in tm.rates.iter().enumerate() {
        // bytes per 1024 time units: bits/s * unit_ns * 1024 / 8e9
        let v = (r.0 as u128 * unit as u128 * 1024 / 8_000_000_000) as u64;
        registers.push(reg(R_RATE, p as u32, v.min(u32::MAX as u64)));
    }
    for p in 0..tm.uplinks {
        for ts in 0..s {
            let ws = tm.window_start(tor, ts, p);
            let v = to_units(ws.min(tm.slice));
            registers.push(reg(R_DARK, ((p << 8) | ts) as u32, v));
        }
    }

    Ok(TorProgram {
        tor,
        target: inp.target,
        entries,
        registers,
    })
}

fn time_flow_entry(
    tor: TorId,
    index: usize,
    e: &Entry,
    s: usize,
    routes: &mut HashMap<Vec<Step>, u64>,
    route_entries: &mut Vec<TableEntry>,
) -> Result<TableEntry, P4GenError> {
    let m = e.m;
    if e.alternates.len() > MAX_ALTERNATES {
        return Err(P4GenError::TooManyAlternates {
            tor,
            index,
            m,
            n: e.alternates.len(),
            max: MAX_ALTERNATES,
        });
    }
    let mut values = vec![0u64; 1 + 4 * MAX_CHOICES];
    let choices: Vec<&Action> = std::iter::once(&e.action).chain(&e.alternates).collect();
    values[0] = choices.len() as u64;
    for (k, a) in choices.iter().enumerate() {
        let steps: &[Step] = match a {
            Action::Hop(st) => std::slice::from_ref(st),
            Action::Source(v) => v,
        };
        if steps.len() > MAX_STEPS {
            return Err(P4GenError::TooManySteps {
                tor,
                index,
                m,
                n: steps.len(),
                max: MAX_STEPS,
            });
        }
        for st in steps {
            if let Some(d) = st.depart
                && d as usize >= s
            {
                return Err(P4GenError::BadDepart {
                    tor,
                    index,
                    m,
                    depart: d,
                    slices: s,
                });
            }
        }
        let first = steps[0];
        let (route, push) = if steps.len() > 1 {
            let rest = steps[1..].to_vec();
            let next = routes.len() as u64 + 1;
            let id = *routes.entry(rest.clone()).or_insert_with(|| {
                let mut v = vec![0u64; 1 + 2 * (MAX_STEPS - 1)];
                v[0] = rest.len() as u64;
                for (i, st) in rest.iter().enumerate() {
                    v[1 + 2 * i] = st.port as u64;
                    v[2 + 2 * i] = st.depart.map_or(DEPART_NOW, |d| d as u64);
                }
                route_entries.push(entry(
                    T_ROUTES,
                    vec![KeyValue::Exact(next)],
                    A_ROUTE,
                    &v,
                    None,
                ));
                next
            });
            (id, rest.len() as u64)
        } else {
            (0, 0)
        };
        let b = 1 + 4 * k;
        values[b] = first.port as u64;
        values[b + 1] = first.depart.map_or(DEPART_NOW, |d| d as u64);
        values[b + 2] = route;
        values[b + 3] = push;
    }
    let keys = vec![
        KeyValue::Exact(m.dst as u64),
        ternary(m.arrival, 16),
        match m.ingress {
            Ingress::Any => KeyValue::Ternary { value: 0, mask: 0 },
            Ingress::Host => KeyValue::Ternary { value: 1, mask: 3 },
            Ingress::Fabric => KeyValue::Ternary { value: 2, mask: 3 },
        },
        ternary(m.class, 8),
        ternary(m.bucket, 8),
    ];
    Ok(entry(
        T_TIME_FLOW,
        keys,
        A_CHOICES,
        &values,
        Some(priority(&m)),
    ))
}

/// Every ToR's program, in ToR order.
pub fn translate_all(inp: &P4Inputs) -> Result<Vec<TorProgram>, P4GenError> {
    inp.tables
        .tors
        .iter()
        .map(|t| translate(inp, t.tor))
        .collect()
}

/// True when the tables use source routing (the program pushes headers).
pub fn uses_source_routes(t: &Tables) -> bool {
    t.lookup == Lookup::Source
}

impl TorProgram {
    /// `simple_switch_CLI` commands: one `table_add` per entry, then one
    /// `register_write` per register (docs/p4.md). Feed it to
    /// `simple_switch_CLI --thrift-port N < file`.
    pub fn to_cli(&self) -> String {
        cli::render(self)
    }

    /// Checks every entry and register write against [`schema`]: names,
    /// key and parameter counts, values fitting their widths.
    pub fn check_schema(&self) -> Result<(), String> {
        let fits = |v: u64, w: u32| w >= 64 || v < (1u64 << w);
        for e in &self.entries {
            let t = schema::table(e.table).ok_or(format!("no table {}", e.table))?;
            if !t.actions.contains(&e.action) {
                return Err(format!("{} has no action {}", e.table, e.action));
            }
            let a = schema::action(e.action).ok_or(format!("no action {}", e.action))?;
            if e.keys.len() != t.keys.len() || e.params.len() != a.params.len() {
                return Err(format!("{e:?}: wrong number of keys or params"));
            }
            for (k, ks) in e.keys.iter().zip(t.keys) {
                let ok = k.name == ks.name
                    && k.width == ks.width
                    && match (k.value, ks.kind) {
                        (KeyValue::Exact(v), MatchKind::Exact) => fits(v, k.width),
                        (KeyValue::Ternary { value, mask }, MatchKind::Ternary) => {
                            fits(value, k.width) && fits(mask, k.width)
                        }
                        (KeyValue::Range { lo, hi }, MatchKind::Range) => {
                            lo <= hi && fits(hi, k.width)
                        }
                        _ => false,
                    };
                if !ok {
                    return Err(format!("{}: bad key {k:?}", e.table));
                }
            }
            for (p, &(n, w)) in e.params.iter().zip(a.params) {
                if p.name != n || p.width != w || !fits(p.value, w) {
                    return Err(format!("{}: bad param {p:?}", e.action));
                }
            }
            let needs_priority = t.keys.iter().any(|k| k.kind != MatchKind::Exact);
            if needs_priority != e.priority.is_some() {
                return Err(format!("{}: priority {:?}", e.table, e.priority));
            }
        }
        for r in &self.registers {
            let s = schema::register(r.register).ok_or(format!("no register {}", r.register))?;
            if r.index >= s.size || !fits(r.value, s.width) {
                return Err(format!("bad register write {r:?}"));
            }
        }
        Ok(())
    }
}
