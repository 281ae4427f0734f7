//! Hardening of the `lighthouse` binary (issue 7), through the binary and
//! as root: root check first, no writes through symlinks, explicit modes,
//! `clean` acting only on what it can prove is a run's, signals that work
//! whatever happens to stderr, captures that survive SIGTERM, and input that
//! gives errors instead of crashes.

mod common;

use common::*;
use lh_emu::kernel::state;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

const SMALL: &str = r#"{
  "name": "test-small",
  "mode": "TO",
  "tors": { "count": 2, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 2, "host_link_rate": "1Gbps" },
  "ocs": { "count": 1, "ports": 2, "reconfiguration_delay": "10us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "10us" },
  "topology": { "kind": "round_robin" },
  "routing": { "algorithm": "direct" }
}"#;

fn write_cfg(dir: &Path) -> PathBuf {
    let p = dir.join("small.json");
    std::fs::write(&p, SMALL).unwrap();
    p
}

fn no_leftovers(prefix: &str) {
    wait_for("teardown", Duration::from_secs(20), || {
        namespaces_of(prefix).is_empty() && !state::run_dir(prefix).exists()
    });
}

/// A run reading commands from `script` (a file), fabric or not.
fn run_script(cfg: &Path, prefix: &str, script: &Path, fabric: bool) -> Output {
    let mut c = Command::new(BIN);
    c.args(["run", cfg.to_str().unwrap(), "--prefix", prefix])
        .arg("--script")
        .arg(script);
    if !fabric {
        c.arg("--no-fabric");
    }
    c.stdin(Stdio::null()).output().unwrap()
}

fn spawn_stdin_run(cfg: &Path, prefix: &str, fabric: bool) -> Child {
    let mut c = Command::new(BIN);
    c.args(["run", cfg.to_str().unwrap(), "--prefix", prefix]);
    if !fabric {
        c.arg("--no-fabric");
    }
    c.stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_up(prefix: &str) {
    wait_for("namespaces", Duration::from_secs(30), || {
        namespaces_of(prefix).len() == 5 && state::load(prefix).is_some()
    });
}

fn sigterm(pid: u32) {
    // SAFETY: signalling a process we started, by pid.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

#[test]
fn root_check_comes_before_any_work() {
    if skip_unless_root("root_check_comes_before_any_work") {
        return;
    }
    // A non-root user asking for the largest topology: refused at once,
    // without compiling it first.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/opera-108.json");
    // The clone may sit under a 0700 directory (a `mktemp -d` checkout) that
    // uid 65534 cannot traverse: give it its own copies in a 0755 directory,
    // so the refusal tested is lighthouse's and not the kernel's EACCES.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.path().join("lighthouse");
    std::fs::copy(BIN, &bin).unwrap();
    let cfg = dir.path().join("opera-108.json");
    std::fs::copy(&src, &cfg).unwrap();
    let t = Instant::now();
    let out = {
        use std::os::unix::process::CommandExt;
        Command::new(&bin)
            .args(["run", cfg.to_str().unwrap()])
            .uid(65534)
            .gid(65534)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let el = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("needs root"), "{err}");
    assert!(
        el < Duration::from_millis(800),
        "refused after {el:?}: compiled first?"
    );
}

#[test]
fn pcap_never_writes_through_a_symlink_and_modes_ignore_the_umask() {
    if skip_unless_root("pcap_never_writes_through_a_symlink") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    // The attack: a world-writable sticky directory (like /tmp) where a
    // user planted symlinks to a root-owned file.
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "root's file\n").unwrap();
    let pub_dir = dir.path().join("pub");
    std::fs::create_dir(&pub_dir).unwrap();
    std::fs::set_permissions(&pub_dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    for l in ["host", "tor", "uplink"] {
        symlink(&victim, pub_dir.join(l)).unwrap();
    }
    // Not sticky: refused even for a new file.
    let open_dir = dir.path().join("open");
    std::fs::create_dir(&open_dir).unwrap();
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    // And one in a directory only root can write (O_NOFOLLOW's case).
    symlink(&victim, mine.join("link")).unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(
        &script,
        format!(
            "pcap h1 eth0 {p}/host\npcap s1 s1-eth1 {p}/tor\npcap s1 0 {p}/uplink\n\
             pcap h2 eth0 {o}/new.pcap\npcap h2 eth0 {m}/link\n\
             pcap h1 eth0 {m}/private.pcap\npcap --readable h2 eth0 {m}/shared.pcap\n\
             pcap s1 0 {m}/up.pcap\npcap stop\n",
            p = pub_dir.display(),
            o = open_dir.display(),
            m = mine.display()
        ),
    )
    .unwrap();
    let p = free_prefix();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 000; exec {BIN} run {} --prefix {p} --script {}",
            cfg.display(),
            script.display()
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("refusing to follow a symbolic link").count(),
        4,
        "host-port, ToR-port and uplink captures all refused: {err}"
    );
    assert!(
        err.contains("other users can write there"),
        "non-sticky shared dir refused: {err}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's file\n");
    assert!(!open_dir.join("new.pcap").exists());
    assert_eq!(mode(&mine.join("private.pcap")), 0o600, "{err}");
    assert_eq!(mode(&mine.join("shared.pcap")), 0o644);
    assert_eq!(mode(&mine.join("up.pcap")), 0o600);
    assert!(std::fs::metadata(mine.join("up.pcap")).unwrap().len() >= 24);
    assert!(out.status.success(), "{err}");
    no_leftovers(&p);
}

#[test]
fn state_modes_are_explicit_under_umask_000() {
    if skip_unless_root("state_modes_are_explicit_under_umask_000") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let p = free_prefix();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 000; exec {BIN} run {} --no-fabric --prefix {p}",
            cfg.display()
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_up(&p);
    assert_eq!(mode(Path::new(state::RUN_DIR)), 0o700);
    assert_eq!(mode(&state::run_dir(&p)), 0o700);
    assert_eq!(mode(&state::state_file(&p)), 0o600);
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    no_leftovers(&p);
}

/// A run directory with a hand-written state.json (no process behind it).
fn forge_run(prefix: &str, st: &state::RunState) {
    let d = state::run_dir(prefix);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        state::state_file(prefix),
        serde_json::to_string(st).unwrap(),
    )
    .unwrap();
}

