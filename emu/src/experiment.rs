//! `lighthouse experiment table3`: the paper's Table 3 (§9.3), scaled to
//! one machine. The native data plane ([`swtor::engine::Engine`]) runs in
//! virtual time on the in-memory port ([`swtor::MemPort`]) with synthetic
//! open-loop traffic (Poisson frames to uniformly random hosts plus
//! incast bursts), so the figures do not depend on how busy the 2 cores
//! are. Real TCP on veths would add the kernel's own pacing and losses;
//! docs/experiments.md says what is scaled and how.

use anyhow::Context;
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::net::Ipv4Addr;
use swtor::engine::{Engine, EngineOptions};
use swtor::{FabricSpec, HostAttach, Ifindexes, MemPort, SliceClock, Timing, TorFeatures};

/// The scaled setting of Table 3: RotorNet-style round robin over 8 ToRs,
/// HOHO, 50 us slices (the paper: 108 ToRs, 300 us, 100 Gb/s).
pub const TABLE3_CONFIG: &str = r#"{
  "name": "HOHO on round robin",
  "mode": "TO",
  "tors": {"count": 8, "uplinks": 1, "link_rate": "10Gbps",
           "hosts_per_tor": 4, "host_link_rate": "10Gbps"},
  "ocs": {"count": 1, "ports": 8, "reconfiguration_delay": "500ns", "cabling": "auto"},
  "slice": {"duration": "50us", "guardband": "1us", "propagation": "500ns"},
  "topology": {"kind": "round_robin"},
  "routing": {"algorithm": "hoho", "same_slice_hops": false}
}"#;

/// Synthetic traffic.
#[derive(Clone, Debug, Serialize)]
pub struct Workload {
    /// Offered load (Poisson part plus bursts) as a fraction of every
    /// ToR's uplink capacity.
    pub load: f64,
    /// Fraction of the load sent as incast bursts.
    pub incast_share: f64,
    /// Hosts (on other ToRs) in each burst, each sending `incast_bytes` to
    /// one host at its link rate.
    pub incast_senders: usize,
    pub incast_bytes: u64,
    pub frame_len: usize,
    /// Traffic time, then drain time (no new traffic), in ns.
    pub duration_ns: u64,
    pub drain_ns: u64,
    /// Engine step (virtual time between iterations).
    pub step_ns: u64,
    pub seed: u64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            load: 0.7,
            incast_share: 0.3,
            incast_senders: 8,
            incast_bytes: 60_000,
            frame_len: 1500,
            duration_ns: 20_000_000,
            drain_ns: 10_000_000,
            step_ns: 500,
            seed: 1,
        }
    }
}

/// What one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Bytes delivered while traffic was offered, as Gb/s.
    pub throughput_gbps: f64,
    /// Dropped / sent at the end of the drain.
    pub loss_rate: f64,
    /// Fabric delay (first ToR to the destination host's egress).
    pub mean_delay_us: f64,
    pub p95_delay_us: f64,
    pub p99_delay_us: f64,
    /// 99.9th percentile over time of the largest ToR buffer (bytes in
    /// calendar queues of one ToR), and its maximum.
    pub tor_buffer_p999_bytes: u64,
    pub tor_buffer_max_bytes: u64,
    /// Largest total of bytes held at host NICs.
    pub host_held_max_bytes: u64,
    pub counters: swtor::Counters,
}

