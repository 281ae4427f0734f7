//! Time-flow table types ([`Match`], [`Step`], [`Action`], [`Entry`]), the
//! expanded [`Tables`] and the flat [`FlatTables`], and the match rules.

use crate::config::{Lookup, Multipath};
use crate::routing::ClassThresholds;
use crate::{PortId, SliceId, TorId};
use serde::{Deserialize, Serialize};

/// Where a packet entered the ToR. Per-hop routes that treat a ToR's own
/// traffic differently from transit traffic (VLB) need this in the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ingress {
    Any,
    Host,
    Fabric,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Match {
    pub dst: TorId,
    /// `None`: any arrival slice (TA, static).
    pub arrival: Option<SliceId>,
    pub ingress: Ingress,
    /// `None`: every flow-size class.
    pub class: Option<u8>,
    /// `None`: every hash bucket (no multipath).
    pub bucket: Option<u8>,
}

/// One hop's instruction: leave on `port` in slice `depart` (`None`: now).
/// The calendar-queue rank is `(depart - arrival) mod S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub port: PortId,
    pub depart: Option<SliceId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Per-hop: send on this step; the next ToR looks up again.
    Hop(Step),
    /// Source routing: this ToR takes `steps[0]` and writes the rest into
    /// the packet's source-route header (docs/wire-formats.md).
    Source(Vec<Step>),
}

impl Action {
    /// The step this ToR executes.
    pub fn first(&self) -> Step {
        match self {
            Action::Hop(s) => *s,
            Action::Source(v) => v[0],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(rename = "match")]
    pub m: Match,
    pub action: Action,
    /// Next-best actions for later slices, best first, used when the
    /// primary calendar queue is full (slice-miss rerouting).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternates: Vec<Action>,
}

/// One ToR's time-flow table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeFlowTable {
    pub tor: TorId,
    pub entries: Vec<Entry>,
}

/// Every ToR's table plus what the data plane needs to interpret them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    /// Slices per cycle (1 when every arrival is a wildcard).
    pub slices: usize,
    pub lookup: Lookup,
    pub multipath: Multipath,
    /// Hash buckets when `multipath` is not `none` (else 1).
    pub buckets: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<ClassThresholds>,
    pub tors: Vec<TimeFlowTable>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    /// Two paths ask one ToR for different actions on the same match; per-hop
    /// lookup cannot express them (use `lookup: source`).
    #[error("per-hop conflict at ToR {tor} for {m:?}: {a:?} vs {b:?}; use \"lookup\": \"source\"")]
    Conflict {
        tor: TorId,
        m: Match,
        a: Action,
        b: Action,
    },
    /// A ToR on the way has no entry for the packet (`walk`).
    #[error("ToR {tor} has no entry for {m:?}")]
    NoEntry { tor: TorId, m: Match },
    /// The tables send the packet around in circles (`walk`).
    #[error("forwarding loop from ToR {src} to ToR {dst}: ToR {tor} revisited (slice {slice:?})")]
    Loop {
        src: TorId,
        dst: TorId,
        tor: TorId,
        slice: Option<SliceId>,
    },
    /// A step uses an uplink that has no circuit in its departure slice.
    #[error("ToR {tor} port {port} has no circuit in slice {slice}")]
    NoCircuit {
        tor: TorId,
        port: PortId,
        slice: SliceId,
    },
    #[error("{0}")]
    Invalid(String),
}

/// Most next-best actions precomputed into one entry (paper Fig. 5c). Two
/// keeps the action field small; more rarely helps once the primary and
/// two later queues are all full (push-back takes over then).
pub const MAX_ALTERNATES: usize = 2;

impl Tables {
    /// Entries per ToR, in ToR order.
    pub fn sizes(&self) -> Vec<(TorId, usize)> {
        self.tors.iter().map(|t| (t.tor, t.entries.len())).collect()
    }

    /// Entries in the largest table (0 without ToRs).
    pub fn max_size(&self) -> usize {
        self.tors.iter().map(|t| t.entries.len()).max().unwrap_or(0)
    }

    /// Mean entries per ToR (0 without ToRs).
    pub fn mean_size(&self) -> f64 {
        if self.tors.is_empty() {
            0.0
        } else {
            self.total_entries() as f64 / self.tors.len() as f64
        }
    }

    /// Entries over all ToRs.
    pub fn total_entries(&self) -> usize {
        self.tors.iter().map(|t| t.entries.len()).sum()
    }

