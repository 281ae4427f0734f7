//! `lighthouse run`: bring a network up, run the CLI (interactive, a
//! script or one test) over it, tear it down. The crash teardown lives here
//! too: a signal, a panic on any thread, a dead BMv2 ToR or a dead OCS
//! process removes the run's kernel objects before the process exits.

use super::compile::MemoryLimit;
use crate::{TestKind, banner, is_root, say};
use anyhow::Context;
use lh_emu::cli::Cli;
use lh_emu::kernel::{exitguard, signals, state};
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::run::bringup::NetOptions;
use lh_emu::run::clean;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct RunArgs {
    /// Mininet's flags (`-v`, `--link`, `--ipbase`, `--pre`, `--post`).
    pub compat: crate::mnflags::MnCompat,
    pub config: Option<PathBuf>,
    pub mn: crate::mnflags::MnArgs,
    pub mac: bool,
    pub arp: bool,
    pub test: Option<TestKind>,
    pub script: Option<PathBuf>,
    pub json: bool,
    pub prefix: Option<String>,
    pub no_fabric: bool,
    pub tor: String,
    pub p4: Option<PathBuf>,
    pub p4_log: bool,
    pub debug_panic: Option<String>,
    pub telemetry: Option<PathBuf>,
    pub ta_live: bool,
    /// `--ocs-process`: the data plane as its own process even when every
    /// ToR is native (always so with BMv2 ToRs).
    pub ocs_process: bool,
    /// `--vxlan`: BMv2 ToRs reach the OCS over kernel VXLAN links, each
    /// ToR's namespace a machine of its own (docs/scale-out.md).
    pub vxlan: bool,
    /// `--own-cpu` (`NetOptions::own_cpu`).
    pub own_cpu: bool,
    /// `--dashboard [ADDR]`.
    pub dashboard: Option<String>,
    pub max_memory: MemoryLimit,
}

/// Held by whoever tears the run down: the main thread at the end, or the
/// signal watcher on SIGTERM/SIGINT.
static TEARDOWN: Mutex<()> = Mutex::new(());
static DONE: AtomicBool = AtomicBool::new(false);

