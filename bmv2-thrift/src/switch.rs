//! [`Bmv2Switch`]: one `simple_switch` process per P4 ToR, started inside
//! the ToR's network namespace and owned by the caller.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::generated::standard::TStandardSyncClient;
use crate::toolchain::{ToolchainError, toolchain};
use crate::{Bmv2Client, sys};

/// How to start one switch.
#[derive(Debug, Clone)]
pub struct SwitchOpts {
    /// Name used in errors, logs and state files (e.g. `tor3`).
    pub name: String,
    /// The compiled program (BMv2 JSON).
    pub json: PathBuf,
    /// Unique per switch on the machine: BMv2's IPC names are not namespaced.
    pub device_id: u64,
    /// Thrift port inside the namespace.
    pub thrift_port: u16,
    /// `(BMv2 port number, interface name)`, passed as `-i N@ifname`.
    pub interfaces: Vec<(u32, String)>,
    /// Where the log (`<name>.log`), the notification socket and the
    /// process record (`<name>.pid.json`) go.
    pub state_dir: PathBuf,
    /// The namespace to run in, e.g. `/run/netns/NAME`; None: the caller's.
    pub netns: Option<PathBuf>,
    /// Pass `--log-console` (the per-packet log P4 developers want; it costs
    /// throughput). The console goes to `<state_dir>/<name>.log` either way.
    /// Without it the log level is `off`: BMv2's default level is `trace`,
    /// and with no sink it still formats every per-packet message (measured:
    /// 3x the TCP throughput of a BMv2 ToR, docs/benchmarks.md).
    pub packet_log: bool,
    /// More arguments for simple_switch, placed before the JSON path.
    pub extra_args: Vec<String>,
    /// How long to wait for the Thrift server to answer.
    pub start_timeout: Duration,
    /// The simple_switch binary; None: found on PATH.
    pub simple_switch: Option<PathBuf>,
    /// Nice value for the switch and all its threads (None: inherited).
    pub nice: Option<i32>,
}

impl SwitchOpts {
    pub fn new(
        name: impl Into<String>,
        json: impl Into<PathBuf>,
        device_id: u64,
        thrift_port: u16,
        state_dir: impl Into<PathBuf>,
    ) -> SwitchOpts {
        SwitchOpts {
            name: name.into(),
            json: json.into(),
            device_id,
            thrift_port,
            interfaces: Vec::new(),
            state_dir: state_dir.into(),
            netns: None,
            packet_log: true,
            extra_args: Vec::new(),
            start_timeout: Duration::from_secs(10),
            simple_switch: None,
            nice: None,
        }
    }
}

/// What identifies a started switch process, written to
/// `<state_dir>/<name>.pid.json`. A later `clean` kills the pid only if
/// its start time still matches, so a recycled pid is never hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessRecord {
    pub name: String,
    pub pid: u32,
    /// Field 22 of /proc/<pid>/stat: clock ticks after boot.
    pub start_time: u64,
    pub device_id: u64,
    pub thrift_port: u16,
    pub netns: Option<PathBuf>,
    pub log: PathBuf,
}

impl ProcessRecord {
    /// Reads a record written by [`Bmv2Switch::spawn`].
    pub fn load(path: &Path) -> io::Result<ProcessRecord> {
        let s = std::fs::read_to_string(path)?;
        serde_json::from_str(&s).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Whether the recorded process still runs (same pid and start time,
    /// and not a zombie waiting to be reaped).
    pub fn is_running(&self) -> bool {
        proc_stat(self.pid)
            .is_some_and(|(state, start)| start == self.start_time && state != 'Z' && state != 'X')
    }

    /// SIGKILLs the process if it is still the recorded one. Returns
    /// whether a signal was sent.
    pub fn kill(&self) -> io::Result<bool> {
        if !self.is_running() {
            return Ok(false);
        }
        sys::kill(self.pid, libc::SIGKILL)?;
        Ok(true)
    }
}

/// Kills the switches recorded in `state_dir` (`*.pid.json`) that still
/// run as recorded (same pid and start time), and removes the records.
/// Returns the records of the processes it signalled.
pub fn clean(state_dir: &Path) -> io::Result<Vec<ProcessRecord>> {
    let mut killed = Vec::new();
    let rd = match std::fs::read_dir(state_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(killed),
        Err(e) => return Err(e),
    };
    for ent in rd {
        let p = ent?.path();
        if !p.to_string_lossy().ends_with(".pid.json") {
            continue;
        }
        match ProcessRecord::load(&p) {
            Ok(rec) => {
                if rec.kill()? {
                    tracing::info!(switch = %rec.name, pid = rec.pid, "killed a leftover simple_switch");
                    killed.push(rec);
                }
            }
            Err(e) => tracing::warn!("skipping {}: {e}", p.display()),
        }
        let _ = std::fs::remove_file(&p);
    }
    Ok(killed)
}

/// Start time of `pid` (field 22 of /proc/<pid>/stat), None if it is gone.
pub fn proc_start_time(pid: u32) -> Option<u64> {
    proc_stat(pid).map(|(_, start)| start)
}

/// (state, start time) of `pid`: fields 3 and 22 of /proc/<pid>/stat.
fn proc_stat(pid: u32) -> Option<(char, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and ')': skip past the last ')'.
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    Some((state, f.nth(18)?.parse().ok()?))
}

#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("switch {name}: {reason}")]
    BadOpts { name: String, reason: String },
    #[error("switch {name}: {what}: {source}")]
    Io {
        name: String,
        what: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "switch {name}: simple_switch did not answer on Thrift port {port} within {timeout:?} ({last_error}); log tail:\n{log_tail}"
    )]
    NotReady {
        name: String,
        port: u16,
        timeout: Duration,
        last_error: String,
        log_tail: String,
    },
    #[error("switch {name} (pid {pid}) exited: {status}; log tail:\n{log_tail}")]
    Died {
        name: String,
        pid: u32,
        status: String,
        log_tail: String,
    },
}

