//! Against real namespaces (run as root; each test skips with a printed
//! reason otherwise): a fresh `ip netns add lhtest<pid>-<n>`, always deleted.

use super::*;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicU32, Ordering};

/// A named namespace made with iproute2 and deleted on drop.
struct TestNs {
    name: String,
    path: PathBuf,
}

static SEQ: AtomicU32 = AtomicU32::new(0);

impl TestNs {
    /// None (after saying why) where namespaces cannot be made.
    fn new(test: &str) -> Option<TestNs> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            skip(test, "needs root");
            return None;
        }
        let name = format!(
            "lhtest{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        match Command::new("ip").args(["netns", "add", &name]).status() {
            Ok(s) if s.success() => {}
            Ok(s) => panic!("ip netns add {name}: {s}"),
            Err(e) => {
                skip(test, &format!("iproute2 `ip`: {e}"));
                return None;
            }
        }
        let path = Path::new("/run/netns").join(&name);
        Some(TestNs { name, path })
    }
}

impl Drop for TestNs {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// Straight to stderr: the harness captures `eprintln!`, and a skip must
/// show even when the test passes.
fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {test}: {why}");
}

/// The inode of a namespace file (what identifies the namespace).
fn ino(path: impl AsRef<Path>) -> u64 {
    std::fs::metadata(path).expect("stat namespace").ino()
}

/// The calling thread's network namespace.
fn here() -> u64 {
    ino("/proc/thread-self/ns/net")
}

#[test]
fn enter_moves_only_the_calling_thread() {
    let Some(ns) = TestNs::new("enter_moves_only_the_calling_thread") else {
        return;
    };
    let before = here();
    assert_ne!(before, ino(&ns.path), "a fresh namespace");
    let p = ns.path.clone();
    let inside = std::thread::spawn(move || {
        enter(&p).unwrap();
        here()
    })
    .join()
    .unwrap();
    assert_eq!(inside, ino(&ns.path));
    assert_eq!(here(), before, "the caller stayed");
    // The same through an open Netns, which remembers its path.
    let n = Netns::open(&ns.path).unwrap();
    assert_eq!(n.path(), ns.path);
    let inside = std::thread::scope(|s| {
        s.spawn(|| {
            n.enter().unwrap();
            here()
        })
        .join()
        .unwrap()
    });
    assert_eq!(inside, ino(&ns.path));
}

#[test]
fn run_in_runs_the_closure_inside_on_another_thread() {
    let Some(ns) = TestNs::new("run_in_runs_the_closure_inside_on_another_thread") else {
        return;
    };
    let before = here();
    let caller = std::thread::current().id();
    let borrowed = String::from("borrowed from the caller");
    let (inside, len, thread) = run_in(Some(&ns.path), || {
        (here(), borrowed.len(), std::thread::current().id())
    })
    .unwrap();
    assert_eq!(inside, ino(&ns.path));
    assert_eq!(len, borrowed.len());
    assert_ne!(thread, caller);
    assert_eq!(here(), before, "the caller stayed");
    // None: the caller's namespace, still on a thread of its own.
    let (inside, thread) = run_in(None, || (here(), std::thread::current().id())).unwrap();
    assert_eq!(inside, before);
    assert_ne!(thread, caller);
    assert_eq!(
        try_run_in(Some(&ns.path), || Ok(here())).unwrap(),
        ino(&ns.path)
    );
}

#[test]
fn errors_name_the_path_and_keep_their_kind() {
    let missing = Path::new("/run/netns/lhtest-no-such-namespace");
    let e = run_in(Some(missing), || ()).unwrap_err();
    assert!(matches!(e, Error::Open { .. }), "{e:?}");
    let io: io::Error = e.into();
    assert_eq!(io.kind(), io::ErrorKind::NotFound);
    assert!(
        io.to_string()
            .contains("open /run/netns/lhtest-no-such-namespace"),
        "{io}"
    );
    assert_eq!(
        try_run_in(Some(missing), || Ok(())).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    // Not a namespace: setns refuses it (EINVAL), on the helper thread.
    let e = run_in(Some(Path::new("/dev/null")), || ()).unwrap_err();
    match &e {
        Error::Enter { path, source } => {
            assert_eq!(path, Path::new("/dev/null"));
            assert_eq!(source.raw_os_error(), Some(libc::EINVAL));
        }
        _ => panic!("{e:?}"),
    }
    assert_eq!(
        e.to_string(),
        "setns /dev/null: Invalid argument (os error 22)"
    );
    assert!(matches!(enter("/dev/null"), Err(Error::Enter { .. })));
    // The closure's own error comes back as it was.
    let e = try_run_in(None, || -> io::Result<()> { Err(io::Error::other("mine")) }).unwrap_err();
    assert_eq!(e.to_string(), "mine");
    // A panic is an error, not a panic of the caller.
    let e = run_in(None, || panic!("boom")).unwrap_err();
    assert!(matches!(e, Error::Panicked), "{e:?}");
    let io: io::Error = e.into();
    assert_eq!(io.kind(), io::ErrorKind::Other);
}

#[test]
fn enter_on_exec_starts_the_child_inside() {
    let Some(ns) = TestNs::new("enter_on_exec_starts_the_child_inside") else {
        return;
    };
    let before = here();
    let mut cmd = Command::new("readlink");
    cmd.arg("/proc/self/ns/net");
    enter_on_exec(&mut cmd, Netns::open(&ns.path).unwrap());
    let out = cmd.output().expect("readlink runs");
    assert!(out.status.success(), "{out:?}");
    let link = String::from_utf8(out.stdout).unwrap();
    assert_eq!(link.trim(), format!("net:[{}]", ino(&ns.path)));
    assert_eq!(here(), before, "the parent stayed");
    // A file that is not a namespace: spawn fails with setns's error.
    let mut cmd = Command::new("true");
    enter_on_exec(&mut cmd, Netns::open("/dev/null").unwrap());
    let e = cmd.status().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{e}");
}

#[test]
fn enter_on_exec_with_sysfs_shows_the_namespace_interfaces() {
    let test = "enter_on_exec_with_sysfs_shows_the_namespace_interfaces";
    let Some(ns) = TestNs::new(test) else {
        return;
    };
    // An interface that exists only inside the namespace.
    let ifname = format!("lhs{}", std::process::id() % 100_000);
    let peer = format!("{ifname}p");
    let st = Command::new("ip")
        .args(["-n", &ns.name, "link", "add", &ifname, "type", "veth"])
        .args(["peer", "name", &peer])
        .status()
        .expect("ip link add");
    assert!(st.success(), "ip link add {ifname} (veth): {st}");
    let list = |sysfs: bool| {
        let mut cmd = Command::new("ls");
        cmd.arg("/sys/class/net");
        let nsf = Netns::open(&ns.path).unwrap();
        if sysfs {
            enter_on_exec_with_sysfs(&mut cmd, nsf);
        } else {
            enter_on_exec(&mut cmd, nsf);
        }
        let out = cmd.output().expect("ls runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // Without its own sysfs the child sees the root namespace's devices.
    assert!(!list(false).split_whitespace().any(|n| n == ifname));
    let inside = list(true);
    let names: Vec<&str> = inside.split_whitespace().collect();
    assert!(names.contains(&ifname.as_str()), "{names:?}");
    assert!(names.contains(&"lo"), "{names:?}");
    // The parent's /sys is untouched.
    assert!(!Path::new("/sys/class/net").join(&ifname).exists());
}
