//! Mininet's `CPULimitedHost` and `Host(privateDirs=...)` for a Lighthouse
//! host: a cgroup with a CFS quota, and a mount namespace of the host's own
//! with a tmpfs or a bind mount on each private directory.
//!
//! Both are kernel objects of the run: the cgroup is named
//! `<prefix>-<host>` (`lighthouse clean` removes a run's), and the mount
//! namespace is held by a `sleep infinity` in the host's network namespace
//! (`clean` kills it with the rest of the namespace's processes, and the
//! namespace goes with its last process). Every process of the host joins
//! both between fork and exec ([`Confined::apply`]): its shell, the
//! programs `iperf` starts, and `popen` from Python (through
//! [`Confined::exec_prefix`]).
//!
//! The cgroup is v2's where the `cpu` controller is there (`cpu.max`), else
//! v1's `cpu` hierarchy (`cpu.cfs_quota_us`, as on this machine). The quota
//! is Mininet's: `cpu` is a fraction of the whole machine, so a host gets
//! `cpu x period x cores` microseconds per period.

use lh_netns::host::{PrivateMount, enter_mount_ns_on_exec, join_cgroup_on_exec};
use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Mininet's default CFS period (`CPULimitedHost.cfsPeriodUs`).
pub const PERIOD_US: u64 = 100_000;
/// The smallest quota the kernel takes (1 ms).
const MIN_QUOTA_US: u64 = 1_000;

/// `CPULimitedHost(cpu=F, period_us=P)`: F of the whole machine's CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuShare {
    pub fraction: f64,
    pub period_us: u64,
}

impl CpuShare {
    /// (quota, period) in microseconds on `cores` cores, as Mininet's
    /// `cfsInfo`: a quota under the kernel's 1 ms minimum becomes 1 ms
    /// over a longer period, the same fraction.
    pub fn quota_period_us(&self, cores: usize) -> (u64, u64) {
        let per_period = self.fraction * cores as f64;
        let quota = (per_period * self.period_us as f64).round() as u64;
        if quota >= MIN_QUOTA_US {
            return (quota, self.period_us);
        }
        (MIN_QUOTA_US, (MIN_QUOTA_US as f64 / per_period) as u64)
    }
}

/// One of Mininet's `privateDirs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrivateDir {
    /// A tmpfs the host alone sees, gone with the run.
    Tmpfs(PathBuf),
    /// `source` (kept after the run: Mininet's persistent directory) seen
    /// at `target` by the host alone.
    Bind { target: PathBuf, source: PathBuf },
}

impl PrivateDir {
    pub fn target(&self) -> &Path {
        match self {
            PrivateDir::Tmpfs(t) | PrivateDir::Bind { target: t, .. } => t,
        }
    }
}

/// What a host asks for beyond its namespace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostConfinement {
    pub cpu: Option<CpuShare>,
    pub private_dirs: Vec<PrivateDir>,
}

impl HostConfinement {
    pub fn is_empty(&self) -> bool {
        self.cpu.is_none() && self.private_dirs.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("{host}: {what} {}: {source}", path.display())]
    Io {
        host: String,
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "{host}: CPULimitedHost needs the cpu controller of cgroup v2 (cpu.max) or v1 (cpu.cfs_quota_us); neither is mounted"
    )]
    NoCpuController { host: String },
    #[error("{host}: privateDirs {}: expected an absolute path", path.display())]
    Relative { host: String, path: PathBuf },
}

/// Where the `cpu` controller is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    /// The unified hierarchy's root, whose `cgroup.controllers` has `cpu`.
    V2(PathBuf),
    /// The mount point of v1's `cpu` hierarchy.
    V1(PathBuf),
}

/// The `cpu` controller's hierarchy, from `/proc/self/mounts`.
pub fn cpu_hierarchy() -> Option<Hierarchy> {
    let mounts = fs::read_to_string("/proc/self/mounts").ok()?;
    hierarchy_in(&mounts, |root| {
        fs::read_to_string(root.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|x| x == "cpu"))
    })
}

