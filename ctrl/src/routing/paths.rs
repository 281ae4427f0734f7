//! [`Paths`]: the flat store of a [`RouteSet`](super::RouteSet). Every
//! path's hops live in one shared array; a path is a fixed-size record
//! (endpoints, arrival, class, hop range), so millions of paths cost two
//! allocations instead of one per path. Read paths through [`PathRef`],
//! which has the same fields as [`Path`] with `hops` a slice.

use super::{Hop, Path};
use crate::{SliceId, Slot, TorId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::Range;

/// One path of a [`Paths`] store; its hops are `hops[start..start + len]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Meta {
    src: TorId,
    dst: TorId,
    arrival: Option<SliceId>,
    class: Option<u8>,
    len: u16,
    start: u32,
}

/// Path records picked from a [`Paths`] store ([`Paths::pick_with`]).
#[derive(Debug)]
pub struct Picked(Vec<Meta>);

/// Collects the records of [`Paths::pick_with`].
pub struct Picker<'a> {
    from: &'a [Meta],
    out: Vec<Meta>,
}

impl Picker<'_> {
    /// Picks path `i` of the store, with class `class`.
    #[inline]
    pub fn push(&mut self, i: usize, class: Option<u8>) {
        self.out.push(Meta {
            class,
            ..self.from[i]
        });
    }
}

/// Paths in one flat store: fixed-size records plus one hop array.
/// Records may share hops ([`Paths::keep`]); equality compares paths.
#[derive(Clone, Default)]
pub struct Paths {
    meta: Vec<Meta>,
    hops: Vec<Hop>,
}

/// A borrowed path of a [`Paths`] store (or of a [`Path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PathRef<'a> {
    pub src: TorId,
    pub dst: TorId,
    pub arrival: Option<SliceId>,
    pub hops: &'a [Hop],
    pub class: Option<u8>,
}

impl PathRef<'_> {
    /// An owned copy.
    pub fn to_path(&self) -> Path {
        Path {
            src: self.src,
            dst: self.dst,
            arrival: self.arrival,
            hops: self.hops.to_vec(),
            class: self.class,
        }
    }
    /// Slot in which the last hop leaves (the packet reaches `dst` in it).
    pub fn delivered(&self) -> Option<Slot> {
        self.hops.last().and_then(|h| h.depart)
    }
    /// Latency in slots from arrival to the last departure.
    pub fn latency_slots(&self) -> Option<Slot> {
        Some(self.delivered()? - self.arrival? as Slot)
    }
}

impl<'a> From<&'a Path> for PathRef<'a> {
    fn from(p: &'a Path) -> PathRef<'a> {
        PathRef {
            src: p.src,
            dst: p.dst,
            arrival: p.arrival,
            hops: &p.hops,
            class: p.class,
        }
    }
}

impl PartialEq<Path> for PathRef<'_> {
    fn eq(&self, p: &Path) -> bool {
        *self == PathRef::from(p)
    }
}

impl PartialEq<PathRef<'_>> for Path {
    fn eq(&self, p: &PathRef<'_>) -> bool {
        PathRef::from(self) == *p
    }
}

impl Paths {
    pub fn new() -> Paths {
        Paths::default()
    }

    /// Room for `paths` paths of `hops` hops in all.
    pub fn with_capacity(paths: usize, hops: usize) -> Paths {
        Paths {
            meta: Vec::with_capacity(paths),
            hops: Vec::with_capacity(hops),
        }
    }

    pub fn len(&self) -> usize {
        self.meta.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Hops over all paths.
    pub fn total_hops(&self) -> usize {
        self.hops.len()
    }

    /// Bytes held (capacity), for estimates and benchmarks.
    pub fn heap_bytes(&self) -> usize {
        self.meta.capacity() * size_of::<Meta>() + self.hops.capacity() * size_of::<Hop>()
    }

    /// Path `i`; panics when out of range, like indexing.
    pub fn get(&self, i: usize) -> PathRef<'_> {
        let m = &self.meta[i];
        PathRef {
            src: m.src,
            dst: m.dst,
            arrival: m.arrival,
            hops: &self.hops[m.start as usize..m.start as usize + m.len as usize],
            class: m.class,
        }
    }

