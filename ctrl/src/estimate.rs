//! A resource estimate from the config alone, before anything is compiled.
//!
//! Compiling a TO fabric emits a path for every ordered ToR pair, every
//! arrival slice and every flow-size class / multipath alternative, and a
//! table entry for most of them. That is `N (N - 1) S c b` paths for `N`
//! ToRs and `S` slices, which grows with the cube of the ToR count for the
//! generated schedules (`S` is about `N / u`). [`estimate`] computes these
//! counts and the memory they take from the config's numbers only (nothing
//! is allocated in proportion to them), and [`check`] refuses a config
//! whose estimate exceeds a limit with an error that names the fields that
//! drive the size. The binary calls it before compiling, with the machine's
//! available memory as the default limit (`--max-memory` overrides), so a
//! valid but huge config fails with an explanation instead of an
//! allocation abort.
//!
//! The byte figures are calibrated to the current representation (sizes of
//! `Path`, `Hop`, `Entry`, and the routing engine's per-thread arrays; see
//! docs/benchmarks.md, "Resource estimate") and err on the high side.

use crate::config::{Algorithm, Config, FabricKind, Lookup, Mode, Multipath, Topology};
use crate::routing::Hop;
use crate::schedule::{Endpoint, Topo};
use crate::tables::{FlatEntry, Step};
use std::fmt;
use std::path::Path as FsPath;

/// What compiling a config will produce and roughly how much memory it
/// takes at its peak.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub tors: u64,
    pub uplinks: u64,
    pub slices: u64,
    /// Paths per (source, destination, arrival slice): classes times
    /// multipath alternatives.
    pub per_pair: u64,
    pub paths: u64,
    /// Mean hops per path assumed for the byte estimate.
    pub mean_hops: f64,
    pub entries: u64,
    /// Peak bytes of `lighthouse compile` (schedule, routes, tables and the
    /// routing engine's working arrays).
    pub compile_bytes: u64,
    /// Peak bytes of `lighthouse run` (compile plus the data plane's lookup
    /// index and queues).
    pub run_bytes: u64,
    /// Where `slices` comes from, for messages (`topology.kind round_robin
    /// with tors.uplinks 1`).
    pub slices_from: String,
    /// Where `per_pair` comes from (`routing.algorithm ucmp: 6 classes`).
    pub per_pair_from: String,
}

/// The config is too large for the limit.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error(
    "configuration too large: compiling it needs about {} ({} paths, {} table entries), over the limit of {} ({limit_from}); paths = tors.count x (tors.count - 1) x slices x paths per pair = {} x {} x {} x {}, with the slices from {} and the paths per pair from {}; use fewer ToRs (tors.count), more uplinks (tors.uplinks, fewer slices) or fewer paths per pair (routing.algorithm, routing.multipath, routing.k)",
    human_bytes(*needed), group(est.paths), group(est.entries), human_bytes(*limit),
    est.tors, est.tors.saturating_sub(1), est.slices, est.per_pair,
    est.slices_from, est.per_pair_from
)]
pub struct TooLarge {
    pub est: Box<Estimate>,
    pub needed: u64,
    pub limit: u64,
    /// `available memory` or `--max-memory`.
    pub limit_from: String,
}

/// Which peak to compare with the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    Compile,
    Run,
}

/// Refuse `cfg` if its estimated peak for `use_` exceeds `limit` bytes.
pub fn check(cfg: &Config, use_: Use, limit: u64, limit_from: &str) -> Result<Estimate, TooLarge> {
    let est = estimate(cfg);
    let needed = match use_ {
        Use::Compile => est.compile_bytes,
        Use::Run => est.run_bytes,
    };
    if needed > limit {
        return Err(TooLarge {
            est: Box::new(est),
            needed,
            limit,
            limit_from: limit_from.to_string(),
        });
    }
    Ok(est)
}

/// The machine's available memory (`MemAvailable` in /proc/meminfo), if
/// known.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// Slices per cycle the config's topology will have (1 for static, TA and
/// electrical fabrics; 1 when the topology is infeasible, which compiling
/// reports on its own).
fn slices_of(cfg: &Config) -> (u64, String) {
    let n = cfg.tors.count as usize;
    let u = cfg.tors.uplinks as usize;
    if cfg.mode == Mode::TA || cfg.fabric != FabricKind::Optical {
        return (1, "a one-slice topology".into());
    }
    let (s, what) = match &cfg.topology {
        Topology::RoundRobin => (
            crate::schedule::round_robin::RoundRobin.slices(n, u).ok(),
            format!("topology.kind round_robin with tors.uplinks {u}"),
        ),
        Topology::Opera { seed } => (
            crate::schedule::opera::Opera {
                seed: seed.unwrap_or(0),
            }
            .slices(n, u)
            .ok(),
            "topology.kind opera (one slice per ToR)".to_string(),
        ),
        Topology::Shale { h } => (
            crate::schedule::shale::Shale { h: *h }.slices(n, u).ok(),
            format!("topology.kind shale with topology.h {h}"),
        ),
        Topology::File { path } => (
            file_slices(&cfg.resolve(path)),
            format!("the slices of topology.path {}", path.display()),
        ),
        Topology::Static { .. } | Topology::TrafficAware | Topology::FatTree { .. } => {
            (Some(1), "a static topology".into())
        }
    };
    (s.unwrap_or(1).max(1) as u64, what)
}

