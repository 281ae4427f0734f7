//! Mininet parity: the 15 CLI checks of docs/mininet.md ("Parity with
//! Mininet"). Each runs `lighthouse run` as a Mininet user would and
//! compares with what Mininet 2.3.0 printed for the same command
//! (recorded below from `mn --switch lxbr --controller none -v output`;
//! pids masked, and Mininet's switch class `LinuxBridge` is Lighthouse's
//! `OpticalToR`). Check 15 (Tab completion, history across runs) needs a
//! terminal, as do the prompt's sides of 9 and 11: cmd/tests/habits_pty.rs.

mod common;

use common::*;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

/// `lighthouse run -v output ARGS --script` over `lines`: (exit status,
/// stdout + stderr), after checking the run left nothing behind.
fn lh(args: &[&str], lines: &str) -> (i32, String) {
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(&script, lines).unwrap();
    let prefix = free_prefix();
    let o = Command::new(BIN)
        .args(["run", "-v", "output", "--prefix", &prefix])
        .args(args)
        .arg("--script")
        .arg(&script)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_no_namespaces_of(&[&prefix]);
    assert_eq!(live_with_cmdline(&format!("{prefix}:")), Vec::<u32>::new());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

/// `pid=N` as `pid=<PID>`, and the switch class as Mininet's.
fn mask(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("pid=") {
        out.push_str(&rest[..i + 4]);
        rest = rest[i + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push_str("<PID>");
    }
    out.push_str(rest);
    out.replace("<OpticalToR ", "<LinuxBridge ")
}

/// Mininet 2.3.0, `mn --topo linear,3`: nodes, net, links, ports, intfs.
const LINEAR3: &str = "available nodes are: \nh1 h2 h3 s1 s2 s3
h1 h1-eth0:s1-eth1
h2 h2-eth0:s2-eth1
h3 h3-eth0:s3-eth1
s1 lo:  s1-eth1:h1-eth0 s1-eth2:s2-eth2
s2 lo:  s2-eth1:h2-eth0 s2-eth2:s1-eth2 s2-eth3:s3-eth2
s3 lo:  s3-eth1:h3-eth0 s3-eth2:s2-eth3
h1-eth0<->s1-eth1 (OK OK) 
h2-eth0<->s2-eth1 (OK OK) 
h3-eth0<->s3-eth1 (OK OK) 
s2-eth2<->s1-eth2 (OK OK) 
s3-eth2<->s2-eth3 (OK OK) 
s1 lo:0 s1-eth1:1 s1-eth2:2 
s2 lo:0 s2-eth1:1 s2-eth2:2 s2-eth3:3 
s3 lo:0 s3-eth1:1 s3-eth2:2 
h1: h1-eth0
h2: h2-eth0
h3: h3-eth0
s1: lo,s1-eth1,s1-eth2
s2: lo,s2-eth1,s2-eth2,s2-eth3
s3: lo,s3-eth1,s3-eth2
";

/// Mininet 2.3.0, `mn --topo reversed,3`: net, links, ports, dump, py.
const REVERSED3: &str = "h1 h1-eth0:s1-eth3
h2 h2-eth0:s1-eth2
h3 h3-eth0:s1-eth1
s1 lo:  s1-eth1:h3-eth0 s1-eth2:h2-eth0 s1-eth3:h1-eth0
h1-eth0<->s1-eth3 (OK OK) 
h2-eth0<->s1-eth2 (OK OK) 
h3-eth0<->s1-eth1 (OK OK) 
s1 lo:0 s1-eth1:1 s1-eth2:2 s1-eth3:3 
<Host h1: h1-eth0:10.0.0.1 pid=<PID>> 
<Host h2: h2-eth0:10.0.0.2 pid=<PID>> 
<Host h3: h3-eth0:10.0.0.3 pid=<PID>> 
<LinuxBridge s1: lo:127.0.0.1,s1-eth1:None,s1-eth2:None,s1-eth3:None pid=<PID>> 
10.0.0.1
";

/// Mininet 2.3.0, `mn --topo torus,3,3`: the lines of `net` for s1x1, s2x2.
const TORUS_LINES: [&str; 2] = [
    "s1x1 lo:  s1x1-eth1:h1x1-eth0 s1x1-eth2:s1x2-eth2 s1x1-eth3:s2x1-eth2 s1x1-eth4:s1x3-eth3 s1x1-eth5:s3x1-eth4\n",
    "s2x2 lo:  s2x2-eth1:h2x2-eth0 s2x2-eth2:s1x2-eth4 s2x2-eth3:s2x1-eth3 s2x2-eth4:s2x3-eth3 s2x2-eth5:s3x2-eth2\n",
];

/// Checks 1-5: nodes, net (switch links `sN-ethK`), links (Mininet's
/// order and orientation), ports, intfs; 5 also dump (reversed,3).
#[test]
fn parity_1_to_5_topology_commands_print_mininets_text() {
    if skip_unless_root("parity_1_to_5_topology_commands_print_mininets_text") {
        return;
    }
    let (code, out) = lh(&["--topo", "linear,3"], "nodes\nnet\nlinks\nports\nintfs\n");
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, LINEAR3);
    let (code, out) = lh(
        &["--topo", "reversed,3"],
        "net\nlinks\nports\ndump\npy h1.IP()\n",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(mask(&out), REVERSED3);
}

/// Checks 6-8: pingall, `<node> cmd` with node names as IPs, iperf.
#[test]
fn parity_6_to_8_pingall_node_commands_and_iperf() {
    if skip_unless_root("parity_6_to_8_pingall_node_commands_and_iperf") {
        return;
    }
    let (code, out) = lh(
        &["--topo", "single,3"],
        "pingall\nh1 ping -c1 h3\niperf h1 h2\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with(
        "*** Ping: testing ping reachability\nh1 -> h2 h3 \nh2 -> h1 h3 \nh3 -> h1 h2 \n*** Results: 0% dropped (6/6 received)\nPING 10.0.0.3 (10.0.0.3) 56(84) bytes of data.\n64 bytes from 10.0.0.3: icmp_seq=1"
    ), "{out}");
    assert!(out.contains("1 packets transmitted, 1 received, 0% packet loss"));
    let iperf = out
        .lines()
        .skip_while(|l| !l.starts_with("*** Iperf"))
        .collect::<Vec<_>>();
    assert_eq!(
        iperf[0],
        "*** Iperf: testing TCP bandwidth between h1 and h2 "
    );
    assert!(
        iperf[1].starts_with("*** Results: ['")
            && (iperf[1].ends_with(" Mbits/sec']") || iperf[1].ends_with(" Gbits/sec']")),
        "{out}"
    );
}

/// Check 9: py and px (`py` evaluates node expressions; `px` names the
/// Python API, where both are real Python).
#[test]
fn parity_9_py_and_px() {
    if skip_unless_root("parity_9_py_and_px") {
        return;
    }
    let (code, out) = lh(
        &["--topo", "linear,2"],
        "py h1.IP()\npy net.get('h2').IP()\npy h1.cmd('echo hi')\npy net.hosts\npy h2.intfList()\npx x = 1\npy 1+1\n",
    );
    assert_eq!(code, 0, "{out}");
    let l: Vec<&str> = out.lines().collect();
    assert_eq!(&l[..4], ["10.0.0.1", "10.0.0.2", "hi", ""], "{out}");
    assert_eq!(
        mask(l[4]),
        "[<Host h1: h1-eth0:10.0.0.1 pid=<PID>> , <Host h2: h2-eth0:10.0.0.2 pid=<PID>> ]"
    );
    assert_eq!(l[5], "[<Intf h2-eth0>]");
    assert!(l[6].starts_with("*** px: ") && l[6].contains("lighthouse.mininet.cli"));
    assert!(l[7].contains("<node>.IP()") && l[7].contains("<node> <cmd>"));
}

/// Check 10: `--custom` keeps the script's names (`client ping server`).
#[test]
fn parity_10_custom_topologies_keep_their_names() {
    if skip_unless_root("parity_10_custom_topologies_keep_their_names") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cs.py");
    std::fs::write(
        &f,
        "from mininet.topo import Topo\n\
         class CS(Topo):\n    def build(self):\n        s1, s2 = self.addSwitch('s1'), self.addSwitch('s2')\n        \
         self.addLink(self.addHost('client'), s1)\n        self.addLink(self.addHost('server'), s2)\n        self.addLink(s1, s2, delay='5ms')\n\
         topos = {'cs': CS}\n",
    )
    .unwrap();
    let (code, out) = lh(
        &["--custom", f.to_str().unwrap(), "--topo", "cs"],
        "nodes\nnet\nclient ping -c1 server\npy server.IP()\n",
    );
    assert_eq!(code, 0, "{out}");
    // The switch link's delay is its circuit's propagation: 5 ms each way.
    let rtt: f64 = out
        .split("time=")
        .nth(1)
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no RTT: {out}"));
    assert!((10.0..12.0).contains(&rtt), "{rtt} ms: {out}");
    assert!(out.starts_with("available nodes are: \nclient s1 s2 server\nclient client-eth0:s1-eth1\nserver server-eth0:s2-eth1\ns1 lo:  s1-eth1:client-eth0 s1-eth2:s2-eth2\n"), "{out}");
    assert!(
        out.contains("PING 10.0.0.2 (10.0.0.2)") && out.contains(" 1 received"),
        "{out}"
    );
    assert!(out.ends_with("\n10.0.0.2\n"), "{out}");
}

/// Check 11: `-v output --test pingall` prints the test's output only.
#[test]
fn parity_11_v_output_prints_no_banners() {
    if skip_unless_root("parity_11_v_output_prints_no_banners") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Command::new(BIN)
        .args([
            "run", "-v", "output", "--topo", "single,2", "--test", "pingall",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "*** Ping: testing ping reachability\nh1 -> h2 \nh2 -> h1 \n*** Results: 0% dropped (2/2 received)\n"
    );
}

/// Check 12: Mininet's `torus` (and `reversed`, in 1-5) topologies.
#[test]
fn parity_12_torus() {
    if skip_unless_root("parity_12_torus") {
        return;
    }
    let (code, out) = lh(
        &["--topo", "torus,3,3"],
        "nodes\nnet\npingall\ntable s2x2\nschedule\ntable s9\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("available nodes are: \nh1x1 h1x2 h1x3 h2x1 h2x2 h2x3 h3x1 h3x2 h3x3 s1x1 s1x2 s1x3 s2x1 s2x2 s2x3 s3x1 s3x2 s3x3\n"), "{out}");
    for l in TORUS_LINES {
        assert!(out.contains(l), "{l}: {out}");
    }
    assert!(
        out.contains("*** Results: 0% dropped (72/72 received)"),
        "{out}"
    );
    // The optical verbs use the topology's names too (uplinks are the OCS's upP).
    assert!(out.contains("*** s2x2 time-flow table: "), "{out}");
    assert!(out.contains("dst=s1x1 "), "{out}");
    assert!(out.contains("\ns1x1 up0 -> s1x2 up0\n"), "{out}");
    assert!(
        out.contains("*** No such ToR: s9 (use s1x1..s3x3 or 0..8)"),
        "{out}"
    );
}

/// Check 13: `--link tc,bw=10` (iperf near 10 Mbit/s) and `--ipbase`.
#[test]
fn parity_13_link_bw_and_ipbase() {
    if skip_unless_root("parity_13_link_bw_and_ipbase") {
        return;
    }
    let (code, out) = lh(
        &[
            "--topo",
            "linear,2",
            "--link",
            "tc,bw=10",
            "--ipbase",
            "192.168.50.0/24",
        ],
        "py h2.IP()\nh1 ping -c1 h2\niperf h1 h2\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("192.168.50.2\nPING 192.168.50.2"), "{out}");
    let res = out
        .lines()
        .find(|l| l.starts_with("*** Results: ['"))
        .unwrap_or_else(|| panic!("{out}"));
    let mbps: Vec<f64> = res
        .split('\'')
        .filter_map(|s| s.strip_suffix(" Mbits/sec"))
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(mbps.len(), 2, "{res}");
    for m in mbps {
        assert!((5.0..=11.0).contains(&m), "about 10 Mbit/s, not {m}: {res}");
    }
}

/// Check 14: `--pre` and `--post` run CLI scripts before and after.
#[test]
fn parity_14_pre_and_post_scripts() {
    if skip_unless_root("parity_14_pre_and_post_scripts") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pre, post) = (dir.path().join("pre.lh"), dir.path().join("post.lh"));
    std::fs::write(&pre, "h1 echo pre-ran\n").unwrap();
    std::fs::write(&post, "h2 echo post-ran\nexit\n").unwrap();
    let (code, out) = lh(
        &[
            "--topo",
            "linear,2",
            "--pre",
            pre.to_str().unwrap(),
            "--post",
            post.to_str().unwrap(),
        ],
        "h1 echo script-ran\n",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "pre-ran\nscript-ran\npost-ran\n");
}