    /// The last path, if any.
    pub fn last(&self) -> Option<PathRef<'_>> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter {
            paths: self,
            range: 0..self.len(),
        }
    }

    /// Appends a copy of `p`.
    pub fn push<'a>(&mut self, p: impl Into<PathRef<'a>>) {
        let p = p.into();
        let start = self.hops.len();
        self.hops.extend_from_slice(p.hops);
        self.seal(p.src, p.dst, p.arrival, p.class, start);
    }

    /// Appends a path whose hops `f` appends to the hop array (returning
    /// `None` to append nothing). Returns whether a path was appended.
    pub fn push_with(
        &mut self,
        src: TorId,
        dst: TorId,
        arrival: Option<SliceId>,
        class: Option<u8>,
        f: impl FnOnce(&mut Vec<Hop>) -> Option<usize>,
    ) -> bool {
        let start = self.hops.len();
        if f(&mut self.hops).is_none() {
            self.hops.truncate(start);
            return false;
        }
        self.seal(src, dst, arrival, class, start);
        true
    }

    /// Appends a path whose hops are `hops[start..]`.
    fn seal(
        &mut self,
        src: TorId,
        dst: TorId,
        arrival: Option<SliceId>,
        class: Option<u8>,
        start: usize,
    ) {
        let len = self.hops.len() - start;
        let (Ok(len), Ok(start)) = (u16::try_from(len), u32::try_from(start)) else {
            panic!("path store overflow: {len} hops in one path or over 2^32 hops in all");
        };
        self.meta.push(Meta {
            src,
            dst,
            arrival,
            class,
            len,
            start,
        });
    }

    /// Sets the class of path `i`.
    pub fn set_class(&mut self, i: usize, class: Option<u8>) {
        self.meta[i].class = class;
    }

    /// Moves every path of `other` to the end of `self`. The hops and the
    /// records are copied side by side on two threads when there are
    /// millions (UCMP on opera-108 joins 90 MB this way).
    pub fn append(&mut self, other: &mut Paths) {
        let base = self.hops.len() as u32;
        let big = other.meta.len() >= 1 << 20;
        let (hops, meta) = (&mut self.hops, &mut self.meta);
        let (other_hops, other_meta) = (&mut other.hops, &mut other.meta);
        let mut move_meta = || {
            meta.extend(other_meta.drain(..).map(|mut m| {
                m.start += base;
                m
            }))
        };
        if big {
            std::thread::scope(|sc| {
                sc.spawn(|| hops.append(other_hops));
                move_meta();
            });
        } else {
            hops.append(other_hops);
            move_meta();
        }
    }

    /// Records of the paths `f` picks through a [`Picker`] (index into
    /// `self`, class to set), in that order, for [`Paths::keep`];
    /// `capacity`: how many.
    pub fn pick_with(&self, capacity: usize, f: impl FnOnce(&mut Picker<'_>)) -> Picked {
        let mut p = Picker {
            from: &self.meta,
            out: Vec::with_capacity(capacity),
        };
        f(&mut p);
        Picked(p.out)
    }

    /// The paths [`Paths::pick_with`] picked from `self`: records only, sharing
    /// `self`'s hop array (hops no pick names stay in it unused). A path
    /// may be picked more than once.
    pub fn keep(self, picked: Picked) -> Paths {
        Paths {
            meta: picked.0,
            hops: self.hops,
        }
    }

    /// Owned copies of every path (small fabrics, tests).
    pub fn to_vec(&self) -> Vec<Path> {
        self.iter().map(|p| p.to_path()).collect()
    }
}

impl PartialEq for Paths {
    fn eq(&self, other: &Paths) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Paths {}

/// Iterator over a [`Paths`] store.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    paths: &'a Paths,
    range: Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = PathRef<'a>;
    fn next(&mut self) -> Option<PathRef<'a>> {
        self.range.next().map(|i| self.paths.get(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
    fn nth(&mut self, n: usize) -> Option<PathRef<'a>> {
        self.range.nth(n).map(|i| self.paths.get(i))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range.next_back().map(|i| self.paths.get(i))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Paths {
    type Item = PathRef<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl From<Vec<Path>> for Paths {
    fn from(v: Vec<Path>) -> Paths {
        v.iter().collect()
    }
}

impl<'a> FromIterator<&'a Path> for Paths {
    fn from_iter<I: IntoIterator<Item = &'a Path>>(it: I) -> Paths {
        let mut out = Paths::new();
        for p in it {
            out.push(p);
        }
        out
    }
}

impl<'a> FromIterator<PathRef<'a>> for Paths {
    fn from_iter<I: IntoIterator<Item = PathRef<'a>>>(it: I) -> Paths {
        let mut out = Paths::new();
        for p in it {
            out.push(p);
        }
        out
    }
}

impl FromIterator<Path> for Paths {
    fn from_iter<I: IntoIterator<Item = Path>>(it: I) -> Paths {
        let mut out = Paths::new();
        for p in it {
            out.push(&p);
        }
        out
    }
}

impl std::fmt::Debug for Paths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Serialized as a list of paths, like `Vec<Path>`.
impl Serialize for Paths {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Paths {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Paths, D::Error> {
        Vec::<Path>::deserialize(d).map(Paths::from)
    }
}

impl PartialEq<&Path> for PathRef<'_> {
    fn eq(&self, p: &&Path) -> bool {
        *self == PathRef::from(*p)
    }
}
