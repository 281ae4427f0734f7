//! TCP throughput host -> ToR -> OCS -> ToR -> host over an always-up
//! circuit (topologies/static-2.json) against a Linux bridge between the
//! same kind of namespaces, alternating in one run. One TCP flow per run
//! with the built-in flow tool (lh_emu::traffic::probe::tcp_flow), median of REPS.
//!
//!     cargo run --release -p lighthouse-emu --example bench_tcp -- [SECS] [REPS]
//!
//! `LH_BENCH_OWN_CPU=1`: the lighthouse side as `lighthouse run --own-cpu`,
//! and both sides' endpoints on the hosts' CPUs ([`common::Endpoints`]).
//! `SWTOR_RX_RING=0|1` forces how the data plane receives
//! (`swtor::afpacket::RingSocket`).

#[path = "bench_common/mod.rs"]
mod common;

use common::{Bridge, Lighthouse, loadavg, median};
use lh_emu::traffic::probe::{Amount, tcp_flow};

fn main() {
    common::require_root();
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let cfg = common::load("static-2.json");
    let c = lh_ctrl::compile::compile(&cfg).expect("compiling static-2");
    let (mut lh, mut br) = (Vec::new(), Vec::new());
    let endpoints = common::Endpoints::from_env();
    println!("{}\n", endpoints.describe());
    println!("| rep | system | Mb/s | load avg | notes |");
    println!("|---:|---|---:|---:|---|");
    for rep in 0..reps {
        // Alternate the order so a load change does not favour one side.
        for side in if rep % 2 == 0 { [0, 1] } else { [1, 0] } {
            if side == 0 {
                let l = Lighthouse::up(&cfg, &c);
                let ((h1, _), (h2, ip2)) = (l.host(0), l.host(1));
                assert!(common::warm_up(&h1, ip2), "h1 cannot reach h2");
                let load = loadavg();
                let r =
                    endpoints.run(|| tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs)));
                let k = l.down();
                let mbps = r.as_ref().map(|r| r.server_bps / 1e6).unwrap_or(f64::NAN);
                println!(
                    "| {rep} | lighthouse | {mbps:.0} | {load:.2} | drops {} port_drops {} max_poll_gap {} us |",
                    k.dropped_total(),
                    k.port_drops,
                    k.max_poll_gap_ns / 1000
                );
                lh.push(mbps);
            } else {
                let b = Bridge::up();
                let ((h1, _), (h2, ip2)) = (b.host(0), b.host(1));
                assert!(common::warm_up(&h1, ip2), "bridge: h1 cannot reach h2");
                let load = loadavg();
                let r =
                    endpoints.run(|| tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs)));
                drop(b);
                let mbps = r.as_ref().map(|r| r.server_bps / 1e6).unwrap_or(f64::NAN);
                println!("| {rep} | bridge | {mbps:.0} | {load:.2} | |");
                br.push(mbps);
            }
        }
    }
    let (ml, mb) = (median(&lh), median(&br));
    println!(
        "\nmedian of {reps} x {secs} s: lighthouse {ml:.0} Mb/s, bridge {mb:.0} Mb/s, ratio {:.2} (load {:.2})",
        ml / mb,
        loadavg()
    );
}
