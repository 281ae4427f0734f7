//! Mininet command-line habits on `lighthouse run`: `-v LEVEL` (Mininet's
//! levels: `output` prints no banners), `--link tc,bw=N`, `--ipbase`,
//! `--pre`/`--post` CLI scripts, and the `mn` flags that have no meaning
//! here refused with the nearest equivalent (instead of clap's generic
//! "unexpected argument").

use clap::Args;
use lh_emu::text::level::{self, Level};
use std::net::Ipv4Addr;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, Default)]
pub struct MnCompat {
    /// Log level like Mininet's `-v`: debug, info, output, warning, error,
    /// critical; `output` and above print no banners, only what commands
    /// print (LIGHTHOUSE_LOG overrides the tracing part).
    #[arg(short = 'v', long = "verbosity", value_name = "LEVEL")]
    pub verbosity: Option<String>,
    /// Mininet's --link: `tc,bw=N` paces every host link at N Mbit/s (a
    /// tbf on each host interface; with a Mininet topology also the
    /// switch-switch links' rate); `default` changes nothing.
    #[arg(long, value_name = "tc,bw=N")]
    pub link: Option<String>,
    /// Mininet's --ipbase: hosts get addresses K of this network
    /// (default 10.0.0.0/8).
    #[arg(long, value_name = "A.B.C.D/N")]
    pub ipbase: Option<String>,
    /// CLI script run before --test, --script or the prompt (Mininet --pre).
    #[arg(long, value_name = "FILE")]
    pub pre: Option<PathBuf>,
    /// CLI script run after --test, --script or the prompt (Mininet --post).
    #[arg(long, value_name = "FILE")]
    pub post: Option<PathBuf>,
    #[arg(long, hide = true, value_name = "X")]
    pub switch: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub controller: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub host: Option<String>,
    #[arg(short = 'x', long, hide = true)]
    pub xterms: bool,
    #[arg(long, hide = true)]
    pub nat: bool,
    #[arg(long, hide = true)]
    pub innamespace: bool,
    #[arg(long, hide = true)]
    pub pin: bool,
    #[arg(long, hide = true, value_name = "X")]
    pub listenport: Option<String>,
}

/// The tracing filter and Mininet level for a `-v` value.
pub fn log_level(v: &str) -> Result<(&'static str, Level), String> {
    let l = Level::parse(v).ok_or_else(|| format!("-v {v}: expected one of {}", level::NAMES))?;
    Ok((
        match l {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Output | Level::Warning => "warn",
            Level::Error | Level::Critical => "error",
        },
        l,
    ))
}

/// What `--link` asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkOpts {
    /// Mbit/s, as Mininet's `bw`.
    pub bw: Option<f64>,
    /// netem's options, in the data plane's own ports (config
    /// `hosts.link`; a switch link's delay is its circuit's propagation).
    pub netem: lh_emu::mininet::LinkNetem,
}

/// `--link default` or `--link tc[,bw=N][,delay=T][,jitter=T][,loss=P]
/// [,max_queue_size=N]`, as Mininet's; any other option is refused.
/// Mininet's `--host process` (the default) or `--host cfs[,cpu=F]
/// [,period_us=P]`: every host a CPULimitedHost with F of the machine
/// (host/confine.rs; without `cpu=`, as Mininet's cpu=-1, no limit).
pub fn parse_host(spec: &str) -> Result<Option<lh_emu::host::confine::CpuShare>, String> {
    let mut it = spec.split(',').map(str::trim);
    let kind = it.next().unwrap_or_default();
    match kind {
        "process" | "default" | "proc" => {
            if let Some(kv) = it.next() {
                return Err(format!(
                    "--host {spec}: {kv}: a plain host takes no options; CPU limits are --host cfs,cpu=F"
                ));
            }
            return Ok(None);
        }
        "cfs" => {}
        _ => {
            return Err(format!(
                "--host {spec}: host type {kind:?} is not supported; use --host process (the default) or --host cfs,cpu=F (a CFS quota of F of the machine: Lighthouse has no real-time throttling for rt)"
            ));
        }
    }
    let (mut cpu, mut period) = (None, lh_emu::host::confine::PERIOD_US);
    for kv in it {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "cpu" => {
                let f = v
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && (*f > 0.0 && *f <= 1.0 || *f == -1.0))
                    .ok_or_else(|| {
                        format!("--host {spec}: cpu={v}: expected a fraction of the machine, more than 0 and at most 1 (-1: no limit)")
                    })?;
                cpu = (f > 0.0).then_some(f);
            }
            "period_us" => {
                period = v
                    .parse::<u64>()
                    .ok()
                    .filter(|p| (1_000..=1_000_000).contains(p))
                    .ok_or_else(|| {
                        format!("--host {spec}: period_us={v}: expected 1000 to 1000000")
                    })?;
            }
            _ => {
                return Err(format!(
                    "--host {spec}: {k}: expected cpu= or period_us= (cores= pinning is not done: hosts share the CPUs)"
                ));
            }
        }
    }
    Ok(cpu.map(|fraction| lh_emu::host::confine::CpuShare {
        fraction,
        period_us: period,
    }))
}