/// The `slices` of a schedule file, read without keeping its circuits.
fn file_slices(p: &FsPath) -> Option<usize> {
    #[derive(serde::Deserialize)]
    struct Head {
        slices: usize,
    }
    let f = std::fs::File::open(p).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let h: Head = serde_json::from_reader(std::io::BufReader::new(f)).ok()?;
    Some(h.slices)
}

/// Estimate the size of compiling (and running) `cfg`. Costs O(1) memory
/// (O(file) time for a schedule file, to read its slice count).
pub fn estimate(cfg: &Config) -> Estimate {
    let n = cfg.tors.count as u64;
    let u = cfg.tors.uplinks as u64;
    let (slices, slices_from) = slices_of(cfg);
    let cyclic = cfg.is_cyclic() && slices > 1;
    let r = &cfg.routing;
    let opts = crate::routing::RoutingOptions::of(cfg);
    let multipath = r.multipath != Multipath::None;
    let k = opts.k.max(1) as u64;
    let alg = r.algorithm;
    let name = format!("{alg:?}").to_lowercase();
    // Flow-size classes, hop budget (routing layers), mean hops.
    let log_hops = {
        // Earliest-arrival paths on an expander-like schedule: about
        // log_u(N) + 1 hops (opera-108: 2.3; rotornet-8: 1.9).
        let base = (u.max(2)) as f64;
        1.0 + ((n.max(2)) as f64).ln() / base.ln()
    };
    let (classes, layers, mut mean_hops, mut alt_from) = match alg {
        Algorithm::Direct => (1, 1, 1.0, format!("routing.algorithm {name}")),
        Algorithm::Vlb => (1, 2, 2.0, format!("routing.algorithm {name}")),
        Algorithm::Hoho => {
            let cap = r.max_hop.map_or(f64::INFINITY, f64::from);
            (1, 1, log_hops.min(cap), format!("routing.algorithm {name}"))
        }
        Algorithm::Opera => (
            2,
            1,
            (1.0 + log_hops) / 2.0,
            format!("routing.algorithm {name} (2 classes)"),
        ),
        Algorithm::Ucmp => {
            let h = r.max_hop.unwrap_or(crate::routing::ucmp::DEFAULT_MAX_HOP) as u64;
            let c = h.clamp(1, crate::routing::ucmp::MAX_CLASSES as u64);
            (
                c,
                h,
                (1.0 + c as f64) / 2.0,
                format!("routing.algorithm {name} (up to {c} classes, routing.max_hop {h})"),
            )
        }
        Algorithm::ShortestPath
        | Algorithm::Ecmp
        | Algorithm::Ksp
        | Algorithm::Rps
        | Algorithm::Sopa
        | Algorithm::Hedera => (1, 1, log_hops, format!("routing.algorithm {name}")),
    };
    if !cyclic {
        mean_hops = mean_hops.min(log_hops);
    }
    // Alternatives per (src, dst, arrival, class).
    let alts = match alg {
        Algorithm::Ksp | Algorithm::Ecmp => k,
        Algorithm::Vlb if multipath => k,
        _ => 1,
    };
    if alts > 1 {
        alt_from = format!("{alt_from} with routing.k {k} alternatives");
    }
    let buckets = if multipath { k } else { 1 };
    let per_pair = classes * alts;
    let pairs = n.saturating_mul(n.saturating_sub(1));
    let paths = pairs.saturating_mul(slices).saturating_mul(per_pair);
    // Entries per (ToR, dst, arrival, class, bucket) cell: source routing
    // has one at the source; per-hop lookup also has transit entries.
    let cells = pairs
        .saturating_mul(slices)
        .saturating_mul(classes)
        .saturating_mul(buckets.max(alts.min(buckets)));
    let entries = match r.lookup {
        Lookup::Source => cells,
        Lookup::Hop => {
            (cells as f64 * mean_hops.min(2.0)).min(paths as f64 * mean_hops + cells as f64) as u64
        }
    };

    // Bytes, for the flat forms: a path is a 16-byte record plus its hops
    // in one shared array (12 bytes each); a table entry is a 24-byte
    // record plus an 8-byte action and its steps (6 bytes each: the whole
    // source route, or the one per-hop step). Alternates are indices into
    // the actions, so they add nothing.
    let hop = size_of::<Hop>() as f64;
    let routes = paths as f64 * (16.0 + mean_hops * hop);
    let steps_per_entry = match r.lookup {
        Lookup::Source => mean_hops,
        Lookup::Hop => 1.0,
    };
    let tables = entries as f64
        * (size_of::<FlatEntry>() as f64 + 8.0 + steps_per_entry * size_of::<Step>() as f64);
    let sched_cells = (n * u.max(1)).saturating_mul(slices) as f64;
    let schedule = 3.0 * sched_cells * size_of::<Option<Endpoint>>() as f64;
    // Routing engine: per worker thread, `layers` budget layers of a
    // horizon of 2S slots (doubling when needed) by N ToRs, 6 arrays of
    // 4-byte values.
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()) as f64;
    let dp = threads * layers as f64 * 4.0 * slices as f64 * n as f64 * 24.0;
    // `entries()` keeps, while it builds, the chosen paths (8 bytes each)
    // and one 12-byte record per insertion (per hop for per-hop lookup).
    let insertions = match r.lookup {
        Lookup::Source => paths as f64,
        Lookup::Hop => paths as f64 * mean_hops,
    };
    let build = 8.0 * paths as f64 + 12.0 * insertions;
    // The summary sorts one latency per path.
    let summary = paths as f64 * 4.0;
    // Allocator slack (+20 %) and the process itself (32 MiB); calibrated
    // on opera-108, where the measured peaks were 0.7-1.0 of this figure
    // (docs/benchmarks.md, "Resource estimate").
    let base = 32.0 * 1024.0 * 1024.0;
    let compile = 1.2 * (routes + tables + schedule + dp + build + summary) + base;
    // `run` frees the paths once the tables exist, then swtor indexes the
    // tables in place: a dense grid per (ToR, dst, arrival, ingress) of a
    // 4-byte cell, an 8-byte group and a 4-byte entry id per class and
    // bucket; plus the calendar queues' bookkeeping per (ToR, uplink,
    // slice) and the hosts.
    let grid = (n * n) as f64 * slices as f64 * 2.0 * (12.0 + 4.0 * (classes * buckets) as f64);
    let queues = sched_cells * 64.0;
    let hosts = cfg.host_count() as f64 * 256.0 * 1024.0;
    let run = compile.max(compile - 1.2 * routes + grid) + queues + hosts;
    let to_u64 = |b: f64| {
        if b >= u64::MAX as f64 {
            u64::MAX
        } else {
            b as u64
        }
    };
    Estimate {
        tors: n,
        uplinks: u,
        slices,
        per_pair,
        paths,
        mean_hops,
        entries,
        compile_bytes: to_u64(compile),
        run_bytes: to_u64(run),
        slices_from,
        per_pair_from: alt_from,
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} paths, {} entries, about {} to compile and {} to run",
            group(self.paths),
            group(self.entries),
            human_bytes(self.compile_bytes),
            human_bytes(self.run_bytes)
        )
    }
}

/// `1234567` -> `1,234,567`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes with a binary unit: `1.5 GiB`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// Parse a memory size: a number of bytes, or a number with a unit (`B`,
/// `K`/`KB`/`KiB`, `M`/`MB`/`MiB`, `G`/`GB`/`GiB`, `T`/`TB`/`TiB`; all
/// binary multiples, case-insensitive), e.g. `512MiB`, `2G`, `1.5GB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().map_err(|_| {
        format!("{s:?} is not a size: expected a number with an optional unit, like 512MiB or 2GB")
    })?;
    let mul: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(format!(
                "{s:?}: unknown unit {other:?}: expected B, KiB, MiB, GiB or TiB"
            ));
        }
    };
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("{s:?}: expected a positive size"));
    }
    Ok((v * mul as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("100").unwrap(), 100);
        assert_eq!(parse_size("2KiB").unwrap(), 2048);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("512mb").unwrap(), 512 << 20);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("GB").is_err());
    }

    #[test]
    fn meminfo_available_is_in_bytes() {
        let t = "MemTotal: 100 kB\nMemFree: 5 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_meminfo(t), Some(2048 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn grouping_and_units() {
        assert_eq!(group(1234567), "1,234,567");
        assert_eq!(group(12), "12");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }
}
