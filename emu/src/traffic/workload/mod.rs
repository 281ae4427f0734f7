//! Trace-driven traffic over real TCP: flow sizes from published
//! distributions (`workloads/*.cdf`), Poisson arrivals at a load, patterns
//! (permutation, all-to-all, incast), and FCT statistics per size bucket.
//!
//! [`cdf`] and [`arrivals`] decide what to send, [`run`] sends it through the
//! kernel's TCP inside the host namespaces, [`fct`] summarises.

pub mod arrivals;
pub mod cdf;
pub mod fct;
pub mod flowfile;
pub mod run;

use arrivals::{Pattern, Spec};
use cdf::SizeCdf;
use std::path::PathBuf;

/// The shipped distributions, by name (the files under `workloads/`).
pub const SHIPPED: [(&str, &str); 3] = [
    (
        "websearch",
        include_str!("../../../../workloads/websearch.cdf"),
    ),
    ("hadoop", include_str!("../../../../workloads/hadoop.cdf")),
    ("kvstore", include_str!("../../../../workloads/kvstore.cdf")),
];

/// A shipped distribution by name, or a `.cdf` file.
pub fn load_cdf(name: &str) -> Result<SizeCdf, String> {
    match SHIPPED.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => SizeCdf::parse(n, text).map_err(|e| e.to_string()),
        None if std::path::Path::new(name).is_file() => {
            SizeCdf::load(std::path::Path::new(name)).map_err(|e| e.to_string())
        }
        None => Err(format!(
            "unknown workload {name:?}: websearch, hadoop, kvstore or a .cdf file"
        )),
    }
}

/// A parsed `flows` command.
#[derive(Clone, Debug)]
pub struct Request {
    pub cdf: SizeCdf,
    pub cdf_name: String,
    pub spec: Spec,
    /// Sizes above this were cut to it (bytes), and the mass cut.
    pub max_size: Option<u64>,
    pub grace_s: f64,
    pub csv: Option<PathBuf>,
    /// Each sender's congestion control (`cc=`); `None`: the namespace's.
    pub cc: Option<String>,
}

/// Usage of the `flows` command.
pub const USAGE: &str = "usage: flows WORKLOAD PATTERN LOAD SECONDS [max_size=BYTES] [flows=N] [seed=N] [grace=SECONDS] [csv=FILE] [cc=NAME]\n       WORKLOAD: websearch, hadoop, kvstore or a .cdf file; PATTERN: permutation, all-to-all, incast[:N]; LOAD: 0-1 of each sender's link; cc: each sender's congestion control (cubic, reno, ...)";

/// Parses `flows …` arguments for a network of `hosts` hosts at
/// `host_bps`. `amount` parses sizes like `1M`.
pub fn parse_request(
    args: &[&str],
    hosts: usize,
    host_bps: f64,
    amount: &dyn Fn(&str) -> Option<f64>,
) -> Result<Request, String> {
    let [w, p, l, d, opts @ ..] = args else {
        return Err(USAGE.into());
    };
    let mut cdf = load_cdf(w)?;
    let pattern: Pattern = p.parse()?;
    let load: f64 = l
        .parse()
        .ok()
        .filter(|x: &f64| *x > 0.0 && *x <= 1.0)
        .ok_or_else(|| format!("bad load {l}: a fraction in (0, 1]"))?;
    let secs: f64 = d
        .trim_end_matches('s')
        .parse()
        .ok()
        .filter(|x: &f64| *x > 0.0 && *x <= 3600.0)
        .ok_or_else(|| format!("bad duration {d}: seconds in (0, 3600]"))?;
    let mut req = Request {
        cdf: cdf.clone(),
        cdf_name: w.to_string(),
        spec: Spec {
            hosts,
            pattern,
            load,
            host_bps,
            duration_ns: (secs * 1e9) as u64,
            max_flows: 2000,
            seed: 1,
        },
        max_size: None,
        grace_s: 10.0,
        csv: None,
        cc: None,
    };
    for o in opts {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| format!("bad option {o}: key=value\n{USAGE}"))?;
        let bad = || format!("bad value in {o}");
        match k {
            "max_size" => {
                let b = amount(v).filter(|b| *b >= 1.0).ok_or_else(bad)? as u64;
                cdf = cdf.capped(b);
                req.max_size = Some(b);
            }
            "flows" => {
                req.spec.max_flows = v
                    .parse()
                    .ok()
                    .filter(|&n| (1..=10_000).contains(&n))
                    .ok_or_else(|| format!("bad value in {o}: 1 to 10000 flows"))?
            }
            "seed" => req.spec.seed = v.parse().map_err(|_| bad())?,
            "grace" => {
                req.grace_s = v
                    .trim_end_matches('s')
                    .parse()
                    .ok()
                    .filter(|x: &f64| *x > 0.0 && *x <= 3600.0)
                    .ok_or_else(bad)?
            }
            "csv" => req.csv = Some(PathBuf::from(v)),
            "cc" => req.cc = Some(congestion_control(v)?),
            _ => return Err(format!("unknown option {k}\n{USAGE}")),
        }
    }
    if let Pattern::Incast { senders, .. } = &mut req.spec.pattern {
        *senders = (*senders).min(hosts.saturating_sub(1));
    }
    if hosts < 2 {
        return Err("flows needs at least 2 hosts".into());
    }
    req.cdf = cdf;
    Ok(req)
}

