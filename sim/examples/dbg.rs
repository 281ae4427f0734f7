use lh_sim::{Sim, TcpConfig, apps};
fn main() {
    let name = std::env::args().nth(1).unwrap();
    let upl: u64 = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(0);
    let text = std::fs::read_to_string(format!("topologies/{name}.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["tors"]["link_rate"] = "100Gbps".into();
    v["tors"]["host_link_rate"] = "100Gbps".into();
    v["tors"]["hosts_per_tor"] = 1.into();
    if upl > 0 {
        v["tors"]["uplinks"] = upl.into();
        v["ocs"]["count"] = upl.into();
    }
    let cfg = lh_ctrl::config::Config::from_json(&v.to_string(), "x").unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let mut sim = Sim::new(&c, Default::default()).unwrap();
    let load = lh_emu::traffic::apps::memcached::SetLoad {
        count: 500,
        size: 4200,
        interval: std::time::Duration::from_millis(1),
        poisson: Some(1),
    };
    let ring: Vec<usize> = (0..8).collect();
    let t0 = sim.now();
    let r = apps::memcached(
        &mut sim,
        0,
        &ring[1..],
        &load,
        TcpConfig::default(),
        60_000_000_000,
    )
    .unwrap();
    let slice = 100_000u64;
    let mut slow = 0;
    for x in &r {
        let f = x.fct_ns.unwrap();
        if f > 300_000 {
            slow += 1;
            if slow < 12 {
                println!(
                    "src {} start {} (slice {} +{} ns) fct {} retr {}",
                    x.flow.src,
                    x.flow.start_ns,
                    (x.flow.start_ns + t0) / slice % 7,
                    (x.flow.start_ns + t0) % slice,
                    f,
                    x.retrans
                );
            }
        }
    }
    println!(
        "slow {slow} of {}; counters {}",
        r.len(),
        serde_json::to_string(&sim.counters())
            .unwrap()
            .chars()
            .take(700)
            .collect::<String>()
    );
}