/// [`cpu_hierarchy`] over a mounts table; `v2_has_cpu` says whether a
/// cgroup2 mount offers the controller (a hybrid machine mounts cgroup2
/// without it).
fn hierarchy_in(mounts: &str, v2_has_cpu: impl Fn(&Path) -> bool) -> Option<Hierarchy> {
    let entries: Vec<(&str, &str, &str)> = mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4).then(|| (f[1], f[2], f[3]))
        })
        .collect();
    let v2 = entries
        .iter()
        .find(|(at, kind, _)| *kind == "cgroup2" && v2_has_cpu(Path::new(at)));
    if let Some((at, _, _)) = v2 {
        return Some(Hierarchy::V2(PathBuf::from(at)));
    }
    entries
        .iter()
        .find(|(_, kind, opts)| *kind == "cgroup" && opts.split(',').any(|o| o == "cpu"))
        .map(|(at, _, _)| Hierarchy::V1(PathBuf::from(at)))
}

/// A run's cgroup for one host.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    /// Makes `name` under `h` with `share`'s quota on `cores` cores.
    pub fn create(h: &Hierarchy, name: &str, share: &CpuShare, cores: usize) -> io::Result<Cgroup> {
        let (quota, period) = share.quota_period_us(cores);
        let root = match h {
            Hierarchy::V2(r) | Hierarchy::V1(r) => r,
        };
        if let Hierarchy::V2(r) = h {
            // Children of the root get the controller only if the root
            // hands it down (the root itself is exempt from "no internal
            // processes"). Left on after the run, as systemd leaves it:
            // other groups may have begun to use it by then.
            let ctl = r.join("cgroup.subtree_control");
            let on = fs::read_to_string(&ctl).unwrap_or_default();
            if !on.split_whitespace().any(|c| c == "cpu") {
                fs::write(&ctl, "+cpu")?;
            }
        }
        let dir = root.join(name);
        fs::create_dir(&dir)?;
        let cg = Cgroup { dir };
        let written = match h {
            Hierarchy::V2(_) => fs::write(cg.dir.join("cpu.max"), format!("{quota} {period}")),
            Hierarchy::V1(_) => fs::write(cg.dir.join("cpu.cfs_period_us"), period.to_string())
                .and_then(|_| fs::write(cg.dir.join("cpu.cfs_quota_us"), quota.to_string())),
        };
        // On an error `cg` is dropped, which removes the directory.
        written.map(|_| cg)
    }

    /// Its `cgroup.procs`: a pid written there joins it.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = remove_cgroup(&self.dir);
    }
}

/// Removes a cgroup directory, waiting up to a second for processes that
/// were killed to leave it (rmdir fails with EBUSY until then). A plain
/// directory (a test's) is removed with its files.
pub fn remove_cgroup(dir: &Path) -> io::Result<()> {
    let until = Instant::now() + Duration::from_secs(1);
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) && !is_cgroup(dir) => {
                return fs::remove_dir_all(dir);
            }
            Err(e) if Instant::now() >= until => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Whether `dir` is a cgroup (the kernel gives every one `cgroup.procs`;
/// its files cannot be deleted, only the directory).
fn is_cgroup(dir: &Path) -> bool {
    dir.join("cgroup.procs").exists()
}

/// The directories at the top of the `cpu` hierarchy: where a run's
/// cgroups are (`lighthouse clean` picks the ones named like a run's).
pub fn top_cgroups() -> Vec<PathBuf> {
    let Some(Hierarchy::V2(root) | Hierarchy::V1(root)) = cpu_hierarchy() else {
        return Vec::new();
    };
    let Ok(rd) = fs::read_dir(root) else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// The cgroups of run `prefix` (`<prefix>-<host>`).
pub fn run_cgroups(prefix: &str) -> Vec<PathBuf> {
    let want = format!("{prefix}-");
    top_cgroups()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&want))
        })
        .collect()
}

/// A host's cgroup and mount namespace while the run lasts.
#[derive(Debug)]
pub struct Confined {
    host: String,
    cgroup: Option<Cgroup>,
    /// The `sleep infinity` holding the mount namespace.
    holder: Mutex<Option<Child>>,
    holder_pid: Option<u32>,
    /// Mount points this run made (deepest last), removed at the end if
    /// still empty.
    made: Vec<PathBuf>,
}

