//! Telemetry (paper Table 1: `buffer_usage(ToR, port, interval)` and
//! `bw_usage(ToR, port, interval)`): a sampler thread reads every uplink's
//! buffer bytes and transmitted bytes from the data plane
//! ([`swtor::UsageProbe`], one command between two loop iterations per
//! sample) on the config's `monitoring` timers and writes one JSON object
//! per line (docs/cli.md#telemetry). The same computation serves the CLI
//! verbs `buffer_usage` / `bw_usage` and `lighthouse run --telemetry`.

use lh_ctrl::config::{Metric, Monitor};
use serde::Serialize;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use swtor::{PortUsage, UsageProbe};

/// One telemetry record (one JSON line).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// ns since the sampler started.
    pub t_ns: u64,
    /// `"buffer_usage"` or `"bw_usage"`.
    pub metric: &'static str,
    /// ToR index (0-based; sN+1 in the CLI) and uplink index.
    pub tor: u16,
    pub port: u8,
    pub interval_ns: u64,
    /// buffer_usage: bytes in the uplink's calendar queues on the ToR;
    /// bw_usage: fraction of the link rate used over the last interval.
    pub value: f64,
    /// buffer_usage: bytes offloaded to hosts; bw_usage: bits per second.
    pub extra: f64,
}

/// The records of monitor `m` from two snapshots `dt_ns` apart
/// (`prev` is only used by bw_usage).
pub fn records(
    m: &Monitor,
    prev: &[Vec<PortUsage>],
    cur: &[Vec<PortUsage>],
    dt_ns: u64,
    t_ns: u64,
) -> Vec<Sample> {
    let mut out = Vec::new();
    for (t, ports) in cur.iter().enumerate() {
        if m.tor.is_some_and(|x| x as usize != t) {
            continue;
        }
        for (p, u) in ports.iter().enumerate() {
            if m.port.is_some_and(|x| x as usize != p) {
                continue;
            }
            let (metric, value, extra) = match m.metric {
                Metric::BufferUsage => (
                    "buffer_usage",
                    u.buffer_bytes as f64,
                    u.offloaded_bytes as f64,
                ),
                Metric::BwUsage => {
                    let before = prev
                        .get(t)
                        .and_then(|r| r.get(p))
                        .map_or(u.tx_bytes, |x| x.tx_bytes);
                    let bps = (u.tx_bytes - before) as f64 * 8e9 / dt_ns.max(1) as f64;
                    ("bw_usage", bps / u.rate_bps.max(1) as f64, bps)
                }
            };
            out.push(Sample {
                t_ns,
                metric,
                tor: t as u16,
                port: p as u8,
                interval_ns: m.interval.0,
                value,
                extra,
            });
        }
    }
    out
}

/// A running sampler.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<io::Result<u64>>>,
}

impl Sampler {
    /// Samples `monitors` on their intervals into `out` (JSON lines) until
    /// [`Sampler::stop`].
    pub fn start(
        probe: UsageProbe,
        monitors: Vec<Monitor>,
        mut out: Box<dyn Write + Send>,
    ) -> io::Result<Sampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::Builder::new()
            .name("lh-telemetry".into())
            .spawn(move || -> io::Result<u64> {
                let t0 = Instant::now();
                let first = probe.usage().map_err(io::Error::other)?;
                let mut state: Vec<(Duration, Vec<Vec<PortUsage>>, Duration)> = monitors
                    .iter()
                    .map(|m| {
                        let iv = Duration::from_nanos(m.interval.0.max(1));
                        (iv, first.clone(), Duration::ZERO)
                    })
                    .collect();
                let mut lines = 0u64;
                while !stop2.load(Ordering::Relaxed) {
                    let next = state.iter().map(|s| s.2 + s.0).min();
                    let Some(next) = next else { break };
                    let now = t0.elapsed();
                    if next > now {
                        std::thread::sleep((next - now).min(Duration::from_millis(50)));
                        continue;
                    }
                    let cur = match probe.usage() {
                        Ok(c) => c,
                        Err(_) => break,
                    };
                    let now = t0.elapsed();
                    for (m, s) in monitors.iter().zip(state.iter_mut()) {
                        if s.2 + s.0 > now {
                            continue;
                        }
                        let dt = (now - s.2).as_nanos() as u64;
                        for r in records(m, &s.1, &cur, dt, now.as_nanos() as u64) {
                            serde_json::to_writer(&mut out, &r)?;
                            out.write_all(b"\n")?;
                            lines += 1;
                        }
                        s.1 = cur.clone();
                        s.2 = now;
                    }
                    out.flush()?;
                }
                out.flush()?;
                Ok(lines)
            })?;
        Ok(Sampler {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the sampler; returns how many records it wrote.
    pub fn stop(mut self) -> io::Result<u64> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("telemetry thread panicked")),
            None => Ok(0),
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Opens `--telemetry`'s target: `-` is stdout.
pub fn open(target: &std::path::Path) -> io::Result<Box<dyn Write + Send>> {
    if target.as_os_str() == "-" {
        Ok(Box::new(io::stdout()))
    } else {
        Ok(Box::new(io::BufWriter::new(std::fs::File::create(target)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lh_ctrl::units::Nanos;

    fn u(buf: u64, tx: u64) -> PortUsage {
        PortUsage {
            buffer_bytes: buf,
            offloaded_bytes: 7,
            tx_bytes: tx,
            rate_bps: 10_000_000_000,
        }
    }

    #[test]
    fn records_select_tor_and_port_and_turn_bytes_into_rates() {
        let prev = vec![vec![u(0, 0), u(0, 0)], vec![u(0, 0), u(0, 1000)]];
        let cur = vec![
            vec![u(500, 0), u(0, 0)],
            vec![u(0, 0), u(3000, 1000 + 625_000)],
        ];
        let m = Monitor {
            metric: Metric::BwUsage,
            tor: Some(1),
            port: None,
            interval: Nanos(1_000_000),
        };
        let r = records(&m, &prev, &cur, 1_000_000, 5);
        assert_eq!(r.len(), 2);
        // 625 kB in 1 ms = 5 Gb/s = half of 10 Gb/s.
        assert_eq!((r[1].tor, r[1].port), (1, 1));
        assert!((r[1].value - 0.5).abs() < 1e-9, "{r:?}");
        assert!((r[1].extra - 5e9).abs() < 1.0);
        let m = Monitor {
            metric: Metric::BufferUsage,
            tor: None,
            port: Some(0),
            interval: Nanos(1_000_000),
        };
        let r = records(&m, &prev, &cur, 1_000_000, 5);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].value, r[0].extra), (500.0, 7.0));
        let line = serde_json::to_string(&r[0]).unwrap();
        assert!(line.starts_with(r#"{"t_ns":5,"metric":"buffer_usage","tor":0,"port":0"#));
    }
}
