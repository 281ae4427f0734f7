//! `lighthouse sim`: the network in virtual time (docs/virtual-time.md):
//! the native ToR and OCS engine with simulated hosts, no namespaces, no
//! root, the same result on every run.

use anyhow::Context;
use lh_experiments::Progress;
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// `lighthouse sim`'s flags.
#[derive(clap::Args, Debug)]
pub struct SimArgs {
    pub config: PathBuf,
    /// `native` only (BMv2 runs in real time).
    #[arg(long, default_value = "native")]
    pub tor: String,
    /// Ping SRC -> DST COUNT times instead of pingall.
    #[arg(long, num_args = 2, value_names = ["SRC", "DST"])]
    pub ping: Option<Vec<String>>,
    /// --ping's echoes, or --memcached's SETs per client (default 1 and
    /// 100).
    #[arg(long)]
    pub count: Option<usize>,
    /// Between --ping's echoes, or --memcached's SETs (virtual time).
    #[arg(long, default_value = "1ms")]
    pub interval: String,
    /// How long each echo is waited for (virtual time).
    #[arg(long, default_value = "1s")]
    pub timeout: String,
    /// The CLI's `memcached` verb in virtual time: a server and SET
    /// clients (default: every other host), --count SETs each, one every
    /// --interval (fixed, as the CLI's), of --size bytes.
    #[arg(long, num_args = 1.., value_names = ["SERVER", "CLIENT"], conflicts_with_all = ["ping", "workload"])]
    pub memcached: Option<Vec<String>>,
    /// --memcached: value bytes per SET.
    #[arg(long, default_value_t = 4200)]
    pub size: usize,
    /// Run the workload generator's TCP flows instead of pings: a size
    /// distribution (websearch, hadoop, kvstore, or a CDF file).
    #[arg(long, value_name = "CDF", conflicts_with = "ping")]
    pub workload: Option<String>,
    /// Replay a flow list in htsim's format (`src dst bytes start_ns` per
    /// line, hosts from 0: the Opera authors' published flow lists) over
    /// TCP, each flow on its own connection at its start time (with
    /// `routing.bulk: rotorlb`, flows of at least the bulk threshold as
    /// RotorLB bulk, as the authors' hosts send them).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["ping", "workload", "memcached"])]
    pub flows: Option<PathBuf>,
    /// --workload, --flows: write one CSV line per flow (src, dst, bytes,
    /// start, FCT, retransmits, timeouts; an unfinished flow has no FCT).
    #[arg(long, value_name = "FILE")]
    pub fct_csv: Option<PathBuf>,
    /// --workload, --flows: how long after the last start the flows may
    /// take to finish (virtual time; default: --timeout).
    #[arg(long)]
    pub drain: Option<String>,
    /// --workload: offered load per host, a fraction of its link rate.
    #[arg(long, default_value_t = 0.1)]
    pub load: f64,
    /// --workload: how long flows arrive (virtual time).
    #[arg(long, default_value = "10ms")]
    pub duration: String,
    /// --workload: permutation, all-to-all or incast[:N].
    #[arg(long, default_value = "all-to-all")]
    pub pattern: String,
    /// The seed of --workload's traffic and of --host-delay's draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Each host's receive path, from a frame's last bit to its stack and
    /// application (virtual time; default 0, an ideal host). A list
    /// (`40us,55us,120us`) draws each batch's delay from it, uniformly,
    /// seeded by --seed: a live host's delay varies. The path wakes once
    /// per batch: frames that arrive while others wait go up with them.
    #[arg(long, default_value = "0ns", value_name = "T[,T...]")]
    pub host_delay: String,
    /// One JSON object on stdout (deterministic: no wall time).
    #[arg(long)]
    pub json: bool,
    /// No progress line and no wall-time summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Wall time before a run shows its progress: shorter runs draw nothing.
const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// Progress on a terminal's stderr for a run longer than
/// [`PROGRESS_AFTER`]: virtual time simulated against wall time, and
/// frame-hops a second. The library only reports ([`lh_sim::Sim::on_progress`]);
/// the spinner is drawn here, and nothing is drawn off a terminal.
fn show_progress(sim: &mut lh_sim::Sim, t0: Instant) -> Rc<RefCell<Option<Progress>>> {
    let bar = Rc::new(RefCell::new(None::<Progress>));
    if !std::io::stderr().is_terminal() {
        return bar;
    }
    let shown = Rc::clone(&bar);
    let mut last = Duration::ZERO;
    sim.on_progress(move |s| {
        let wall = t0.elapsed();
        if wall < PROGRESS_AFTER || wall - last < Duration::from_millis(100) {
            return;
        }
        last = wall;
        let mut b = shown.borrow_mut();
        let p = b.get_or_insert_with(|| Progress::spinner("sim"));
        p.set_elapsed(wall);
        p.message(&progress_message(s, wall));
    });
    bar
}

/// The progress line's text.
fn progress_message(s: lh_sim::Stats, wall: Duration) -> String {
    let w = wall.as_secs_f64().max(1e-9);
    format!(
        "simulated {:.3} ms ({:.3} ms a second), {:.2} M frame-hops/s",
        s.simulated_ns as f64 / 1e6,
        s.simulated_ns as f64 / 1e6 / w,
        s.frame_hops as f64 / w / 1e6
    )
}

/// A host name (`h3`) to its number (3).
fn host(sim: &lh_sim::Sim, flag: &str, name: &str) -> anyhow::Result<usize> {
    name.strip_prefix('h')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| (1..=sim.hosts()).contains(&n))
        .with_context(|| format!("{flag}: no host {name:?} (h1..h{})", sim.hosts()))
}

