//! `lighthouse`: compile, show, run, clean.

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use lh_emu::cli::Cli;
use lh_emu::compile_cmd::MemoryLimit;
use lh_emu::network::{Network, NetworkOptions};
use lh_emu::orchestrator::NetOptions;
use lh_emu::{clean, compile_cmd, exitguard, signals, state};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "lighthouse",
    version,
    about = "Emulate an optical data-center network on one machine"
)]
struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TestKind {
    Pingall,
    Pingpair,
    Iperf,
    Iperfudp,
    /// pingall, then iperf (Mininet's `all`).
    All,
    /// Bring the network up and down only.
    Build,
    None,
}

// One `Cmd` is parsed per process: the size of `Run`'s flags costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Cmd {
    /// Bring up the emulated network for CONFIG and open the CLI.
    Run {
        #[arg(required_unless_present_any = ["topo", "topo_json"])]
        config: Option<PathBuf>,
        /// Mininet topologies instead of CONFIG (docs/mininet.md).
        #[command(flatten)]
        mn: lh_emu::mntopo::MnArgs,
        #[command(flatten)]
        mn_compat: lh_emu::mnflags::MnCompat,
        /// Deterministic host MACs 00:00:00:00:00:KK (Mininet --mac).
        #[arg(long)]
        mac: bool,
        /// Static ARP entries for every host (Mininet --arp).
        #[arg(long)]
        arp: bool,
        /// Run one test instead of the CLI, then tear down (Mininet --test).
        #[arg(long, value_enum)]
        test: Option<TestKind>,
        /// Run CLI commands from FILE instead of the interactive prompt.
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
        /// Run prefix (lh + 4 hex digits) instead of a random one.
        #[arg(long, value_name = "P")]
        prefix: Option<String>,
        /// Debugging: namespaces and veths only, no compile and no data plane.
        #[arg(long, hide = true)]
        no_fabric: bool,
        /// Which ToRs run the Lighthouse P4 program on BMv2: `native` (all
        /// native, the default), `bmv2` (all) or `bmv2:s3,s5` (a mixed fabric).
        #[arg(long, value_name = "TARGETS", default_value = "native")]
        tor: String,
        /// The P4 program for BMv2 ToRs (default: the shipped p4/lighthouse.p4).
        #[arg(long, value_name = "FILE")]
        p4: Option<PathBuf>,
        /// BMv2's per-packet log (`--log-console`) into the run's state
        /// directory; BMv2 then forwards a few times slower.
        #[arg(long)]
        p4_log: bool,
        /// Testing the crash path: panic on the main thread ("main") or on
        /// another thread ("thread") once the run is up.
        #[arg(long, hide = true, value_name = "WHERE")]
        debug_panic: Option<String>,
        /// Sample the config's `monitoring` section (buffer_usage,
        /// bw_usage) as JSON lines into FILE, or `-` for stdout
        /// (docs/cli.md#telemetry).
        #[arg(long, value_name = "FILE|-")]
        telemetry: Option<PathBuf>,
        /// TA mode: every `ta.update_interval`, recompute the topology from
        /// the live traffic matrix and reconfigure (docs/dataplane.md).
        #[arg(long)]
        ta_live: bool,
        /// Refuse configs whose estimated memory exceeds SIZE (e.g. 4GiB;
        /// default: the machine's available memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
    },
    /// Remove the namespaces, processes and state of lighthouse runs.
    /// Live runs are asked to stop (SIGTERM) and killed only after a timeout.
    Clean {
        /// Only this run.
        #[arg(long, value_name = "P")]
        prefix: Option<String>,
        /// Only runs whose lighthouse process is gone; live runs are kept.
        #[arg(long, conflicts_with = "prefix")]
        stale: bool,
    },
    /// Compile CONFIG into schedule, routes and time-flow tables.
    Compile {
        config: PathBuf,
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Tables file written by --out: `binary` (tables.lht, schema in
        /// docs/compile-format.md), `json` (tables.json), or `auto`: JSON up
        /// to 50,000 entries, else binary.
        #[arg(long, value_enum, default_value = "auto")]
        format: compile_cmd::OutFormat,
        /// Refuse configs whose estimated memory exceeds SIZE (e.g. 4GiB;
        /// default: the machine's available memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
    },
    /// The P4 program: `lighthouse p4 check` smoke-tests a change to it.
    P4 {
        #[command(subcommand)]
        cmd: P4Cmd,
    },
    /// Reproduce a table or figure of the paper, scaled to this machine
    /// (docs/experiments.md). table2/table3 run in virtual time and write
    /// JSON and a bar chart (SVG and PNG beside it); the figures (fig8,
    /// fig9, fig10, fig13), otcp and sopa drive live runs, print a table,
    /// write a CSV and a plot (SVG and PNG), and exit 1 if the paper's
    /// shape does not hold.
    Experiment {
        which: ExperimentKind,
        /// Figures: fewer samples and settings (under a minute, for CI).
        #[arg(long)]
        quick: bool,
        /// Tables: a config instead of the built-in scaled setting.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Where the results go: tables, a JSON file (default
        /// experiment.json); figures, a directory (default ./results/NAME/).
        #[arg(long, value_name = "FILE|DIR")]
        out: Option<PathBuf>,
        /// Load: table3, what hosts offer as a fraction of each ToR's
        /// uplink capacity (default 0.7); table2, the core link utilization
        /// to reach (default 0.4, the paper's), hosts offering it divided by
        /// the routing's mean hop count.
        #[arg(long)]
        load: Option<f64>,
        /// Traffic time in virtual milliseconds (table3 20, table2 100).
        #[arg(long)]
        duration_ms: Option<u64>,
        /// Random seed of the traffic.
        #[arg(long)]
        seed: Option<u64>,
        /// Table 2: calendar queues per uplink a ToR keeps when offloading
        /// (default 1).
        #[arg(long)]
        offload_queues: Option<usize>,
        /// Fraction of the load sent as incast bursts (table3 default 0.3,
        /// table2 default 0).
        #[arg(long)]
        incast_share: Option<f64>,
    },
    /// Show one ToR's time-flow table or one slice's circuits.
    Show {
        config: PathBuf,
        /// A ToR index (0-based; ToR N is switch sN+1 in the CLI).
        #[arg(long, conflicts_with = "slice")]
        tor: Option<u16>,
        /// A slice index.
        #[arg(long)]
        slice: Option<u16>,
        /// Refuse configs whose estimated memory exceeds SIZE (e.g. 4GiB;
        /// default: the machine's available memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
    },
    /// Re-plot saved results: every fig*.csv (and otcp.csv, sopa.csv) in DIR
    /// and in its subdirectories gets its table, checks and plot (SVG and
    /// PNG) again, every table2.json and table3.json its bar chart.
    Report { dir: PathBuf },
    /// Course labs: `lab list`, `lab grade NN [--dir DIR]` (labs/README.md).
    #[command(subcommand)]
    Lab(lh_emu::lab::LabCmd),
}