/// The fabric of `c` on a MemPort, hosts `10.0.0.K` in plan order,
/// ifindex `K`.
fn engine(c: &Compiled, tor: TorFeatures, epoch: u64) -> anyhow::Result<Engine<MemPort>> {
    let cfg = &c.config;
    let hpt = cfg.tors.hosts_per_tor as usize;
    let hosts = (0..cfg.host_count())
        .map(|k| HostAttach {
            ip: crate::topo::host_ip(k + 1),
            mac: [2, 0, 0, 0, (k >> 8) as u8, k as u8],
            tor: (k / hpt) as u16,
            ifname: String::new(),
        })
        .collect();
    let spec = FabricSpec {
        schedule: c.schedule.clone(),
        tables: c.tables.clone(),
        timing: Timing::from_model(&c.timing()),
        hosts,
        external: Vec::new(),
    };
    let clock = SliceClock {
        epoch,
        slice: spec.timing.slice.0,
        slices: spec.schedule.slices() as u64,
    };
    let ix = Ifindexes::sequential(&spec);
    Engine::with_ports(
        &spec,
        &ix,
        MemPort::new(),
        clock,
        EngineOptions {
            pool_frames: 256 * 1024,
            host_queue_bytes: 64 << 20,
            epoch: Some(epoch),
            tor,
        },
    )
    .context("building the engine")
}

