//! Real simple_switch processes in throwaway namespaces. Every test prints
//! `SKIP: <reason>` and passes when the P4 toolchain or root is missing.

mod common;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bmv2_thrift::{
    Bmv2Switch, CompileError, Error, Key, ProcessRecord, Severity, SwitchError, SwitchOpts, Value,
    compile,
};
use common::*;

const SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const DST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];

#[test]
fn entries_registers_counters_and_a_frame_through() {
    if !can_run("entries_registers_counters_and_a_frame_through") {
        return;
    }
    let r = rig("sw-e2e");
    let mut c = r.switch.client().expect("client");

    let cfg = c.config_json().expect("config");
    assert!(
        cfg["pipelines"].is_array(),
        "bm_get_config returns the program JSON"
    );
    assert!(c.pipeline().tables.contains_key("Ing.fwd"));

    // Forward port 1 -> 2 (short names resolve by unique suffix).
    let h = c
        .table_add(
            "fwd",
            "set_port",
            &[Key::exact(1u16)],
            &[Value::from(2u16)],
            None,
        )
        .expect("add fwd");
    assert!(h >= 0);
    c.table_set_default("Ing.fwd", "Ing.drop", &[])
        .expect("default");
    assert_eq!(c.table_num_entries("fwd").unwrap(), 1);
    // The other key kinds are accepted by the switch with our encoding.
    c.table_add(
        "by_dst",
        "set_mark",
        &[Key::lpm([0x04u8, 0, 0, 0, 0, 0], 8)],
        &[Value::from(9u8)],
        None,
    )
    .expect("lpm entry");
    c.table_add(
        "by_src",
        "set_mark",
        &[Key::range(
            [0x04u8, 0, 0, 0, 0, 0],
            [0x04u8, 0, 0, 0, 0, 0xff],
        )],
        &[Value::from(8u8)],
        Some(1),
    )
    .expect("range entry");

    // Registers.
    c.register_write("scratch", 3, 0xdead_beef).unwrap();
    assert_eq!(c.register_read("Ing.scratch", 3).unwrap(), 0xdead_beef);
    c.register_reset("scratch").unwrap();
    assert_eq!(c.register_read("scratch", 3).unwrap(), 0);

    // A frame in on port 1 comes out on port 2 and is counted.
    c.counter_reset("port_rx").unwrap();
    let tx = raw_socket(&r.ns.path, "a1");
    let rx = raw_socket(&r.ns.path, "b1");
    for _ in 0..3 {
        send(&tx, &frame(DST, SRC, 0x1234, 64));
    }
    let got = recv_from(&rx, SRC, 3, Duration::from_secs(5));
    assert_eq!(got.len(), 3, "3 frames forwarded from port 1 to port 2");
    assert_eq!(got[0].len(), 64);
    let (pkts, bytes) = c.counter_read("port_rx", 1).unwrap();
    assert_eq!((pkts, bytes), (3, 192), "port_rx[1] counts the 3 frames");
    assert_eq!(c.counter_read("port_rx", 2).unwrap(), (0, 0));
    assert_eq!(
        c.register_read("scratch", 15).unwrap(),
        64,
        "the program stores packet_length"
    );

    // After clearing, the default action drops.
    c.table_clear("fwd").unwrap();
    assert_eq!(c.table_num_entries("fwd").unwrap(), 0);
    send(&tx, &frame(DST, SRC, 0x1234, 64));
    assert!(
        recv_from(&rx, SRC, 1, Duration::from_millis(500)).is_empty(),
        "dropped after clear"
    );

    // Clocks.
    let t1 = c.time_elapsed_us().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let t2 = c.time_elapsed_us().unwrap();
    assert!(t2 >= t1 + 15_000, "elapsed {t1} -> {t2}");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64;
    let sw = c.time_since_epoch_us().unwrap();
    assert!(
        sw.abs_diff(now) < 5_000_000,
        "switch epoch clock {sw} vs {now}"
    );

    // The process record proves the process is ours.
    let rec = ProcessRecord::load(&r.dir.path().join("sw-e2e.pid.json")).unwrap();
    assert_eq!(rec.pid, r.switch.pid());
    assert!(rec.is_running());
    // The packet log is there.
    let log = std::fs::read_to_string(r.switch.log_path()).unwrap();
    assert!(log.contains("Ing.fwd"), "packet log mentions the table");
}