/// Which paper experiment `lighthouse experiment` reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ExperimentKind {
    /// Table 2: ToR buffer usage of VLB (and offloaded), HOHO, UCMP.
    Table2,
    /// Table 3: slice-miss prevention in HOHO (detection, push-back).
    Table3,
    /// Fig. 8: mice and elephant FCT, TO vs TA architectures vs Clos.
    Fig8,
    /// Fig. 10: mice FCT on RotorNet vs slice duration, VLB vs UCMP.
    Fig10,
    /// Fig. 13: ping RTT steps per slice waited / extra hop.
    Fig13,
    /// Fig. 9: TCP throughput of direct vs VLB vs Clos, tcp_reordering 3 vs 5.
    Fig9,
    /// OTCP: incast FCT and timeouts, default TCP vs OTCP's parameters.
    Otcp,
    /// SOPA: permutation on a Fat-Tree, ECMP vs RPS vs SOPA vs Hedera.
    Sopa,
}

#[derive(Subcommand)]
enum P4Cmd {
    /// Compile (warnings are failures), run the conformance suite on the
    /// native ToR and on BMv2, then pingall on a mixed fabric; exit 0 only
    /// if every step passes.
    Check {
        /// The P4 program (default: the shipped p4/lighthouse.p4).
        #[arg(long, value_name = "FILE")]
        p4: Option<PathBuf>,
        /// The ToR that runs on BMv2 in the mixed fabric.
        #[arg(long, value_name = "sN", default_value = "s1")]
        tor: String,
        /// Config for the mixed-fabric pingall (default:
        /// topologies/rotornet-8-1ms.json).
        config: Option<PathBuf>,
    },
}

/// `eprintln!` that never panics: stderr may be a closed pipe
/// (`lighthouse run ... 2>&1 | head`), and a failed write must not kill the
/// thread that tears the run down.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