/// A running simple_switch. Dropping it stops the process.
///
/// The child gets `SIGKILL` when the *thread* that spawned it exits
/// (`PR_SET_PDEATHSIG`), so spawn switches from a thread that lives as long
/// as they should (e.g. the main thread), not from a short-lived worker.
#[derive(Debug)]
pub struct Bmv2Switch {
    opts: SwitchOpts,
    child: Child,
    record: ProcessRecord,
    record_path: PathBuf,
    exit: Option<ExitStatus>,
}

fn io_err(name: &str, what: impl Into<String>) -> impl FnOnce(io::Error) -> SwitchError {
    let name = name.to_string();
    let what = what.into();
    move |source| SwitchError::Io { name, what, source }
}

/// The last `lines` lines of a file ("" if unreadable).
pub fn log_tail(path: &Path, lines: usize) -> String {
    let Ok(mut f) = File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(16 * 1024);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return String::new();
    }
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    let s = String::from_utf8_lossy(&buf);
    let all: Vec<&str> = s.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

impl Bmv2Switch {
    /// Starts simple_switch in `opts.netns` and waits until its Thrift
    /// server answers `bm_get_config` with this device id.
    pub fn spawn(opts: SwitchOpts) -> Result<Bmv2Switch, SwitchError> {
        let name = opts.name.clone();
        let bin = match &opts.simple_switch {
            Some(p) => p.clone(),
            None => toolchain()?.simple_switch,
        };
        if !opts.json.is_file() {
            return Err(SwitchError::BadOpts {
                name,
                reason: format!("no BMv2 JSON at {}", opts.json.display()),
            });
        }
        std::fs::create_dir_all(&opts.state_dir)
            .map_err(io_err(&name, format!("mkdir {}", opts.state_dir.display())))?;
        let state_dir = opts.state_dir.canonicalize().map_err(io_err(
            &name,
            format!("canonicalize {}", opts.state_dir.display()),
        ))?;
        let log = state_dir.join(format!("{name}.log"));
        let ipc = state_dir.join(format!("{name}-notifications.ipc"));
        // sun_path holds 108 bytes with the NUL.
        if ipc.as_os_str().len() > 100 {
            return Err(SwitchError::BadOpts {
                name,
                reason: format!(
                    "notification socket path {} is too long for a unix socket; use a shorter state_dir",
                    ipc.display()
                ),
            });
        }
        if let Some(ns) = &opts.netns {
            lh_netns::try_run_in(Some(ns), sys::loopback_up)
                .map_err(io_err(&name, format!("set lo up in {}", ns.display())))?;
        }

        let log_file =
            File::create(&log).map_err(io_err(&name, format!("create {}", log.display())))?;
        let log_err = log_file.try_clone().map_err(io_err(&name, "dup log fd"))?;
        let mut cmd = Command::new(&bin);
        cmd.arg("--device-id")
            .arg(opts.device_id.to_string())
            .arg("--thrift-port")
            .arg(opts.thrift_port.to_string());
        // A build without nanomsg (a performance build, scripts/
        // build-bmv2-perf.sh) has no notifications and no such option.
        if has_notifications(&bin) {
            cmd.arg("--notifications-addr")
                .arg(format!("ipc://{}", ipc.display()));
        }
        if opts.packet_log {
            cmd.arg("--log-console");
        } else {
            cmd.args(["--log-level", "off"]);
        }
        for (port, ifname) in &opts.interfaces {
            cmd.arg("-i").arg(format!("{port}@{ifname}"));
        }
        cmd.args(&opts.extra_args).arg(&opts.json);
        cmd.stdin(Stdio::null()).stdout(log_file).stderr(log_err);
        sys::child_setup(&mut cmd, opts.nice);
        if let Some(ns) = &opts.netns {
            // After child_setup's hook: the child enters last, as before.
            let ns = lh_netns::Netns::open(ns)
                .map_err(io::Error::from)
                .map_err(io_err(&name, "open namespace"))?;
            // With a sysfs of its own: BMv2's port monitor reads
            // /sys/class/net/<if>/operstate, which must be this namespace's.
            lh_netns::enter_on_exec_with_sysfs(&mut cmd, ns);
        }
        tracing::info!(switch = %name, ?cmd, netns = ?opts.netns, "starting simple_switch");
        let child = cmd
            .spawn()
            .map_err(io_err(&name, format!("spawn {}", bin.display())))?;

        let pid = child.id();
        let record = ProcessRecord {
            name: name.clone(),
            pid,
            start_time: proc_start_time(pid).unwrap_or(0),
            device_id: opts.device_id,
            thrift_port: opts.thrift_port,
            netns: opts.netns.clone(),
            log: log.clone(),
        };
        let record_path = state_dir.join(format!("{name}.pid.json"));
        let mut sw = Bmv2Switch {
            opts,
            child,
            record,
            record_path,
            exit: None,
        };
        let json = serde_json::to_string_pretty(&sw.record).expect("a record serializes");
        std::fs::write(&sw.record_path, json)
            .map_err(io_err(&name, format!("write {}", sw.record_path.display())))?;
        sw.wait_ready()?;
        tracing::info!(switch = %name, pid, "simple_switch is up");
        Ok(sw)
    }

