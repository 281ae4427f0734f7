//! TA updates from live counters (paper §8): every `ta.update_interval`,
//! rebuild the ToR-level traffic matrix from the data plane's counters
//! (bytes hosts of each ToR sent towards each other ToR since the previous
//! update), recompute topology and tables with the config's scheduler, and
//! apply them with a runtime reconfiguration; count what was lost or
//! deferred across each update. `lighthouse run --ta-live` runs it on its
//! own thread.

use lh_ctrl::config::{Config, Mode, TrafficMatrixSrc};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use swtor::ControlHandle;

/// What one update did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UpdateReport {
    /// Bytes in the matrix it was computed from.
    pub matrix_bytes: u64,
    /// Applied (false: no traffic since the last update, or an error).
    pub applied: bool,
    pub error: Option<String>,
    /// Time to compute schedule and tables.
    pub compile_us: u64,
    /// Counter deltas from just before the reconfiguration to `settle`
    /// after it (the dark time of moved circuits lies inside).
    pub lost: u64,
    pub deferred: u64,
    pub carried_over: u64,
    pub rerouted: u64,
}

/// One update: `prev` is the cumulative matrix at the previous update
/// (replaced by the current one).
pub fn update(
    f: &ControlHandle,
    cfg: &Config,
    prev: &mut Vec<Vec<u64>>,
    settle: Duration,
) -> UpdateReport {
    let mut r = UpdateReport::default();
    let cur = match f.traffic_matrix() {
        Ok(m) => m,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let delta: Vec<Vec<u64>> = cur
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, &b)| {
                    let before = prev.get(i).and_then(|p| p.get(j)).copied().unwrap_or(0);
                    if i == j { 0 } else { b.saturating_sub(before) }
                })
                .collect()
        })
        .collect();
    *prev = cur;
    r.matrix_bytes = delta.iter().flatten().sum();
    if r.matrix_bytes == 0 {
        return r;
    }
    let mut live = cfg.clone();
    if let Some(ta) = live.ta.as_mut() {
        ta.traffic_matrix = TrafficMatrixSrc::Inline(delta);
    }
    let t0 = Instant::now();
    let compiled = lh_ctrl::compile::compile(&live);
    r.compile_us = t0.elapsed().as_micros() as u64;
    let c = match compiled {
        Ok(c) => c,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let before = f.counters().unwrap_or_default();
    if let Err(e) = f.reconfigure(c.schedule, c.tables) {
        r.error = Some(e.to_string());
        return r;
    }
    r.applied = true;
    std::thread::sleep(settle);
    let after = f.counters().unwrap_or_default();
    r.lost = after.dropped_total() - before.dropped_total();
    r.deferred = after.deferred - before.deferred;
    r.carried_over = after.carried_over - before.carried_over;
    r.rerouted = after.rerouted - before.rerouted;
    r
}

/// The update loop on its own thread.
pub struct LiveTa {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<UpdateReport>>>,
}

impl LiveTa {
    /// Starts updating every `ta.update_interval` (or as often as compiling
    /// allows). None unless `cfg` is a TA config.
    pub fn start(f: ControlHandle, cfg: Config) -> Option<LiveTa> {
        if cfg.mode != Mode::TA {
            return None;
        }
        let iv = Duration::from_nanos(cfg.ta.as_ref()?.update_interval.0.max(1));
        let settle = Duration::from_nanos(cfg.dark_time().0.max(1_000_000));
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::Builder::new()
            .name("lh-ta-live".into())
            .spawn(move || {
                let mut prev = f.traffic_matrix().unwrap_or_default();
                let mut reports = Vec::new();
                let mut next = Instant::now() + iv;
                while !stop2.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    if now < next {
                        std::thread::sleep((next - now).min(Duration::from_millis(50)));
                        continue;
                    }
                    let r = update(&f, &cfg, &mut prev, settle);
                    if r.applied || r.error.is_some() {
                        tracing::info!(?r, "TA update");
                    }
                    reports.push(r);
                    next = Instant::now() + iv;
                }
                reports
            })
            .ok()?;
        Some(LiveTa {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the loop; returns every update's report.
    pub fn stop(mut self) -> Vec<UpdateReport> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use swtor::SliceClock;
    use swtor::engine::EngineOptions;

    #[test]
    fn live_matrix_drives_a_reconfiguration() {
        let cfg = Config::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../topologies/c-through-8.json"),
        )
        .unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap();
        let hpt = cfg.tors.hosts_per_tor as usize;
        let spec = swtor::testing::compiled_spec(&c);
        let now = swtor::monotonic_ns();
        let clock = SliceClock::aligned(
            now,
            spec.timing.model.slice.0,
            spec.schedule.slices() as u64,
        );
        let mut eng = swtor::testing::mem_engine(&spec, clock, EngineOptions::default()).unwrap();
        // 20 frames from h1 (ToR 0) to the first host of ToR 5.
        let f = swtor::testing::udp(1, 5 * hpt + 1, 0, 1000);
        for _ in 0..20 {
            eng.port_mut().inject(1, now, &f);
        }
        let h = swtor::spawn(eng, clock).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let ctl = h.control();
        let mut prev = vec![vec![0; 8]; 8];
        let r = update(&ctl, &cfg, &mut prev, Duration::from_millis(5));
        assert_eq!(r.matrix_bytes, 20_000, "{r:?}");
        assert!(r.applied, "{r:?}");
        assert_eq!(prev[0][5], 20_000);
        // Nothing new since: no update.
        let r = update(&ctl, &cfg, &mut prev, Duration::from_millis(5));
        assert!(!r.applied && r.matrix_bytes == 0);
        let k = h.stop();
        assert_eq!(k.reconfigurations, 1);
        assert!(k.conservation_holds(), "{k}");
    }
}