pub fn parse_link(spec: &str) -> Result<LinkOpts, String> {
    let mut it = spec.split(',').map(str::trim);
    let kind = it.next().unwrap_or_default();
    if kind != "tc" && kind != "default" {
        return Err(format!(
            "--link {spec}: link type {kind:?} is not supported; use --link tc,bw=N (host links paced at N Mbit/s) or --link default"
        ));
    }
    let mut o = LinkOpts::default();
    for kv in it {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "bw" => {
                let bw = v
                    .parse::<f64>()
                    .ok()
                    .filter(|b| b.is_finite() && *b > 0.0 && *b <= 1e6)
                    .ok_or_else(|| {
                        format!("--link {spec}: bw={v}: expected Mbit/s, > 0 and at most 1000000")
                    })?;
                o.bw = Some(bw);
            }
            "delay" | "jitter" => {
                v.parse::<lh_ctrl::units::Nanos>()
                    .map_err(|e| format!("--link {spec}: {k}={v}: {e}"))?;
                let t = Some(v.to_string());
                if k == "delay" {
                    o.netem.delay = t;
                } else {
                    o.netem.jitter = t;
                }
            }
            "loss" => {
                let p = v
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=100.0).contains(p))
                    .ok_or_else(|| {
                        format!("--link {spec}: loss={v}: expected a percentage, 0 to 100")
                    })?;
                o.netem.loss = Some(p);
            }
            "max_queue_size" => {
                let q = v
                    .parse::<u64>()
                    .ok()
                    .filter(|q| (1..=u32::MAX as u64).contains(q))
                    .ok_or_else(|| {
                        format!("--link {spec}: max_queue_size={v}: expected packets, 1 or more")
                    })?;
                o.netem.max_queue_size = Some(q);
            }
            _ => {
                return Err(format!(
                    "--link {spec}: unknown option {k:?}; --link tc takes bw=N (Mbit/s), delay=T, jitter=T, loss=P (percent) and max_queue_size=N"
                ));
            }
        }
    }
    Ok(o)
}

/// `--ipbase A.B.C.D/N`.
pub fn parse_ipbase(spec: &str) -> Result<(Ipv4Addr, u8), String> {
    let (a, n) = spec.split_once('/').unwrap_or((spec, "8"));
    let ip: Ipv4Addr = a
        .parse()
        .map_err(|_| format!("--ipbase {spec}: expected A.B.C.D/N, e.g. 192.168.50.0/24"))?;
    let n: u8 = n
        .parse()
        .ok()
        .filter(|n| (1..=30).contains(n))
        .ok_or_else(|| format!("--ipbase {spec}: prefix length {n}: expected 1..30"))?;
    Ok((ip, n))
}

impl MnCompat {
    /// An error naming the nearest equivalent for the first Mininet flag
    /// that lighthouse does not support, or a malformed one.
    pub fn check(&self) -> Result<(), String> {
        let unsupported = |flag: &str, instead: &str| {
            Err(format!(
                "Mininet's {flag} is not supported by lighthouse run: {instead}"
            ))
        };
        if let Some(v) = &self.verbosity {
            log_level(v)?;
        }
        if let Some(l) = &self.link {
            parse_link(l)?;
        }
        if let Some(b) = &self.ipbase {
            parse_ipbase(b)?;
        }
        for (flag, f) in [("--pre", &self.pre), ("--post", &self.post)] {
            if let Some(f) = f
                && !f.is_file()
            {
                return Err(format!("{flag} {}: no such file", f.display()));
            }
        }
        if self.switch.is_some() {
            return unsupported(
                "--switch",
                "ToRs are the native Rust ToR or the Lighthouse P4 program on BMv2; use --tor native|bmv2|bmv2:s1,s3",
            );
        }
        if self.controller.is_some() {
            return unsupported(
                "--controller",
                "there is no OpenFlow controller; the Lighthouse controller compiles the config into time-flow tables at start-up (see `lighthouse show CONFIG --tor N`)",
            );
        }
        if let Some(h) = &self.host {
            parse_host(h)?;
        }
        if self.xterms {
            return unsupported(
                "-x/--xterms",
                "run commands with `h1 <cmd>` at the prompt, `xterm h1` there, or `ip netns exec <prefix>-h1 bash` in another terminal",
            );
        }
        if self.nat {
            return unsupported(
                "--nat",
                "emulated hosts have no route out of the run; reach the outside from the root namespace with `sh <cmd>` at the prompt",
            );
        }
        if self.innamespace || self.pin || self.listenport.is_some() {
            return unsupported(
                "--innamespace/--pin/--listenport",
                "hosts already live in their own namespaces and there is no switch control port; see a ToR's state with `table <tor>` and `queues <tor>`",
            );
        }
        Ok(())
    }