    fn wait_ready(&mut self) -> Result<(), SwitchError> {
        let deadline = Instant::now() + self.opts.start_timeout;
        loop {
            self.check()?;
            let last_error = match self.client() {
                Ok(mut c) => match c.raw_standard().bm_mgmt_get_info() {
                    Ok(info) if info.device_id == Some(self.opts.device_id as i64) => return Ok(()),
                    Ok(info) => format!(
                        "port {} answers as device {:?}, not {}",
                        self.opts.thrift_port, info.device_id, self.opts.device_id
                    ),
                    Err(e) => e.to_string(),
                },
                Err(e) => e.to_string(),
            };
            if Instant::now() >= deadline {
                let _ = self.stop();
                return Err(SwitchError::NotReady {
                    name: self.opts.name.clone(),
                    port: self.opts.thrift_port,
                    timeout: self.opts.start_timeout,
                    last_error,
                    log_tail: log_tail(&self.record.log, 20),
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A new client connected to this switch (inside its namespace).
    pub fn client(&self) -> Result<Bmv2Client, crate::Error> {
        Bmv2Client::connect_in_netns(self.opts.netns.as_deref(), self.opts.thrift_port)
    }

    pub fn name(&self) -> &str {
        &self.opts.name
    }

    pub fn pid(&self) -> u32 {
        self.record.pid
    }

    /// Pid, start time and where things are; also in `<state_dir>/<name>.pid.json`.
    pub fn record(&self) -> &ProcessRecord {
        &self.record
    }

    /// The console log (packet log with `packet_log`).
    pub fn log_path(&self) -> &Path {
        &self.record.log
    }

    pub fn opts(&self) -> &SwitchOpts {
        &self.opts
    }

    fn poll_exit(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            self.exit = self.child.try_wait().ok().flatten();
        }
        self.exit
    }

    /// Whether the process still runs.
    pub fn is_alive(&mut self) -> bool {
        self.poll_exit().is_none()
    }

    /// Ok while the process runs; else an error naming the switch with its
    /// exit status and the tail of its log.
    pub fn check(&mut self) -> Result<(), SwitchError> {
        match self.poll_exit() {
            None => Ok(()),
            Some(st) => Err(SwitchError::Died {
                name: self.opts.name.clone(),
                pid: self.record.pid,
                status: st.to_string(),
                log_tail: log_tail(&self.record.log, 20),
            }),
        }
    }

    /// SIGTERM, up to 2 s to exit, then SIGKILL. Idempotent. Removes the
    /// process record and the notification socket.
    pub fn stop(&mut self) -> Result<(), SwitchError> {
        let name = self.opts.name.clone();
        if self.poll_exit().is_none() {
            tracing::debug!(switch = %name, pid = self.record.pid, "stopping simple_switch");
            let _ = sys::kill(self.record.pid, libc::SIGTERM);
            let deadline = Instant::now() + Duration::from_secs(2);
            while self.poll_exit().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if self.poll_exit().is_none() {
                tracing::warn!(switch = %name, "simple_switch ignored SIGTERM; killing");
                self.child.kill().map_err(io_err(&name, "kill"))?;
                self.exit = Some(self.child.wait().map_err(io_err(&name, "wait"))?);
            }
        }
        let _ = std::fs::remove_file(&self.record_path);
        if let Some(dir) = self.record.log.parent() {
            let _ = std::fs::remove_file(dir.join(format!("{name}-notifications.ipc")));
        }
        Ok(())
    }
}

impl Drop for Bmv2Switch {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            tracing::warn!("{e}");
        }
    }
}

/// Whether the `simple_switch` at `bin` takes `--notifications-addr` (it
/// was built with nanomsg). Asked once per binary (`--help`).
fn has_notifications(bin: &Path) -> bool {
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, bool>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(&b) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(bin) {
        return b;
    }
    let b = Command::new(bin)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("--notifications-addr"))
        // Unknown: as the stock build.
        .unwrap_or(true);
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(bin.to_path_buf(), b);
    b
}