/// BMv2 picks the matching ternary entry with the *lowest* priority value.
#[test]
fn ternary_priority_lower_value_wins() {
    if !can_run("ternary_priority_lower_value_wins") {
        return;
    }
    let r = rig("sw-prio");
    let mut c = r.switch.client().unwrap();
    c.table_add(
        "fwd",
        "set_port",
        &[Key::exact(1u16)],
        &[Value::from(2u16)],
        None,
    )
    .unwrap();
    let tx = raw_socket(&r.ns.path, "a1");
    let rx = raw_socket(&r.ns.path, "b1");

    let mark_for = |c: &mut bmv2_thrift::Bmv2Client, exact_prio: i32, wild_prio: i32| {
        c.table_clear("by_type").unwrap();
        c.register_reset("marks").unwrap();
        c.table_add(
            "by_type",
            "set_mark",
            &[Key::ternary(0x88b6u16, 0xffffu16)],
            &[Value::from(1u8)],
            Some(exact_prio),
        )
        .unwrap();
        c.table_add(
            "by_type",
            "set_mark",
            &[Key::ternary(0u16, 0u16)],
            &[Value::from(2u8)],
            Some(wild_prio),
        )
        .unwrap();
        send(&tx, &frame(DST, SRC, 0x88b6, 64));
        assert_eq!(recv_from(&rx, SRC, 1, Duration::from_secs(5)).len(), 1);
        c.register_read("marks", 0).unwrap()
    };
    assert_eq!(
        mark_for(&mut c, 10, 1),
        2,
        "wildcard with priority 1 beats exact with 10"
    );
    assert_eq!(
        mark_for(&mut c, 1, 10),
        1,
        "exact with priority 1 beats wildcard with 10"
    );
}

