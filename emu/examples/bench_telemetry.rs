//! Does telemetry sampling disturb the data-plane thread's timing? Runs
//! the engine of the Table 3 fabric (8 ToRs, 50 us slices) on its real
//! busy-polling thread over an in-memory port (no namespaces), alternating
//! runs without a sampler and with `lh_emu::control::telemetry::Sampler` reading
//! buffer_usage and bw_usage of every uplink at INTERVAL_US, and compares
//! the slice-boundary lateness (p50/p99) and the longest poll gap.
//!
//!     cargo run --release -p lighthouse-emu --example bench_telemetry -- [SECS] [REPS] [INTERVAL_US]

use lh_ctrl::config::{Config, Metric, Monitor};
use lh_ctrl::units::Nanos;
use swtor::SliceClock;
use swtor::engine::EngineOptions;

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(2.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let iv_us: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let cfg = Config::from_json(include_str!("../../topologies/table3-hoho-8.json"), "t3").unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    println!("| rep | sampler | boundary lateness p50 / p99 (ns) | max poll gap (us) | records |");
    println!("|---:|---|---|---:|---:|");
    for rep in 0..reps {
        for with in if rep % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        } {
            let spec = swtor::testing::compiled_spec(&c);
            let clock = SliceClock::aligned(
                swtor::monotonic_ns(),
                spec.timing.model.slice.0,
                spec.schedule.slices() as u64,
            );
            let eng = swtor::testing::mem_engine(&spec, clock, EngineOptions::default()).unwrap();
            let h = swtor::spawn(eng, clock).unwrap();
            let sampler = with.then(|| {
                let monitors = [Metric::BufferUsage, Metric::BwUsage]
                    .into_iter()
                    .map(|metric| Monitor {
                        metric,
                        tor: None,
                        port: None,
                        interval: Nanos(iv_us * 1000),
                    })
                    .collect();
                lh_emu::control::telemetry::Sampler::start(
                    h.usage_probe(),
                    monitors,
                    Box::new(std::io::sink()),
                )
                .unwrap()
            });
            std::thread::sleep(std::time::Duration::from_secs_f64(secs));
            let records = sampler.map(|s| s.stop().unwrap()).unwrap_or(0);
            let k = h.stop();
            println!(
                "| {rep} | {} | {} / {} | {} | {records} |",
                if with {
                    format!("every {iv_us} us")
                } else {
                    "none".into()
                },
                k.boundary_lateness_quantile_ns(0.5).unwrap_or(0),
                k.boundary_lateness_quantile_ns(0.99).unwrap_or(0),
                k.max_poll_gap_ns / 1000
            );
        }
    }
}
