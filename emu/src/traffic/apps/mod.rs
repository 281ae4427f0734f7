//! The paper's applications (§9.1) between emulated hosts, over the
//! kernel's TCP: a memcached server with SET load generators
//! ([`memcached`]) and a ring allreduce ([`allreduce`]). Their requests
//! parse here (the CLI is a thin parser over [`crate::net::Network`]);
//! their latencies summarise with [`crate::traffic::workload::fct`].

pub mod allreduce;
pub mod memcached;

use crate::plan::Plan;
use std::time::Duration;

/// Usage of `memcached`.
pub const MEMCACHED_USAGE: &str = "usage: memcached SERVER [CLIENT...] [count=N] [size=BYTES] [interval=SECONDS]\n       (default: every other host a client, 100 SETs of 4200 B each, one every 0.001 s)";

/// Usage of `allreduce`.
pub const ALLREDUCE_USAGE: &str = "usage: allreduce SIZE [HOST...] [iters=N]\n       (SIZE in bytes, K/M suffixes, e.g. 800K or 20M; default: every host, 5 iterations)";

/// A parsed `memcached` command: host indices and the load.
#[derive(Clone, Debug, PartialEq)]
pub struct MemcachedRequest {
    pub server: usize,
    pub clients: Vec<usize>,
    pub load: memcached::SetLoad,
}

/// A parsed `allreduce` command.
#[derive(Clone, Debug, PartialEq)]
pub struct AllreduceRequest {
    pub hosts: Vec<usize>,
    pub bytes: usize,
    pub iters: usize,
}

/// Largest allreduce vector (each host holds it plus one chunk in flight).
pub const MAX_ALLREDUCE_BYTES: f64 = 64e6;

fn host_index(plan: &Plan, name: &str) -> Result<usize, String> {
    plan.host(name)
        .map(|h| h.k - 1)
        .ok_or_else(|| format!("no host named {name}"))
}

/// Host indices and `key=value` options of a command line.
type HostsAndOptions<'a> = (Vec<usize>, Vec<(&'a str, &'a str)>);

/// Splits `args` into host names and `key=value` options.
fn hosts_and_options<'a>(plan: &Plan, args: &[&'a str]) -> Result<HostsAndOptions<'a>, String> {
    let mut hosts = Vec::new();
    let mut opts = Vec::new();
    for a in args {
        match a.split_once('=') {
            Some(kv) => opts.push(kv),
            None if !opts.is_empty() => {
                return Err(format!("host {a} after the options"));
            }
            None => {
                let h = host_index(plan, a)?;
                if hosts.contains(&h) {
                    return Err(format!("host {a} named twice"));
                }
                hosts.push(h);
            }
        }
    }
    Ok((hosts, opts))
}

/// Parses `memcached SERVER [CLIENT...] [count=N] [size=B] [interval=S]`.
pub fn parse_memcached(
    plan: &Plan,
    args: &[&str],
    amount: &dyn Fn(&str) -> Option<f64>,
) -> Result<MemcachedRequest, String> {
    if args.is_empty() {
        return Err(MEMCACHED_USAGE.into());
    }
    let (hosts, opts) =
        hosts_and_options(plan, args).map_err(|e| format!("{e}\n{MEMCACHED_USAGE}"))?;
    let Some((&server, clients)) = hosts.split_first() else {
        return Err(format!("no server host\n{MEMCACHED_USAGE}"));
    };
    let clients: Vec<usize> = if clients.is_empty() {
        (0..plan.hosts.len()).filter(|&h| h != server).collect()
    } else {
        clients.to_vec()
    };
    if clients.is_empty() {
        return Err("memcached needs at least one client host besides the server".into());
    }
    let mut load = memcached::SetLoad::default();
    for (k, v) in opts {
        match k {
            "count" => {
                load.count = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1_000_000).contains(n))
                    .ok_or_else(|| format!("bad count={v}: 1 to 1000000 SETs per client"))?
            }
            "size" => {
                load.size = amount(v)
                    .filter(|b| *b >= 1.0 && *b <= memcached::MAX_VALUE as f64)
                    .ok_or_else(|| {
                        format!(
                            "bad size={v}: 1 to {} bytes (memcached's item size limit)",
                            memcached::MAX_VALUE
                        )
                    })? as usize
            }
            "interval" => {
                let s: f64 = v
                    .trim_end_matches('s')
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite() && *x >= 0.0 && *x <= 10.0)
                    .ok_or_else(|| format!("bad interval={v}: seconds in [0, 10]"))?;
                load.interval = Duration::from_secs_f64(s);
            }
            _ => return Err(format!("unknown option {k}\n{MEMCACHED_USAGE}")),
        }
    }
    Ok(MemcachedRequest {
        server,
        clients,
        load,
    })
}

