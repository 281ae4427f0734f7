//! `lighthouse`: compile, show, run, clean.

mod alloc;
mod bars;
mod cmd;
mod mnflags;

use clap::{Parser, Subcommand, ValueEnum};
use cmd::compile::{self as compile_cmd, MemoryLimit};
use cmd::experiment::{experiment_cmd, figure_cmd};
use cmd::run::{RunArgs, run};
use std::path::PathBuf;
use std::process::ExitCode;

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
pub(crate) enum TestKind {
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
        mn: mnflags::MnArgs,
        #[command(flatten)]
        mn_compat: mnflags::MnCompat,
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
        /// With --script: also print each operation's result (its value,
        /// or its error) as one JSON line on stdout (docs/cli.md#json).
        #[arg(long, requires = "script")]
        json: bool,
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
        /// Run the data plane (the OCS and the ToRs' calendar queues) as
        /// its own process, `lighthouse ocs`, also when every ToR is
        /// native (with BMv2 ToRs it always is; docs/cli.md#lighthouse-ocs).
        #[arg(long)]
        ocs_process: bool,
        /// BMv2 ToRs reach the OCS over kernel VXLAN links (one underlay
        /// link per ToR, a VXLAN link per uplink and CPU port) instead of
        /// veths: each ToR's namespace stands in for a machine of its own
        /// (docs/scale-out.md).
        #[arg(long)]
        vxlan: bool,
        /// The data plane keeps the last CPU to itself and the hosts'
        /// receive work goes to the others (RPS): bulk TCP on 2 cores as
        /// if each had its own, at the cost of an idle CPU's wake-up on
        /// sparse traffic such as pings (docs/dataplane.md).
        #[arg(long)]
        own_cpu: bool,
        /// Serve the live web dashboard on ADDR (default 127.0.0.1:8001;
        /// HOST:PORT or PORT). Beyond loopback every request needs the
        /// token printed with the URL (docs/dashboard.md).
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = lh_dash::DEFAULT_ADDR)]
        dashboard: Option<String>,
        /// Refuse configs whose estimated memory exceeds SIZE (e.g. 4GiB;
        /// default: the machine's available memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
    },
    /// The emulated OCS as its own process, for ToRs that all run outside
    /// it: BMv2 in namespaces, or hardware ToRs behind this machine's NICs
    /// (docs/cli.md#lighthouse-ocs). `lighthouse run` starts one itself when a ToR
    /// is on BMv2.
    Ocs(cmd::ocs::OcsArgs),
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
        /// Also write the fabric in the topology format of the Opera
        /// authors' simulator (TritonNetworking/opera-sim's `-topfile`):
        /// its schedule and low-latency paths (docs/fidelity.md).
        #[arg(long, value_name = "FILE")]
        htsim_topology: Option<PathBuf>,
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
        /// In virtual time at the paper's scale (docs/virtual-time.md): no
        /// root, the same result on every run.
        #[arg(long)]
        sim: bool,
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
        /// Fraction of the load sent as incast bursts (default 0.3 with
        /// Poisson frames, 0 with a trace and for table2).
        #[arg(long)]
        incast_share: Option<f64>,
        /// Table 3: the rest of the load as flows of a trace (hadoop,
        /// kvstore, websearch or a .cdf file), each sent whole at its host's
        /// link rate, or `frames` for Poisson frames (default: hadoop with
        /// --sim, frames without).
        #[arg(long, value_name = "NAME")]
        trace: Option<String>,
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
    Report {
        dir: PathBuf,
        /// Also write all of them, charts inline, as one self-contained
        /// HTML page to FILE (default DIR/report.html).
        #[arg(long, value_name = "FILE", num_args = 0..=1)]
        html: Option<Option<PathBuf>>,
    },
    /// The network in virtual time (docs/virtual-time.md): the native ToR
    /// and OCS engine with simulated hosts; no root, the same result on
    /// every run. Default: pingall.
    Sim(cmd::sim::SimArgs),
    /// A parameter sweep in virtual time (docs/virtual-time.md, "Sweeps"):
    /// a workload run for every combination of the --axis values (config
    /// fields, load, seed), one CSV row each; locally on a thread pool, or
    /// on a Dask cluster with --dask.
    Sweep(cmd::sweep::SweepArgs),
    /// Course labs: `lab list`, `lab grade NN [--dir DIR]` (labs/README.md).
    #[command(subcommand)]
    Lab(cmd::lab::LabCmd),
}

/// Which paper experiment `lighthouse experiment` reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExperimentKind {
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
    /// Fig. 8's failing claims, each swept over its responsible parameter
    /// (with --sim only).
    Fig8Sweep,
    /// Table 3's claims that fail on the KV-store trace, swept over the
    /// load (with --sim only).
    Table3Sweep,
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
        /// Stop at the first failing step (and case); the rest is not run.
        #[arg(long)]
        fail_fast: bool,
    },
}

/// `eprintln!` that never panics: stderr may be a closed pipe
/// (`lighthouse run ... 2>&1 | head`), and a failed write must not kill the
/// thread that tears the run down.
#[macro_export]
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// A banner line (Mininet's `info`): not printed at `-v output` and above.
#[macro_export]
macro_rules! banner {
    ($($t:tt)*) => {{
        if lh_emu::text::level::banners() {
            $crate::say!($($t)*);
        }
    }};
}

