//! Mininet command-line habits on `lighthouse run`: `-v LEVEL` maps to the
//! log level, and the `mn` flags that have no meaning here are refused with
//! the nearest equivalent (instead of clap's generic "unexpected argument").

use clap::Args;

#[derive(Args, Clone, Debug, Default)]
pub struct MnCompat {
    /// Log level like Mininet's `-v`: debug, info, output, warning, error,
    /// critical (LIGHTHOUSE_LOG overrides it).
    #[arg(short = 'v', long = "verbosity", value_name = "LEVEL")]
    pub verbosity: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub switch: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub controller: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub link: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub host: Option<String>,
    #[arg(long, hide = true, value_name = "X")]
    pub ipbase: Option<String>,
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

/// The tracing filter for a Mininet verbosity level.
pub fn log_level(v: &str) -> Result<&'static str, String> {
    Ok(match v {
        "debug" => "debug",
        "info" => "info",
        "output" | "warning" | "warn" => "warn",
        "error" | "critical" => "error",
        _ => {
            return Err(format!(
                "-v {v}: expected one of debug, info, output, warning, error, critical"
            ));
        }
    })
}

impl MnCompat {
    /// An error naming the nearest equivalent for the first Mininet flag
    /// that lighthouse does not support.
    pub fn check(&self) -> Result<(), String> {
        let unsupported = |flag: &str, instead: &str| {
            Err(format!(
                "Mininet's {flag} is not supported by lighthouse run: {instead}"
            ))
        };
        if let Some(v) = &self.verbosity {
            log_level(v)?;
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
        if self.link.is_some() {
            return unsupported(
                "--link",
                "link rates and delays come from the config (tors.link_rate, tors.host_link_rate, slice.propagation)",
            );
        }
        if self.host.is_some() {
            return unsupported(
                "--host",
                "hosts are plain network namespaces with the kernel's TCP",
            );
        }
        if let Some(b) = &self.ipbase
            && b != "10.0.0.0/8"
        {
            return unsupported(
                "--ipbase",
                "hosts are always 10.0.0.K/8 (Mininet's default --ipbase 10.0.0.0/8)",
            );
        }
        if self.xterms {
            return unsupported(
                "-x/--xterms",
                "run commands with `h1 <cmd>` at the prompt, or `ip netns exec <prefix>-h1 bash` in another terminal",
            );
        }
        if self.nat {
            return unsupported("--nat", "emulated hosts have no route out of the run");
        }
        if self.innamespace || self.pin || self.listenport.is_some() {
            return unsupported(
                "--innamespace/--pin/--listenport",
                "hosts already live in their own namespaces and there is no switch control port",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_map_and_bad_ones_are_named() {
        assert_eq!(log_level("output"), Ok("warn"));
        assert_eq!(log_level("debug"), Ok("debug"));
        assert!(log_level("loud").unwrap_err().contains("-v loud"));
    }

    #[test]
    fn unsupported_flags_name_an_equivalent() {
        let m = MnCompat {
            switch: Some("ovsk".into()),
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("--tor native|bmv2"));
        let m = MnCompat {
            ipbase: Some("10.0.0.0/8".into()),
            ..Default::default()
        };
        assert_eq!(m.check(), Ok(()));
        let m = MnCompat {
            ipbase: Some("192.168.0.0/24".into()),
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("10.0.0.K/8"));
        let m = MnCompat {
            xterms: true,
            ..Default::default()
        };
        assert!(m.check().unwrap_err().contains("ip netns exec"));
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
