//! The time-flow table as a dense lookup index, built once at start from
//! `lh_ctrl::tables::Tables` so the per-packet lookup is a few array reads.
//!
//! Level 1 is indexed `[tor][dst][arrival][ingress]` (ingress Host or
//! Fabric; `Any` entries fill both) and names a group; a group is the
//! `[class][bucket]` grid of that cell, stored as one value when every class
//! and bucket shares it. Wildcards fill every cell they cover and more
//! specific entries win (arrival > ingress > class > bucket), so the data
//! plane never searches.

use lh_ctrl::tables::{FlatTables, Ingress, MAX_ALTERNATES};
use lh_ctrl::{SliceId, TorId};
use std::sync::Arc;

pub use lh_ctrl::tables::Step;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Group {
    start: u32,
    nc: u8,
    nb: u8,
}

/// An action of an entry: a source route, or one step for per-hop lookup.
/// Its steps are in the shared flat tables ([`LookupIndex::steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionRef {
    pub source: bool,
    /// Index of the table in `FlatTables::tors`.
    table: u32,
    id: u32,
}

/// The actions of one entry, primary first (at most 1 + MAX_ALTERNATES).
#[derive(Clone, Copy, Debug)]
pub struct Actions {
    list: [ActionRef; 1 + MAX_ALTERNATES],
    len: u8,
}

impl Actions {
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
}

impl std::ops::Index<usize> for Actions {
    type Output = ActionRef;
    #[inline]
    fn index(&self, k: usize) -> &ActionRef {
        &self.list[..self.len as usize][k]
    }
}

/// The lookup index over shared flat tables: the dense match grid names
/// entries; actions and steps are read from the tables themselves, so the
/// index adds no copy of them.
#[derive(Debug)]
pub struct LookupIndex {
    tors: usize,
    arrivals: usize,
    /// Flow-size classes of the grid (only the unit tests read it).
    #[cfg(test)]
    classes: usize,
    buckets: usize,
    cells: Vec<u32>,
    groups: Vec<Group>,
    grid: Vec<u32>,
    tables: Arc<FlatTables>,
    /// Entry ids of table `i` (in `tables.tors` order) start at `base[i]`.
    base: Vec<u32>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LookupError {
    #[error("table for ToR {0} is out of range")]
    BadTor(TorId),
    #[error("ToR {tor}: entry for dst {dst} has an empty source route")]
    EmptySource { tor: TorId, dst: TorId },
}

impl LookupIndex {
    pub fn build(
        tables: impl Into<Arc<FlatTables>>,
        tors: usize,
    ) -> Result<LookupIndex, LookupError> {
        let t: Arc<FlatTables> = tables.into();
        let arrivals = t.slices.max(1);
        let mut classes = t.classes.as_ref().map_or(1, |c| c.thresholds.len().max(1));
        let buckets = (t.buckets as usize).max(1);
        for tt in &t.tors {
            for e in tt.raw_entries() {
                if let Some(c) = e.m.class {
                    classes = classes.max(c as usize + 1);
                }
            }
        }
        let cb = classes * buckets;
        let mut base = Vec::with_capacity(t.tors.len() + 1);
        let mut next = 0u32;
        for tt in &t.tors {
            base.push(next);
            next += tt.len() as u32;
        }
        base.push(next);
        let mut ix = LookupIndex {
            tors,
            arrivals,
            #[cfg(test)]
            classes,
            buckets,
            cells: vec![NONE; tors * tors * arrivals * 2],
            groups: Vec::new(),
            grid: Vec::new(),
            tables: t.clone(),
            base,
        };
        // Scratch for one ToR: [dst][arrival][ingress][class][bucket] -> (entry, score).
        let per_tor = tors * arrivals * 2;
        let mut scratch: Vec<(u32, i8)> = vec![(NONE, -1); per_tor * cb];
        for (ti, tt) in t.tors.iter().enumerate() {
            if tt.tor as usize >= tors {
                return Err(LookupError::BadTor(tt.tor));
            }
            scratch.fill((NONE, -1));
            for (local, e) in tt.iter().enumerate() {
                let m = &e.m;
                if m.dst as usize >= tors {
                    continue;
                }
                let id = ix.base[ti] + local as u32;
                if std::iter::once(e.action)
                    .chain(e.alternates())
                    .any(|a| a.steps.is_empty())
                {
                    return Err(LookupError::EmptySource {
                        tor: tt.tor,
                        dst: m.dst,
                    });
                }
                let score = (m.arrival.is_some() as i8) * 8
                    + ((m.ingress != Ingress::Any) as i8) * 4
                    + (m.class.is_some() as i8) * 2
                    + (m.bucket.is_some() as i8);
                let arr: Vec<usize> = match m.arrival {
                    Some(a) if (a as usize) < arrivals => vec![a as usize],
                    Some(_) => continue,
                    None => (0..arrivals).collect(),
                };
                let ing: &[usize] = match m.ingress {
                    Ingress::Host => &[0],
                    Ingress::Fabric => &[1],
                    Ingress::Any => &[0, 1],
                };
                let cls: Vec<usize> = match m.class {
                    Some(c) => vec![c as usize],
                    None => (0..classes).collect(),
                };
                let bks: Vec<usize> = match m.bucket {
                    Some(b) if (b as usize) < buckets => vec![b as usize],
                    Some(_) => continue,
                    None => (0..buckets).collect(),
                };
                for &a in &arr {
                    for &g in ing {
                        let cell = (m.dst as usize * arrivals + a) * 2 + g;
                        for &c in &cls {
                            for &b in &bks {
                                let s = &mut scratch[cell * cb + c * buckets + b];
                                if score > s.1 {
                                    *s = (id, score);
                                }
                            }
                        }
                    }
                }
            }
            for cell in 0..per_tor {
                let g = &scratch[cell * cb..(cell + 1) * cb];
                if g.iter().all(|x| x.0 == NONE) {
                    continue;
                }
                let uniform = g.iter().all(|x| x.0 == g[0].0);
                let start = ix.grid.len() as u32;
                let (nc, nb) = if uniform {
                    ix.grid.push(g[0].0);
                    (1, 1)
                } else {
                    ix.grid.extend(g.iter().map(|x| x.0));
                    (classes as u8, buckets as u8)
                };
                ix.cells[tt.tor as usize * per_tor + cell] = ix.groups.len() as u32;
                ix.groups.push(Group { start, nc, nb });
            }
        }
        Ok(ix)
    }