#[test]
fn wrong_widths_and_names_are_named_errors() {
    if !can_run("wrong_widths_and_names_are_named_errors") {
        return;
    }
    let r = rig("sw-errs");
    let mut c = r.switch.client().unwrap();
    let msg = |e: Error| e.to_string();

    let e = c.table_add("nope", "set_port", &[], &[], None).unwrap_err();
    assert!(matches!(e, Error::UnknownName { kind: "table", .. }), "{e}");
    assert!(msg(e).contains("nope"));

    let e = c
        .table_add("fwd", "no_such_action", &[Key::exact(1u16)], &[], None)
        .unwrap_err();
    assert!(
        matches!(e, Error::UnknownName { kind: "action", .. }),
        "{e}"
    );

    let e = c
        .table_add(
            "fwd",
            "set_mark",
            &[Key::exact(1u16)],
            &[Value::from(1u8)],
            None,
        )
        .unwrap_err();
    assert!(matches!(e, Error::ActionNotInTable { .. }), "{e}");
    assert!(msg(e).contains("Ing.fwd"));

    // set_port's parameter is bit<9>.
    let e = c
        .table_add(
            "fwd",
            "set_port",
            &[Key::exact(1u16)],
            &[Value::from(512u16)],
            None,
        )
        .unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, Error::ParamTooWide { width: 9, .. }), "{s}");
    assert!(
        s.contains("Ing.set_port") && s.contains("port") && s.contains("512"),
        "{s}"
    );

    // ingress_port is bit<9>.
    let e = c
        .table_add(
            "fwd",
            "set_port",
            &[Key::exact(600u16)],
            &[Value::from(1u16)],
            None,
        )
        .unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, Error::KeyTooWide { width: 9, .. }), "{s}");
    assert!(
        s.contains("Ing.fwd") && s.contains("sm.ingress_port"),
        "{s}"
    );

    // A MAC has 48 bits.
    let e = c
        .table_add(
            "by_dst",
            "set_mark",
            &[Key::lpm([1u8, 0, 0, 0, 0, 0, 0], 8)],
            &[Value::from(1u8)],
            None,
        )
        .unwrap_err();
    assert!(matches!(e, Error::KeyTooWide { width: 48, .. }), "{e}");
    let e = c
        .table_add(
            "by_dst",
            "set_mark",
            &[Key::lpm([1u8, 0, 0, 0, 0, 0], 49)],
            &[Value::from(1u8)],
            None,
        )
        .unwrap_err();
    assert!(matches!(e, Error::PrefixTooLong { .. }), "{e}");

    let e = c
        .table_add(
            "fwd",
            "set_port",
            &[Key::ternary(1u16, 1u16)],
            &[Value::from(1u16)],
            None,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::KeyKind {
                expected: "exact",
                got: "ternary",
                ..
            }
        ),
        "{e}"
    );
    let e = c
        .table_add("fwd", "set_port", &[], &[Value::from(1u16)], None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::KeyCount {
                expected: 1,
                got: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = c
        .table_add("fwd", "set_port", &[Key::exact(1u16)], &[], None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::ParamCount {
                expected: 1,
                got: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = c
        .table_add(
            "by_type",
            "set_mark",
            &[Key::ternary(1u16, 1u16)],
            &[Value::from(1u8)],
            None,
        )
        .unwrap_err();
    assert!(matches!(e, Error::MissingPriority { .. }), "{e}");

    // marks is bit<8> x 1.
    let e = c.register_write("marks", 0, 256).unwrap_err();
    assert!(
        matches!(e, Error::RegisterValueTooWide { width: 8, .. }),
        "{e}"
    );
    let e = c.register_write("marks", 1, 0).unwrap_err();
    assert!(matches!(e, Error::IndexOutOfRange { .. }), "{e}");
    let e = c.counter_read("nope", 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::UnknownName {
                kind: "counter",
                ..
            }
        ),
        "{e}"
    );

    // A duplicate entry is refused by the switch, with BMv2's code.
    c.table_add(
        "fwd",
        "set_port",
        &[Key::exact(1u16)],
        &[Value::from(2u16)],
        None,
    )
    .unwrap();
    let e = c
        .table_add(
            "fwd",
            "set_port",
            &[Key::exact(1u16)],
            &[Value::from(2u16)],
            None,
        )
        .unwrap_err();
    assert!(e.to_string().contains("DUPLICATE_ENTRY"), "{e}");
}

#[test]
fn killed_switch_is_reported_by_check() {
    if !can_run("killed_switch_is_reported_by_check") {
        return;
    }
    let mut r = rig("sw-kill");
    assert!(r.switch.is_alive());
    r.switch.check().unwrap();
    let pid = r.switch.pid();
    let st = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while r.switch.is_alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let e = r.switch.check().unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, SwitchError::Died { .. }), "{s}");
    assert!(s.contains("sw-kill") && s.contains("signal: 9"), "{s}");
    assert!(!r.switch.record().is_running());
}

#[test]
fn bad_json_fails_start_with_log_tail() {
    if !can_run("bad_json_fails_start_with_log_tail") {
        return;
    }
    let dir = state_dir();
    let ns = TestNs::new();
    let json = dir.path().join("bad.json");
    std::fs::write(&json, "{ not json").unwrap();
    let mut opts = SwitchOpts::new("sw-bad", &json, 5000 + seq() as u64, 9090, dir.path());
    opts.netns = Some(ns.path.clone());
    opts.start_timeout = Duration::from_secs(5);
    let e = Bmv2Switch::spawn(opts).unwrap_err();
    let s = e.to_string();
    assert!(
        matches!(e, SwitchError::Died { .. } | SwitchError::NotReady { .. }),
        "{s}"
    );
    assert!(s.contains("sw-bad"), "{s}");
    println!("{s}");
}