// The controller allocates millions of small paths and entries; mimalloc
// compiles opera-108 about a third faster than glibc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Args::parse();
    // `compile` and `show` exit once they have printed or written the
    // tables: mimalloc's defaults suit them (alloc). Every other
    // command keeps a network or its tables alive and is tuned.
    if !matches!(args.cmd, Cmd::Compile { .. } | Cmd::Show { .. }) {
        alloc::tune();
    }
    // Mininet's `-v LEVEL` sets the log level unless LIGHTHOUSE_LOG does.
    let mut level = "warn";
    if let Cmd::Run { mn_compat, .. } = &args.cmd {
        if let Err(e) = mn_compat.check() {
            say!("lighthouse: error: {e}");
            return ExitCode::from(2);
        }
        if let Some(v) = &mn_compat.verbosity {
            level = mnflags::log_level(v).map_or("warn", |(t, _)| t);
        }
        lh_emu::text::level::set(mn_compat.level());
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
            json,
            prefix,
            no_fabric,
            tor,
            p4,
            p4_log,
            debug_panic,
            telemetry,
            ta_live,
            ocs_process,
            vxlan,
            own_cpu,
            dashboard,
            max_memory,
            mn_compat,
        } => run(RunArgs {
            compat: mn_compat,
            config,
            mn,
            mac,
            arp,
            test,
            script,
            json,
            prefix,
            no_fabric,
            tor,
            p4,
            p4_log,
            debug_panic,
            telemetry,
            ta_live,
            ocs_process,
            vxlan,
            own_cpu,
            dashboard,
            max_memory: MemoryLimit(max_memory),
        }),
        Cmd::Ocs(a) => cmd::ocs::ocs(a),
        Cmd::Clean { prefix, stale } => cmd::clean::clean_cmd(prefix, stale),
        Cmd::P4 {
            cmd:
                P4Cmd::Check {
                    p4,
                    tor,
                    config,
                    fail_fast,
                },
        } => {
            if !is_root() {
                Err(anyhow::anyhow!(
                    "`lighthouse p4 check` needs root (network namespaces)"
                ))
            } else {
                cmd::p4::check(&cmd::p4::CheckArgs {
                    p4,
                    config,
                    tor,
                    fail_fast,
                })
                .map(|r| match r {
                    cmd::p4::CheckResult::Passed => ExitCode::SUCCESS,
                    cmd::p4::CheckResult::Failed => ExitCode::FAILURE,
                    cmd::p4::CheckResult::Interrupted => ExitCode::from(130),
                })
            }
        }
        Cmd::Compile {
            config,
            out,
            format,
            max_memory,
            htsim_topology,
        } => compile_cmd::compile_cmd(
            &config,
            out.as_deref(),
            format,
            MemoryLimit(max_memory),
            htsim_topology.as_deref(),
        )
        .map(|()| ExitCode::SUCCESS),
        Cmd::Experiment {
            which,
            quick,
            sim,
            config,
            out,
            load,
            duration_ms,
            seed,
            offload_queues,
            incast_share,
            trace,
        } => match which {
            ExperimentKind::Fig8
            | ExperimentKind::Fig9
            | ExperimentKind::Fig10
            | ExperimentKind::Fig13
            | ExperimentKind::Otcp
            | ExperimentKind::Sopa
            | ExperimentKind::Fig8Sweep
            | ExperimentKind::Table3Sweep => {
                let table_only = [
                    ("--config", config.is_some()),
                    ("--load", load.is_some()),
                    ("--duration-ms", duration_ms.is_some()),
                    ("--offload-queues", offload_queues.is_some()),
                    ("--incast-share", incast_share.is_some()),
                    ("--trace", trace.is_some()),
                ];
                figure_cmd(which, quick, sim, out, seed, &table_only)
            }
            _ if quick && !sim => Err(anyhow::anyhow!(
                "--quick is for the figures ({}) and for the tables with --sim; table2 and table3 alone take --duration-ms",
                lh_experiments::names().join(", ")
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
                trace,
                sim,
                quick,
            ),
        },
        Cmd::Sim(a) => cmd::sim::sim(a),
        Cmd::Sweep(a) => cmd::sweep::sweep(a),
        Cmd::Report { dir, html } => {
            let html = html.map(|f| f.unwrap_or_else(|| dir.join("report.html")));
            lh_experiments::report(&dir, html.as_deref()).map(|ok| {
                if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            })
        }
        Cmd::Show {
            config,
            tor,
            slice,
            max_memory,
        } => compile_cmd::show_cmd(&config, tor, slice, MemoryLimit(max_memory))
            .map(|()| ExitCode::SUCCESS),
        Cmd::Lab(c) => cmd::lab::run(c).map_err(Into::into),
    };
    match r {
        Ok(c) => c,
        Err(e) => {
            say!("lighthouse: error: {}", render_error(&e));
            ExitCode::from(2)
        }
    }
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

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