impl Confined {
    /// Makes what `c` asks for host `host` of run `prefix`, whose network
    /// namespace is `ns`. On an error nothing is left behind.
    pub fn create(
        prefix: &str,
        host: &str,
        ns: &Path,
        c: &HostConfinement,
    ) -> Result<Confined, ConfineError> {
        let io_err = |what, path: &Path| {
            let host = host.to_string();
            let path = path.to_path_buf();
            move |source| ConfineError::Io {
                host,
                what,
                path,
                source,
            }
        };
        let mut me = Confined {
            host: host.to_string(),
            cgroup: None,
            holder: Mutex::new(None),
            holder_pid: None,
            made: Vec::new(),
        };
        if let Some(share) = &c.cpu {
            let h = cpu_hierarchy().ok_or_else(|| ConfineError::NoCpuController {
                host: host.to_string(),
            })?;
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let name = format!("{prefix}-{host}");
            let at = match &h {
                Hierarchy::V2(r) | Hierarchy::V1(r) => r.join(&name),
            };
            me.cgroup = Some(
                Cgroup::create(&h, &name, share, cores)
                    .map_err(io_err("making the cgroup", &at))?,
            );
        }
        if c.private_dirs.is_empty() {
            return Ok(me);
        }
        let mut mounts = Vec::new();
        for d in &c.private_dirs {
            let t = d.target();
            if !t.is_absolute() {
                return Err(ConfineError::Relative {
                    host: host.to_string(),
                    path: t.to_path_buf(),
                });
            }
            me.made.extend(make_dirs(t).map_err(io_err("making", t))?);
            let cstr = |p: &Path| CString::new(p.as_os_str().as_bytes()).unwrap_or_default();
            mounts.push(match d {
                PrivateDir::Tmpfs(t) => PrivateMount::Tmpfs { target: cstr(t) },
                PrivateDir::Bind { target, source } => {
                    // Mininet's persistent directory: made if missing and
                    // kept after the run.
                    fs::create_dir_all(source).map_err(io_err("making", source))?;
                    PrivateMount::Bind {
                        source: cstr(source),
                        target: cstr(target),
                    }
                }
            });
        }
        let mut cmd = Command::new("sleep");
        cmd.arg("infinity")
            .env("LH_RUN", prefix)
            .env("LH_NODE", host)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(cg) = &me.cgroup {
            let procs = open_procs(cg).map_err(io_err("opening", &cg.procs()))?;
            join_cgroup_on_exec(&mut cmd, procs);
        }
        lh_netns::host::private_mounts_on_exec(&mut cmd, mounts);
        let child =
            crate::netns::spawn_in(ns, &mut cmd).map_err(io_err("mounting privateDirs for", ns))?;
        me.holder_pid = Some(child.id());
        *me.holder.lock().unwrap_or_else(|e| e.into_inner()) = Some(child);
        Ok(me)
    }

    /// Makes `cmd`'s child join the host's cgroup and mount namespace.
    pub fn apply(&self, cmd: &mut Command) -> io::Result<()> {
        if let Some(cg) = &self.cgroup {
            join_cgroup_on_exec(cmd, open_procs(cg)?);
        }
        if let Some(pid) = self.holder_pid {
            let mnt = File::open(format!("/proc/{pid}/ns/mnt"))?;
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            let cwd = CString::new(cwd.as_os_str().as_bytes()).unwrap_or_default();
            enter_mount_ns_on_exec(cmd, mnt, cwd);
        }
        Ok(())
    }

    /// The pid holding the mount namespace, if the host has one.
    pub fn holder_pid(&self) -> Option<u32> {
        self.holder_pid
    }

    /// The cgroup's `cgroup.procs`, if the host has a CPU limit.
    pub fn procs(&self) -> Option<PathBuf> {
        self.cgroup.as_ref().map(Cgroup::procs)
    }