    #[cfg(test)]
    pub fn classes(&self) -> usize {
        self.classes
    }
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The entry for a packet at `tor` to `dst` arriving in slice `arrival`
    /// from a host (`fabric == false`) or the fabric, in flow-size class
    /// `class` and hash bucket `bucket`. Returns an entry id.
    #[inline]
    pub fn lookup(
        &self,
        tor: TorId,
        dst: TorId,
        arrival: SliceId,
        fabric: bool,
        class: u8,
        bucket: u8,
    ) -> Option<u32> {
        if tor as usize >= self.tors || dst as usize >= self.tors {
            return None;
        }
        let a = if self.arrivals == 1 {
            0
        } else {
            arrival as usize % self.arrivals
        };
        let cell =
            ((tor as usize * self.tors + dst as usize) * self.arrivals + a) * 2 + fabric as usize;
        let g = *self.groups.get(*self.cells.get(cell)? as usize)?;
        let c = (class as usize).min(g.nc as usize - 1);
        let b = bucket as usize % g.nb as usize;
        let e = self.grid[g.start as usize + c * g.nb as usize + b];
        (e != NONE).then_some(e)
    }

    /// The actions of an entry, primary first.
    #[inline]
    pub fn actions(&self, entry: u32) -> Actions {
        let ti = self.base.partition_point(|&b| b <= entry) - 1;
        let t = &self.tables.tors[ti];
        let e = &t.raw_entries()[(entry - self.base[ti]) as usize];
        let mk = |id: u32| ActionRef {
            source: t.action(id).source,
            table: ti as u32,
            id,
        };
        let mut list = [mk(e.action); 1 + MAX_ALTERNATES];
        let n = e.alternate_count();
        for (k, &alt) in e.alternates[..n].iter().enumerate() {
            list[k + 1] = mk(alt);
        }
        Actions {
            list,
            len: 1 + n as u8,
        }
    }

