//! Times schedule generation (release): `cargo run --release -p lighthouse-ctrl
//! --example bench_schedule [tors] [uplinks]` (default Opera 108 x 6).

use lh_ctrl::schedule::{self, opera::DEFAULT_SEED};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(108, |a| a.parse().expect("tors"));
    let u: usize = args.next().map_or(6, |a| a.parse().expect("uplinks"));

    let reps = 5;
    let mut best = f64::MAX;
    let mut plan = None;
    for _ in 0..reps {
        let t = Instant::now();
        let p = schedule::opera::plan(n, u, DEFAULT_SEED).expect("opera plan");
        best = best.min(t.elapsed().as_secs_f64());
        plan = Some(p);
    }
    let p = plan.expect("at least one rep");
    println!(
        "opera {n}x{u}: plan best of {reps} = {:.1} ms, diameter {} hops, stable-rotor diameter {:?}",
        best * 1e3,
        p.diameter,
        p.stable_diameter
    );

    let t = Instant::now();
    let s = schedule::opera(n, u, DEFAULT_SEED).expect("opera schedule");
    println!(
        "opera {n}x{u}: full schedule {:.1} ms, {} slices, {} directed circuits",
        t.elapsed().as_secs_f64() * 1e3,
        s.slices(),
        s.circuit_count()
    );

    let t = Instant::now();
    let rr = schedule::round_robin(n, u).expect("round robin");
    println!(
        "round robin {n}x{u}: {:.2} ms, {} slices",
        t.elapsed().as_secs_f64() * 1e3,
        rr.slices()
    );
}