    /// The table of `tor`, if any.
    pub fn table(&self, tor: TorId) -> Option<&TimeFlowTable> {
        self.tors
            .get(tor as usize)
            .filter(|t| t.tor == tor)
            .or_else(|| self.tors.iter().find(|t| t.tor == tor))
    }

    /// The entry a packet with these header fields hits at `tor`, following
    /// the match rules of docs/tables.md: a `None`/`Any` field in an entry
    /// matches every value, and the most specific matching entry wins.
    /// A `None` packet field matches only wildcard entries.
    pub fn lookup(&self, tor: TorId, key: &Match) -> Result<Option<&Entry>, TableError> {
        let Some(table) = self.table(tor) else {
            return Ok(None);
        };
        let mut best: Option<(u8, &Entry)> = None;
        let mut tie: Option<&Entry> = None;
        for e in table.entries.iter().filter(|e| e.m.dst == key.dst) {
            let Some(score) = match_score(&e.m, key) else {
                continue;
            };
            match best {
                Some((b, prev)) if b == score => {
                    if prev.action != e.action {
                        tie = Some(e);
                    }
                }
                Some((b, _)) if b > score => {}
                _ => {
                    best = Some((score, e));
                    tie = None;
                }
            }
        }
        if let (Some((_, a)), Some(b)) = (best, tie) {
            return Err(TableError::Invalid(format!(
                "ToR {tor}: {key:?} matches {:?} and {:?} equally",
                a.m, b.m
            )));
        }
        Ok(best.map(|(_, e)| e))
    }
}

/// How specifically `m` matches the packet fields `key`, or `None` if it
/// does not match.
fn match_score(m: &Match, key: &Match) -> Option<u8> {
    fn field<T: PartialEq>(entry: Option<T>, pkt: Option<T>) -> Option<u8> {
        match (entry, pkt) {
            (None, _) => Some(0),
            (Some(a), Some(b)) if a == b => Some(1),
            _ => None,
        }
    }
    let ingress = match (m.ingress, key.ingress) {
        (Ingress::Any, _) => 0,
        (a, b) if a == b => 1,
        _ => return None,
    };
    Some(
        field(m.arrival, key.arrival)?
            + ingress
            + field(m.class, key.class)?
            + field(m.bucket, key.bucket)?,
    )
}

/// True when the tables are an ordinary flow table: no entry matches on the
/// arrival slice and no step waits for a departure slice (TA and static
/// fabrics; the data plane can then skip calendar queues).
pub fn is_plain_flow_table(t: &Tables) -> bool {
    t.tors.iter().flat_map(|t| &t.entries).all(|e| {
        e.m.arrival.is_none()
            && std::iter::once(&e.action)
                .chain(&e.alternates)
                .all(|a| match a {
                    Action::Hop(s) => s.depart.is_none(),
                    Action::Source(v) => v.iter().all(|s| s.depart.is_none()),
                })
    })
}

/// Calendar-queue rank of a step taken by a packet that arrived in slice
/// `arrival`: `(depart - arrival) mod S`, 0 for "leave now".
pub fn rank(arrival: SliceId, depart: Option<SliceId>, slices: usize) -> usize {
    let s = slices.max(1);
    match depart {
        Some(d) => (d as usize % s + s - arrival as usize % s) % s,
        None => 0,
    }
}

/// An action borrowed from either form: the steps of a source route, or
/// one step for per-hop lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActionRef<'a> {
    pub source: bool,
    pub steps: &'a [Step],
}

impl<'a> ActionRef<'a> {
    /// The step this ToR executes.
    pub fn first(&self) -> Step {
        self.steps[0]
    }
    /// An owned copy.
    pub fn to_action(&self) -> Action {
        if self.source {
            Action::Source(self.steps.to_vec())
        } else {
            Action::Hop(self.steps[0])
        }
    }
}

impl<'a> From<&'a Action> for ActionRef<'a> {
    fn from(a: &'a Action) -> ActionRef<'a> {
        match a {
            Action::Hop(s) => ActionRef {
                source: false,
                steps: std::slice::from_ref(s),
            },
            Action::Source(v) => ActionRef {
                source: true,
                steps: v,
            },
        }
    }
}

impl PartialEq<Action> for ActionRef<'_> {
    fn eq(&self, a: &Action) -> bool {
        *self == ActionRef::from(a)
    }
}

