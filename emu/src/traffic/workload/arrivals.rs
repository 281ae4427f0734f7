//! Open-loop flow arrivals: Poisson per source at a given load, sizes from
//! a [`SizeCdf`], destinations by pattern.

use super::cdf::SizeCdf;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Who sends to whom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    /// Each host sends to one fixed other host (a random derangement).
    Permutation,
    /// Each flow goes to a uniformly random other host.
    AllToAll,
    /// `senders` hosts send to host `receiver` (0-based).
    Incast { receiver: usize, senders: usize },
}

impl std::str::FromStr for Pattern {
    type Err = String;
    /// `permutation`, `all-to-all`, or `incast[:N]` (N senders to h1).
    fn from_str(s: &str) -> Result<Pattern, String> {
        match s {
            "permutation" => Ok(Pattern::Permutation),
            "all-to-all" | "alltoall" => Ok(Pattern::AllToAll),
            _ => {
                let n = s.strip_prefix("incast").ok_or_else(|| {
                    format!("unknown pattern {s:?}: permutation, all-to-all or incast[:N]")
                })?;
                let senders =
                    match n.strip_prefix(':') {
                        None if n.is_empty() => usize::MAX,
                        Some(k) => k.parse().ok().filter(|&k| k > 0).ok_or_else(|| {
                            format!("incast:{k}: N must be a count of senders > 0")
                        })?,
                        None => return Err(format!("unknown pattern {s:?}")),
                    };
                Ok(Pattern::Incast {
                    receiver: 0,
                    senders,
                })
            }
        }
    }
}

/// One flow to run: `size` bytes from host `src` to host `dst` (0-based),
/// starting `start_ns` after the workload begins.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowSpec {
    pub id: u32,
    pub src: usize,
    pub dst: usize,
    pub size: u64,
    pub start_ns: u64,
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Spec {
    pub hosts: usize,
    pub pattern: Pattern,
    /// Offered load per sending host as a fraction of `host_bps`.
    pub load: f64,
    pub host_bps: f64,
    /// Arrivals stop after this long.
    pub duration_ns: u64,
    /// At most this many flows in all.
    pub max_flows: usize,
    pub seed: u64,
}

/// The flows of `spec`, sorted by start time, ids in that order.
pub fn generate(cdf: &SizeCdf, spec: &Spec) -> Vec<FlowSpec> {
    let mut rng = SmallRng::seed_from_u64(spec.seed);
    let n = spec.hosts;
    if n < 2 {
        return Vec::new();
    }
    let senders: Vec<usize> = match spec.pattern {
        Pattern::Incast { receiver, senders } => {
            (0..n).filter(|&h| h != receiver).take(senders).collect()
        }
        _ => (0..n).collect(),
    };
    let perm = derangement(n, &mut rng);
    // Poisson arrivals: mean gap = mean size / (load x rate) per sender.
    let rate = spec.load.max(0.0) * spec.host_bps / 8.0 / cdf.mean().max(1.0) / 1e9;
    let mut flows = Vec::new();
    if rate <= 0.0 {
        return flows;
    }
    for &src in &senders {
        let mut t = 0.0f64;
        loop {
            t += exponential_gap(&mut rng, rate);
            if t >= spec.duration_ns as f64 {
                break;
            }
            let dst = match spec.pattern {
                Pattern::Permutation => perm[src],
                Pattern::AllToAll => {
                    let d = rng.gen_range(0..n - 1);
                    if d >= src { d + 1 } else { d }
                }
                Pattern::Incast { receiver, .. } => receiver,
            };
            let size = cdf.quantile(rng.r#gen::<f64>());
            flows.push(FlowSpec {
                id: 0,
                src,
                dst,
                size,
                start_ns: t as u64,
            });
        }
    }
    flows.sort_by_key(|f| (f.start_ns, f.src));
    flows.truncate(spec.max_flows);
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i as u32;
    }
    flows
}

/// A random permutation with no fixed point (n >= 2).
fn derangement(n: usize, rng: &mut SmallRng) -> Vec<usize> {
    // Sattolo's algorithm: a uniformly random cyclic permutation.
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.gen_range(0..i);
        p.swap(i, j);
    }
    p
}

/// One gap of a Poisson process of `rate` events per unit of time: the
/// exponential's inverse CDF.
pub fn exponential_gap(rng: &mut impl Rng, rate: f64) -> f64 {
    let u: f64 = rng.r#gen::<f64>().max(f64::MIN_POSITIVE);
    -u.ln() / rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(size: u64) -> SizeCdf {
        SizeCdf::parse("t", &format!("{size} 0\n{size} 1\n")).unwrap()
    }

    fn spec(pattern: Pattern, load: f64) -> Spec {
        Spec {
            hosts: 8,
            pattern,
            load,
            host_bps: 1e9,
            duration_ns: 1_000_000_000,
            max_flows: usize::MAX,
            seed: 7,
        }
    }

    #[test]
    fn arrivals_offer_the_requested_load() {
        // 10 KB flows at 40% of 1 Gb/s: 5000 flows/s per sender.
        let f = generate(&fixed(10_000), &spec(Pattern::AllToAll, 0.4));
        let per_sender = f.len() as f64 / 8.0;
        assert!((4700.0..5300.0).contains(&per_sender), "{per_sender}");
        assert!(f.windows(2).all(|w| w[0].start_ns <= w[1].start_ns));
        assert!(f.iter().enumerate().all(|(i, x)| x.id == i as u32));
        assert!(f.iter().all(|x| x.src != x.dst && x.dst < 8));
        // All-to-all reaches every other host from host 0.
        let mut seen: Vec<usize> = f.iter().filter(|x| x.src == 0).map(|x| x.dst).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, (1..8).collect::<Vec<_>>());
    }

    #[test]
    fn permutation_has_one_destination_per_source_and_no_self() {
        let f = generate(&fixed(1_000_000), &spec(Pattern::Permutation, 0.5));
        let mut dst = [usize::MAX; 8];
        for x in &f {
            assert_ne!(x.src, x.dst);
            assert!(dst[x.src] == usize::MAX || dst[x.src] == x.dst);
            dst[x.src] = x.dst;
        }
        let mut d = dst.to_vec();
        d.sort();
        assert_eq!(d, (0..8).collect::<Vec<_>>(), "a permutation");
    }

    #[test]
    fn incast_sends_from_n_hosts_to_one() {
        let p: Pattern = "incast:3".parse().unwrap();
        let f = generate(&fixed(1000), &spec(p, 0.1));
        assert!(f.iter().all(|x| x.dst == 0));
        let mut s: Vec<usize> = f.iter().map(|x| x.src).collect();
        s.sort();
        s.dedup();
        assert_eq!(s, vec![1, 2, 3]);
        assert!("incast:0".parse::<Pattern>().is_err());
        assert!("ring".parse::<Pattern>().is_err());
        assert_eq!(
            "incast".parse::<Pattern>().unwrap(),
            Pattern::Incast {
                receiver: 0,
                senders: usize::MAX
            }
        );
    }

    #[test]
    fn max_flows_keeps_the_earliest_and_seeds_repeat() {
        let mut s = spec(Pattern::AllToAll, 0.4);
        s.max_flows = 10;
        let a = generate(&fixed(10_000), &s);
        assert_eq!(a.len(), 10);
        assert_eq!(a, generate(&fixed(10_000), &s));
    }
}