// The controller allocates millions of small paths and entries; mimalloc
// compiles opera-108 about a third faster than glibc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    // `compile` and `show` exit once they have printed or written the
    // tables: mimalloc's defaults suit them (lh_emu::alloc). Every other
    // command keeps a network or its tables alive and is tuned.
    if !matches!(args.cmd, Cmd::Compile { .. } | Cmd::Show { .. }) {
        lh_emu::alloc::tune();
    }
    // Mininet's `-v LEVEL` sets the log level unless LIGHTHOUSE_LOG does.
    let mut level = "warn";
    if let Cmd::Run { mn_compat, .. } = &args.cmd {
        if let Err(e) = mn_compat.check() {
            say!("lighthouse: error: {e}");
            return ExitCode::from(2);
        }
        if let Some(v) = &mn_compat.verbosity {
            level = lh_emu::mnflags::log_level(v).unwrap_or("warn");
        }
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("LIGHTHOUSE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr)
        .init();
    let r = match args.cmd {
        Cmd::Run {
            config,
            mn,
            mac,
            arp,
            test,
            script,
            prefix,
            no_fabric,
            tor,
            p4,
            p4_log,
            debug_panic,
            telemetry,
            ta_live,
            max_memory,
            mn_compat: _,
        } => run(RunArgs {
            config,
            mn,
            mac,
            arp,
            test,
            script,
            prefix,
            no_fabric,
            tor,
            p4,
            p4_log,
            debug_panic,
            telemetry,
            ta_live,
            max_memory: MemoryLimit(max_memory),
        }),
        Cmd::Clean { prefix, stale } => clean_cmd(prefix, stale),
        Cmd::P4 {
            cmd: P4Cmd::Check { p4, tor, config },
        } => {
            if !is_root() {
                Err(anyhow::anyhow!(
                    "`lighthouse p4 check` needs root (network namespaces)"
                ))
            } else {
                lh_emu::p4check::check(&lh_emu::p4check::CheckArgs { p4, config, tor }).map(|ok| {
                    if ok {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                })
            }
        }
        Cmd::Compile {
            config,
            out,
            format,
            max_memory,
        } => compile_cmd::compile_cmd(&config, out.as_deref(), format, MemoryLimit(max_memory))
            .map(|()| ExitCode::SUCCESS),
        Cmd::Experiment {
            which,
            quick,
            config,
            out,
            load,
            duration_ms,
            seed,
            offload_queues,
            incast_share,
        } => match which {
            ExperimentKind::Fig8
            | ExperimentKind::Fig9
            | ExperimentKind::Fig10
            | ExperimentKind::Fig13
            | ExperimentKind::Otcp
            | ExperimentKind::Sopa => {
                let table_only = [
                    ("--config", config.is_some()),
                    ("--load", load.is_some()),
                    ("--duration-ms", duration_ms.is_some()),
                    ("--offload-queues", offload_queues.is_some()),
                    ("--incast-share", incast_share.is_some()),
                ];
                figure_cmd(which, quick, out, seed, &table_only)
            }
            _ if quick => Err(anyhow::anyhow!(
                "--quick is for the figures ({}); table2 and table3 take --duration-ms",
                lh_emu::experiments::names().join(", ")
            )),
            _ => experiment_cmd(
                which,
                config,
                out.unwrap_or_else(|| PathBuf::from("experiment.json")),
                load,
                duration_ms,
                seed,
                offload_queues.unwrap_or(1),
                incast_share,
            ),
        },
        Cmd::Report { dir } => lh_emu::experiments::report(&dir).map(|ok| {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }),
        Cmd::Show {
            config,
            tor,
            slice,
            max_memory,
        } => compile_cmd::show_cmd(&config, tor, slice, MemoryLimit(max_memory))
            .map(|()| ExitCode::SUCCESS),
        Cmd::Lab(c) => lh_emu::lab::run(c).map_err(Into::into),
    };
    match r {
        Ok(c) => c,
        Err(e) => {
            say!("lighthouse: error: {}", render_error(&e));
            ExitCode::from(2)
        }
    }
}

/// `lighthouse experiment fig*`: exit 1 if the paper's shape does not hold.
fn figure_cmd(
    which: ExperimentKind,
    quick: bool,
    out: Option<PathBuf>,
    seed: Option<u64>,
    table_only: &[(&str, bool)],
) -> anyhow::Result<ExitCode> {
    let name = match which {
        ExperimentKind::Fig8 => "fig8",
        ExperimentKind::Fig10 => "fig10",
        ExperimentKind::Fig9 => "fig9",
        ExperimentKind::Otcp => "otcp",
        ExperimentKind::Sopa => "sopa",
        _ => "fig13",
    };
    if let Some((flag, _)) = table_only.iter().find(|(_, given)| *given) {
        anyhow::bail!(
            "{flag} is for table2 and table3; {name} takes --quick, --out DIR and --seed"
        );
    }
    if !is_root() {
        anyhow::bail!("`lighthouse experiment {name}` needs root (network namespaces)");
    }
    signals::install();
    let opts = lh_emu::experiments::Opts {
        quick,
        seed: seed.unwrap_or(1),
    };
    Ok(if lh_emu::experiments::run(name, &opts, out)? {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `lighthouse experiment`.
#[allow(clippy::too_many_arguments)]
fn experiment_cmd(
    which: ExperimentKind,
    config: Option<PathBuf>,
    out: PathBuf,
    load: Option<f64>,
    duration_ms: Option<u64>,
    seed: Option<u64>,
    offload_queues: usize,
    incast_share: Option<f64>,
) -> anyhow::Result<ExitCode> {
    use lh_emu::experiment;
    let cfg = config
        .map(|p| lh_ctrl::config::Config::load(&p))
        .transpose()?;
    let mut w = experiment::Workload::default();
    if let Some(l) = load {
        w.load = l;
    }
    if let Some(d) = duration_ms {
        w.duration_ns = d * 1_000_000;
    }
    if let Some(s) = seed {
        w.seed = s;
    }
    if let Some(x) = incast_share {
        w.incast_share = x;
    }
    // Table 2 runs for minutes: show that it is alive (a terminal only).
    let spin = lh_emu::experiments::Progress::spinner(&format!("{which:?}").to_lowercase());
    let text = match which {
        ExperimentKind::Table3 => experiment::table3(cfg, &w, &out)?,
        ExperimentKind::Table2 => {
            // The paper runs Table 2 at production load (40%), over
            // several 32.4 ms cycles of Opera-108 (docs/experiments.md).
            if load.is_none() {
                w.load = 0.4;
            }
            if duration_ms.is_none() {
                w.duration_ns = 100_000_000;
            }
            if incast_share.is_none() {
                w.incast_share = 0.0;
            }
            experiment::table2(cfg, &w, offload_queues, &out)?
        }
        ExperimentKind::Fig8
        | ExperimentKind::Fig9
        | ExperimentKind::Fig10
        | ExperimentKind::Fig13
        | ExperimentKind::Otcp
        | ExperimentKind::Sopa => {
            anyhow::bail!("{which:?} is a figure: run it through `lighthouse experiment`")
        }
    };
    spin.finish();
    let (text, checks) = text;
    let name = format!("{which:?}").to_lowercase();
    let (verdict, ok) = lh_emu::experiments::verdict(&name, &checks);
    print!("{text}\n{verdict}");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// An error and its causes as one statement: `context: error: cause`,
/// leaving out a cause whose text the message already holds (a library
/// error that prints its source, as `#[error("routing: {0}")]` does).
fn render_error(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if s.is_empty() || out.contains(&s) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&s);
    }
    out
}

fn parse_size(s: &str) -> Result<u64, String> {
    lh_ctrl::estimate::parse_size(s)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn clean_cmd(prefix: Option<String>, stale: bool) -> anyhow::Result<ExitCode> {
    if let Some(p) = &prefix
        && !state::valid_prefix(p)
    {
        anyhow::bail!("invalid prefix {p:?}: expected lh + 4 hex digits, e.g. lh3f2a");
    }
    if !is_root() {
        anyhow::bail!("`lighthouse clean` needs root (network namespaces)");
    }
    let scope = match (&prefix, stale) {
        (Some(p), _) => clean::Scope::Prefix(p),
        (None, true) => clean::Scope::Stale,
        (None, false) => clean::Scope::All,
    };
    say!(
        "*** Removing {}lighthouse runs{}",
        if stale { "dead " } else { "" },
        prefix
            .as_ref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default()
    );
    let rep = clean::clean_with(scope, &mut |l| say!("{l}"));
    for l in rep.lines() {
        say!("{l}");
    }
    say!("*** Cleanup complete.");
    Ok(if rep.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

struct RunArgs {
    config: Option<PathBuf>,
    mn: lh_emu::mntopo::MnArgs,
    mac: bool,
    arp: bool,
    test: Option<TestKind>,
    script: Option<PathBuf>,
    prefix: Option<String>,
    no_fabric: bool,
    tor: String,
    p4: Option<PathBuf>,
    p4_log: bool,
    debug_panic: Option<String>,
    telemetry: Option<PathBuf>,
    ta_live: bool,
    max_memory: MemoryLimit,
}

/// Held by whoever tears the run down: the main thread at the end, or the
/// signal watcher on SIGTERM/SIGINT.
static TEARDOWN: Mutex<()> = Mutex::new(());
static DONE: AtomicBool = AtomicBool::new(false);

fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    let t_start = Instant::now();
    if let Some(p) = &a.prefix
        && !state::valid_prefix(p)
    {
        anyhow::bail!("invalid --prefix {p:?}: expected lh + 4 hex digits, e.g. lh3f2a");
    }
    // The root check comes before any work: a non-root user must not wait
    // for (and allocate memory for) a compile that cannot be used.
    if !is_root() {
        anyhow::bail!("`lighthouse run` needs root (network namespaces, veths)");
    }
    // Everything that can be rejected is checked before any state exists.
    let mn = lh_emu::mntopo::prepare(a.config.as_deref(), &a.mn)?;
    let cfg = lh_ctrl::config::Config::load(&mn.config)?;
    let compiled = if a.no_fabric {
        None
    } else {
        a.max_memory.check(&cfg, lh_ctrl::estimate::Use::Run)?;
        let mut c = lh_ctrl::compile::compile(&cfg).context("compiling the configuration")?;
        // A run needs the schedule and the tables, not the paths they were
        // built from (on opera-108 a third of the compiled data): free them
        // before the data plane builds its index. OTCP (hosts.tcp.otcp) reads
        // the paths at bring-up and for the `otcp` verb, so keeps them.
        let otcp = cfg
            .hosts
            .as_ref()
            .and_then(|h| h.tcp.as_ref()?.otcp)
            .is_some();
        if !otcp {
            c.routes = Default::default();
        }
        Some(c)
    };
    if let Some(s) = &a.script
        && !s.is_file()
    {
        anyhow::bail!("--script {}: no such file", s.display());
    }
    signals::install();
    signals::save_tty();

    let mut plan = mn.plan(&cfg);
    for n in &mn.notes {
        say!("*** {n}");
    }
    plan.targets = lh_emu::target::parse(&a.tor, plan.tors)?;
    let p4_src = match &a.p4 {
        Some(f) if !f.is_file() => anyhow::bail!("--p4 {}: no such file", f.display()),
        Some(f) => lh_emu::p4tor::P4Source::File(f.clone()),
        None => lh_emu::p4tor::P4Source::Shipped,
    };
    if !plan.bmv2_tors().is_empty() {
        bmv2_thrift::toolchain().context("--tor bmv2")?;
        if a.no_fabric {
            anyhow::bail!("--tor bmv2 needs the data plane (not --no-fabric)");
        }
    } else if a.p4.is_some() {
        anyhow::bail!("--p4 needs BMv2 ToRs: add --tor bmv2 or --tor bmv2:s1,...");
    }
    say!(
        "*** Creating network ({} ToRs, {} hosts{})",
        plan.tors,
        plan.hosts.len(),
        cfg.name
            .as_ref()
            .map(|n| format!(", {n}"))
            .unwrap_or_default()
    );
    let opts = NetworkOptions {
        net: NetOptions {
            mac: a.mac,
            arp: a.arp,
            prefix: a.prefix.clone(),
            config: std::fs::canonicalize(&mn.config).ok(),
            host_tcp: cfg.hosts.as_ref().and_then(|h| h.tcp.clone()),
        },
        p4: p4_src,
        p4_log: a.p4_log,
        telemetry: a.telemetry.clone(),
        ta_live: a.ta_live,
    };
    let mut net = Network::bring_up(plan, compiled, opts)?;
    let prefix = net.prefix.clone();
    spawn_watcher(prefix.clone());
    install_panic_teardown(prefix.clone());
    if let Err(e) = net.start() {
        let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
        DONE.store(true, Ordering::Relaxed);
        drop(net);
        return Err(e.into());
    }
    let switches = net.p4_switches();
    if !switches.is_empty() {
        spawn_p4_monitor(prefix.clone(), switches);
    }
    match a.debug_panic.as_deref() {
        Some("main") => panic!("--debug-panic main"),
        Some("thread") => {
            let _ = std::thread::spawn(|| panic!("--debug-panic thread")).join();
            // The hook exits the process; never get here.
            std::thread::sleep(Duration::from_secs(5));
        }
        _ => {}
    }
    let mut ok = {
        let mut cli = Cli::new(&mut net);
        let ok = match (a.test, &a.script) {
            (Some(t), _) => run_test(&mut cli, t),
            (None, Some(s)) => match std::fs::File::open(s) {
                Ok(f) => {
                    let what = s.display().to_string();
                    let _ = cli.run_lines(std::io::BufReader::new(f), &what);
                    true
                }
                Err(e) => {
                    say!("*** Error: --script {}: {e}", s.display());
                    false
                }
            },
            (None, None) => {
                say!("*** Starting CLI:");
                cli.run_interactive();
                true
            }
        };
        ok && cli.input_errors == 0
    };
    let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
    DONE.store(true, Ordering::Relaxed);
    ok &= net.stop();
    say!(
        "completed in {:.3} seconds",
        t_start.elapsed().as_secs_f64()
    );
    if signals::terminating() {
        // Torn down because of a signal: not a clean success.
        return Ok(ExitCode::from(130));
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A P4 ToR's `simple_switch` that dies mid-run is reported and the run is
/// torn down (its namespaces hold nothing useful without it).
fn spawn_p4_monitor(prefix: String, switches: Vec<(String, bmv2_thrift::ProcessRecord)>) {
    std::thread::Builder::new()
        .name("lh-p4-monitor".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let Some((name, rec)) = switches.iter().find(|(_, r)| !r.is_running()) else {
                    continue;
                };
                let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
                if DONE.load(Ordering::Relaxed) {
                    return;
                }
                signals::restore_tty();
                say!(
                    "\n*** Error: BMv2 ToR {name} (simple_switch pid {}) died; its log ends:\n{}",
                    rec.pid,
                    bmv2_thrift::log_tail(&rec.log, 5)
                );
                say!("*** Tearing down {prefix}");
                let rep = clean::clean(clean::Scope::Prefix(&prefix));
                for l in rep.lines() {
                    say!("{l}");
                }
                std::process::exit(3);
            }
        })
        .expect("spawn P4 monitor");
}

fn run_test(cli: &mut Cli<'_>, t: TestKind) -> bool {
    match t {
        TestKind::Pingall => {
            let (s, r) = cli.net.pingall(None);
            s > 0 && s == r
        }
        TestKind::Pingpair => {
            if cli.net.plan.hosts.len() < 2 {
                say!("*** pingpair needs two hosts");
                return false;
            }
            let (s, r) = cli.net.ping(Some(&[0, 1]), None, false);
            s > 0 && s == r
        }
        TestKind::Iperf => {
            let n = cli.net.plan.hosts.len();
            n >= 2 && cli.net.iperf(0, n - 1, 5.0).is_some_and(|v| v[0] > 0.0)
        }
        TestKind::Iperfudp => cli.iperfudp("").is_some_and(|(srv, _)| srv > 0.0),
        TestKind::All => run_test(cli, TestKind::Pingall) && run_test(cli, TestKind::Iperf),
        TestKind::Build | TestKind::None => true,
    }
}

/// A panic on any thread ends the run: captures are closed and the run's
/// kernel objects removed before the process exits with 101 (the main
/// thread's drop guards would do it too, but not for other threads).
fn install_panic_teardown(prefix: String) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        // The main thread may hold the lock while it tears down itself.
        let Ok(_g) = TEARDOWN.try_lock() else {
            return;
        };
        if DONE.swap(true, Ordering::Relaxed) {
            return;
        }
        exitguard::run_all();
        say!("*** Internal error: tearing down {prefix}");
        let rep = clean::clean(clean::Scope::Prefix(&prefix));
        for l in rep.lines() {
            say!("{l}");
        }
        std::process::exit(101);
    }));
}

/// On SIGTERM/SIGHUP (or SIGINT outside the prompt) remove the run's kernel
/// objects and exit, even if the main thread is blocked in a read.
fn spawn_watcher(prefix: String) {
    std::thread::Builder::new()
        .name("lh-signals".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(50));
                if !signals::terminating() {
                    continue;
                }
                // Let the main thread finish its own teardown if it can.
                std::thread::sleep(Duration::from_millis(300));
                let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
                if DONE.load(Ordering::Relaxed) {
                    return;
                }
                signals::restore_tty();
                // Close captures first so their files are complete.
                exitguard::run_all();
                say!("\n*** Signal: tearing down {prefix}");
                let rep = clean::clean(clean::Scope::Prefix(&prefix));
                for l in rep.lines() {
                    say!("{l}");
                }
                std::process::exit(130);
            }
        })
        .expect("spawn signal watcher");
}
