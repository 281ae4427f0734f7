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
use lh_emu::net::Observer;
use lh_emu::net::values::{Conservation, SliceNow};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    pub fn start(obs: Observer, hub: Arc<Hub>, period: Duration) -> std::io::Result<Sampler> {
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

fn run(obs: Observer, hub: &Hub, period: Duration, stop: &AtomicBool) {
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
        if next < now {
            next = now + period;
        }
        // The data plane has stopped: the run is ending.
        let Ok(cur) = obs.usage() else { return };
        let at = Instant::now();
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
