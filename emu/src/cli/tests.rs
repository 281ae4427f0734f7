//! Unit tests of the CLI parser and the renderers it uses.

use super::*;
use crate::net::Network;
use crate::plan::Plan;
use crate::text::render::*;
use crate::text::sink::TextSink as Buf;
use crate::traffic::probe;
use lh_ctrl::compile::Compiled;
use lh_ctrl::tables::Ingress;
use std::time::Duration;

/// An offline network whose output the test reads back.
fn offline(plan: Plan) -> (Network, Buf) {
    let b = Buf::default();
    let mut n = Network::offline(plan, "lh0000");
    n.set_output(Box::new(b.clone()));
    n.pid = 99;
    (n, b)
}

/// A CLI over `n` whose stdout (`time`) goes to `stdout`.
fn cli<'a>(n: &'a mut Network, stdout: &Buf) -> Cli<'a> {
    let mut c = Cli::new(n);
    c.stdout = Box::new(stdout.clone());
    c
}

#[test]
fn topology_commands_print_mininet_text() {
    let (mut n, b) = offline(Plan::new(2, 2));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    c.onecmd("nodes");
    assert_eq!(b.take(), "available nodes are: \nh1 h2 h3 h4 s1 s2\n");
    c.onecmd("net");
    assert_eq!(
        b.take(),
        "h1 h1-eth0:s1-eth1\nh2 h2-eth0:s1-eth2\nh3 h3-eth0:s2-eth1\nh4 h4-eth0:s2-eth2\n\
         s1 lo:  s1-eth1:h1-eth0 s1-eth2:h2-eth0\ns2 lo:  s2-eth1:h3-eth0 s2-eth2:h4-eth0\n"
    );
    c.onecmd("intfs");
    assert!(b.take().contains("h1: h1-eth0\n"));
    c.onecmd("dump");
    let d = b.take();
    assert!(
        d.starts_with("<Host h1: h1-eth0:10.0.0.1 pid=99> \n"),
        "{d}"
    );
    assert!(
        d.contains("<OpticalToR s2: lo:127.0.0.1,s2-eth1:None,s2-eth2:None pid=99> \n"),
        "{d}"
    );
    c.onecmd("ports");
    assert_eq!(
        b.take(),
        "s1 lo:0 s1-eth1:1 s1-eth2:2 \ns2 lo:0 s2-eth1:1 s2-eth2:2 \n"
    );
}

#[test]
fn errors_and_flow_control() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    assert_eq!(c.onecmd("bogus"), Flow::Continue);
    assert_eq!(b.take(), "*** Unknown command: bogus\n");
    c.onecmd("bogus  with args");
    assert_eq!(b.take(), "*** Unknown command: bogus  with args\n");
    c.onecmd("h1");
    assert_eq!(b.take(), "*** Please enter a command for node: h1 <cmd>\n");
    c.onecmd("iperf h1 h9");
    assert_eq!(b.take(), "node 'h9' not in network\n");
    c.onecmd("iperf h1");
    assert_eq!(b.take(), "invalid number of args: iperf src dst\n");
    c.onecmd("drops");
    assert_eq!(b.take(), "*** No data plane in this run\n");
    c.onecmd("schedule");
    assert_eq!(b.take(), "*** No compiled schedule in this run\n");
    assert_eq!(c.onecmd("exit"), Flow::Exit);
    assert_eq!(c.onecmd("quit"), Flow::Exit);
    assert_eq!(c.onecmd("EOF"), Flow::Exit);
    assert_eq!(b.take(), "\n");
    assert_eq!(c.onecmd("time nodes"), Flow::Continue);
    // Like Mininet: the command's output on the CLI's stream, the timing
    // line on stdout.
    assert_eq!(b.take(), "available nodes are: \nh1 h2 s1 s2\n");
    let t = o.take();
    assert!(t.starts_with("*** Elapsed time: 0.0"), "{t}");
    assert!(t.ends_with(" secs\n"), "{t}");
}

#[test]
fn py_and_px_go_to_the_installed_hook_with_the_network() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let s2 = seen.clone();
    c.set_py(Box::new(move |net, line, px| {
        s2.borrow_mut()
            .push((net.plan.hosts.len(), line.to_string(), px));
        if line == "boom" {
            Err("NameError: name 'boom' is not defined".into())
        } else {
            Ok(format!("{line}!\n"))
        }
    }));
    c.onecmd("py client.IP()");
    assert_eq!(b.take(), "client.IP()!\n");
    c.onecmd("px x = 1");
    assert_eq!(b.take(), "x = 1!\n");
    c.onecmd("py boom");
    assert_eq!(b.take(), "NameError: name 'boom' is not defined\n");
    c.onecmd("py");
    assert!(b.take().contains("Usage: py"));
    assert_eq!(
        *seen.borrow(),
        [
            (2, "client.IP()".to_string(), false),
            (2, "x = 1".to_string(), true),
            (2, "boom".to_string(), false)
        ]
    );
}