fn udp_frame(src: Ipv4Addr, dst: Ipv4Addr, sport: u16, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    f[14] = 0x45;
    f[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    f[22] = 64;
    f[23] = 17;
    f[26..30].copy_from_slice(&src.octets());
    f[30..34].copy_from_slice(&dst.octets());
    f[34..36].copy_from_slice(&sport.to_be_bytes());
    f[36..38].copy_from_slice(&5001u16.to_be_bytes());
    f
}

/// Runs workload `w` on the compiled fabric `c` with `tor` features.
pub fn run(c: &Compiled, tor: TorFeatures, w: &Workload) -> anyhow::Result<RunResult> {
    let cfg = &c.config;
    let epoch = 1_000_000_000;
    let mut e = engine(c, tor, epoch)?;
    let tors = cfg.tors.count as usize;
    let hpt = cfg.tors.hosts_per_tor as usize;
    let n = tors * hpt;
    let uplink_bps = cfg.tors.link_rate.0 as f64 * cfg.tors.uplinks as f64;
    let host_bps = cfg.tors.host_link_rate.0 as f64;
    let mut rng = SmallRng::seed_from_u64(w.seed);
    // Poisson part: per host, frames per ns.
    let poisson_bps = w.load * (1.0 - w.incast_share) * uplink_bps / hpt as f64;
    let lambda = poisson_bps / 8.0 / w.frame_len as f64 / 1e9;
    let mut next: Vec<f64> = (0..n)
        .map(|_| epoch as f64 + exp(&mut rng, lambda))
        .collect();
    // Bursts: total burst bytes per ns over the fabric.
    let burst_bytes = (w.incast_senders as u64 * w.incast_bytes) as f64;
    let burst_rate = w.load * w.incast_share * uplink_bps * tors as f64 / 8.0 / 1e9 / burst_bytes;
    let mut next_burst = epoch as f64 + exp(&mut rng, burst_rate);
    // Burst senders: (host, bytes left, next frame time).
    let mut bursting: Vec<(usize, Ipv4Addr, u64, f64)> = Vec::new();
    let frame_ns = w.frame_len as f64 * 8.0 / host_bps * 1e9;
    let ip = |k: usize| crate::topo::host_ip(k + 1);

    let end = epoch + w.duration_ns;
    let stop = end + w.drain_ns;
    let mut t = epoch;
    let mut buf_samples: Vec<u64> = Vec::new();
    let mut held_max = 0u64;
    let mut at_end = None;
    let mut sport = 0u16;
    while t < stop {
        if t < end {
            for (h, nx) in next.iter_mut().enumerate() {
                while *nx <= t as f64 {
                    let mut d = rng.gen_range(0..n - 1);
                    if d >= h {
                        d += 1;
                    }
                    sport = sport.wrapping_add(1);
                    let f = udp_frame(ip(h), ip(d), 1024 + sport % 64, w.frame_len);
                    e.port_mut().inject(h as i32 + 1, t, &f);
                    *nx += exp(&mut rng, lambda);
                }
            }
            while next_burst <= t as f64 {
                let dst = rng.gen_range(0..n);
                let dt = dst / hpt;
                for _ in 0..w.incast_senders {
                    let mut s = rng.gen_range(0..n - hpt);
                    if s / hpt >= dt {
                        s += hpt;
                    }
                    bursting.push((s, ip(dst), w.incast_bytes, t as f64));
                }
                next_burst += exp(&mut rng, burst_rate);
            }
            bursting.retain_mut(|(s, dst, left, nx)| {
                while *left > 0 && *nx <= t as f64 {
                    let f = udp_frame(ip(*s), *dst, 4000, w.frame_len);
                    e.port_mut().inject(*s as i32 + 1, t, &f);
                    *left = left.saturating_sub(w.frame_len as u64);
                    *nx += frame_ns;
                }
                *left > 0
            });
        } else if at_end.is_none() {
            at_end = Some(e.counters());
        }
        e.poll(t)?;
        e.port_mut().sent.clear();
        if (t - epoch) % 10_000 < w.step_ns {
            let worst = (0..tors as u16)
                .map(|k| e.queues(k).iter().flatten().sum::<u64>())
                .max()
                .unwrap_or(0);
            buf_samples.push(worst);
            held_max = held_max.max(e.c.held_bytes);
        }
        t += w.step_ns;
    }
    let c_end = e.counters();
    anyhow::ensure!(c_end.conservation_holds(), "conservation broken: {c_end}");
    let during = at_end.unwrap_or_else(|| c_end.clone());
    let d = e.fabric_delay();
    buf_samples.sort_unstable();
    let p999 = buf_samples
        .get(((buf_samples.len() as f64 * 0.999).ceil() as usize).saturating_sub(1))
        .copied()
        .unwrap_or(0);
    Ok(RunResult {
        throughput_gbps: during.delivered_bytes as f64 * 8.0 / w.duration_ns as f64,
        loss_rate: c_end.dropped_total() as f64 / c_end.sent.max(1) as f64,
        mean_delay_us: d.mean_ns() / 1e3,
        p95_delay_us: d.quantile_ns(0.95) as f64 / 1e3,
        p99_delay_us: d.quantile_ns(0.99) as f64 / 1e3,
        tor_buffer_p999_bytes: p999,
        tor_buffer_max_bytes: buf_samples.last().copied().unwrap_or(0),
        host_held_max_bytes: held_max,
        counters: c_end,
    })
}

fn exp(rng: &mut SmallRng, rate: f64) -> f64 {
    if rate <= 0.0 {
        return f64::INFINITY;
    }
    let u: f64 = rng.gen_range(f64::EPSILON..1.0);
    -u.ln() / rate
}

/// The three columns of Table 3.
pub fn table3_columns() -> [(&'static str, TorFeatures); 3] {
    let none = TorFeatures {
        slice_miss_detection: false,
        ..Default::default()
    };
    let detect = TorFeatures::default();
    let push = TorFeatures {
        pushback: Some(swtor::PushbackTrigger::FirstRejection),
        ..Default::default()
    };
    [
        ("no protection", none),
        ("detection+rerouting", detect),
        ("detection+rerouting+push-back", push),
    ]
}

#[derive(Serialize)]
struct Table3Report<'a> {
    experiment: &'static str,
    config: &'a Config,
    workload: &'a Workload,
    columns: Vec<(&'static str, RunResult)>,
}

/// `lighthouse experiment table3`: runs the three columns, prints the
/// table and writes the figures (JSON) to `out`.
pub fn table3(cfg: Option<Config>, w: &Workload, out: &std::path::Path) -> anyhow::Result<String> {
    let cfg = match cfg {
        Some(c) => c,
        None => Config::from_json(TABLE3_CONFIG, "table3 (built in)")?,
    };
    let c = lh_ctrl::compile::compile(&cfg).context("compiling the fabric")?;
    let mut cols = Vec::new();
    for (name, f) in table3_columns() {
        cols.push((name, run(&c, f, w)?));
    }
    let mut s = String::new();
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "Table 3 (scaled): {}; {} ToRs x {} uplink(s) at {}, {} slices; load {:.0}% ({:.0}% as incast bursts of {} senders x {} B); virtual time on MemPort",
        cfg.name.as_deref().unwrap_or("fabric"),
        cfg.tors.count,
        cfg.tors.uplinks,
        cfg.tors.link_rate,
        cfg.slice.duration,
        w.load * 100.0,
        w.incast_share * 100.0,
        w.incast_senders,
        w.incast_bytes
    );
    let row = |s: &mut String, name: &str, f: &dyn Fn(&RunResult) -> String| {
        let _ = write!(s, "{name:<22}");
        for (_, r) in &cols {
            let _ = write!(s, "{:>14}", f(r));
        }
        s.push('\n');
    };
    let mark = |b: bool| if b { "yes" } else { "no" }.to_string();
    let flags = table3_columns();
    let _ = write!(s, "{:<22}", "Slice-miss detection");
    for (_, f) in &flags {
        let _ = write!(s, "{:>14}", mark(f.slice_miss_detection));
    }
    s.push('\n');
    let _ = write!(s, "{:<22}", "Push back");
    for (_, f) in &flags {
        let _ = write!(s, "{:>14}", mark(f.pushback.is_some()));
    }
    s.push('\n');
    row(&mut s, "Throughput (Gbps)", &|r| {
        format!("{:.1}", r.throughput_gbps)
    });
    row(&mut s, "Loss rate", &|r| {
        format!("{:.2}%", r.loss_rate * 100.0)
    });
    row(&mut s, "Average delay", &|r| fmt_us(r.mean_delay_us));
    row(&mut s, "95%-ile delay", &|r| fmt_us(r.p95_delay_us));
    row(&mut s, "Held at hosts (max)", &|r| {
        format!("{} KB", r.host_held_max_bytes / 1000)
    });
    let report = Table3Report {
        experiment: "table3",
        config: &cfg,
        workload: w,
        columns: cols,
    };
    std::fs::write(out, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", out.display()))?;
    let _ = writeln!(s, "figures: {}", out.display());
    Ok(s)
}

/// The fabric of Table 2: Table 3's with another routing algorithm.
fn with_algorithm(base: &Config, algo: &str) -> anyhow::Result<Config> {
    let mut v = serde_json::to_value(base)?;
    v["routing"]["algorithm"] = serde_json::Value::String(algo.into());
    v["name"] = serde_json::Value::String(format!("{algo} on round robin"));
    Ok(Config::from_json(&v.to_string(), "table2 (built in)")?)
}

#[derive(Serialize)]
struct Table2Report<'a> {
    experiment: &'static str,
    config: &'a Config,
    workload: &'a Workload,
    /// (routing, offloaded queues per uplink or none, result).
    rows: Vec<(String, Option<usize>, RunResult)>,
}

/// `lighthouse experiment table2`: 99.9th-percentile ToR buffer usage for
/// VLB (also with buffer offloading), HOHO and UCMP.
pub fn table2(
    cfg: Option<Config>,
    w: &Workload,
    offload_queues: usize,
    out: &std::path::Path,
) -> anyhow::Result<String> {
    let base = match cfg {
        Some(c) => c,
        None => Config::from_json(TABLE3_CONFIG, "table2 (built in)")?,
    };
    let mut rows = Vec::new();
    for (algo, off) in [
        ("vlb", None),
        ("vlb", Some(offload_queues)),
        ("hoho", None),
        ("ucmp", None),
    ] {
        let c = lh_ctrl::compile::compile(&with_algorithm(&base, algo)?)
            .with_context(|| format!("compiling {algo}"))?;
        let f = TorFeatures {
            offload_queues: off,
            ..Default::default()
        };
        rows.push((algo.to_string(), off, run(&c, f, w)?));
    }
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Table 2 (scaled): 99.9%-ile ToR buffer usage; {} ToRs x {} uplink(s) at {}, {} slices; load {:.0}% ({:.0}% as incast bursts); virtual time on MemPort",
        base.tors.count,
        base.tors.uplinks,
        base.tors.link_rate,
        base.slice.duration,
        w.load * 100.0,
        w.incast_share * 100.0
    );
    let kb = |b: u64| format!("{:.1} KB", b as f64 / 1000.0);
    let _ = writeln!(
        s,
        "{:<10}{:>22}{:>14}{:>14}",
        "Routings", "VLB (offloaded)", "HOHO", "UCMP"
    );
    let _ = writeln!(
        s,
        "{:<10}{:>22}{:>14}{:>14}",
        "synthetic",
        format!(
            "{} ({})",
            kb(rows[0].2.tor_buffer_p999_bytes),
            kb(rows[1].2.tor_buffer_p999_bytes)
        ),
        kb(rows[2].2.tor_buffer_p999_bytes),
        kb(rows[3].2.tor_buffer_p999_bytes)
    );
    let _ = writeln!(
        s,
        "offloading keeps {offload_queues} calendar queues per uplink on the ToR; at most {} held at hosts; losses {}/{}/{}/{}",
        kb(rows[1].2.host_held_max_bytes),
        rows[0].2.counters.dropped_total(),
        rows[1].2.counters.dropped_total(),
        rows[2].2.counters.dropped_total(),
        rows[3].2.counters.dropped_total()
    );
    let report = Table2Report {
        experiment: "table2",
        config: &base,
        workload: w,
        rows,
    };
    std::fs::write(out, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", out.display()))?;
    let _ = writeln!(s, "figures: {}", out.display());
    Ok(s)
}

fn fmt_us(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.0} us")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table2_offloading_cuts_vlbs_tor_buffer() {
        let base = Config::from_json(TABLE3_CONFIG, "t2").unwrap();
        let c = lh_ctrl::compile::compile(&with_algorithm(&base, "vlb").unwrap()).unwrap();
        let w = Workload {
            load: 0.4,
            incast_share: 0.0,
            duration_ns: 4_000_000,
            drain_ns: 4_000_000,
            ..Workload::default()
        };
        let plain = run(&c, TorFeatures::default(), &w).unwrap();
        let off = run(
            &c,
            TorFeatures {
                offload_queues: Some(1),
                ..Default::default()
            },
            &w,
        )
        .unwrap();
        assert!(
            off.tor_buffer_p999_bytes * 2 < plain.tor_buffer_p999_bytes,
            "{} vs {}",
            off.tor_buffer_p999_bytes,
            plain.tor_buffer_p999_bytes
        );
        assert!(off.host_held_max_bytes > 0);
        assert!(off.counters.offload_returned > 0);
        // Same traffic, same deliveries: offloading moves bytes, not loss.
        assert_eq!(off.counters.delivered, plain.counters.delivered);
        assert_eq!(off.counters.dropped_total(), 0, "{}", off.counters);
        assert!(off.counters.conservation_holds());
    }

    #[test]
    fn table3_has_the_papers_shape() {
        let cfg = Config::from_json(TABLE3_CONFIG, "t3").unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap();
        let w = Workload {
            duration_ns: 6_000_000,
            drain_ns: 6_000_000,
            ..Workload::default()
        };
        let r: Vec<RunResult> = table3_columns()
            .iter()
            .map(|(_, f)| run(&c, *f, &w).unwrap())
            .collect();
        // Without push-back the fabric loses frames and queues for cycles.
        assert!(r[0].loss_rate > 0.005, "{:?}", r[0].loss_rate);
        assert!(r[1].loss_rate > 0.005, "{:?}", r[1].loss_rate);
        assert!(r[0].p95_delay_us > 1000.0, "{}", r[0].p95_delay_us);
        // With all three mechanisms nothing is lost and the tail is an
        // order of magnitude shorter.
        assert_eq!(r[2].counters.dropped_total(), 0, "{}", r[2].counters);
        assert!(
            r[2].p95_delay_us * 5.0 < r[0].p95_delay_us,
            "{} vs {}",
            r[2].p95_delay_us,
            r[0].p95_delay_us
        );
        assert!(r[2].counters.pushbacks > 0 && r[2].counters.held_total > 0);
        for x in &r {
            assert!(x.counters.conservation_holds());
            assert_eq!((x.counters.queued, x.counters.held), (0, 0));
        }
    }
}
