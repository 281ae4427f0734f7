//! The OCS as its own process (`lighthouse ocs`, docs/architecture.md).
//! A run whose ToRs are external (`--tor bmv2...`, or `--ocs-process`)
//! starts it inside the fabric namespace, as it starts `simple_switch`:
//! the same swtor engine (the OCS, the external ToRs' calendar queues and,
//! in a mixed fabric, the native ToRs) on the busy-polling thread of that
//! process. The run's [`crate::net::Network`] reads it through a
//! [`swtor::FabricHandle`] from [`swtor::remote::connect`] on the control
//! socket `/run/lighthouse/<prefix>/ocs.sock`.

use crate::kernel::state;
use crate::run::bringup::Net;
use lh_ctrl::compile::Compiled;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use swtor::{ExternalTor, FabricHandle, HostAttach};

/// What a run hands its OCS process besides the config: every host (the
/// native ToRs' ones with their ToR-side veth in the fabric namespace) and
/// the external ToRs' interfaces (`lighthouse ocs --attach FILE`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attach {
    pub hosts: Vec<HostAttach>,
    pub external: Vec<ExternalTor>,
    /// The BMv2 ToRs to pace to (docs/p4.md, "Pacing").
    #[serde(default)]
    pub pace: Vec<crate::tor::bmv2::PaceFrom>,
}

/// The interfaces an OCS process holds, in `<run dir>/ocs-ports.json`, so
/// that another `lighthouse ocs` refuses them while it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortsRecord {
    pub pid: u32,
    /// Start time of `pid` (clock ticks since boot).
    pub start_time: u64,
    /// (device, inode) of the network namespace the interfaces are in.
    pub netns: (u64, u64),
    pub interfaces: Vec<String>,
}

/// The control socket of run `prefix`'s OCS process.
pub fn socket_path(prefix: &str) -> PathBuf {
    state::run_dir(prefix).join("ocs.sock")
}

/// Where an OCS process's record of its interfaces lives.
pub fn ports_path(prefix: &str) -> PathBuf {
    state::run_dir(prefix).join("ocs-ports.json")
}

/// How long a run waits for its OCS process to compile the config and
/// open its control socket.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum OcsError {
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(
        "the OCS process (pid {pid}) exited ({status}) before it was ready; its log ends:\n{log_tail}"
    )]
    Died {
        pid: u32,
        status: String,
        log_tail: String,
    },
    #[error("the OCS process (pid {pid}) did not open {} within {timeout:?}", socket.display())]
    NotReady {
        pid: u32,
        socket: PathBuf,
        timeout: Duration,
    },
    #[error("OCS control channel: {0}")]
    Channel(#[from] swtor::FabricError),
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> OcsError {
    let what = what.into();
    move |source| OcsError::Io { what, source }
}

/// A running `lighthouse ocs` child of this run.
pub struct OcsProcess {
    child: Child,
    pub pid: u32,
    pub start_time: u64,
    /// Its stdout and stderr.
    pub log: PathBuf,
}

/// Whether process `pid`, started at `start_time`, still runs (not a
/// zombie waiting to be reaped).
pub fn running(pid: u32, start_time: u64) -> bool {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some(rest) = s.rfind(')').map(|r| &s[r + 1..]) else {
        return false;
    };
    let mut f = rest.split_whitespace();
    let st = f.next().unwrap_or("X");
    st != "Z" && st != "X" && state::proc_start_time(pid) == Some(start_time)
}

impl OcsProcess {
    /// Starts `exe ocs` for run `net` inside its fabric namespace and
    /// connects to it. `exe` is a `lighthouse` binary.
    /// `pace`: the BMv2 ToRs it paces itself to (docs/p4.md, "Pacing").
    pub fn start(
        net: &Net,
        c: &Compiled,
        exe: &Path,
        pace: &[crate::tor::bmv2::PaceFrom],
    ) -> Result<(OcsProcess, FabricHandle), OcsError> {
        let dir = state::run_dir(&net.prefix);
        let config = dir.join("ocs-config.json");
        let attach = dir.join("ocs-attach.json");
        let log = dir.join("ocs.log");
        let socket = socket_path(&net.prefix);
        let write = |p: &Path, text: String| {
            use std::io::Write as _;
            let mut f = crate::kernel::securefs::create_file(p, crate::kernel::securefs::FILE_MODE)
                .map_err(|e| OcsError::Io {
                    what: p.display().to_string(),
                    source: std::io::Error::other(e.to_string()),
                })?;
            f.write_all(text.as_bytes())
                .map_err(io_err(p.display().to_string()))
        };
        // The config as this run compiled it (after --link and Mininet's
        // changes): the process compiles it again, deterministically.
        write(
            &config,
            serde_json::to_string_pretty(&c.config).map_err(|e| OcsError::Io {
                what: "serializing the config".into(),
                source: std::io::Error::other(e),
            })?,
        )?;
        let a = Attach {
            hosts: super::fabric::host_attach(net),
            external: super::fabric::external_tors(net),
            pace: pace.to_vec(),
        };
        write(
            &attach,
            serde_json::to_string_pretty(&a).expect("attachments serialize"),
        )?;
        let out = std::fs::File::create(&log).map_err(io_err(log.display().to_string()))?;
        let err = out.try_clone().map_err(io_err("dup the log's fd"))?;
        let mut cmd = Command::new(exe);
        cmd.arg("ocs")
            .arg(&config)
            .arg("--prefix")
            .arg(&net.prefix)
            .arg("--attach")
            .arg(&attach)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        // Killed if this run's thread goes away, like simple_switch.
        bmv2_thrift::child_setup(&mut cmd, None);
        let ns = lh_netns::Netns::open(net.fabric_ns())
            .map_err(std::io::Error::from)
            .map_err(io_err("opening the fabric namespace"))?;
        lh_netns::enter_on_exec(&mut cmd, ns);
        tracing::info!(?cmd, "starting the OCS process");
        let mut child = cmd
            .spawn()
            .map_err(io_err(format!("starting {} ocs", exe.display())))?;
        let pid = child.id();
        let start_time = state::proc_start_time(pid).unwrap_or(0);
        let t0 = Instant::now();
        let handle = loop {
            if let Some(st) = child.try_wait().ok().flatten() {
                return Err(OcsError::Died {
                    pid,
                    status: st.to_string(),
                    log_tail: bmv2_thrift::log_tail(&log, 20),
                });
            }
            if socket.exists()
                && let Ok(h) = swtor::remote::connect(&socket)
            {
                break h;
            }
            if t0.elapsed() > START_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(OcsError::NotReady {
                    pid,
                    socket,
                    timeout: START_TIMEOUT,
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Ok((
            OcsProcess {
                child,
                pid,
                start_time,
                log,
            },
            handle,
        ))
    }

    /// Whether the process still runs.
    pub fn is_running(&self) -> bool {
        running(self.pid, self.start_time)
    }

    /// Waits for the process to exit (it does after `stop` on its handle),
    /// SIGKILL after `limit`.
    pub fn wait(mut self, limit: Duration) {
        let t0 = Instant::now();
        while t0.elapsed() < limit {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        tracing::warn!(pid = self.pid, "the OCS process did not exit; killing it");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OcsProcess {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