/// Where an action's steps are in its table's step array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Span {
    start: u32,
    len: u16,
    source: bool,
}

/// One entry of a [`FlatTable`]: its match, and its action and alternates
/// as indices into the table's action array ([`NO_ACTION`]: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlatEntry {
    pub m: Match,
    pub action: u32,
    pub alternates: [u32; MAX_ALTERNATES],
}

/// An unused alternate slot of a [`FlatEntry`].
pub const NO_ACTION: u32 = u32::MAX;

impl FlatEntry {
    /// How many alternates the entry has.
    pub fn alternate_count(&self) -> usize {
        self.alternates
            .iter()
            .take_while(|&&a| a != NO_ACTION)
            .count()
    }
}

/// One ToR's time-flow table in flat form: entries sorted by destination
/// (`by_dst` indexes them), actions, and the steps of every action.
/// An entry's primary action is usually its own (the `i`-th action); its
/// alternates are other entries' actions, shared rather than copied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatTable {
    pub tor: TorId,
    entries: Vec<FlatEntry>,
    actions: Vec<Span>,
    steps: Vec<Step>,
    /// Entries for destination `d` are `by_dst[d]..by_dst[d + 1]`.
    by_dst: Vec<u32>,
}

/// An entry of a [`FlatTable`] with its actions resolved.
#[derive(Clone, Copy, Debug)]
pub struct EntryRef<'a> {
    pub m: Match,
    pub action: ActionRef<'a>,
    table: &'a FlatTable,
    entry: &'a FlatEntry,
}

impl<'a> EntryRef<'a> {
    /// Alternates, best first.
    pub fn alternates(&self) -> impl ExactSizeIterator<Item = ActionRef<'a>> + 'a {
        let (t, e) = (self.table, self.entry);
        (0..e.alternate_count()).map(move |i| t.action(e.alternates[i]))
    }
    /// Alternate `i` (0: the best).
    pub fn alternate(&self, i: usize) -> Option<ActionRef<'a>> {
        let a = *self.entry.alternates.get(i)?;
        (a != NO_ACTION).then(|| self.table.action(a))
    }
    pub fn alternate_count(&self) -> usize {
        self.entry.alternate_count()
    }
    /// An owned copy.
    pub fn to_entry(&self) -> Entry {
        Entry {
            m: self.m,
            action: self.action.to_action(),
            alternates: self.alternates().map(|a| a.to_action()).collect(),
        }
    }
}

impl FlatTable {
    /// An empty table for `tor` with room for `entries` entries of `steps`
    /// steps in all.
    pub(crate) fn with_capacity(tor: TorId, entries: usize, steps: usize) -> FlatTable {
        FlatTable {
            tor,
            entries: Vec::with_capacity(entries),
            actions: Vec::with_capacity(entries),
            steps: Vec::with_capacity(steps),
            by_dst: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Actions (an entry's primary and alternates name them).
    pub fn action_count(&self) -> usize {
        self.actions.len()
    }

    /// Steps over all actions.
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }

    /// The raw arrays: entries, actions as `(first step, steps, source)`,
    /// steps (for the file form).
    #[allow(clippy::type_complexity)]
    pub fn raw_parts(&self) -> (&[FlatEntry], Vec<(u32, u16, bool)>, &[Step]) {
        let actions = self
            .actions
            .iter()
            .map(|s| (s.start, s.len, s.source))
            .collect();
        (&self.entries, actions, &self.steps)
    }

    /// The raw entries, in table order.
    pub fn raw_entries(&self) -> &[FlatEntry] {
        &self.entries
    }

    /// Action number `i`.
    pub fn action(&self, i: u32) -> ActionRef<'_> {
        let s = self.actions[i as usize];
        ActionRef {
            source: s.source,
            steps: &self.steps[s.start as usize..s.start as usize + s.len as usize],
        }
    }

    /// Entry number `i`, resolved.
    pub fn entry(&self, i: usize) -> EntryRef<'_> {
        let e = &self.entries[i];
        EntryRef {
            m: e.m,
            action: self.action(e.action),
            table: self,
            entry: e,
        }
    }