    /// The Mininet level `-v` asks for (Info without `-v`).
    pub fn level(&self) -> Level {
        self.verbosity
            .as_deref()
            .and_then(|v| log_level(v).ok())
            .map_or(Level::Info, |(_, l)| l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_map_and_bad_ones_are_named() {
        assert_eq!(log_level("output"), Ok(("warn", Level::Output)));
        assert_eq!(log_level("debug"), Ok(("debug", Level::Debug)));
        assert!(log_level("loud").unwrap_err().contains("-v loud"));
        let m = MnCompat {
            verbosity: Some("output".into()),
            ..Default::default()
        };
        assert_eq!(m.level(), Level::Output);
        assert_eq!(MnCompat::default().level(), Level::Info);
    }

    #[test]
    fn link_takes_bw_and_netems_options_and_refuses_the_rest() {
        let bw = |b| LinkOpts {
            bw: Some(b),
            ..LinkOpts::default()
        };
        assert_eq!(parse_link("tc,bw=10"), Ok(bw(10.0)));
        assert_eq!(parse_link("default"), Ok(LinkOpts::default()));
        let o = parse_link("tc,bw=10,delay=5ms,jitter=1ms,loss=2.5,max_queue_size=100").unwrap();
        assert_eq!(o.bw, Some(10.0));
        assert_eq!(
            o.netem,
            lh_emu::mininet::LinkNetem {
                delay: Some("5ms".into()),
                jitter: Some("1ms".into()),
                loss: Some(2.5),
                max_queue_size: Some(100),
            }
        );
        assert!(parse_link("tc,delay=5").unwrap_err().contains("delay=5"));
        assert!(parse_link("tc,loss=101").unwrap_err().contains("0 to 100"));
        assert!(
            parse_link("tc,max_queue_size=0")
                .unwrap_err()
                .contains("max_queue_size=0")
        );
        assert!(parse_link("tc,bw=-1").unwrap_err().contains("bw=-1"));
        assert!(parse_link("ovs").unwrap_err().contains("--link tc,bw=N"));
        assert!(parse_link("tc,speed=3").unwrap_err().contains("\"speed\""));
    }

    #[test]
    fn ipbase_parses_any_network() {
        assert_eq!(
            parse_ipbase("192.168.50.0/24"),
            Ok(("192.168.50.0".parse().unwrap(), 24))
        );
        assert!(
            parse_ipbase("192.168.50.0/31")
                .unwrap_err()
                .contains("1..30")
        );
        assert!(parse_ipbase("banana").unwrap_err().contains("A.B.C.D/N"));
    }

    #[test]
    fn unsupported_flags_name_an_equivalent() {
        let m = MnCompat {
            switch: Some("ovsk".into()),
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("--tor native|bmv2"));
        let m = MnCompat {
            host: Some("process".into()),
            ..Default::default()
        };
        assert_eq!(m.check(), Ok(()));
        let m = MnCompat {
            host: Some("rt".into()),
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("--host cfs,cpu=F"));
        let share = parse_host("cfs,cpu=.25,period_us=50000").unwrap().unwrap();
        assert_eq!((share.fraction, share.period_us), (0.25, 50_000));
        assert_eq!(parse_host("cfs").unwrap(), None);
        assert_eq!(parse_host("cfs,cpu=-1").unwrap(), None);
        assert!(parse_host("cfs,cpu=2").unwrap_err().contains("cpu=2"));
        assert!(parse_host("cfs,cores=1").unwrap_err().contains("cores="));
        assert!(
            parse_host("process,cpu=.1")
                .unwrap_err()
                .contains("--host cfs")
        );
        let m = MnCompat {
            xterms: true,
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("ip netns exec"));
        let m = MnCompat {
            post: Some("/nonexistent/post.lh".into()),
            ..Default::default()
        };
        assert!(
            m.check()
                .unwrap_err()
                .contains("--post /nonexistent/post.lh")
        );
    }
}

/// `lighthouse run` flags for Mininet topologies.
#[derive(Args, Debug, Default, Clone)]
pub struct MnArgs {
    /// Mininet topology instead of CONFIG: single,N | linear,N | tree,D[,F],
    /// or NAME[,args] from --custom.
    #[arg(long, value_name = "SPEC")]
    pub topo: Option<String>,
    /// Python file defining Mininet `topos` (like `mn --custom`); use with --topo NAME.
    #[arg(long, value_name = "FILE.py", requires = "topo")]
    pub custom: Option<std::path::PathBuf>,
    /// A p4lang tutorials topology.json instead of CONFIG.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["topo", "custom"])]
    pub topo_json: Option<std::path::PathBuf>,
}

impl MnArgs {
    pub fn source(&self) -> lh_emu::mininet::MnSource {
        lh_emu::mininet::MnSource {
            topo: self.topo.clone(),
            custom: self.custom.clone(),
            topo_json: self.topo_json.clone(),
        }
    }
}