pub fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
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
    let mn = lh_emu::mininet::prepare(a.config.as_deref(), &a.mn.source())?;
    let mut cfg = lh_ctrl::config::Config::load(&mn.config)?;
    // Mininet's --link tc,bw=N: every host link at N Mbit/s (and, for a
    // Mininet topology, whose switch links are links too, those).
    let link = a
        .compat
        .link
        .as_deref()
        .map(crate::mnflags::parse_link)
        .transpose()
        .map_err(anyhow::Error::msg)?
        .unwrap_or_default();
    if let Some(bw) = link.bw {
        let rate = lh_ctrl::units::BitsPerSec((bw * 1e6).round() as u64);
        cfg.tors.host_link_rate = rate;
        if mn.host_counts.is_some() {
            cfg.tors.link_rate = rate;
        }
    }
    // --link tc,delay=T,loss=P,...: every host link in the data plane
    // (hosts.link), and a Mininet topology's switch links' delay as their
    // circuits' propagation.
    if !link.netem.is_empty() {
        let json = link.netem.to_config(None).map_err(anyhow::Error::msg)?;
        let mut l: lh_ctrl::config::HostLinkCfg =
            serde_json::from_value(json).context("--link's netem options")?;
        if let Some(old) = cfg.hosts.as_ref().and_then(|h| h.link) {
            l.seed = old.seed;
        }
        if mn.host_counts.is_some() {
            if let Some(d) = &link.netem.delay {
                cfg.slice.propagation = d.parse().map_err(anyhow::Error::msg)?;
            }
            let n = &link.netem;
            cfg.tors.link_loss = l.loss.0.gt(&0).then_some(l.loss);
            cfg.tors.link_jitter = n.jitter.is_some().then_some(l.jitter);
        }
        cfg.hosts.get_or_insert_with(Default::default).link = Some(l);
    }
    // A Mininet topology's switch links shaped by --link tc: their queue
    // holds what tc's would (max_queue_size, else 1000 frames).
    if mn.host_counts.is_some() && (link.bw.is_some() || !link.netem.is_empty()) {
        cfg.tors.queue_capacity = Some(lh_emu::mininet::tc_queue_bytes(link.netem.max_queue_size));
    }
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
    if a.json && a.telemetry.as_deref() == Some(std::path::Path::new("-")) {
        anyhow::bail!("--json and --telemetry - both write stdout: give --telemetry a file");
    }
    // Bound now: a port in use fails before any namespace exists.
    let dash_bound = a.dashboard.as_deref().map(lh_dash::bind).transpose()?;
    signals::install();
    signals::save_tty();

    let mut plan = mn.plan(&cfg);
    if let Some(b) = &a.compat.ipbase {
        let (ip, len) = crate::mnflags::parse_ipbase(b).map_err(anyhow::Error::msg)?;
        plan.set_ipbase(ip, len)
            .map_err(|e| anyhow::anyhow!("--ipbase {b}: {e}"))?;
    }
    for n in &mn.notes {
        // A warning (an option that cannot be honoured) shows at -v output too.
        if n.starts_with("Warning:") {
            say!("*** {n}");
        } else {
            banner!("*** {n}");
        }
    }
    plan.targets = lh_emu::plan::target::parse_for(&a.tor, plan.tors, &cfg)?;
    let p4_src = match &a.p4 {
        Some(f) if !f.is_file() => anyhow::bail!("--p4 {}: no such file", f.display()),
        Some(f) => lh_emu::tor::bmv2::P4Source::File(f.clone()),
        None => lh_emu::tor::bmv2::P4Source::Shipped,
    };
    if !plan.bmv2_tors().is_empty() {
        bmv2_thrift::toolchain().context("--tor bmv2")?;
        if a.no_fabric {
            anyhow::bail!("--tor bmv2 needs the data plane (not --no-fabric)");
        }
    } else if a.p4.is_some() {
        anyhow::bail!("--p4 needs BMv2 ToRs: add --tor bmv2 or --tor bmv2:s1,...");
    } else if a.vxlan {
        anyhow::bail!("--vxlan links BMv2 ToRs to the OCS: add --tor bmv2 or --tor bmv2:s1,...");
    }
    if a.ocs_process && (a.ta_live || a.no_fabric) {
        anyhow::bail!(
            "--ocs-process cannot be combined with {}: {}",
            if a.ta_live {
                "--ta-live"
            } else {
                "--no-fabric"
            },
            if a.ta_live {
                "live TA updates reconfigure the data plane in this process"
            } else {
                "there is no data plane"
            }
        );
    }
    // External (BMv2) ToRs get the OCS as its own process (docs/cli.md,
    // `lighthouse ocs`); native-only fabrics keep it in this process
    // unless asked (docs/benchmarks.md, "OCS process"). --ta-live
    // reconfigures the engine, which only this process can.
    let ocs_process = (a.ocs_process || !plan.bmv2_tors().is_empty()) && !a.ta_live && !a.no_fabric;
    let ocs_exe = if ocs_process {
        Some(
            std::env::current_exe()
                .context("finding the lighthouse executable for `lighthouse ocs`")?,
        )
    } else {
        None
    };
    banner!(
        "*** Creating network ({} ToRs, {} hosts{})",
        plan.visible_tors,
        plan.hosts.len(),
        cfg.name
            .as_ref()
            .map(|n| format!(", {n}"))
            .unwrap_or_default()
    );
    let bars = crate::bars::StepBars::default();
    let opts = NetworkOptions {
        net: NetOptions {
            mac: a.mac,
            arp: a.arp,
            prefix: a.prefix.clone(),
            config: std::fs::canonicalize(&mn.config).ok(),
            host_tcp: cfg.hosts.as_ref().and_then(|h| h.tcp.clone()),
            vxlan: a.vxlan,
            own_cpu: a.own_cpu,
            // A bar for the bring-up and pingalls, on a terminal only.
            progress: bars.hook(),
        },
        p4: p4_src,
        p4_log: a.p4_log,
        telemetry: a.telemetry.clone(),
        ta_live: a.ta_live,
        pace_hosts: link.bw.is_some() || mn.pace_hosts,
        ocs_process: ocs_exe,
        // --host cfs,cpu=F: every host a CPULimitedHost (host/confine.rs).
        confine: match a.compat.host.as_deref().map(crate::mnflags::parse_host) {
            Some(Ok(Some(share))) => plan
                .hosts
                .iter()
                .map(|h| {
                    let c = lh_emu::host::confine::HostConfinement {
                        cpu: Some(share),
                        private_dirs: Vec::new(),
                    };
                    (h.name.clone(), c)
                })
                .collect(),
            _ => Default::default(),
        },
    };
    let mut net = Network::bring_up(plan, compiled, opts)?;
    // The network's lines go above the bar.
    net.set_output(bars.writer(Box::new(std::io::stderr())));
    let prefix = net.prefix.clone();
    spawn_watcher(prefix.clone());
    install_panic_teardown(prefix.clone());
    if let Err(e) = net.start() {
        let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
        DONE.store(true, Ordering::Relaxed);
        drop(net);
        return Err(e.into());
    }
    let dash = match dash_bound {
        Some(b) => match lh_dash::Dashboard::start(b, &mut net, lh_dash::Options::default()) {
            Ok(d) => {
                say!("*** Dashboard: {}", d.url());
                Some(d)
            }
            Err(e) => {
                let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
                DONE.store(true, Ordering::Relaxed);
                drop(net);
                return Err(e.into());
            }
        },
        None => None,
    };
    let mut watched: Vec<Watched> = net
        .p4_switches()
        .into_iter()
        .map(|(name, rec)| Watched {
            what: format!("BMv2 ToR {name} (simple_switch pid {})", rec.pid),
            log: rec.log.clone(),
            alive: Box::new(move || rec.is_running()),
        })
        .collect();
    if let Some((pid, start, log)) = net.ocs_process() {
        watched.push(Watched {
            what: format!("the OCS process (lighthouse ocs, pid {pid})"),
            log,
            alive: Box::new(move || lh_emu::tor::ocs::running(pid, start)),
        });
    }
    if !watched.is_empty() {
        spawn_process_monitor(prefix.clone(), watched);
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
        if a.mn.source().is_set() {
            cli.prompt = lh_emu::cli::MININET_PROMPT;
        }
        if a.json {
            // stdout is the records'; `time`'s line goes to stderr.
            cli.json = Some(Box::new(std::io::stdout()));
            cli.stdout = Box::new(std::io::stderr());
        }
        // Mininet's --pre and --post: CLI scripts around the test, script
        // or prompt (checked to exist before anything was created); an
        // `exit` in one ends that script only, as in Mininet.
        let script = |cli: &mut Cli<'_>, f: &std::path::Path| match std::fs::File::open(f) {
            Ok(file) => {
                let what = f.display().to_string();
                let _ = cli.run_lines(std::io::BufReader::new(file), &what);
            }
            Err(e) => {
                say!("*** Error: {}: {e}", f.display());
                cli.input_errors += 1;
            }
        };
        if let Some(f) = a.compat.pre.as_deref() {
            script(&mut cli, f);
        }
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
                banner!("*** Starting CLI:");
                cli.run_interactive();
                true
            }
        };
        if let Some(f) = a.compat.post.as_deref()
            && !signals::terminating()
        {
            script(&mut cli, f);
        }
        ok && cli.input_errors == 0
    };
    let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
    DONE.store(true, Ordering::Relaxed);
    ok &= net.stop();
    if let Some(d) = dash {
        d.stop(Some(ok));
    }
    banner!(
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

/// A process the run cannot go on without: a BMv2 ToR's `simple_switch`
/// or the OCS process.
struct Watched {
    /// How the report names it, e.g. "BMv2 ToR s2 (simple_switch pid 42)".
    what: String,
    log: PathBuf,
    alive: Box<dyn Fn() -> bool + Send>,
}

/// A BMv2 ToR's `simple_switch` or the OCS process that dies mid-run is
/// reported (with its log's tail) and the run is torn down, exit 3 (its
/// namespaces hold nothing useful without it).
fn spawn_process_monitor(prefix: String, watched: Vec<Watched>) {
    std::thread::Builder::new()
        .name("lh-proc-monitor".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let Some(w) = watched.iter().find(|w| !(w.alive)()) else {
                    continue;
                };
                let _g = TEARDOWN.lock().unwrap_or_else(|e| e.into_inner());
                if DONE.load(Ordering::Relaxed) {
                    return;
                }
                signals::restore_tty();
                say!(
                    "\n*** Error: {} died; its log ends:\n{}",
                    w.what,
                    bmv2_thrift::log_tail(&w.log, 5)
                );
                say!("*** Tearing down {prefix}");
                let rep = clean::clean(clean::Scope::Prefix(&prefix));
                for l in rep.lines() {
                    say!("{l}");
                }
                std::process::exit(3);
            }
        })
        .expect("spawn process monitor");
}

fn run_test(cli: &mut Cli<'_>, t: TestKind) -> bool {
    let all_received = |p: Option<lh_emu::net::values::PingAll>| {
        p.is_some_and(|p| p.sent > 0 && p.sent == p.received)
    };
    match t {
        TestKind::Pingall => {
            let p = cli.ping("pingall", None, None, false);
            all_received(p)
        }
        TestKind::Pingpair => {
            if cli.net.plan.hosts.len() < 2 {
                say!("*** pingpair needs two hosts");
                return false;
            }
            let p = cli.ping("pingpair", Some(&[0, 1]), None, false);
            all_received(p)
        }
        TestKind::Iperf => {
            let n = cli.net.plan.hosts.len();
            n >= 2
                && cli
                    .iperf_pair(0, n - 1, 5.0)
                    .is_some_and(|v| v.server_bps > 0.0)
        }
        TestKind::Iperfudp => cli.iperfudp("").is_some_and(|v| v.server_bps > 0.0),
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
