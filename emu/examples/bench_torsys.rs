//! TCP throughput with the ToR/host systems of paper §6–§7 off and on,
//! against a Linux bridge, alternating in one run (the setting of
//! bench_tcp: topologies/static-2.json, one TCP flow, median of REPS).
//! "on" sets config.json's `tor` section: estimator (1 us), push-back at
//! the first rejection, flow pausing (100 kB elephants, 1 ms aging) and
//! offloading (ignored on a one-slice schedule, as documented).
//!
//! Robust to a shared machine: every repetition runs the three systems
//! back to back (order rotated), so each rep gives paired ratios
//! (off/bridge, on/off) measured within seconds of each other; the summary
//! is the median and the min–max of those ratios over reps, with the load
//! average seen. A regression "beyond noise" is one whose ratio lies
//! outside the spread of the reps.
//!
//!     cargo run --release -p lighthouse-emu --example bench_torsys -- [SECS] [REPS]

#[path = "bench_common/mod.rs"]
mod common;

use common::{Bridge, Lighthouse, loadavg, median};
use lh_emu::traffic::probe::{Amount, tcp_flow};

fn main() {
    common::require_root();
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let off = common::load("static-2.json");
    let mut on = off.clone();
    on.tor = Some(lh_ctrl::config::TorSystem {
        occupancy: lh_ctrl::config::OccupancyMode::Estimated {
            update_interval: lh_ctrl::units::Nanos(1_000),
        },
        slice_miss_detection: true,
        on_slice_miss: Default::default(),
        pushback: Some(lh_ctrl::config::PushbackWhen::FirstRejection),
        flow_pausing: Some(lh_ctrl::config::FlowPausingCfg {
            elephant_bytes: 100_000,
            aging: lh_ctrl::units::Nanos(1_000_000),
        }),
        offload: Some(lh_ctrl::config::OffloadCfg { queues: 1 }),
    });
    let c_off = lh_ctrl::compile::compile(&off).expect("compiling static-2");
    let c_on = lh_ctrl::compile::compile(&on).expect("compiling static-2 + tor");
    let mut res: [Vec<f64>; 3] = Default::default();
    let mut loads: Vec<f64> = Vec::new();
    let names = ["bridge", "lighthouse (tor off)", "lighthouse (tor on)"];
    println!("| rep | system | Mb/s | load avg | notes |");
    println!("|---:|---|---:|---:|---|");
    for rep in 0..reps {
        // Rotate the order so a load change does not favour one side.
        for k in 0..3 {
            let side = (k + rep) % 3;
            let load = loadavg();
            loads.push(load);
            let (mbps, notes) = if side == 0 {
                let b = Bridge::up();
                let ((h1, _), (h2, ip2)) = (b.host(0), b.host(1));
                assert!(common::warm_up(&h1, ip2), "bridge: h1 cannot reach h2");
                let r = tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs));
                drop(b);
                (
                    r.map(|r| r.server_bps / 1e6).unwrap_or(f64::NAN),
                    String::new(),
                )
            } else {
                let (cfg, c) = if side == 1 {
                    (&off, &c_off)
                } else {
                    (&on, &c_on)
                };
                let l = Lighthouse::up(cfg, c);
                let ((h1, _), (h2, ip2)) = (l.host(0), l.host(1));
                assert!(common::warm_up(&h1, ip2), "h1 cannot reach h2");
                let r = tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs));
                let k = l.down();
                (
                    r.map(|r| r.server_bps / 1e6).unwrap_or(f64::NAN),
                    format!(
                        "drops {} elephant_frames {} held_total {} max_poll_gap {} us",
                        k.dropped_total(),
                        k.elephant_frames,
                        k.held_total,
                        k.max_poll_gap_ns / 1000
                    ),
                )
            };
            println!(
                "| {rep} | {} | {mbps:.0} | {load:.2} | {notes} |",
                names[side]
            );
            res[side].push(mbps);
        }
    }
    // Paired per rep: the three ran within seconds of each other.
    let pair = |a: usize, b: usize| -> Vec<f64> {
        res[a].iter().zip(&res[b]).map(|(x, y)| x / y).collect()
    };
    println!(
        "\n{reps} reps x {secs} s, load average {}",
        spread(&loads, 2)
    );
    for (k, name) in names.iter().enumerate() {
        println!("{name}: {} Mb/s", spread(&res[k], 0));
    }
    println!("off / bridge (paired): {}", spread(&pair(1, 0), 3));
    println!("on / bridge (paired):  {}", spread(&pair(2, 0), 3));
    println!("on / off (paired):     {}", spread(&pair(2, 1), 3));
}

/// `median (min–max)` of the values that are numbers.
fn spread(v: &[f64], digits: usize) -> String {
    let ok: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    let lo = ok.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ok.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "median {:.digits$} ({:.digits$}–{:.digits$}, n={})",
        median(&ok),
        lo,
        hi,
        ok.len()
    )
}
