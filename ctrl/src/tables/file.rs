//! The compact file form of [`FlatTables`] (`lighthouse compile --out`):
//! little-endian, fixed-size records, version 1. Schema:
//! docs/compile-format.md. [`write`] and [`read`] round-trip exactly.

use super::model::*;
use crate::config::{Lookup, Multipath};
use crate::routing::ClassThresholds;
use std::io::{self, Read, Write};

/// First bytes of a tables file.
pub const MAGIC: &[u8; 8] = b"LHTABLES";
/// Schema version this code writes and reads.
pub const VERSION: u32 = 1;

const ANY16: u16 = u16::MAX;
const ANY8: u8 = u8::MAX;

/// Writes `t` in the compact form.
pub fn write(t: &FlatTables, w: &mut impl Write) -> io::Result<()> {
    write_header(t, w)?;
    // The ToRs' records are encoded by worker threads (each takes the next
    // ToR) while this one writes them in order; buffers are recycled.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(t.tors.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(2 * workers);
    let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let back_rx = std::sync::Mutex::new(back_rx);
    std::thread::scope(|sc| {
        for _ in 0..workers {
            let (tx, next, back_rx) = (tx.clone(), &next, &back_rx);
            sc.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(tt) = t.tors.get(i) else { return };
                    let recycled = back_rx.lock().ok().and_then(|r| r.try_recv().ok());
                    let mut buf = recycled.unwrap_or_default();
                    buf.clear();
                    encode_table(tt, &mut buf);
                    if tx.send((i, buf)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // Buffers that arrived before their turn, by ToR index.
        let mut early: std::collections::BTreeMap<usize, Vec<u8>> = Default::default();
        let mut turn = 0;
        for (i, buf) in rx {
            early.insert(i, buf);
            while let Some(buf) = early.remove(&turn) {
                w.write_all(&buf)?;
                let _ = back_tx.send(buf);
                turn += 1;
            }
        }
        Ok(())
    })
}

/// Everything before the first ToR's records.
fn write_header(t: &FlatTables, w: &mut impl Write) -> io::Result<()> {
    w.write_all(MAGIC)?;
    w.write_all(&VERSION.to_le_bytes())?;
    w.write_all(&(t.slices as u32).to_le_bytes())?;
    let lookup = match t.lookup {
        Lookup::Hop => 0u8,
        Lookup::Source => 1,
    };
    let multipath = match t.multipath {
        Multipath::None => 0u8,
        Multipath::Packet => 1,
        Multipath::Flow => 2,
    };
    w.write_all(&[lookup, multipath, t.buckets, 0])?;
    match &t.classes {
        None => w.write_all(&u32::MAX.to_le_bytes())?,
        Some(c) => {
            w.write_all(&(c.thresholds.len() as u32).to_le_bytes())?;
            for x in &c.thresholds {
                w.write_all(&x.to_le_bytes())?;
            }
        }
    }
    w.write_all(&(t.tors.len() as u32).to_le_bytes())
}

/// [`write`] into a file, the same bytes: every ToR's records have a
/// known size, so each worker (this thread among them) encodes a ToR and
/// writes it at its own offset, and the kernel's copies into the page
/// cache run on every core too (opera-108 under UCMP writes 157 MB).
pub fn write_file(t: &FlatTables, f: &std::fs::File) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut head = Vec::new();
    write_header(t, &mut head)?;
    f.write_all_at(&head, 0)?;
    let mut at = Vec::with_capacity(t.tors.len());
    let mut end = head.len() as u64;
    for tt in &t.tors {
        at.push(end);
        end += encoded_len(tt) as u64;
    }
    f.set_len(end)?;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(t.tors.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || -> io::Result<()> {
        let mut buf = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(tt) = t.tors.get(i) else {
                return Ok(());
            };
            buf.clear();
            encode_table(tt, &mut buf);
            f.write_all_at(&buf, at[i])?;
        }
    };
    std::thread::scope(|sc| {
        let others: Vec<_> = (1..workers).map(|_| sc.spawn(work)).collect();
        let mine = work();
        others
            .into_iter()
            .map(|h| h.join().expect("tables writer panicked"))
            .fold(mine, |a, b| a.and(b))
    })
}

/// Bytes [`encode_table`] appends for `tt`.
fn encoded_len(tt: &FlatTable) -> usize {
    16 + tt.len() * 20 + tt.action_count() * 8 + tt.step_count() * 4
}

// An entry record holds exactly two alternates.
const _: () = assert!(MAX_ALTERNATES == 2);

/// Appends one ToR's header, entries, actions and steps.
fn encode_table(tt: &FlatTable, buf: &mut Vec<u8>) {
    let (entries, actions, steps) = tt.raw_parts();
    debug_assert_eq!(actions.len(), tt.action_count());
    let base = buf.len();
    let (ne, na) = (16 + entries.len() * 20, actions.len() * 8);
    // Sized once and filled in place: no capacity check per record.
    buf.resize(base + ne + na + steps.len() * 4, 0);
    let out = &mut buf[base..];
    out[0..2].copy_from_slice(&tt.tor.to_le_bytes());
    for (k, n) in [entries.len(), actions.len(), steps.len()]
        .into_iter()
        .enumerate()
    {
        out[4 + 4 * k..8 + 4 * k].copy_from_slice(&(n as u32).to_le_bytes());
    }
    let (head, rest) = out.split_at_mut(ne);
    let (acts, stps) = rest.split_at_mut(na);
    for (e, r) in entries.iter().zip(head[16..].chunks_exact_mut(20)) {
        let m = &e.m;
        r[0..2].copy_from_slice(&m.dst.to_le_bytes());
        r[2..4].copy_from_slice(&m.arrival.unwrap_or(ANY16).to_le_bytes());
        r[4] = match m.ingress {
            Ingress::Any => 0u8,
            Ingress::Host => 1,
            Ingress::Fabric => 2,
        };
        r[5] = m.class.unwrap_or(ANY8);
        r[6] = m.bucket.unwrap_or(ANY8);
        r[8..12].copy_from_slice(&e.action.to_le_bytes());
        r[12..16].copy_from_slice(&e.alternates[0].to_le_bytes());
        r[16..20].copy_from_slice(&e.alternates[1].to_le_bytes());
    }
    for ((start, len, source), r) in actions.into_iter().zip(acts.chunks_exact_mut(8)) {
        r[0..4].copy_from_slice(&start.to_le_bytes());
        r[4..6].copy_from_slice(&len.to_le_bytes());
        r[6] = u8::from(source);
    }
    for (s, r) in steps.iter().zip(stps.chunks_exact_mut(4)) {
        r[0] = s.port;
        r[2..4].copy_from_slice(&s.depart.unwrap_or(ANY16).to_le_bytes());
    }
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn u32_of(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Reads tables written by [`write`]; every index is checked.
pub fn read(r: &mut impl Read) -> io::Result<FlatTables> {
    let mut magic = [0; 8];
    r.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(bad("not a Lighthouse tables file (bad magic)"));
    }
    let version = u32_of(r)?;
    if version != VERSION {
        return Err(bad(format!(
            "tables file version {version}, this build reads {VERSION}"
        )));
    }
    let slices = u32_of(r)? as usize;
    let mut h = [0; 4];
    r.read_exact(&mut h)?;
    let lookup = match h[0] {
        0 => Lookup::Hop,
        1 => Lookup::Source,
        x => return Err(bad(format!("lookup {x}"))),
    };
    let multipath = match h[1] {
        0 => Multipath::None,
        1 => Multipath::Packet,
        2 => Multipath::Flow,
        x => return Err(bad(format!("multipath {x}"))),
    };
    let classes = match u32_of(r)? {
        u32::MAX => None,
        n => {
            let mut thresholds = Vec::with_capacity((n as usize).min(256));
            for _ in 0..n {
                let mut b = [0; 8];
                r.read_exact(&mut b)?;
                thresholds.push(u64::from_le_bytes(b));
            }
            Some(ClassThresholds { thresholds })
        }
    };
    let ntors = u32_of(r)? as usize;
    let mut tors = Vec::with_capacity(ntors.min(1 << 16));
    for _ in 0..ntors {
        let mut th = [0; 16];
        r.read_exact(&mut th)?;
        let tor = u16::from_le_bytes([th[0], th[1]]);
        let n = |i: usize| u32::from_le_bytes(th[i..i + 4].try_into().expect("4 bytes")) as usize;
        let (ne, na, ns) = (n(4), n(8), n(12));
        let mut ft = FlatTable::with_capacity(tor, ne.min(1 << 24), ns.min(1 << 26));
        let mut rec = [0u8; 20];
        let mut entries = Vec::with_capacity(ne.min(1 << 24));
        for _ in 0..ne {
            r.read_exact(&mut rec)?;
            let w16 = |i: usize| u16::from_le_bytes([rec[i], rec[i + 1]]);
            let w32 = |i: usize| u32::from_le_bytes(rec[i..i + 4].try_into().expect("4 bytes"));
            let opt8 = |v: u8| (v != ANY8).then_some(v);
            let m = Match {
                dst: w16(0),
                arrival: (w16(2) != ANY16).then_some(w16(2)),
                ingress: match rec[4] {
                    0 => Ingress::Any,
                    1 => Ingress::Host,
                    2 => Ingress::Fabric,
                    x => return Err(bad(format!("ToR {tor}: ingress {x}"))),
                },
                class: opt8(rec[5]),
                bucket: opt8(rec[6]),
            };
            entries.push((m, w32(8), [w32(12), w32(16)]));
        }
        let mut a = [0u8; 8];
        for _ in 0..na {
            r.read_exact(&mut a)?;
            let start = u32::from_le_bytes(a[0..4].try_into().expect("4 bytes"));
            let len = u16::from_le_bytes([a[4], a[5]]);
            if start as usize + len as usize > ns {
                return Err(bad(format!("ToR {tor}: action beyond the steps")));
            }
            ft.push_span(start, len as usize, a[6] != 0);
        }
        let mut s = [0u8; 4];
        for _ in 0..ns {
            r.read_exact(&mut s)?;
            let d = u16::from_le_bytes([s[2], s[3]]);
            ft.steps_mut().push(Step {
                port: s[0],
                depart: (d != ANY16).then_some(d),
            });
        }
        for (m, action, alts) in entries {
            if std::iter::once(action)
                .chain(alts.into_iter().filter(|&x| x != NO_ACTION))
                .any(|x| x as usize >= na)
            {
                return Err(bad(format!("ToR {tor}: entry names a missing action")));
            }
            ft.push_entry(m, action);
            ft.entries_mut().last_mut().expect("pushed").alternates = alts;
        }
        ft.index(ntors);
        tors.push(ft);
    }
    Ok(FlatTables {
        slices,
        lookup,
        multipath,
        buckets: h[2],
        classes,
        tors,
    })
}