fn clean(args: &[&str]) -> Output {
    Command::new(BIN).arg("clean").args(args).output().unwrap()
}

#[test]
fn forged_state_makes_clean_refuse_not_delete() {
    if skip_unless_root("forged_state_makes_clean_refuse_not_delete") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let rel = format!(
        "../..{}",
        victim.to_str().unwrap() // absolute: /tmp/... -> /run/netns/../../tmp/...
    );
    assert!(
        lh_emu::netns::ns_path(&rel).exists(),
        "the attack path works"
    );
    let p = free_prefix();
    forge_run(
        &p,
        &state::RunState {
            prefix: p.clone(),
            pid: 1,
            namespaces: vec![format!("{p}-h1"), rel.clone()],
            ..Default::default()
        },
    );
    let out = clean(&["--prefix", &p]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("refusing to clean this run"), "{err}");
    assert!(err.contains(&p), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert!(state::run_dir(&p).exists(), "nothing of it removed");
    // SAFETY-free: init (pid 1) was never signalled; a prefix field that
    // is not the directory's is refused too.
    forge_run(
        &p,
        &state::RunState {
            prefix: "lh0000".into(),
            ..Default::default()
        },
    );
    assert!(!clean(&["--prefix", &p]).status.success());
    std::fs::remove_dir_all(state::run_dir(&p)).unwrap();
}

#[test]
fn planted_netns_symlink_is_left_alone() {
    if skip_unless_root("planted_netns_symlink_is_left_alone") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // A foreign namespace with a process inside.
    let foreign = format!("hardentest{:04x}", rand::random::<u16>());
    let fpath = lh_emu::netns::create(&foreign).unwrap();
    let mut sleeper = lh_emu::netns::spawn_in(&fpath, Command::new("sleep").arg("300")).unwrap();
    let p = free_prefix();
    let link = lh_emu::netns::ns_path(&format!("{p}-h1"));
    symlink(&fpath, &link).unwrap();
    let out = clean(&["--prefix", &p]);
    let out2 = clean(&["--stale"]);
    let alive = sleeper.try_wait().unwrap().is_none();
    let still_mounted = matches!(
        lh_emu::netns::inspect(&fpath),
        Ok(lh_emu::netns::NsFile::Mounted(_))
    );
    let link_kept = link.symlink_metadata().is_ok();
    // Tidy up before asserting.
    let _ = std::fs::remove_file(&link);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let _ = lh_emu::netns::delete(&foreign);
    for o in [&out, &out2] {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("Left alone"), "{err}");
        assert!(err.contains("symbolic link"), "{err}");
    }
    assert!(alive, "the foreign namespace's process survives");
    assert!(still_mounted, "the foreign namespace stays mounted");
    assert!(link_kept, "the symlink itself is left alone");
}