#[test]
fn mininet_verbs_without_an_equivalent_say_what_to_use() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    c.onecmd("py h1.IP()");
    assert_eq!(b.take(), "10.0.0.1\n");
    c.onecmd("py net.get('h2').name");
    assert_eq!(b.take(), "h2\n");
    c.onecmd("py 1+1");
    let t = b.take();
    assert!(
        t.contains("<node>.IP()") && t.contains("<node> <cmd>"),
        "{t}"
    );
    c.onecmd("px import os");
    let t = b.take();
    assert!(
        t.starts_with("*** px: ") && t.contains("lighthouse.mininet.cli"),
        "{t}"
    );
    c.onecmd("dpctl dump-flows");
    let t = b.take();
    assert!(
        t.starts_with("*** dpctl: ") && t.contains("table <tor>"),
        "{t}"
    );
    c.onecmd("wait");
    assert_eq!(b.take(), "*** Waiting for switches to connect\ns1 s2 \n");
    c.onecmd("switch s1");
    assert_eq!(
        b.take(),
        "invalid number of args: switch <switch name>{start, stop}\n"
    );
    c.onecmd("switch s1 pause");
    assert_eq!(
        b.take(),
        "invalid command: switch <switch name> {start, stop}\n"
    );
    c.onecmd("switch h1 stop");
    assert_eq!(b.take(), "invalid switch: stop\n");
    c.onecmd("switch s2 stop");
    let t = b.take();
    assert!(
        t.contains("not supported") && t.contains("link <host> s2 down"),
        "{t}"
    );
    c.onecmd("xterm");
    assert_eq!(b.take(), "usage: xterm node1 node2 ...\n");
    c.onecmd("xterm h9");
    assert_eq!(b.take(), "node 'h9' not in network\n");
    assert!(o.take().is_empty());
}

#[test]
fn source_runs_a_file_and_stops_at_exit() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(f, "nodes\n# comment\n\nexit\nnet").unwrap();
    let flow = c.onecmd(&format!("source {}", f.path().display()));
    assert_eq!(flow, Flow::Exit);
    assert_eq!(b.take(), "available nodes are: \nh1 h2 s1 s2\n");
    c.onecmd("source /nonexistent/x");
    assert_eq!(b.take(), "error reading file /nonexistent/x\n");
}

#[test]
fn help_lists_commands_in_python_cmd_columns() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    c.onecmd("help");
    let h = b.take();
    assert!(h.starts_with("\nDocumented commands (type help <topic>):\n========================================\nEOF  "), "{h}");
    assert!(h.contains("You may also send a command to a node using:"));
    assert!(h.contains("  lighthouse> h2 ping h3\n"), "{h}");
    c.onecmd("help pingall");
    assert!(b.take().starts_with("Ping between all hosts."));
    // With Mininet's prompt, its examples show that prompt, as Mininet's do.
    c.prompt = MININET_PROMPT;
    c.onecmd("help");
    let h = b.take();
    assert!(
        h.contains("  mininet> h2 ping h3\n") && !h.contains("lighthouse> "),
        "{h}"
    );
}

/// A hand-made compiled network: 4 ToRs, 1 uplink, 3 slices.
fn small_compiled() -> Compiled {
    use lh_ctrl::config::{Config, Lookup};
    use lh_ctrl::schedule::{Endpoint, Schedule};
    let config = Config::from_json(
        r#"{"mode": "TO",
          "tors": {"count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
          "ocs": {"count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto"},
          "slice": {"duration": "100us", "guardband": "10us"},
          "topology": {"kind": "round_robin"}, "routing": {"algorithm": "direct"}}"#,
        "t.json",
    )
    .unwrap();
    let mut schedule = Schedule::new(4, 1, 3);
    let e = |t| Endpoint::new(t, 0);
    schedule.connect(e(0), e(1), 0).unwrap();
    schedule.connect(e(2), e(3), 0).unwrap();
    schedule.connect(e(0), e(2), 1).unwrap();
    schedule.connect(e(1), e(3), 1).unwrap();
    use swtor::testing::{entry, hop, tables};
    let mut e = entry(2, Some(0), hop(0, Some(1)), vec![hop(0, Some(4))]);
    e.m.ingress = Ingress::Host;
    let tables = tables(3, Lookup::Hop, vec![(0, vec![e])]);
    Compiled {
        config,
        schedule,
        routes: Default::default(),
        tables: tables.into(),
        timings: Vec::new(),
    }
}

