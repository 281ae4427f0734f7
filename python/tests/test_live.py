"""The paper's scripts run live (docs/python.md): Fig. 6, a routing written
in Python deployed and pinged with exact conservation, monitoring, nodes,
the CLI, and nothing left behind on any way out (normal end, exception,
SIGINT, SIGTERM)."""

import importlib.util
import json
import re
import signal
import subprocess
import time

import pytest

import lighthouse
from conftest import (
    PYTHON,
    ROOT,
    ROTORNET,
    default_signals,
    leftovers,
    namespaces,
    needs_root,
    require_p4,
    run,
    script,
)
from lighthouse import SOURCE


def example(name):
    """A script of examples/python as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "python" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_root
def test_fig6_script_runs_and_pingall_is_zero_loss_on_rotornet8():
    r = run(ROOT / "examples" / "python" / "fig6.py", str(ROTORNET))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pingall: 240/240 received, 0% loss" in r.stdout
    assert "conservation held: True" in r.stdout
    assert "(conservation OK)" in r.stdout + r.stderr
    prefix = re.search(r"Run (lh[0-9a-f]{4})", r.stdout + r.stderr).group(1)
    assert leftovers(prefix) == []


@needs_root
def test_a_python_routing_deploys_live_with_exact_conservation(capfd):
    net = lighthouse.LighthouseNet(ROTORNET)
    paths = net.routing(example("routing_two_hop").earliest_two_hop)
    assert len(paths) == 8 * 7 * net.slices
    assert all(len(p.tors) == 3 for p in paths)
    built = net.entries(paths, lookup=SOURCE)
    assert built["missing"] == 0
    with net:
        net.start()
        prefix = net.prefix
        # The ToRs run the script's tables, not the config's direct routing.
        t0 = net.table(0)
        assert t0["lookup"] == "Source" and len(t0["entries"]) == built["per_tor"][0]
        assert all(len(e["action"]["hops"]) == 2 for e in t0["entries"] if "hops" in e.get("action", {}))
        p = net.pingall()
        assert p["sent"] == p["received"] == 240 and p["loss"] == 0
        c = net.drops()["conservation"]
        assert c["holds"] and c["sent"] == c["delivered"] + c["dropped"] + c["queued"] > 0
        assert c["dropped"] == 0
        assert net.stop() is True
    out = capfd.readouterr()
    assert "(conservation OK)" in out.out + out.err
    assert leftovers(prefix) == []


@needs_root
def test_what_the_script_built_runs_on_a_bmv2_tor_too(capfd):
    require_p4("test_what_the_script_built_runs_on_a_bmv2_tor_too")
    # BMv2 ToRs need ms-scale slices (docs/p4.md).
    fig6 = example("fig6")
    net = fig6.Fig6Net(ROOT / "topologies" / "rotornet-8-1ms.json")
    assert net.round_robin() is True
    net.entries(net.direct(), lookup=lighthouse.HOP)
    with net:
        net.start(tor="bmv2:s3")
        prefix = net.prefix
        t = net.table(2)
        assert t["p4"]["time_flow"] == {"Ok": len(t["entries"])} and len(t["entries"]) > 0
        p = net.pingall()
        assert p["loss"] == 0 and p["sent"] == 240
        assert net.stop() is True
    out = capfd.readouterr()
    assert "(conservation OK)" in out.out + out.err
    assert leftovers(prefix) == []


@needs_root
def test_a_shared_tor_buffer_on_a_bmv2_tor_is_refused_naming_the_field(tmp_path):
    cfg = json.loads(ROTORNET.read_text())
    cfg["tors"]["buffer_capacity"] = 64_000_000
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(cfg))
    before = namespaces()
    with lighthouse.LighthouseNet(path) as net:
        with pytest.raises(ValueError, match=r"\$\.tors\.buffer_capacity.*native ToRs only"):
            net.start(tor="bmv2:s2")
        assert net.prefix is None or leftovers(net.prefix) == []
    assert namespaces() == before


@needs_root
def test_monitoring_nodes_and_cli_on_a_live_network(tmp_path, capfd):
    with lighthouse.LighthouseNet(ROTORNET) as net:
        mon = net.buffer_usage(0, 0, "1ms")
        bw = net.bw_usage(None, 0, "2ms")
        net.start()
        samples = mon.take(3)
        assert len(samples) == 3 and all(len(s) == 1 for s in samples)
        assert samples[0][0]["tor"] == 0 and samples[0][0]["port"] == 0
        assert samples[2][0]["t"] >= 0.002 - 1e-4  # one interval apart
        rates = next(bw)
        assert len(rates) == 8 and {s["tor"] for s in rates} == set(range(8))
        assert all(0 <= s["value"] <= 1.5 for s in rates)
        seen = []
        assert mon.every(seen.append, count=2) == 2 and len(seen) == 2

        h1, h2 = net.get("h1"), net["h2"]
        assert [h.name for h in net.hosts][:2] == ["h1", "h2"] and len(net.hosts) == 16
        assert h1.IP() in h1.cmd("ip addr")
        assert len(h1.MAC().split(":")) == 6
        assert "h1-eth0" in h1.intfList()
        assert f"1 received" in h1.cmd("ping -c1 -W2", h2.IP())
        pr = h1.popen(["ip", "-4", "-o", "addr"], stdout=subprocess.PIPE, text=True)
        assert h1.IP() in pr.communicate()[0]
        with pytest.raises(KeyError, match="no node"):
            net.get("h99")

        s = tmp_path / "cli.txt"
        s.write_text(
            "h1 ping -c1 h2\nnodes\npy h1.IP()\npy marker + 1\npx seen.append(net.slices)\n"
            "py net.get('h2').MAC() == h2.MAC()\n"
        )
        marker = 41
        capfd.readouterr()
        net.cli(script=s)
        out = capfd.readouterr()
        text = out.out + out.err
        assert "1 received" in text and "available nodes" in text
        # py/px are Python in this test's namespace, with net and the nodes.
        assert "10.0.0.1\n" in text and "42\n" in text and "True\n" in text
        assert seen[-1] == 7 and marker == 41
        assert net.schedule()["slices"] == 7


@needs_root
def test_the_monitor_script_samples_a_loaded_fabric():
    r = run(ROOT / "examples" / "python" / "monitor.py", str(ROTORNET), "0.3")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"(\d+) samples; busiest uplink: ToR \d+ port 0 at ([\d.]+) Mb/s", r.stdout)
    assert m and int(m.group(1)) > 20 and float(m.group(2)) > 0, r.stdout
    assert "(conservation OK)" in r.stdout + r.stderr


@needs_root
def test_the_live_verbs_return_values(tmp_path):
    with lighthouse.LighthouseNet(ROTORNET) as net:
        net.start()
        i = net.iperf("h1", "h16", 0.5)  # iperf3 runs whole seconds: 1
        assert i["l4"] == "TCP" and i["server_bps"] > 1e6, i
        f = net.flows("websearch permutation 0.1 0.3 seed=3")
        assert f["records"] and all(r["fct_ns"] > 0 for r in f["records"] if "fct_ns" in r)
        q = net.queues(0)
        assert q["tor"] == 0 and len(q["bytes"]) == 1
        s = net.slice()
        assert 0 <= s["slice"] < 7 and s["slices"] == 7
        assert net.ping(["h1", "h3"])["loss"] == 0
        net.link("h1", "s1", False)
        assert net.ping(["h1", "h3"], timeout=0.5)["loss"] == 100
        net.link("h1", "s1", True)
        assert net.ping(["h1", "h3"])["loss"] == 0
        cap = tmp_path / "h1.pcap"
        assert net.pcap("h1", "h1-eth0", cap)["file"] == str(cap)
        net.ping(["h1", "h2"])
        with pytest.raises(IndexError, match="ToR 100"):
            net.table(100)
        with pytest.raises(lighthouse.NetworkError, match="seconds"):
            net.iperf("h1", "h2", -1)
        with pytest.raises(lighthouse.NetworkError) as e:
            net.ping(["h1", "h99"])
        assert "h99" in str(e.value)
        assert net.stop() is True
    # pcap's file holds the pings (a pcap header and records).
    assert cap.stat().st_size > 24 + 4 * 16


TEARDOWN = """
import os, signal, sys, time
import lighthouse
net = lighthouse.LighthouseNet({config!r})
net.start()
print("PREFIX", net.prefix, flush=True)
how = sys.argv[1]
if how == "exception":
    raise RuntimeError("student bug in the middle of the script")