#[test]
fn process_merely_named_lighthouse_survives_clean() {
    if skip_unless_root("process_merely_named_lighthouse_survives_clean") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // argv[0] and comm "lighthouse", a live pid recorded in a run's state:
    // the situation after PID reuse.
    let fake = dir.path().join("lighthouse");
    std::fs::copy("/bin/sleep", &fake).unwrap();
    let mut proc_ = Command::new(&fake).arg("300").spawn().unwrap();
    let pid = proc_.id();
    let start = state::proc_start_time(pid).unwrap();
    let cases = [
        // Same pid, another start time: a reused pid.
        (Some(start + 1), Some(PathBuf::from(BIN))),
        // Same pid and start time, but not the executable recorded.
        (Some(start), Some(PathBuf::from(BIN))),
    ];
    for (i, (pid_start, exe)) in cases.into_iter().enumerate() {
        let p = free_prefix();
        forge_run(
            &p,
            &state::RunState {
                prefix: p.clone(),
                pid,
                pid_start,
                exe,
                namespaces: vec![format!("{p}-h1")],
                ..Default::default()
            },
        );
        let out = clean(&["--prefix", &p]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "case {i}: {err}");
        assert!(!err.contains("Stopping live run"), "case {i}: {err}");
        assert!(
            proc_.try_wait().unwrap().is_none(),
            "case {i}: the process survives: {err}"
        );
        assert!(!state::run_dir(&p).exists(), "case {i}: dead run removed");
    }
    // Nothing recorded (a state file of an older build) and a live process
    // running a `lighthouse` executable: may be a live run, so nothing of
    // it is touched, and the operator is told.
    let p = free_prefix();
    forge_run(
        &p,
        &state::RunState {
            prefix: p.clone(),
            pid,
            ..Default::default()
        },
    );
    let out = clean(&["--prefix", &p]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not touched"), "{err}");
    assert!(proc_.try_wait().unwrap().is_none());
    assert!(state::run_dir(&p).exists());
    std::fs::remove_dir_all(state::run_dir(&p)).unwrap();
    let _ = proc_.kill();
    let _ = proc_.wait();
}

#[test]
fn clean_stops_live_runs_with_sigterm_and_stale_keeps_them() {
    if skip_unless_root("clean_stops_live_runs_with_sigterm") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let p = free_prefix();
    let mut child = spawn_stdin_run(&cfg, &p, false);
    wait_up(&p);
    // --stale leaves a live run alone.
    let out = clean(&["--stale"]);
    assert!(out.status.success());
    assert_eq!(namespaces_of(&p).len(), 5);
    assert!(child.try_wait().unwrap().is_none());
    // clean says it stops the run, and the run exits by SIGTERM (its own
    // teardown: exit code 130), not SIGKILL. (--prefix: plain `clean` would
    // also stop other live runs on this machine.)
    let out = clean(&["--prefix", &p]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "Stopping live run {p} (lighthouse pid {}",
            child.id()
        )),
        "{err}"
    );
    assert!(err.contains(&format!("Stopped run {p}")), "{err}");
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130), "{st:?}");
    no_leftovers(&p);
}