#[test]
fn hybrid_schedule_text_lists_circuits_and_the_electrical_port() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../topologies/c-through-8.json");
    let cfg = lh_ctrl::config::Config::load(&path).unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let t = slice_text(&c, 0);
    assert!(t.contains("s1 up0 -> s5 up0\n"), "{t}");
    assert!(
        t.ends_with("every ToR up1 -> electrical switch -> any ToR (100Mbps)\n"),
        "{t}"
    );
    assert!(!t.contains("no circuits"), "{t}");
}

#[test]
fn optical_verbs_show_schedule_and_tables() {
    let c = small_compiled();
    let (mut n, b) = offline(Plan::from_config(&c.config));
    n.compiled = Some(c);
    let o = Buf::default();
    let mut cli = cli(&mut n, &o);
    cli.onecmd("schedule 1");
    assert_eq!(
        b.take(),
        "*** Slice 1 of 3 (100us, guardband 10us)\n\
         s1 up0 -> s3 up0 (reconfigured)\ns2 up0 -> s4 up0 (reconfigured)\n\
         s3 up0 -> s1 up0 (reconfigured)\ns4 up0 -> s2 up0 (reconfigured)\n"
    );
    cli.onecmd("schedule 2");
    assert!(b.take().ends_with("(no circuits)\n"));
    cli.onecmd("schedule 3");
    assert_eq!(b.take(), "*** Bad slice 3: expected 0..2\n");
    cli.onecmd("table s1");
    assert_eq!(
        b.take(),
        "*** s1 time-flow table: 1 entries (Hop lookup)\n\
         dst=s3 arrival=0 from=host class=* bucket=* -> up0@1 (alt up0@4)\n"
    );
    cli.onecmd("table 0");
    assert!(b.take().starts_with("*** s1 time-flow table"));
    cli.onecmd("table s9");
    assert!(b.take().starts_with("*** No such ToR: s9"));
    cli.onecmd("table s2");
    assert_eq!(b.take(), "*** s2 has no table\n");
    cli.onecmd("slice");
    assert_eq!(b.take(), "*** No data plane in this run\n");
}

#[test]
fn flow_amounts_and_text() {
    assert_eq!(parse_amount("10M"), Some(probe::Amount::Bytes(10_000_000)));
    assert_eq!(parse_amount("1500"), Some(probe::Amount::Bytes(1500)));
    assert_eq!(parse_amount("2s"), Some(probe::Amount::Seconds(2.0)));
    assert_eq!(parse_amount("0s"), None);
    assert_eq!(parse_amount("x"), None);
    let f = probe::FlowResult {
        bytes: 10_000_000,
        server_bps: 985e6,
        client_bps: 990e6,
        fct: Duration::from_micros(81_234),
    };
    assert_eq!(
        format_flow("h1", "h2", &f),
        "*** Flow h1 -> h2: 10000000 bytes in 81.234 ms, 985 Mbits/sec (receiver), 990 Mbits/sec (sender)"
    );
}

#[test]
fn bandwidths_parse_like_iperf() {
    assert_eq!(parse_bw("10M"), Some(10e6));
    assert_eq!(parse_bw("1.5G"), Some(1.5e9));
    assert_eq!(parse_bw("500k"), Some(500e3));
    assert_eq!(parse_bw("x"), None);
    assert_eq!(parse_bw("0M"), None);
    assert_eq!(parse_bw("infG"), None);
    assert_eq!(parse_bw("NaN"), None);
    assert_eq!(parse_bw("-5M"), None);
}

#[test]
fn kernel_drops_are_parsed_and_shown() {
    let dev = "Inter-|   Receive                                                |  Transmit\n \
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n\
lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n\
s1-eth1:  1000      10    1    2    0     0          0         0     2000      20    3    4    0     0       0          0\n\
s1-eth2:  1000      10    0    5    0     0          0         0     2000      20    0    6    0     0       0          0\n";
    let ifs = vec!["s1-eth1".to_string(), "s1-eth2".to_string()];
    let d = parse_net_dev(dev, &ifs);
    assert_eq!(
        d,
        IfaceDrops {
            rx_dropped: 7,
            tx_dropped: 10,
            rx_errors: 1,
            tx_errors: 3
        }
    );
    let t = format_kernel_drops(42, &[("ToR-side veths", d)]);
    assert!(t.contains("  port_drops       42 "), "{t}");
    assert!(
        t.contains("ToR-side veths: rx_dropped 7 tx_dropped 10 rx_errors 1 tx_errors 3"),
        "{t}"
    );
}

