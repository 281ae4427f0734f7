//! The paper's Fig. 6 with the Rust user API: a round-robin optical
//! schedule, direct-path routing, per-hop time-flow tables and a monitoring
//! request — then a custom topology written with `connect()`.
//!
//! cargo run -p lighthouse-ctrl --example fig6 [topologies/rotornet-8.json]

use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::net::LighthouseNet;
use lh_ctrl::schedule::{Schedule, ScheduleError, Topo};

/// A user-defined `topo()`: the circle method of Fig. 6(b), one uplink.
struct MyRoundRobin;

impl Topo for MyRoundRobin {
    fn slices(&self, tors: usize, _uplinks: usize) -> Result<usize, ScheduleError> {
        if tors % 2 == 1 {
            return Err(ScheduleError::Infeasible(
                "needs an even number of ToRs".into(),
            ));
        }
        Ok(tors - 1)
    }

    fn build(&self, s: &mut Schedule) -> Result<(), ScheduleError> {
        let n = s.tors();
        let mut tors: Vec<u16> = (0..n as u16).collect();
        for ts in 0..n - 1 {
            for i in 0..n / 2 {
                let (a, b) = (tors[i], tors[n - 1 - i]);
                s.connect((a, 0).into(), (b, 0).into(), ts as u16)?;
            }
            let last = tors.pop().unwrap();
            tors.insert(1, last);
        }
        Ok(())
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "topologies/rotornet-8.json".into());
    let mut net = LighthouseNet::load(path.as_ref()).unwrap_or_else(|e| panic!("{e}"));

    assert!(net.round_robin(), "Invalid Topology.");
    let paths = net.direct().expect("direct routing");
    let tables = net
        .entries(&paths, Lookup::Hop, Multipath::None)
        .expect("entries");
    net.buffer_usage(None, None, "1ms".parse().unwrap());
    println!(
        "round_robin: {} slices, {} paths, {} entries, {} monitoring requests",
        net.schedule().slices(),
        paths.paths.len(),
        tables.total_entries(),
        net.monitors().len()
    );

    // The same with a user-defined topo().
    let ocs = net
        .topo(&MyRoundRobin)
        .expect("custom topology verifies against the cabling");
    let paths = net.direct().expect("direct routing");
    println!(
        "custom topo: {} slices, {} OCS circuits, neighbours of ToR 0 in slice 0: {:?}",
        net.schedule().slices(),
        ocs.circuit_count(),
        net.neighbors(0, 0)
    );
    let p = net.earliest_path(0, 3, 0, 1).expect("a direct path exists");
    println!("earliest direct path ToR 0 -> ToR 3 arriving in slice 0: {p:?}");
    assert_eq!(paths.paths.len(), 8 * 7 * 7);
}