/// `cc=NAME`: a congestion control the kernel has loaded.
fn congestion_control(name: &str) -> Result<String, String> {
    let path = "/proc/sys/net/ipv4/tcp_available_congestion_control";
    let avail = std::fs::read_to_string(path).unwrap_or_default();
    if avail.split_whitespace().any(|a| a == name) {
        Ok(name.to_string())
    } else {
        Err(format!(
            "bad value in cc={name}: not a loaded congestion control (loaded: {}; load one with `modprobe tcp_{name}`)",
            avail.trim()
        ))
    }
}

/// `flows`: the request's description, the per-flow records and the FCT
/// table per size bucket.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FlowSummary {
    /// The flows' description (count, distribution, pattern, load).
    pub head: String,
    pub records: Vec<fct::FlowRecord>,
    /// FCT percentiles per size bucket.
    pub summary: fct::Summary,
    pub elapsed_s: f64,
}

/// Generates and runs `req` between `hosts` (and writes the per-flow CSV
/// if asked).
pub fn run_request(
    req: &Request,
    hosts: &[run::Endpoint],
    stop: &(dyn Fn() -> bool + Sync),
) -> anyhow::Result<FlowSummary> {
    let flows = arrivals::generate(&req.cdf, &req.spec);
    let mut head = format!(
        "*** Flows: {} {} flows ({:?}, load {}, mean {:.0} B",
        flows.len(),
        req.cdf_name,
        req.spec.pattern,
        req.spec.load,
        req.cdf.mean()
    );
    if let Some(m) = req.max_size {
        head += &format!(", sizes cut at {m} B");
    }
    head += ")\n";
    let t = std::time::Instant::now();
    let rec = run::run_with(
        hosts,
        &flows,
        std::time::Duration::from_secs_f64(req.grace_s),
        req.cc.as_deref(),
        stop,
    )?;
    let s = fct::summarize(&rec, fct::Buckets::default());
    if let Some(path) = &req.csv {
        use std::io::Write;
        let mut f = crate::kernel::securefs::create_file(path, 0o600)?;
        f.write_all(fct::csv(&rec).as_bytes())?;
    }
    Ok(FlowSummary {
        head,
        records: rec,
        summary: s,
        elapsed_s: t.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &str) -> Result<Request, String> {
        let a: Vec<&str> = args.split_whitespace().collect();
        parse_request(&a, 4, 1e9, &|s| s.parse().ok())
    }

    #[test]
    fn cc_takes_a_loaded_congestion_control() {
        // Reno is built into every kernel.
        let r = parse("websearch permutation 0.1 1 cc=reno").unwrap();
        assert_eq!(r.cc.as_deref(), Some("reno"));
        assert_eq!(parse("websearch permutation 0.1 1").unwrap().cc, None);
    }

    #[test]
    fn cc_refuses_what_the_kernel_has_not_loaded() {
        let e = parse("websearch permutation 0.1 1 cc=no_such_cc").unwrap_err();
        assert!(e.contains("cc=no_such_cc") && e.contains("reno"), "{e}");
    }
}