if how == "wait":
    print("READY", flush=True)
    time.sleep(120)
if how == "pingall":
    # h2 unreachable: each row waits out the 30 s timeout of its echo to h2.
    net.get("h2").cmd("for i in $(ip -o link show | cut -d: -f2 | cut -d@ -f1); do [ $i = lo ] || ip link set dev $i down; done")
    print("READY", flush=True)
    net.pingall(timeout=30)
# "normal": the script ends without stop()
"""


def _prefix(out):
    return next(line.split()[1] for line in out.splitlines() if line.startswith("PREFIX"))


@needs_root
@pytest.mark.parametrize("how", ["normal", "exception"])
def test_nothing_is_left_after_a_script_ends(how, tmp_path):
    f = script(TEARDOWN.format(config=str(ROTORNET)), tmp_path)
    r = run(f, how)
    prefix = _prefix(r.stdout)
    if how == "exception":
        assert r.returncode == 1 and "student bug" in r.stderr
    else:
        assert r.returncode == 0, r.stderr
    assert "(conservation OK)" in r.stdout + r.stderr
    assert leftovers(prefix) == []


def until_ready(f, how):
    """TEARDOWN's script `f` started with `how`, once it printed READY:
    the process and its run's prefix."""
    p = subprocess.Popen(
        [PYTHON, str(f), how],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        lines.append(line)
        if line.startswith("READY") or not line:
            break
    return p, _prefix("".join(lines))


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_nothing_is_left_after_a_signal(sig, tmp_path):
    f = script(TEARDOWN.format(config=str(ROTORNET)), tmp_path)
    p, prefix = until_ready(f, "wait")
    assert any(ns.startswith(prefix) for ns in namespaces())
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode != 0
    assert "Traceback" not in err or "KeyboardInterrupt" in err or "SystemExit" in err
    assert leftovers(prefix) == [], err


@needs_root
def test_ctrl_c_stops_a_pingall_at_once_and_nothing_is_left(tmp_path):
    # The pingall runs in Rust with the GIL released; Ctrl-C (SIGINT) stops
    # it where it polls and raises KeyboardInterrupt, and the teardown runs.
    # Unstopped it would take 16 rows x 30 s.
    f = script(TEARDOWN.format(config=str(ROTORNET)), tmp_path)
    p, prefix = until_ready(f, "pingall")
    time.sleep(1.0)  # inside pingall()
    assert p.poll() is None
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    took = time.monotonic() - t
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err
    assert took < 10, f"{took:.1f} s after Ctrl-C: {err}"
    assert leftovers(prefix) == [], err


def cpu_mask(cpus):
    """`cpus` as sysfs writes a CPU mask: hex in 32-bit groups, highest first."""
    m = sum(1 << c for c in cpus)
    groups = []
    while True:
        groups.append(m & 0xFFFFFFFF)
        m >>= 32
        if not m:
            break
    return ",".join([format(groups[-1], "x")] + [format(g, "08x") for g in reversed(groups[:-1])])


def test_own_cpu_is_refused_in_virtual_time():
    net = lighthouse.LighthouseNet(ROTORNET)
    with pytest.raises(ValueError, match=r"start\(own_cpu=True\): a live option"):
        net.start(backend="sim", own_cpu=True)


@needs_root
def test_start_own_cpu_pins_the_data_plane_and_the_hosts_receive_on_the_others():
    # As `lighthouse run --own-cpu` (docs/dataplane.md): the data-plane
    # thread on the last CPU, every host veth's RPS on the others.
    import os

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to place")
    net = lighthouse.LighthouseNet(ROTORNET)
    with net:
        net.start(own_cpu=True)
        prefix = net.prefix
        for h in ("h1", "h16"):
            r = subprocess.run(
                ["ip", "netns", "exec", f"{prefix}-{h}", "cat", f"/sys/class/net/{h}-eth0/queues/rx-0/rps_cpus"],
                capture_output=True,
                text=True,
            )
            assert r.stdout.strip() == cpu_mask(cpus[:-1]), r.stdout + r.stderr
        tasks = f"/proc/{os.getpid()}/task"
        pinned = [
            line.split(":", 1)[1].strip()
            for t in os.listdir(tasks)
            if open(f"{tasks}/{t}/comm").read().strip() == "swtor-dataplane"
            for line in open(f"{tasks}/{t}/status")
            if line.startswith("Cpus_allowed_list:")
        ]
        assert pinned == [str(cpus[-1])]
        p = net.pingall()
        assert p["sent"] == p["received"] == 240 and p["loss"] == 0
        assert net.stop() is True
    assert leftovers(prefix) == []
