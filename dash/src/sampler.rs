//! The `tick` events: every period, the current slice, both telemetry
//! metrics on every uplink (the records `--telemetry` writes, from the same
//! [`lh_emu::control::telemetry::records`]), the drops by reason and the
//! conservation terms, read through an [`Observer`] (one command to the
//! data-plane thread per read, as the `--telemetry` sampler does). One
//! sampler serves every client.

use crate::hub::Hub;
use lh_ctrl::config::{Metric, Monitor};
use lh_ctrl::units::Nanos;
use lh_emu::control::telemetry::{Sample, records};
use lh_emu::net::values::{Conservation, SliceNow};
use lh_emu::net::{NetworkError, Observer};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use swtor::{Counters, PortUsage};

#[derive(Serialize)]
struct Tick<'a> {
    t_ns: u64,
    slice: SliceNow,
    usage: &'a [Sample],
    #[serde(skip_serializing_if = "Option::is_none")]
    conservation: Option<Conservation>,
    /// Drops by reason (`drops`' counters, snake_case names).
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// What a sampler reads: an [`Observer`] of the running data plane.
pub trait Source: Send + 'static {
    fn usage(&self) -> Result<Vec<Vec<PortUsage>>, NetworkError>;
    fn counters(&self) -> Result<(Counters, Conservation), NetworkError>;
    fn slice(&self) -> SliceNow;
}

impl Source for Observer {
    fn usage(&self) -> Result<Vec<Vec<PortUsage>>, NetworkError> {
        Observer::usage(self)
    }
    fn counters(&self) -> Result<(Counters, Conservation), NetworkError> {
        Observer::counters(self)
    }
    fn slice(&self) -> SliceNow {
        Observer::slice(self)
    }
}

pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    pub fn start(obs: impl Source, hub: Arc<Hub>, period: Duration) -> std::io::Result<Sampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::Builder::new()
            .name("lh-dash-sample".into())
            .spawn(move || run(obs, &hub, period, &stop2))?;
        Ok(Sampler {
            stop,
            thread: Some(thread),
        })
    }

    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(obs: impl Source, hub: &Hub, period: Duration, stop: &AtomicBool) {
    let monitors = [Metric::BufferUsage, Metric::BwUsage].map(|metric| Monitor {
        metric,
        tor: None,
        port: None,
        interval: Nanos(period.as_nanos() as u64),
    });
    let t0 = Instant::now();
    let Ok(mut prev) = obs.usage() else { return };
    let mut last = Instant::now();
    let mut next = t0 + period;
    let mut usage = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now < next {
            std::thread::sleep((next - now).min(Duration::from_millis(50)));
            continue;
        }
        next += period;
        // The data plane has stopped: the run is ending.
        let Ok(cur) = obs.usage() else { return };
        let at = Instant::now();
        // Late (this thread or the read stalled): the next tick a period
        // from this one, not at once (its rates would span microseconds).
        if next < at {
            next = at + period;
        }
        let t_ns = (at - t0).as_nanos() as u64;
        let dt = (at - last).as_nanos() as u64;
        usage.clear();
        for m in &monitors {
            usage.extend(records(m, &prev, &cur, dt, t_ns));
        }
        prev = cur;
        last = at;
        let (conservation, dropped, error) = match obs.counters() {
            Ok((c, cons)) => {
                let d = serde_json::to_value(&c)
                    .ok()
                    .and_then(|mut v| v.get_mut("dropped").map(serde_json::Value::take));
                (Some(cons), d, None)
            }
            Err(e) => (None, None, Some(e.to_string())),
        };
        let tick = Tick {
            t_ns,
            slice: obs.slice(),
            usage: &usage,
            conservation,
            dropped,
            error,
        };
        if let Ok(s) = serde_json::to_string(&tick) {
            hub.publish("tick", s, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::Client;
    use serde_json::Value;
    use std::sync::atomic::AtomicUsize;

    const PERIOD: Duration = Duration::from_millis(100);

    /// Two ToRs of one uplink each, sending 1 MB a read. The `stall_at`-th
    /// telemetry read takes `stall`; reads fail from `fail_from` on (the
    /// data plane has stopped).
    #[derive(Default)]
    struct Fake {
        reads: Arc<AtomicUsize>,
        stall_at: Option<usize>,
        stall: Duration,
        fail_from: Option<usize>,
        counters_fail: bool,
    }

    impl Source for Fake {
        fn usage(&self) -> Result<Vec<Vec<PortUsage>>, NetworkError> {
            let n = self.reads.fetch_add(1, Ordering::SeqCst);
            if self.fail_from.is_some_and(|f| n >= f) {
                return Err(NetworkError::NoDataPlane);
            }
            if self.stall_at == Some(n) {
                std::thread::sleep(self.stall);
            }
            let u = PortUsage {
                buffer_bytes: 1500,
                offloaded_bytes: 0,
                tx_bytes: n as u64 * 1_000_000,
                rate_bps: 10_000_000_000,
            };
            Ok(vec![vec![u]; 2])
        }
        fn counters(&self) -> Result<(Counters, Conservation), NetworkError> {
            if self.counters_fail {
                return Err(NetworkError::NoDataPlane);
            }
            let c = Counters {
                sent: 10,
                delivered: 10,
                ..Counters::default()
            };
            let cons = Conservation::of(&c, None);
            Ok((c, cons))
        }
        fn slice(&self) -> SliceNow {
            SliceNow {
                slice: 3,
                slices: 8,
                cycle: 7,
            }
        }
    }

    /// The ticks waiting in `c`'s queue.
    fn ticks(c: &Client) -> Vec<Value> {
        let mut v = Vec::new();
        while c.depth().0 > 0 {
            let e = futures::executor::block_on(c.next()).unwrap();
            assert_eq!(e.name, "tick");
            v.push(serde_json::from_str(&e.data).unwrap());
        }
        v
    }

    fn t_ns(ticks: &[Value]) -> Vec<u64> {
        ticks.iter().map(|t| t["t_ns"].as_u64().unwrap()).collect()
    }

    /// The shortest time between two ticks.
    fn min_gap(t: &[u64]) -> Duration {
        let gap = t.windows(2).map(|w| w[1].saturating_sub(w[0])).min();
        Duration::from_nanos(gap.unwrap_or(u64::MAX))
    }

    #[test]
    fn a_tick_a_period_with_the_data_planes_values_and_none_after_stop() {
        let hub = Arc::new(Hub::new(10_000));
        let c = hub.subscribe();
        let s = Sampler::start(Fake::default(), hub.clone(), PERIOD).unwrap();
        std::thread::sleep(PERIOD * 10 + PERIOD / 2);
        s.stop();
        let got = ticks(&c);
        // Ten periods: ten ticks (fewer if this machine is loaded).
        assert!((5..=11).contains(&got.len()), "{} ticks", got.len());
        let t = t_ns(&got);
        assert!(
            Duration::from_nanos(t[0]) >= PERIOD,
            "the first tick came before a period: {t:?}"
        );
        assert!(min_gap(&t) >= PERIOD / 5, "{t:?}");
        let first = &got[0];
        assert_eq!(first["lagged"], 0);
        assert_eq!(
            first["slice"],
            serde_json::json!({"slice": 3, "slices": 8, "cycle": 7})
        );
        // Both metrics on both uplinks.
        assert_eq!(first["usage"].as_array().unwrap().len(), 4, "{first}");
        assert_eq!(first["conservation"]["sent"], 10, "{first}");
        assert!(first["dropped"].is_object(), "{first}");
        assert!(first.get("error").is_none(), "{first}");
        // Stopped: no more ticks.
        std::thread::sleep(PERIOD * 3);
        assert_eq!(c.depth().0, 0, "ticks after stop");
    }

    #[test]
    fn after_a_stall_the_sampler_does_not_catch_up_in_a_burst() {
        let hub = Arc::new(Hub::new(10_000));
        let c = hub.subscribe();
        let fake = Fake {
            // The second tick's read takes five periods.
            stall_at: Some(2),
            stall: PERIOD * 5,
            ..Fake::default()
        };
        let s = Sampler::start(fake, hub.clone(), PERIOD).unwrap();
        std::thread::sleep(PERIOD * 10);
        s.stop();
        let t = t_ns(&ticks(&c));
        assert!(t.len() >= 3, "{t:?}");
        assert!(t.len() <= 7, "a burst of ticks after the stall: {t:?}");
        assert!(min_gap(&t) >= PERIOD / 5, "a burst after the stall: {t:?}");
    }

    #[test]
    fn a_stopped_data_plane_ends_the_sampler_and_a_failed_read_is_shown() {
        let hub = Arc::new(Hub::new(10_000));
        let c = hub.subscribe();
        let reads = Arc::new(AtomicUsize::new(0));
        let fake = Fake {
            reads: reads.clone(),
            fail_from: Some(3),
            counters_fail: true,
            ..Fake::default()
        };
        let s = Sampler::start(fake, hub.clone(), PERIOD).unwrap();
        let t = Instant::now();
        while reads.load(Ordering::SeqCst) < 4 {
            assert!(t.elapsed() < Duration::from_secs(10), "the sampler stalled");
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(PERIOD * 2);
        // The first read, then two ticks; the fourth read failed: no more.
        assert_eq!(reads.load(Ordering::SeqCst), 4);
        let got = ticks(&c);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0]["error"].is_string(), "{}", got[0]);
        assert!(got[0].get("conservation").is_none(), "{}", got[0]);
        s.stop();
    }

    #[test]
    fn dropping_a_sampler_stops_it() {
        let hub = Arc::new(Hub::new(10_000));
        let c = hub.subscribe();
        let s = Sampler::start(Fake::default(), hub.clone(), PERIOD).unwrap();
        std::thread::sleep(PERIOD * 2 + PERIOD / 2);
        drop(s);
        let n = ticks(&c).len();
        assert!(n >= 1, "no tick");
        std::thread::sleep(PERIOD * 3);
        assert_eq!(c.depth().0, 0, "ticks after the sampler was dropped");
    }
}