#[test]
fn sigterm_tears_down_with_stderr_a_closed_pipe() {
    if skip_unless_root("sigterm_tears_down_with_stderr_a_closed_pipe") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let p = free_prefix();
    // `lighthouse run ... 2>&1 | head -3`, stdin kept open.
    let mut sh = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{BIN} run {} --no-fabric --prefix {p} 2>&1 | head -3 >/dev/null",
            cfg.display()
        ))
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    wait_up(&p);
    let pid = state::load(&p).unwrap().pid;
    // Make it write more after head has gone.
    writeln!(sh.stdin.as_mut().unwrap(), "nodes\nnet\nhelp").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    sigterm(pid);
    no_leftovers(&p);
    drop(sh.stdin.take());
    sh.wait().unwrap();
}

#[test]
fn pcaps_survive_sigterm() {
    if skip_unless_root("pcaps_survive_sigterm") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let host = dir.path().join("h1.pcap");
    let up = dir.path().join("up.pcap");
    let p = free_prefix();
    let mut child = spawn_stdin_run(&cfg, &p, true);
    wait_up(&p);
    let done = dir.path().join("sent");
    {
        let i = child.stdin.as_mut().unwrap();
        writeln!(i, "pcap h1 eth0 {}", host.display()).unwrap();
        writeln!(i, "pcap s1 0 {}", up.display()).unwrap();
        // After the captures are on (the CLI runs lines in order): a few
        // frames from h1 to h3 (on s2: over the uplink), then a marker file
        // so the test signals only once they are sent.
        writeln!(
            i,
            "h1 python3 -c \"import socket,time;s=socket.socket(2,2);[(s.sendto(b'x',('10.0.0.3',9)),time.sleep(0.02)) for _ in range(10)];time.sleep(0.3);open('{}','w')\"",
            done.display()
        )
        .unwrap();
    }
    wait_for("frames sent", Duration::from_secs(30), || done.exists());
    sigterm(child.id());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    for f in [&host, &up] {
        let data = std::fs::read(f).unwrap();
        assert!(
            data.len() > 24,
            "{}: header and frames flushed: {} bytes: {err}",
            f.display(),
            data.len()
        );
        assert_eq!(&data[..4], &0xa1b2_3c4du32.to_le_bytes());
    }
    no_leftovers(&p);
}

#[test]
fn drops_shows_loss_outside_the_data_plane() {
    if skip_unless_root("drops_shows_loss_outside_the_data_plane") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let script = dir.path().join("d.lh");
    std::fs::write(&script, "drops\n").unwrap();
    let p = free_prefix();
    let out = run_script(&cfg, &p, &script, true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("*** outside the data plane"), "{err}");
    assert!(err.contains("  port_drops       0 "), "{err}");
    assert!(err.contains("  ToR-side veths: rx_dropped "), "{err}");
    assert!(err.contains("  host-side veths: rx_dropped "), "{err}");
    no_leftovers(&p);
}