    /// The words that run a program in the host from outside (Python's
    /// `popen`): `ip netns exec NS`, behind `nsenter` into the mount
    /// namespace when the host has one (`ip netns exec` then makes its own
    /// from that one, with the same private mounts).
    pub fn exec_prefix(&self, ns_name: &str) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(pid) = self.holder_pid {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            v.extend([
                "nsenter".to_string(),
                "-t".into(),
                pid.to_string(),
                "-m".into(),
                format!("--wd={}", cwd.display()),
                "--".into(),
            ]);
        }
        v.extend(["ip".into(), "netns".into(), "exec".into(), ns_name.into()]);
        v
    }

    /// Ends the mount namespace's holder, removes the cgroup (once the
    /// host's processes, killed before, have left it) and the mount points
    /// the run made that are still empty; what failed, as lines.
    pub fn stop(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        if let Some(mut h) = self.holder.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = h.kill();
            let _ = h.wait();
        }
        if let Some(cg) = self.cgroup.take()
            && let Err(e) = remove_cgroup(cg.dir())
        {
            errors.push(format!(
                "{}: removing {}: {e}",
                self.host,
                cg.dir().display()
            ));
            std::mem::forget(cg);
        }
        for d in self.made.drain(..).rev() {
            let _ = fs::remove_dir(&d);
        }
        errors
    }
}

impl Drop for Confined {
    fn drop(&mut self) {
        self.stop();
    }
}

fn open_procs(cg: &Cgroup) -> io::Result<File> {
    OpenOptions::new().write(true).open(cg.procs())
}

/// `mkdir -p dir`; the directories it made, outermost first.
fn make_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    fs::create_dir_all(dir)?;
    if !dir.is_dir() {
        return Err(io::Error::other("not a directory"));
    }
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_is_mininets_fraction_of_the_machine() {
        let s = CpuShare {
            fraction: 0.125,
            period_us: PERIOD_US,
        };
        assert_eq!(s.quota_period_us(2), (25_000, PERIOD_US));
        assert_eq!(s.quota_period_us(4), (50_000, PERIOD_US));
        let tiny = CpuShare {
            fraction: 0.002,
            period_us: PERIOD_US,
        };
        // 200 us of 100 ms is under the kernel's 1 ms: 1 ms of 500 ms.
        assert_eq!(tiny.quota_period_us(1), (MIN_QUOTA_US, 500_000));
    }

    #[test]
    fn hierarchy_prefers_v2_with_cpu_else_v1s_cpu() {
        let hybrid = "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n\
                      cgroup /sys/fs/cgroup/cpuacct cgroup rw,cpuacct 0 0\n\
                      cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n";
        assert_eq!(
            hierarchy_in(hybrid, |_| false),
            Some(Hierarchy::V1("/sys/fs/cgroup/cpu".into()))
        );
        let unified = "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n";
        assert_eq!(
            hierarchy_in(unified, |p| p == Path::new("/sys/fs/cgroup")),
            Some(Hierarchy::V2("/sys/fs/cgroup".into()))
        );
        assert_eq!(hierarchy_in(unified, |_| false), None);
        assert_eq!(hierarchy_in("", |_| true), None);
    }

    /// The files each version is written, on a plain directory standing
    /// for the hierarchy (the kernel's own is tested live, by the Python
    /// test of CPULimitedHost).
    #[test]
    fn cgroup_files_are_each_versions() {
        let d = tempfile::tempdir().unwrap();
        let share = CpuShare {
            fraction: 0.5,
            period_us: 50_000,
        };
        let v2 = Cgroup::create(&Hierarchy::V2(d.path().into()), "lhx-h1", &share, 2).unwrap();
        assert_eq!(
            fs::read_to_string(v2.dir().join("cpu.max")).unwrap(),
            "50000 50000"
        );
        assert_eq!(
            fs::read_to_string(d.path().join("cgroup.subtree_control")).unwrap(),
            "+cpu"
        );
        let v1 = Cgroup::create(&Hierarchy::V1(d.path().into()), "lhx-h2", &share, 4).unwrap();
        let read = |f: &str| fs::read_to_string(v1.dir().join(f)).unwrap();
        assert_eq!(read("cpu.cfs_period_us"), "50000");
        assert_eq!(read("cpu.cfs_quota_us"), "100000");
        let dir = v1.dir().to_path_buf();
        drop(v1);
        assert!(!dir.exists(), "dropping a cgroup removes it");
    }

    #[test]
    fn make_dirs_names_only_what_it_made() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("a/b/c");
        let made = make_dirs(&t).unwrap();
        assert_eq!(made, [d.path().join("a"), d.path().join("a/b"), t.clone()]);
        assert!(make_dirs(&t).unwrap().is_empty());
    }
}