/// Parses `allreduce SIZE [HOST...] [iters=N]`.
pub fn parse_allreduce(
    plan: &Plan,
    args: &[&str],
    amount: &dyn Fn(&str) -> Option<f64>,
) -> Result<AllreduceRequest, String> {
    let [size, rest @ ..] = args else {
        return Err(ALLREDUCE_USAGE.into());
    };
    let (mut hosts, opts) =
        hosts_and_options(plan, rest).map_err(|e| format!("{e}\n{ALLREDUCE_USAGE}"))?;
    if hosts.is_empty() {
        hosts = (0..plan.hosts.len()).collect();
    }
    if hosts.len() < 2 {
        return Err("allreduce needs at least 2 hosts".into());
    }
    let min = (4 * hosts.len()) as f64;
    let bytes = amount(size)
        .filter(|b| *b >= min && *b <= MAX_ALLREDUCE_BYTES)
        .ok_or_else(|| {
            format!(
                "bad size {size}: {min} bytes (one float32 per host) to {MAX_ALLREDUCE_BYTES} bytes"
            )
        })? as usize;
    let mut iters = 5;
    for (k, v) in opts {
        match k {
            "iters" => {
                iters = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| format!("bad iters={v}: 1 to 1000"))?
            }
            _ => return Err(format!("unknown option {k}\n{ALLREDUCE_USAGE}")),
        }
    }
    Ok(AllreduceRequest {
        hosts,
        bytes,
        iters,
    })
}

/// Percentiles of completion times (ns) as a one-line table in ms, with
/// [`crate::traffic::workload::fct::percentile`].
pub fn percentile_line(label: &str, times_ns: &[u64]) -> String {
    use crate::traffic::workload::fct::percentile;
    let mut v = times_ns.to_vec();
    v.sort_unstable();
    let ms =
        |p: f64| percentile(&v, p).map_or("-".to_string(), |ns| format!("{:.3}", ns as f64 / 1e6));
    format!(
        "{label}: n {} p50 {} ms, p95 {} ms, p99 {} ms, max {} ms",
        v.len(),
        ms(50.0),
        ms(95.0),
        ms(99.0),
        ms(100.0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(s: &str) -> Option<f64> {
        crate::text::format::parse_bw(s)
    }

    #[test]
    fn memcached_requests_parse() {
        let plan = Plan::new(4, 2);
        let r = parse_memcached(&plan, &["h1"], &amount).unwrap();
        assert_eq!((r.server, r.clients), (0, vec![1, 2, 3, 4, 5, 6, 7]));
        assert_eq!(r.load, memcached::SetLoad::default());
        assert_eq!(r.load.size, 4200);
        let r = parse_memcached(
            &plan,
            &["h2", "h5", "h3", "count=7", "size=1K", "interval=0.002"],
            &amount,
        )
        .unwrap();
        assert_eq!((r.server, r.clients), (1, vec![4, 2]));
        assert_eq!(
            (r.load.count, r.load.size, r.load.interval),
            (7, 1000, Duration::from_millis(2))
        );
        for (args, needle) in [
            (&[][..], "usage: memcached"),
            (&["h9"][..], "no host named h9"),
            (&["h1", "h1"][..], "named twice"),
            (&["h1", "count=0"][..], "bad count=0"),
            (&["h1", "size=2M"][..], "bad size=2M"),
            (&["h1", "interval=x"][..], "bad interval=x"),
            (&["h1", "count=2", "h2"][..], "after the options"),
            (&["h1", "rate=2"][..], "unknown option rate"),
        ] {
            let e = parse_memcached(&plan, args, &amount).unwrap_err();
            assert!(e.contains(needle), "{args:?}: {e}");
        }
        let e = parse_memcached(&Plan::new(1, 1), &["h1"], &amount).unwrap_err();
        assert!(e.contains("at least one client"), "{e}");
    }

    #[test]
    fn allreduce_requests_parse() {
        let plan = Plan::new(4, 2);
        let r = parse_allreduce(&plan, &["800K"], &amount).unwrap();
        assert_eq!((r.hosts.len(), r.bytes, r.iters), (8, 800_000, 5));
        let r = parse_allreduce(&plan, &["20M", "h1", "h3", "h8", "iters=2"], &amount).unwrap();
        assert_eq!((r.hosts, r.bytes, r.iters), (vec![0, 2, 7], 20_000_000, 2));
        for (args, needle) in [
            (&[][..], "usage: allreduce"),
            (&["x"][..], "bad size x"),
            (&["31"][..], "bad size 31"),
            (&["100M"][..], "bad size 100M"),
            (&["1M", "h1"][..], "at least 2 hosts"),
            (&["1M", "iters=0"][..], "bad iters=0"),
            (&["1M", "h1", "h12"][..], "no host named h12"),
        ] {
            let e = parse_allreduce(&plan, args, &amount).unwrap_err();
            assert!(e.contains(needle), "{args:?}: {e}");
        }
    }

    #[test]
    fn percentile_line_by_hand() {
        let t: Vec<u64> = (1..=10).map(|k| k * 1_000_000).collect();
        assert_eq!(
            percentile_line("x", &t),
            "x: n 10 p50 5.000 ms, p95 10.000 ms, p99 10.000 ms, max 10.000 ms"
        );
        assert_eq!(
            percentile_line("y", &[]),
            "y: n 0 p50 - ms, p95 - ms, p99 - ms, max - ms"
        );
    }
}