    #[inline]
    pub fn steps(&self, a: &ActionRef) -> &[Step] {
        self.tables.tors[a.table as usize].action(a.id).steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lh_ctrl::config::{Lookup, Multipath};
    use lh_ctrl::tables::{Action, Entry, Match, Step as TStep, Tables, TimeFlowTable};

    fn hop(port: u8, depart: Option<u16>) -> Action {
        Action::Hop(TStep { port, depart })
    }
    fn m(dst: u16, arrival: Option<u16>, ingress: Ingress, bucket: Option<u8>) -> Match {
        Match {
            dst,
            arrival,
            ingress,
            class: None,
            bucket,
        }
    }

    #[test]
    fn specific_entries_override_wildcards() {
        let t = Tables {
            slices: 3,
            lookup: Lookup::Hop,
            multipath: Multipath::Flow,
            buckets: 2,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 0,
                entries: vec![
                    Entry {
                        m: m(1, None, Ingress::Any, None),
                        action: hop(0, Some(0)),
                        alternates: vec![hop(0, Some(1))],
                    },
                    Entry {
                        m: m(1, Some(2), Ingress::Any, None),
                        action: hop(1, Some(2)),
                        alternates: vec![],
                    },
                    Entry {
                        m: m(1, Some(2), Ingress::Fabric, Some(1)),
                        action: hop(2, None),
                        alternates: vec![],
                    },
                ],
            }],
        };
        let ix = LookupIndex::build(&t, 3).unwrap();
        let first = |e: u32| ix.steps(&ix.actions(e)[0])[0];
        let e = ix.lookup(0, 1, 0, false, 0, 0).unwrap();
        assert_eq!(
            first(e),
            Step {
                port: 0,
                depart: Some(0)
            }
        );
        assert_eq!(ix.actions(e).len(), 2);
        assert_eq!(ix.steps(&ix.actions(e)[1])[0].depart, Some(1));
        let e = ix.lookup(0, 1, 2, false, 0, 1).unwrap();
        assert_eq!(first(e).port, 1);
        let e = ix.lookup(0, 1, 2, true, 0, 0).unwrap();
        assert_eq!(first(e).port, 1);
        let e = ix.lookup(0, 1, 2, true, 0, 1).unwrap();
        assert_eq!(
            first(e),
            Step {
                port: 2,
                depart: None
            }
        );
        // Bucket index wraps; class out of range clamps.
        let e = ix.lookup(0, 1, 2, true, 9, 3).unwrap();
        assert_eq!(first(e).port, 2);
        assert_eq!(ix.lookup(0, 2, 0, false, 0, 0), None);
        assert_eq!(ix.lookup(1, 0, 0, false, 0, 0), None);
        assert_eq!(ix.lookup(7, 0, 0, false, 0, 0), None);
    }

    #[test]
    fn source_actions_keep_all_steps() {
        let t = Tables {
            slices: 1,
            lookup: Lookup::Source,
            multipath: Multipath::None,
            buckets: 1,
            classes: None,
            tors: vec![TimeFlowTable {
                tor: 1,
                entries: vec![Entry {
                    m: m(0, None, Ingress::Host, None),
                    action: Action::Source(vec![
                        TStep {
                            port: 0,
                            depart: Some(0),
                        },
                        TStep {
                            port: 1,
                            depart: Some(1),
                        },
                    ]),
                    alternates: vec![],
                }],
            }],
        };
        let ix = LookupIndex::build(&t, 2).unwrap();
        let e = ix.lookup(1, 0, 5, false, 0, 0).unwrap();
        let a = ix.actions(e)[0];
        assert!(a.source);
        assert_eq!(ix.steps(&a).len(), 2);
        assert_eq!(ix.lookup(1, 0, 0, true, 0, 0), None, "host-only entry");
    }

    /// Tables for ToR 0 of 3, dst 1 only, with the given entries.
    fn one_tor(slices: usize, buckets: u8, entries: Vec<Entry>) -> LookupIndex {
        let t = Tables {
            slices,
            lookup: Lookup::Hop,
            multipath: Multipath::Flow,
            buckets,
            classes: None,
            tors: vec![TimeFlowTable { tor: 0, entries }],
        };
        LookupIndex::build(&t, 3).unwrap()
    }
    /// The index of entries `[a, b]` and of `[b, a]`.
    fn both_orders(slices: usize, buckets: u8, a: &Entry, b: &Entry) -> [LookupIndex; 2] {
        [
            one_tor(slices, buckets, vec![a.clone(), b.clone()]),
            one_tor(slices, buckets, vec![b.clone(), a.clone()]),
        ]
    }
    fn entry(
        dst: u16,
        arrival: Option<u16>,
        ingress: Ingress,
        class: Option<u8>,
        bucket: Option<u8>,
        port: u8,
    ) -> Entry {
        Entry {
            m: Match {
                dst,
                arrival,
                ingress,
                class,
                bucket,
            },
            action: hop(port, None),
            alternates: vec![],
        }
    }
    /// Port of the first step of the entry found, `None` if no entry.
    fn port(
        ix: &LookupIndex,
        dst: u16,
        arrival: u16,
        fabric: bool,
        class: u8,
        bucket: u8,
    ) -> Option<u8> {
        let e = ix.lookup(0, dst, arrival, fabric, class, bucket)?;
        Some(ix.steps(&ix.actions(e)[0])[0].port)
    }

