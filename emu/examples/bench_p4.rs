//! TCP through a path that crosses one BMv2 ToR, next to the same path
//! through native ToRs, through a Linux bridge, and through stock BMv2
//! running BMv2's own `simple_router` example (the reference a P4 ToR must
//! reach, issue 24), in one run (docs/benchmarks.md, "P4 ToR on BMv2").
//! static-2: h1 - s1 - circuit - s2 - h2, the circuit always up; `bmv2`
//! puts s2 on stock BMv2 (default build, no per-packet log). Without
//! simple_router's files (`StockRouter`) that column is skipped, and says
//! so. For each BMv2 system, the switch's CPU time over the flow per frame
//! the two hosts sent (data and ACKs): BMv2's own per-packet cost. With
//! `PATH=/opt/p4-perf/bin:$PATH` both run on the performance build
//! (scripts/build-bmv2-perf.sh).
//!
//!     cargo run --release -p lighthouse-emu --example bench_p4 -- [SECS] [REPS]

#[path = "bench_common/mod.rs"]
mod common;

use common::{Bridge, Lighthouse, StockRouter, SwitchCost, loadavg, median};
use lh_emu::traffic::probe::{Amount, tcp_flow};

fn main() {
    common::require_root();
    if let Err(e) = bmv2_thrift::toolchain() {
        eprintln!("bench_p4: {e}");
        std::process::exit(2);
    }
    let mut args = std::env::args().skip(1);
    let secs: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5.0);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let cfg = common::load("static-2.json");
    let c = lh_ctrl::compile::compile(&cfg).expect("compiling static-2");
    let router = common::simple_router_json();
    if router.is_none() {
        println!(
            "SKIPPED simple_router: BMv2's simple_router.json not found (set LH_SIMPLE_ROUTER to its folder)"
        );
    }
    // `bmv2:s2 unpaced`: swtor writes onto the BMv2 ToR's uplink at once,
    // as before pacing (docs/p4.md, "Pacing").
    let mut systems = vec!["native", "bmv2:s2", "bridge", "bmv2:s2 unpaced"];
    if router.is_some() {
        systems.push("simple_router");
    }
    let mut got: Vec<Vec<f64>> = vec![Vec::new(); systems.len()];
    println!("| rep | system | Mb/s | load avg | notes |");
    println!("|---:|---|---:|---:|---|");
    for rep in 0..reps {
        // Rotate the order so a load change does not favour one system.
        for k in 0..systems.len() {
            let i = (k + rep) % systems.len();
            let (mbps, notes) = if systems[i] == "simple_router" {
                let json = router.as_deref().expect("only listed when found");
                let r = StockRouter::up(json).unwrap_or_else(|e| panic!("simple_router: {e}"));
                let ((h1, _), (h2, ip2)) = (r.host(0), r.host(1));
                assert!(
                    common::warm_up(&h1, ip2),
                    "simple_router: h1 cannot reach h2"
                );
                let cost = SwitchCost::start(&h1, &h2);
                let t = tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs));
                let us = cost.us_per_frame(&h1, &h2);
                drop(r);
                (
                    t.map(|t| t.server_bps / 1e6).unwrap_or(f64::NAN),
                    format!("switch CPU {us:.1} us/frame"),
                )
            } else if systems[i] == "bridge" {
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
                let (tors, pace) = match systems[i].strip_suffix(" unpaced") {
                    Some(t) => (t, false),
                    None => (systems[i], true),
                };
                let l = Lighthouse::try_up_paced(&cfg, &c, tors, pace)
                    .unwrap_or_else(|e| panic!("{e}"));
                let ((h1, _), (h2, ip2)) = (l.host(0), l.host(1));
                assert!(
                    common::warm_up(&h1, ip2),
                    "{}: h1 cannot reach h2",
                    systems[i]
                );
                let cost = SwitchCost::start(&h1, &h2);
                let r = tcp_flow(Some(&h1), Some(&h2), ip2, Amount::Seconds(secs));
                let us = cost.us_per_frame(&h1, &h2);
                // Once drained: what BMv2 lost (frames that entered its
                // ports and never came out), and how many departure tags
                // came too late (docs/p4.md, "Pacing").
                std::thread::sleep(std::time::Duration::from_millis(300));
                let p4c = l.p4.as_ref().and_then(|t| t.counters().ok());
                let k = l.down();
                let t = lh_emu::tor::fabric::Totals::of(&k, p4c.as_ref());
                let bmv2 = if p4c.is_some() {
                    format!(
                        " lost inside BMv2 {} of {} sent to it, late tags {} of {}, switch CPU {us:.1} us/frame",
                        t.in_bmv2, k.to_external, k.late_from_tor, k.from_external
                    )
                } else {
                    String::new()
                };
                (
                    r.map(|r| r.server_bps / 1e6).unwrap_or(f64::NAN),
                    format!(
                        "swtor drops {} (tor_backlog {}) port_drops {}{bmv2}",
                        k.dropped_total(),
                        k.dropped(swtor::DropReason::TorBacklog),
                        k.port_drops
                    ),
                )
            };
            println!(
                "| {rep} | {} | {mbps:.1} | {:.2} | {notes} |",
                systems[i],
                loadavg()
            );
            got[i].push(mbps);
        }
    }
    let m: Vec<f64> = got.iter().map(|v| median(v)).collect();
    println!(
        "\nmedian of {reps} x {secs} s: native {:.0} Mb/s, one BMv2 ToR {:.1} Mb/s, bridge {:.0} Mb/s; BMv2/bridge {:.3}, native/bridge {:.2}, BMv2/native {:.3} (load {:.2})",
        m[0],
        m[1],
        m[2],
        m[1] / m[2],
        m[0] / m[2],
        m[1] / m[0],
        loadavg()
    );
    println!(
        "one BMv2 ToR paced / unpaced: {:.2} ({:.1} vs {:.1} Mb/s)",
        m[1] / m[3],
        m[1],
        m[3]
    );
    if router.is_some() {
        println!(
            "one BMv2 ToR / stock simple_router: {:.2} ({:.1} vs {:.1} Mb/s)",
            m[1] / m[4],
            m[1],
            m[4]
        );
    }
}