#[test]
fn hostile_input_gives_errors_not_crashes() {
    if skip_unless_root("hostile_input_gives_errors_not_crashes") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let script = dir.path().join("s.lh");
    let selfsrc = dir.path().join("self.lh");
    std::fs::write(&selfsrc, format!("source {}\n", selfsrc.display())).unwrap();
    let deep = format!("{}nodes", "time ".repeat(20_000));
    assert!(deep.len() > 100_000);
    std::fs::write(
        &script,
        format!(
            "{deep}\nsource {s}\nflow h1 h2 1e30s\nflow h1 h2 infs\nflow h1 h2 1e19s\nflow h1 h2 nans\n\
             pingall -1\npingall 1 2\npingall inf\niperfudp 10000G h1 h2\necho-marker\n",
            s = selfsrc.display()
        ),
    )
    .unwrap();
    let p = free_prefix();
    let t = Instant::now();
    let out = run_script(&cfg, &p, &script, false);
    let el = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("*** Error: time: commands nested deeper than 32"),
        "{err}"
    );
    assert!(
        err.contains("*** Error: source: commands nested deeper than 32"),
        "{err}"
    );
    for a in ["1e30s", "infs", "1e19s", "nans"] {
        assert!(
            err.contains(&format!("*** Error: bad amount {a}")),
            "{a}: {err}"
        );
    }
    assert!(err.contains("*** Error: pingall: bad timeout -1"), "{err}");
    assert!(err.contains("*** Error: pingall: bad timeout inf"), "{err}");
    assert!(err.contains("*** Error: usage: pingall [timeout]"), "{err}");
    assert!(!err.contains("dropped"), "no ping ran: {err}");
    assert!(err.contains("more than the host link carries"), "{err}");
    assert!(
        err.contains("*** Unknown command: echo-marker"),
        "ran to the end: {err}"
    );
    assert!(
        el < Duration::from_secs(20),
        "iperfudp ran for a time: {el:?}"
    );
    no_leftovers(&p);
}

#[test]
fn invalid_utf8_and_source_directory_are_errors() {
    if skip_unless_root("invalid_utf8_and_source_directory_are_errors") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    let input: Vec<u8> = [
        b"nodes\n".as_slice(),
        b"h1 echo \xff\xfe\n",
        format!("source {}\n", dir.path().display()).as_bytes(),
        b"net\n",
    ]
    .concat();
    // Piped stdin and a script file: the same rules.
    let script = dir.path().join("bad.lh");
    std::fs::write(&script, &input).unwrap();
    let p = free_prefix();
    let mut child = Command::new(BIN)
        .args(["run", cfg.to_str().unwrap(), "--no-fabric", "--prefix", &p])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let piped = child.wait_with_output().unwrap();
    no_leftovers(&p);
    let p2 = free_prefix();
    let file = run_script(&cfg, &p2, &script, false);
    no_leftovers(&p2);
    for (what, out) in [("stdin", &piped), (script.to_str().unwrap(), &file)] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(
            err.contains(&format!(
                "*** Error: {what} line 2: invalid UTF-8 at byte 9"
            )),
            "{what}: {err}"
        );
        assert!(err.contains("is a directory"), "{what}: {err}");
        assert!(
            err.contains("h1 h1-eth0:s1-eth1"),
            "{what}: the lines after the bad one still ran: {err}"
        );
    }
}

#[test]
fn compile_out_never_writes_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    symlink(&victim, out.join("schedule.json")).unwrap();
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/rotornet-8.json");
    let r = Command::new(BIN)
        .args([
            "compile",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(err.contains("refusing to follow a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    // A new directory under umask 000: 0755 and files 0644, not 0777/0666.
    let out = dir.path().join("new/out");
    let r = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 000; exec {BIN} compile {} --out {}",
            cfg.display(),
            out.display()
        ))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(mode(&out), 0o755);
    for f in ["schedule.json", "tables.json", "summary.txt"] {
        assert_eq!(mode(&out.join(f)), 0o644, "{f}");
    }
}

#[test]
fn a_panic_still_tears_the_run_down() {
    if skip_unless_root("a_panic_still_tears_the_run_down") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_cfg(dir.path());
    for (where_, fabric) in [("main", true), ("thread", true), ("main", false)] {
        let p = free_prefix();
        let mut c = Command::new(BIN);
        c.args(["run", cfg.to_str().unwrap(), "--prefix", &p])
            .args(["--debug-panic", where_]);
        if !fabric {
            c.arg("--no-fabric");
        }
        let out = c.stdin(Stdio::null()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{where_}: {err}");
        assert!(err.contains(&format!("--debug-panic {where_}")), "{err}");
        assert!(
            err.contains(&format!("*** Internal error: tearing down {p}")),
            "{err}"
        );
        // Gone at once, not by a later clean.
        assert!(
            namespaces_of(&p).is_empty(),
            "{where_}: {:?}",
            namespaces_of(&p)
        );
        assert!(!state::run_dir(&p).exists());
    }
}
