//! Mininet topologies in `lighthouse run`: built-ins, a custom Python Topo
//! (exported by the shipped shim, never the real mininet), p4lang
//! tutorials' topology.json; errors are exit 2 and leave nothing behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn lighthouse(args: &[&str], cwd: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_lighthouse"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run lighthouse");
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

fn pingall_ok(args: &[&str], cwd: &Path) {
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let ns_before = common::lh_namespaces();
    let mut a = vec!["run"];
    a.extend(args);
    a.extend(["--test", "pingall"]);
    let (code, out) = lighthouse(&a, cwd);
    assert_eq!(code, 0, "{args:?}:\n{out}");
    assert!(out.contains("*** Results: 0% dropped"), "{out}");
    assert!(out.contains("(conservation OK)"), "{out}");
    let left: Vec<String> = common::lh_namespaces()
        .into_iter()
        .filter(|n| !ns_before.contains(n))
        .filter(|n| {
            // Another worktree's runs may appear meanwhile: only ours count.
            lh_emu::kernel::state::prefix_of_ns(n)
                .is_some_and(|p| out.contains(&format!("Run {p}:")))
        })
        .collect();
    assert!(left.is_empty(), "left namespaces {left:?}");
}

#[test]
fn custom_topology_with_4_switches_and_4_hosts_passes_pingall() {
    if common::skip_unless_root("custom_topology_with_4_switches_and_4_hosts_passes_pingall") {
        return;
    }
    let dir = repo().join("topologies/mininet");
    pingall_ok(&["--custom", "four-switches.py", "--topo", "ring4"], &dir);
    pingall_ok(
        &["--custom", "four-switches.py", "--topo", "dumbbell,3"],
        &dir,
    );
}

#[test]
fn builtin_and_p4_tutorial_topologies_pass_pingall() {
    if common::skip_unless_root("builtin_and_p4_tutorial_topologies_pass_pingall") {
        return;
    }
    for t in ["single,3", "linear,4", "tree,2,2"] {
        pingall_ok(&["--topo", t], &repo());
    }
    pingall_ok(
        &[
            "--topo-json",
            "topologies/mininet/p4-tutorial-topology.json",
        ],
        &repo(),
    );
}

#[test]
fn a_failing_python_topology_is_exit_2_with_its_last_traceback_line() {
    // Serialised with the runs, whose scratch folders live while they run.
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("bad.py");
    std::fs::write(
        &f,
        "from mininet.topo import Topo\n\
         class Bad(Topo):\n    def build(self):\n        self.addSwitch('s1')\n        raise ValueError('broken on purpose')\n\
         topos = {'bad': Bad}\n",
    )
    .unwrap();
    let before = common::scratch_dirs();
    let ns_before = common::lh_namespaces();
    let (code, out) = lighthouse(&["run", "--custom", "bad.py", "--topo", "bad"], d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("bad.py: topology \"bad\" failed: ValueError: broken on purpose"),
        "{out}"
    );
    let (code, out) = lighthouse(&["run", "--custom", "bad.py", "--topo", "other"], d.path());
    assert_eq!(code, 2);
    assert!(out.contains("no topology 'other'; it defines bad"), "{out}");
    let (code, out) = lighthouse(&["run", "--topo", "ring,3"], d.path());
    assert_eq!(code, 2);
    assert!(out.contains("unknown topology"), "{out}");
    assert_eq!(
        common::scratch_dirs(),
        before,
        "scratch folders left behind"
    );
    let new: Vec<String> = common::lh_namespaces()
        .into_iter()
        .filter(|n| !ns_before.contains(n))
        .collect();
    // Errors happen before any namespace could exist; other projects' runs
    // are the only possible newcomers, and they carry a live state.
    for n in new {
        let p = lh_emu::kernel::state::prefix_of_ns(&n).unwrap();
        assert!(
            lh_emu::kernel::state::load(p).is_some(),
            "orphan namespace {n}"
        );
    }
}

#[test]
fn the_exporter_never_imports_the_real_mininet() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("probe.py"),
        "import mininet.topo, mininet.net\n\
         from mininet.node import OVSKernelSwitch\n\
         from mininet.link import TCLink\n\
         assert not hasattr(mininet.topo, '__file__'), 'real mininet imported from %s' % mininet.topo.__file__\n\
         class T(mininet.topo.Topo):\n    def build(self):\n        s = self.addSwitch('s1', cls=OVSKernelSwitch)\n        self.addLink(self.addHost('h1'), s, cls=TCLink, bw=10)\n\
         topos = {'t': T}\n",
    )
    .unwrap();
    // As the binary runs it: the exporter and its Topo classes side by side.
    std::fs::write(
        d.path().join("lh_topo_export.py"),
        lh_emu::mininet::EXPORTER,
    )
    .unwrap();
    std::fs::write(d.path().join("lh_mn_topo.py"), lh_emu::mininet::TOPO_SHIM).unwrap();
    let out = Command::new("/usr/bin/python3")
        .arg("-I")
        .arg(d.path().join("lh_topo_export.py"))
        .arg("probe.py")
        .arg("t")
        .current_dir(d.path())
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["switches"], serde_json::json!(["s1"]));
    assert_eq!(v["links"][0][2]["bw"], 10);
}

#[test]
fn a_custom_router_node_routes_between_its_switches_on_its_own_addresses() {
    // `--custom` with Mininet's linuxrouter shape: intfName2, params2's ip,
    // addHost's ip and defaultRoute reach the run through the exporter.
    if common::skip_unless_root(
        "a_custom_router_node_routes_between_its_switches_on_its_own_addresses",
    ) {
        return;
    }
    let _g = common::KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.lh");
    std::fs::write(
        &script,
        "r0 sysctl -w net.ipv4.ip_forward=1\npingall\nh1 ping -c1 h2\nr0 ip -4 -o addr\n",
    )
    .unwrap();
    let (code, out) = lighthouse(
        &[
            "run",
            "--custom",
            "router.py",
            "--topo",
            "router",
            "--script",
            script.to_str().unwrap(),
        ],
        &repo().join("topologies/mininet"),
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("*** Results: 0% dropped (6/6 received)"),
        "{out}"
    );
    assert!(
        out.contains("from 172.16.0.100: icmp_seq=1 ttl=63"),
        "{out}"
    );
    assert!(out.contains("r0-eth2    inet 172.16.0.1/12"), "{out}");
    assert!(out.contains("(conservation OK)"), "{out}");
}