    /// Every entry, resolved, in table order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> + '_ {
        (0..self.entries.len()).map(|i| self.entry(i))
    }

    /// Entry indices for destination `dst`.
    pub fn for_dst(&self, dst: TorId) -> std::ops::Range<usize> {
        let d = dst as usize;
        match (self.by_dst.get(d), self.by_dst.get(d + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Appends an action; returns its index.
    pub(crate) fn push_action(&mut self, a: ActionRef<'_>) -> u32 {
        let start = self.steps.len() as u32;
        self.steps.extend_from_slice(a.steps);
        self.push_span(start, a.steps.len(), a.source)
    }

    /// Appends an action over steps already appended from `start` on.
    pub(crate) fn push_span(&mut self, start: u32, len: usize, source: bool) -> u32 {
        let len = u16::try_from(len).expect("an action has at most 65535 steps");
        self.actions.push(Span { start, len, source });
        self.actions.len() as u32 - 1
    }

    /// The step array, for appending a source route in place.
    pub(crate) fn steps_mut(&mut self) -> &mut Vec<Step> {
        &mut self.steps
    }

    /// Appends an entry whose primary is action `action`.
    pub(crate) fn push_entry(&mut self, m: Match, action: u32) {
        self.entries.push(FlatEntry {
            m,
            action,
            alternates: [NO_ACTION; MAX_ALTERNATES],
        });
    }

    pub(crate) fn entries_mut(&mut self) -> &mut [FlatEntry] {
        &mut self.entries
    }

    /// Sorts entries by destination (stable) and indexes them; `tors`
    /// destinations.
    pub(crate) fn index(&mut self, tors: usize) {
        if !self.entries.is_sorted_by_key(|e| e.m.dst) {
            self.entries.sort_by_key(|e| e.m.dst);
        }
        let top = self
            .entries
            .last()
            .map_or(0, |e| e.m.dst as usize + 1)
            .max(tors);
        self.by_dst = vec![0; top + 1];
        for e in &self.entries {
            self.by_dst[e.m.dst as usize + 1] += 1;
        }
        for d in 0..top {
            self.by_dst[d + 1] += self.by_dst[d];
        }
    }

    /// Bytes held (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * size_of::<FlatEntry>()
            + self.actions.capacity() * size_of::<Span>()
            + self.steps.capacity() * size_of::<Step>()
            + self.by_dst.capacity() * 4
    }

    /// The entry a packet with these header fields hits (rules of
    /// [`Tables::lookup`]).
    pub fn lookup(&self, key: &Match) -> Result<Option<EntryRef<'_>>, TableError> {
        let mut best: Option<(u8, usize)> = None;
        let mut tie: Option<usize> = None;
        for i in self.for_dst(key.dst) {
            let e = &self.entries[i];
            let Some(score) = match_score(&e.m, key) else {
                continue;
            };
            match best {
                Some((b, prev)) if b == score => {
                    let (pa, ea) = (self.entries[prev].action, e.action);
                    if pa != ea && self.action(pa) != self.action(ea) {
                        tie = Some(i);
                    }
                }
                Some((b, _)) if b > score => {}
                _ => {
                    best = Some((score, i));
                    tie = None;
                }
            }
        }
        if let (Some((_, a)), Some(b)) = (best, tie) {
            return Err(TableError::Invalid(format!(
                "ToR {}: {key:?} matches {:?} and {:?} equally",
                self.tor, self.entries[a].m, self.entries[b].m
            )));
        }
        Ok(best.map(|(_, i)| self.entry(i)))
    }

    /// An owned copy.
    pub fn to_table(&self) -> TimeFlowTable {
        TimeFlowTable {
            tor: self.tor,
            entries: self.iter().map(|e| e.to_entry()).collect(),
        }
    }
}

/// Every ToR's table in flat form, plus what the data plane needs to
/// interpret them (the fields of [`Tables`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatTables {
    /// Slices per cycle (1 when every arrival is a wildcard).
    pub slices: usize,
    pub lookup: Lookup,
    pub multipath: Multipath,
    /// Hash buckets when `multipath` is not `none` (else 1).
    pub buckets: u8,
    pub classes: Option<ClassThresholds>,
    pub tors: Vec<FlatTable>,
}

impl FlatTables {
    /// The table of `tor`, if any.
    pub fn table(&self, tor: TorId) -> Option<&FlatTable> {
        self.tors
            .get(tor as usize)
            .filter(|t| t.tor == tor)
            .or_else(|| self.tors.iter().find(|t| t.tor == tor))
    }