#[test]
fn compile_errors_and_warnings_name_file_and_line() {
    if !can_run("compile_errors_and_warnings_name_file_and_line") {
        return;
    }
    let dir = state_dir();
    let p4 = p4_dir();

    let e = compile(&p4.join("broken.p4"), dir.path(), &[]).unwrap_err();
    let s = e.to_string();
    let CompileError::Diagnostics {
        diagnostics,
        status,
        ..
    } = &e
    else {
        panic!("{s}")
    };
    assert!(status.is_some(), "p4c failed");
    let d = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .expect("an error");
    assert!(d.file.as_ref().unwrap().ends_with("broken.p4"), "{d}");
    assert_eq!(d.line, Some(9), "{d}");
    assert!(s.contains("broken.p4:9: error: undefined_thing"), "{s}");

    let e = compile(&p4.join("warns.p4"), dir.path(), &[]).unwrap_err();
    let s = e.to_string();
    let CompileError::Diagnostics {
        diagnostics,
        status,
        ..
    } = &e
    else {
        panic!("{s}")
    };
    assert_eq!(
        *status, None,
        "p4c succeeded, but a warning fails the build"
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.line == Some(14)),
        "{s}"
    );
    assert!(s.contains("warns.p4:14: warning"), "{s}");

    // The clean program compiles.
    let json = compile(&p4.join("basic.p4"), dir.path(), &[]).unwrap();
    assert!(json.is_file());
}

/// The switch dies with the thread that spawned it (PR_SET_PDEATHSIG), and
/// `clean` kills a leftover switch found through its record.
#[test]
fn switch_dies_with_its_parent_thread_and_clean_kills_leftovers() {
    if !can_run("switch_dies_with_its_parent_thread_and_clean_kills_leftovers") {
        return;
    }
    let dir = state_dir();
    let ns = TestNs::new();
    let json = basic_json(dir.path());
    let spawn = |name: &str| {
        let mut opts = SwitchOpts::new(
            name,
            &json,
            6000 + seq() as u64,
            9090 + seq() as u16,
            dir.path(),
        );
        opts.netns = Some(ns.path.clone());
        opts.interfaces = vec![(1, "a0".into())];
        opts
    };

    // Spawned from a thread that exits without stopping it.
    let opts = spawn("sw-orphan");
    let rec = std::thread::spawn(move || {
        let sw = Bmv2Switch::spawn(opts).unwrap_or_else(|e| panic!("{e}"));
        let rec = sw.record().clone();
        std::mem::forget(sw);
        rec
    })
    .join()
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while rec.is_running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !rec.is_running(),
        "pid {} outlived its parent thread",
        rec.pid
    );

    // A leftover recorded in the state directory.
    let sw = Bmv2Switch::spawn(spawn("sw-left")).unwrap_or_else(|e| panic!("{e}"));
    let rec = sw.record().clone();
    std::mem::forget(sw);
    assert!(rec.is_running());
    let killed = bmv2_thrift::clean(dir.path()).unwrap();
    assert!(killed.iter().any(|r| r.pid == rec.pid), "{killed:?}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while rec.is_running() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!rec.is_running());
    assert!(!dir.path().join("sw-left.pid.json").exists());
}

/// simple_switch's port monitor reads `/sys/class/net/<if>/operstate`
/// every second; in a network namespace it must see that namespace's
/// sysfs, or it logs `open: No such file or directory` once a second per
/// port (the interfaces a0/b0 exist only inside the test namespace).
#[test]
fn port_monitor_sees_the_namespace_sysfs() {
    if !can_run("port_monitor_sees_the_namespace_sysfs") {
        return;
    }
    let mut r = rig("sw-sysfs");
    // The monitor polls once a second: three polls per port.
    std::thread::sleep(Duration::from_millis(3500));
    r.switch.check().expect("the switch still runs");
    let log = std::fs::read_to_string(r.switch.log_path()).unwrap();
    assert!(
        !log.lines().any(|l| l.contains("open:")),
        "the port monitor could not read its interfaces' sysfs:\n{log}"
    );
    // The switch is in a mount namespace of its own, the test is not.
    let mnt = |pid: &str| std::fs::read_link(format!("/proc/{pid}/ns/mnt")).unwrap();
    assert_ne!(mnt(&r.switch.pid().to_string()), mnt("self"));
}