    // Module docs: when two entries cover the same cell the more specific
    // wins, fields ranked arrival > ingress > class > bucket (the dense
    // index's tie-break for entries with equally many non-wildcard fields,
    // docs/tables.md "Matching rule"). Each test builds both entry orders,
    // so neither "first wins" nor "last wins" passes by accident.

    #[test]
    fn class_beats_bucket() {
        let by_bucket = entry(1, None, Ingress::Any, None, Some(1), 1);
        let by_class = entry(1, None, Ingress::Any, Some(1), None, 2);
        for ix in both_orders(1, 2, &by_bucket, &by_class) {
            assert_eq!(
                port(&ix, 1, 0, false, 1, 1),
                Some(2),
                "both match: class wins"
            );
            assert_eq!(port(&ix, 1, 0, true, 1, 1), Some(2));
            assert_eq!(port(&ix, 1, 0, false, 1, 0), Some(2));
            assert_eq!(port(&ix, 1, 0, false, 0, 1), Some(1));
            assert_eq!(port(&ix, 1, 0, false, 0, 0), None);
        }
    }

    #[test]
    fn ingress_beats_class() {
        let by_ingress = entry(1, None, Ingress::Fabric, None, None, 1);
        let by_class = entry(1, None, Ingress::Any, Some(1), None, 2);
        for ix in both_orders(1, 1, &by_ingress, &by_class) {
            assert_eq!(
                port(&ix, 1, 0, true, 1, 0),
                Some(1),
                "both match: ingress wins"
            );
            assert_eq!(port(&ix, 1, 0, true, 0, 0), Some(1));
            assert_eq!(port(&ix, 1, 0, false, 1, 0), Some(2));
            assert_eq!(port(&ix, 1, 0, false, 0, 0), None);
        }
    }

    #[test]
    fn arrival_beats_ingress() {
        let by_ingress = entry(1, None, Ingress::Fabric, Some(0), Some(0), 1);
        let by_arrival = entry(1, Some(1), Ingress::Any, None, None, 2);
        for ix in both_orders(2, 1, &by_ingress, &by_arrival) {
            assert_eq!(
                port(&ix, 1, 1, true, 0, 0),
                Some(2),
                "arrival wins over 3 fields"
            );
            assert_eq!(port(&ix, 1, 0, true, 0, 0), Some(1));
            assert_eq!(port(&ix, 1, 1, false, 0, 0), Some(2));
            assert_eq!(port(&ix, 1, 0, false, 0, 0), None);
        }
    }

    #[test]
    fn bucket_or_arrival_equal_to_the_count_matches_nothing() {
        // Buckets are `0..buckets` and arrivals `0..slices` (docs/tables.md
        // "Match"): an entry naming bucket 2 of 2 or slice 2 of 2 can never
        // match, so it must not land in a neighbouring class, dst or slice.
        let ix = one_tor(
            2,
            2,
            vec![
                entry(1, None, Ingress::Any, None, None, 0),
                entry(1, None, Ingress::Any, Some(1), Some(1), 1),
                entry(1, None, Ingress::Any, Some(0), Some(2), 3),
                entry(1, Some(2), Ingress::Any, Some(0), Some(0), 4),
            ],
        );
        assert_eq!(ix.buckets(), 2);
        assert_eq!(ix.classes(), 2);
        for arrival in 0..2 {
            for fabric in [false, true] {
                for (class, bucket, want) in [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 1)] {
                    assert_eq!(
                        port(&ix, 1, arrival, fabric, class, bucket),
                        Some(want),
                        "arrival {arrival} fabric {fabric} class {class} bucket {bucket}"
                    );
                }
                assert_eq!(port(&ix, 2, arrival, fabric, 0, 0), None);
            }
        }
        // A packet's bucket wraps (2 mod 2 = 0, 3 mod 2 = 1) and never reads
        // the dropped entry.
        assert_eq!(port(&ix, 1, 0, false, 1, 2), Some(0));
        assert_eq!(port(&ix, 1, 0, false, 1, 3), Some(1));
    }
}