    /// The entry a packet with these header fields hits at `tor`
    /// ([`Tables::lookup`]).
    pub fn lookup(&self, tor: TorId, key: &Match) -> Result<Option<EntryRef<'_>>, TableError> {
        match self.table(tor) {
            Some(t) => t.lookup(key),
            None => Ok(None),
        }
    }

    /// Entries per ToR, in ToR order.
    pub fn sizes(&self) -> Vec<(TorId, usize)> {
        self.tors.iter().map(|t| (t.tor, t.len())).collect()
    }

    /// Entries in the largest table (0 without ToRs).
    pub fn max_size(&self) -> usize {
        self.tors.iter().map(|t| t.len()).max().unwrap_or(0)
    }

    /// Entries over all ToRs.
    pub fn total_entries(&self) -> usize {
        self.tors.iter().map(|t| t.len()).sum()
    }

    /// Bytes held by the tables (capacity).
    pub fn heap_bytes(&self) -> usize {
        self.tors.iter().map(|t| t.heap_bytes()).sum()
    }

    /// The expanded form (small fabrics, tests, JSON).
    pub fn to_tables(&self) -> Tables {
        Tables {
            slices: self.slices,
            lookup: self.lookup,
            multipath: self.multipath,
            buckets: self.buckets,
            classes: self.classes.clone(),
            tors: self.tors.iter().map(|t| t.to_table()).collect(),
        }
    }

    /// The flat form of hand-built tables. Every action and alternate is
    /// stored once per entry; an entry may have at most
    /// [`MAX_ALTERNATES`] alternates.
    pub fn from_tables(t: &Tables) -> Result<FlatTables, TableError> {
        let n = t.tors.iter().map(|x| x.tor as usize + 1).max().unwrap_or(0);
        let mut tors = Vec::with_capacity(t.tors.len());
        for tt in &t.tors {
            let steps = tt
                .entries
                .iter()
                .flat_map(|e| std::iter::once(&e.action).chain(&e.alternates))
                .map(|a| ActionRef::from(a).steps.len())
                .sum();
            let mut ft = FlatTable::with_capacity(tt.tor, tt.entries.len(), steps);
            for e in &tt.entries {
                if e.alternates.len() > MAX_ALTERNATES {
                    return Err(TableError::Invalid(format!(
                        "ToR {}: entry {:?} has {} alternates, at most {MAX_ALTERNATES} allowed",
                        tt.tor,
                        e.m,
                        e.alternates.len()
                    )));
                }
                let a = ft.push_action((&e.action).into());
                ft.push_entry(e.m, a);
                for (i, alt) in e.alternates.iter().enumerate() {
                    let x = ft.push_action(alt.into());
                    ft.entries.last_mut().expect("pushed").alternates[i] = x;
                }
            }
            ft.index(n);
            tors.push(ft);
        }
        Ok(FlatTables {
            slices: t.slices,
            lookup: t.lookup,
            multipath: t.multipath,
            buckets: t.buckets,
            classes: t.classes.clone(),
            tors,
        })
    }
}

impl TryFrom<&Tables> for FlatTables {
    type Error = TableError;
    fn try_from(t: &Tables) -> Result<FlatTables, TableError> {
        FlatTables::from_tables(t)
    }
}

/// For hand-built tables (tests, examples): panics when an entry has more
/// than [`MAX_ALTERNATES`] alternates; [`FlatTables::from_tables`] returns
/// the error instead.
impl From<Tables> for FlatTables {
    fn from(t: Tables) -> FlatTables {
        FlatTables::from_tables(&t).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// [`From<Tables>`](FlatTables#impl-From<Tables>-for-FlatTables), shared.
impl From<&Tables> for std::sync::Arc<FlatTables> {
    fn from(t: &Tables) -> std::sync::Arc<FlatTables> {
        std::sync::Arc::new(FlatTables::from_tables(t).unwrap_or_else(|e| panic!("{e}")))
    }
}

/// [`From<Tables>`](FlatTables#impl-From<Tables>-for-FlatTables), shared.
impl From<Tables> for std::sync::Arc<FlatTables> {
    fn from(t: Tables) -> std::sync::Arc<FlatTables> {
        std::sync::Arc::new(t.into())
    }
}

impl FlatTables {
    /// [`is_plain_flow_table`] of the flat form.
    pub fn is_plain_flow_table(&self) -> bool {
        self.tors.iter().all(|t| {
            t.entries.iter().all(|e| e.m.arrival.is_none())
                && t.steps.iter().all(|s| s.depart.is_none())
        })
    }
}