/// `run --tor bmv2` and the tests compile the same program again and again
/// (5-10 s each): the cache keys a program by its preprocessed sources, so
/// the same files elsewhere hit, a changed `#include`d file misses, and a
/// program with a warning is never stored.
#[test]
fn compiled_programs_are_cached_by_their_preprocessed_sources() {
    if !can_run("compiled_programs_are_cached_by_their_preprocessed_sources") {
        return;
    }
    let work = state_dir();
    let cache = bmv2_thrift::P4Cache::at(work.path().join("cache"));
    let basic = std::fs::read_to_string(p4_dir().join("basic.p4")).unwrap();
    let reg = "    register<bit<32>>(16) scratch;";
    assert!(basic.contains(reg));
    let main = basic.replace(reg, "#include \"regs.p4\"");
    let write = |dir: &str, regs: &str| {
        let d = work.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("main.p4"), &main).unwrap();
        std::fs::write(d.join("regs.p4"), regs).unwrap();
        d.join("main.p4")
    };
    let run = |p4: &Path, out: &str, cache: &bmv2_thrift::P4Cache| {
        let (json, how) =
            bmv2_thrift::compile_in(p4, &work.path().join(out), &[], cache).expect("compiles");
        (std::fs::read(json).unwrap(), how)
    };
    use bmv2_thrift::Cached::{Hit, Miss, Off};

    let a = write("a", reg);
    let (first, how) = run(&a, "out1", &cache);
    assert_eq!(how, Miss);
    let (again, how) = run(&a, "out2", &cache);
    assert_eq!(how, Hit);
    assert_eq!(again, first, "a hit is the compiled program");
    // The same sources in another directory (each run writes its own copy).
    let b = write("b", reg);
    assert_eq!(run(&b, "out3", &cache).1, Hit);
    // A change in an included file is another program.
    std::fs::write(
        work.path().join("b/regs.p4"),
        "    register<bit<32>>(17) scratch;",
    )
    .unwrap();
    let (changed, how) = run(&b, "out4", &cache);
    assert_eq!(how, Miss);
    assert_ne!(changed, first);
    let entries = || std::fs::read_dir(cache.dir().unwrap()).unwrap().count();
    assert_eq!(entries(), 2);
    // Warnings fail every time: nothing stored.
    for _ in 0..2 {
        bmv2_thrift::compile_in(&p4_dir().join("warns.p4"), work.path(), &[], &cache)
            .expect_err("a warning fails the build");
    }
    assert_eq!(entries(), 2);
    assert_eq!(run(&a, "out5", &bmv2_thrift::P4Cache::off()).1, Off);
}

/// BMv2's default log level is `trace`, and without a sink it still formats
/// every per-packet message: a switch without the packet log runs with the
/// level off (3x a BMv2 ToR's TCP throughput, docs/benchmarks.md), and one
/// with it keeps the console at `trace`.
#[test]
fn without_the_packet_log_the_log_level_is_off() {
    if !can_run("without_the_packet_log_the_log_level_is_off") {
        return;
    }
    for packet_log in [false, true] {
        let dir = state_dir();
        let ns = TestNs::new();
        let json = basic_json(dir.path());
        let mut opts = SwitchOpts::new(
            format!("sw-log{}", packet_log as u8),
            json,
            7000 + (std::process::id() % 1000) as u64 * 2 + packet_log as u64,
            9090,
            dir.path(),
        );
        opts.interfaces = vec![(1, "a0".into())];
        opts.netns = Some(ns.path.clone());
        opts.packet_log = packet_log;
        let mut sw = Bmv2Switch::spawn(opts).unwrap_or_else(|e| panic!("{e}"));
        let args = std::fs::read(format!("/proc/{}/cmdline", sw.pid())).unwrap();
        let args: Vec<&[u8]> = args.split(|&b| b == 0).collect();
        let has = |a: &[u8], b: Option<&[u8]>| {
            args.windows(2)
                .any(|w| w[0] == a && b.is_none_or(|b| w[1] == b))
        };
        assert_eq!(has(b"--log-level", Some(b"off")), !packet_log, "{args:?}");
        assert_eq!(has(b"--log-console", None), packet_log, "{args:?}");
        sw.stop().unwrap();
    }
}