#[test]
fn durations_and_sizes_are_range_checked() {
    for bad in ["1e30s", "infs", "1e19s", "nans", "-1s", "0s", "1e13", "0"] {
        assert_eq!(parse_amount(bad), None, "{bad}");
    }
    assert_eq!(parse_seconds("86400"), Some(86400.0));
    assert_eq!(parse_seconds("86401"), None);
    assert_eq!(parse_seconds("-1"), None);
}

#[test]
fn nesting_is_limited() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    let line = format!("{}nodes", "time noecho ".repeat(10_000));
    assert_eq!(c.onecmd(&line), Flow::Continue);
    let out = b.take();
    assert!(out.contains("nested deeper than 32"), "{out}");
    assert!(!out.contains("available nodes"), "{out}");
    c.onecmd("time time nodes");
    assert!(b.take().starts_with("available nodes"));
}

#[test]
fn lines_with_invalid_utf8_are_reported_and_skipped() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    let input: &[u8] = b"bogus1\n\xc3\x28 x\nbogus3";
    assert_eq!(c.run_lines(input, "in"), Flow::Continue);
    assert_eq!(
        b.take(),
        "*** Unknown command: bogus1\n*** Error: in line 2: invalid UTF-8 at byte 1; line skipped\n*** Unknown command: bogus3\n"
    );
    assert_eq!(c.input_errors, 1);
    let d = tempfile::tempdir().unwrap();
    c.onecmd(&format!("source {}", d.path().display()));
    assert!(b.take().contains("is a directory"));
    c.onecmd("pingall -1");
    assert!(b.take().starts_with("*** Error: pingall: bad timeout -1"));
    // An endless line (`source /dev/zero`) stops the input, bounded.
    let long = vec![b'x'; MAX_LINE + 10];
    assert_eq!(c.run_lines(&long[..], "z"), Flow::Continue);
    assert_eq!(
        b.take(),
        format!("*** Error: z line 1: longer than {MAX_LINE} bytes; stopped reading\n")
    );
}

#[test]
fn sandbox_starts_nothing() {
    let (mut n, b) = offline(Plan::new(2, 1));
    let o = Buf::default();
    let mut c = cli(&mut n, &o);
    c.sandbox = true;
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("x.pcap");
    let touched = d.path().join("touched");
    c.onecmd(&format!("sh touch {}", touched.display()));
    c.onecmd(&format!("pcap h1 eth0 {}", f.display()));
    c.onecmd(&format!("noecho time sh touch {}", touched.display()));
    assert!(!f.exists() && !touched.exists());
    let _ = b.take();
    // Outside the sandbox too: a bad node or port creates no file.
    c.sandbox = false;
    c.onecmd(&format!("pcap h9 eth0 {}", f.display()));
    c.onecmd(&format!("pcap h1 eth7 {}", f.display()));
    c.onecmd(&format!("pcap s1 eth9 {}", f.display()));
    c.onecmd(&format!("pcap s1 0 {}", f.display()));
    assert!(!f.exists());
    assert_eq!(
        b.take(),
        "*** No such node: h9\n*** h1 has one port: eth0 (h1-eth0)\n*** s1 has no port eth9\n*** No data plane in this run\n"
    );
}

#[test]
fn counters_text_has_reasons_and_conservation() {
    let mut c = swtor::Counters {
        sent: 10,
        delivered: 7,
        queued: 1,
        ..Default::default()
    };
    c.drop_one(swtor::DropReason::NoCircuit);
    c.drop_one(swtor::DropReason::NoCircuit);
    let s = format_counters(&c);
    assert!(
        s.starts_with("*** sent 10 delivered 7 queued 1 dropped 2\n"),
        "{s}"
    );
    assert!(s.contains("  no_circuit       2\n"), "{s}");
    assert!(s.ends_with("*** conservation: sent 10 = delivered 7 + dropped 2 + queued 1: OK\n"));
    c.sent = 11;
    assert!(format_counters(&c).contains("VIOLATED"));
}