fn nanos(flag: &str, v: &str) -> anyhow::Result<u64> {
    v.parse::<lh_ctrl::units::Nanos>()
        .map(|n| n.0)
        .map_err(|e| anyhow::anyhow!("{flag} {v:?}: {e}"))
}

/// `--fct-csv`: one line per flow (`lh_emu::traffic::workload::fct::csv`).
fn write_fct_csv(
    path: Option<&std::path::Path>,
    recs: &[lh_emu::traffic::workload::fct::FlowRecord],
) -> anyhow::Result<()> {
    if let Some(p) = path {
        std::fs::write(p, lh_emu::traffic::workload::fct::csv(recs))
            .with_context(|| format!("--fct-csv {}", p.display()))?;
    }
    Ok(())
}

pub fn sim(a: SimArgs) -> anyhow::Result<ExitCode> {
    let cfg = lh_ctrl::config::Config::load(&a.config)?;
    lh_sim::check(&cfg, &a.tor)?;
    let interval = nanos("--interval", &a.interval)?;
    let timeout = nanos("--timeout", &a.timeout)?;
    let c = lh_ctrl::compile::compile(&cfg).context("compiling the configuration")?;
    let opts = lh_sim::SimOptions {
        host_rx_ns: a
            .host_delay
            .split(',')
            .map(|t| nanos("--host-delay", t.trim()))
            .collect::<anyhow::Result<_>>()?,
        host_rx_seed: a.seed,
        ..Default::default()
    };
    // The hosts' TCP from the config (refused, naming the field, where
    // the simulated stack cannot do what it asks), if anything uses TCP.
    let tcp = if a.memcached.is_some() || a.workload.is_some() || a.flows.is_some() {
        lh_sim::TcpConfig::from_host_tcp(cfg.hosts.as_ref().and_then(|h| h.tcp.as_ref()))?
    } else {
        lh_sim::TcpConfig::default()
    };
    let drain = a
        .drain
        .as_deref()
        .map_or(Ok(timeout), |d| nanos("--drain", d))?;
    if a.fct_csv.is_some() && a.workload.is_none() && a.flows.is_none() {
        anyhow::bail!("--fct-csv: only with --workload or --flows");
    }
    let mut sim = lh_sim::Sim::new(&c, opts)?;
    let t0 = Instant::now();
    let bar = if a.quiet {
        Rc::default()
    } else {
        show_progress(&mut sim, t0)
    };
    let mut out = serde_json::Map::new();
    let ok = match (&a.ping, &a.workload) {
        _ if a.memcached.is_some() => {
            let names = a.memcached.as_deref().unwrap_or_default();
            let server = host(&sim, "--memcached", &names[0])? - 1;
            let clients: Vec<usize> = if names.len() > 1 {
                names[1..]
                    .iter()
                    .map(|n| host(&sim, "--memcached", n).map(|h| h - 1))
                    .collect::<anyhow::Result<_>>()?
            } else {
                (0..sim.hosts())
                    .filter(|&h| h != server)
                    .step_by(2)
                    .collect()
            };
            let load = lh_emu::traffic::apps::memcached::SetLoad {
                count: a.count.unwrap_or(100),
                size: a.size,
                interval: std::time::Duration::from_nanos(interval),
                poisson: None,
            };
            let recs = lh_sim::apps::memcached(
                &mut sim,
                server,
                &clients,
                &load,
                tcp,
                timeout.saturating_mul(load.count as u64 + 1),
            )?;
            let name = |h: usize| format!("h{}", h + 1);
            let m = lh_emu::net::values::Memcached {
                server: name(server),
                clients: clients.iter().map(|&h| name(h)).collect(),
                latencies_ns: recs.iter().filter_map(|r| r.fct_ns).collect(),
                summary: lh_emu::traffic::workload::fct::summarize(
                    &recs,
                    lh_emu::traffic::workload::fct::Buckets::default(),
                ),
                records: recs,
                // Virtual: the value's wall time is not part of the result.
                elapsed_s: 0.0,
            };
            if !a.json {
                print!("{}", lh_emu::text::view::memcached(&m));
            }
            let ok = m.latencies_ns.len() == m.records.len();
            out.insert("memcached".into(), serde_json::to_value(&m)?);
            ok
        }
        _ if a.flows.is_some() => {
            use lh_emu::traffic::workload::{fct, flowfile};
            let path = a.flows.as_deref().expect("checked");
            let specs =
                flowfile::load(path, sim.hosts()).map_err(|e| anyhow::anyhow!("--flows {e}"))?;
            let recs = lh_sim::apps::flows(&mut sim, &specs, tcp, drain)?;
            let sum = fct::summarize(&recs, fct::Buckets::default());
            if !a.json {
                println!("*** {} TCP flows from {}", specs.len(), path.display());
                print!("{}", sum.table());
            }
            write_fct_csv(a.fct_csv.as_deref(), &recs)?;
            out.insert("flows".into(), serde_json::to_value(&sum)?);
            recs.iter().all(|r| r.fct_ns.is_some())
        }
        (None, Some(w)) => {
            use lh_emu::traffic::workload::{arrivals, fct, load_cdf};
            if !(a.load > 0.0 && a.load <= 1.0) {
                anyhow::bail!("--load {}: a fraction of the link rate in (0, 1]", a.load);
            }
            let cdf = load_cdf(w).map_err(|e| anyhow::anyhow!("--workload {w}: {e}"))?;
            let pattern: arrivals::Pattern = a
                .pattern
                .parse()
                .map_err(|e| anyhow::anyhow!("--pattern: {e}"))?;
            let spec = arrivals::Spec {
                hosts: sim.hosts(),
                pattern,
                load: a.load,
                host_bps: cfg.tors.host_link_rate.0 as f64,
                duration_ns: nanos("--duration", &a.duration)?,
                max_flows: usize::MAX,
                seed: a.seed,
            };
            let specs = arrivals::generate(&cdf, &spec);
            let recs = lh_sim::apps::flows(&mut sim, &specs, tcp, drain)?;
            write_fct_csv(a.fct_csv.as_deref(), &recs)?;
            let sum = fct::summarize(&recs, fct::Buckets::default());
            if !a.json {
                println!(
                    "*** {} TCP flows ({w}, {}, load {}) over {}",
                    specs.len(),
                    a.pattern,
                    a.load,
                    a.duration
                );
                print!("{}", sum.table());
            }
            out.insert("flows".into(), serde_json::to_value(&sum)?);
            recs.iter().all(|r| r.fct_ns.is_some())
        }
        (Some(p), _) => {
            let (s, d) = (host(&sim, "--ping", &p[0])?, host(&sim, "--ping", &p[1])?);
            let rtts = sim.ping(s, d, a.count.unwrap_or(1), interval, timeout)?;
            if !a.json {
                for (i, r) in rtts.iter().enumerate() {
                    match r {
                        Some(ns) => println!(
                            "{} -> {}: seq {} time={:.3} ms",
                            p[0],
                            p[1],
                            i + 1,
                            *ns as f64 / 1e6
                        ),
                        None => println!("{} -> {}: seq {} no reply", p[0], p[1], i + 1),
                    }
                }
            }
            out.insert("ping".into(), serde_json::to_value(&rtts)?);
            rtts.iter().all(Option::is_some)
        }
        (None, None) => {
            let p = sim.pingall(timeout)?;
            if !a.json {
                print!("{}", lh_emu::text::view::ping(&p));
            }
            let ok = p.sent == p.received;
            out.insert("pingall".into(), serde_json::to_value(&p)?);
            ok
        }
    };
    if let Some(p) = bar.borrow().as_ref() {
        p.finish();
    }
    let c = sim.counters();
    let stats = sim.stats();
    let wall = t0.elapsed().as_secs_f64();
    // What the calendar queues did with frames that missed their slice
    // (rerouted to an alternate or a later slice on the same circuit,
    // deferred a cycle, carried over a slice end) and late source-route
    // hops sent on a circuit still up.
    let misses = serde_json::json!({
        "rerouted": c.rerouted,
        "deferred": c.deferred,
        "carried_over": c.carried_over,
        "late_hops": c.late_hops,
    });
    // RotorLB (`routing.bulk: rotorlb`): bulk frames sent on a direct
    // circuit (first hop or a relay's second) and to a relay.
    let bulk = serde_json::json!({
        "direct": c.bulk_direct,
        "indirect": c.bulk_indirect,
    });
    if a.json {
        out.insert("slice_misses".into(), misses);
        out.insert("rotorlb".into(), bulk);
        out.insert("stats".into(), serde_json::to_value(stats)?);
        out.insert("conservation_holds".into(), c.conservation_holds().into());
        println!("{}", serde_json::Value::Object(out));
    } else {
        // The `drops` verb's text: every reason and the conservation line.
        print!("{}", lh_emu::text::render::format_counters(&c));
        println!(
            "*** slice misses: rerouted {} deferred {} carried_over {} late_hops {}",
            c.rerouted, c.deferred, c.carried_over, c.late_hops
        );
        if c.bulk_direct + c.bulk_indirect > 0 {
            println!(
                "*** rotorlb: direct {} indirect {}",
                c.bulk_direct, c.bulk_indirect
            );
        }
    }
    // Wall time is not part of the (deterministic) result: stderr.
    if !a.quiet {
        eprintln!(
            "*** Simulated {:.3} ms in {:.3} s: {} frame-hops ({:.2} M/s), {} polls",
            stats.simulated_ns as f64 / 1e6,
            wall,
            stats.frame_hops,
            stats.frame_hops as f64 / wall.max(1e-9) / 1e6,
            stats.polls
        );
    }
    Ok(if ok && c.conservation_holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
