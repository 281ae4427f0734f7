"""`start(backend="sim")`: the network a script built, in virtual time
(docs/virtual-time.md): no root, no namespaces, the same results on every
run, and clear errors for what it does not model."""

import json
import os

import pytest

import lighthouse
from conftest import ROOT, ROTORNET, namespaces
from test_paper_api import circle


def run(net):
    net.start(backend="sim")
    try:
        assert net.running and net.backend == "sim" and net.now == 0.0
        p = net.pingall()
        f = net.flows("kvstore all-to-all 0.1 0.002")
        some = net.ping(["h1", "h3", "h5"])
        d = net.drops()
        return p, f, some, d, net.now
    finally:
        assert net.stop() is True
        assert not net.running


def test_a_script_built_network_runs_in_virtual_time_without_root_or_namespaces():
    before = namespaces()
    net = lighthouse.LighthouseNet(str(ROTORNET))
    assert net.topo(circle)
    p, f, some, d, now = run(net)
    assert (p["sent"], p["received"], p["loss"]) == (240, 240, 0.0)
    assert (some["sent"], some["received"]) == (6, 6)
    done = [r for r in f["records"] if r["fct_ns"] is not None]
    assert len(f["records"]) > 10 and len(done) == len(f["records"])
    c = d["conservation"]
    assert c["holds"] and c["sent"] == c["delivered"] + c["dropped"] + c["queued"] + c["held"]
    assert now > 0.002
    assert namespaces() == before, "virtual time creates no namespace"


def test_the_same_script_gives_the_same_results():
    def once():
        net = lighthouse.LighthouseNet(str(ROTORNET))
        assert net.topo(circle)
        return run(net)

    a, b = once(), once()
    assert a == b


def test_what_the_simulation_does_not_model_is_refused_by_name():
    net = lighthouse.LighthouseNet(str(ROTORNET))
    with pytest.raises(ValueError, match="--tor"):
        net.start(tor="bmv2", backend="sim")
    with pytest.raises(ValueError, match=r"start\(backend='nope'\)|start\(backend=\"nope\"\)"):
        net.start(backend="nope")
    with pytest.raises(ValueError, match="dashboard"):
        net.start(backend="sim", dashboard=True)
    assert not net.running
    net.start(backend="sim")
    try:
        with pytest.raises(lighthouse.NetworkError, match="virtual time"):
            net.iperf("h1", "h3")
        with pytest.raises(lighthouse.NetworkError, match="already running"):
            net.start(backend="sim")
        # Virtual time's TCP is NewReno: another congestion control is
        # refused, not silently run as Reno.
        with pytest.raises(ValueError, match="cc=cubic"):
            net.flows("kvstore all-to-all 0.1 0.002 cc=cubic")
        assert net.flows("kvstore all-to-all 0.1 0.002 cc=reno")["records"]
    finally:
        net.stop()


@pytest.mark.skipif(os.geteuid() != 0, reason="drops root to show it is not needed")
def test_needs_no_root():
    # The live start() refuses a script without root (test_api); the
    # simulation runs as nobody (the config read before dropping root: the
    # checkout may be root's only).
    net = lighthouse.LighthouseNet(str(ROTORNET))
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setresuid(65534, 65534, 65534)
            net.start(backend="sim")
            code = 0 if net.pingall()["received"] == 240 and net.stop() else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_flow_list_replays_in_virtual_time_with_the_configs_tcp(tmp_path):
    flows = tmp_path / "f.htsim"
    # htsim's format: src dst bytes start_ns, hosts from 0.
    flows.write_text("0 5 1000 0\n3 12 200000 50000\n")
    csv = tmp_path / "fct.csv"

    def replay(tcp):
        cfg = json.loads(ROTORNET.read_text())
        cfg["hosts"] = {"tcp": tcp}
        path = tmp_path / "cfg.json"
        path.write_text(json.dumps(cfg))
        net = lighthouse.LighthouseNet(str(path))
        assert net.topo(circle)
        net.start(backend="sim")
        try:
            return net.flow_list(str(flows), csv=str(csv))
        finally:
            net.stop()

    wide = replay({"initial_window": 20})
    rows = csv.read_text().splitlines()
    assert rows[0].endswith(",data_fct_ns") and len(rows) == 3
    assert [(r["flow"]["src"], r["flow"]["dst"]) for r in wide["records"]] == [(0, 5), (3, 12)]
    narrow = replay({"initial_window": 2, "max_window": 2})
    # The config's window reaches the simulated TCP.
    assert narrow["records"][1]["fct_ns"] > wide["records"][1]["fct_ns"]
    with pytest.raises(ValueError, match=r"\$\.hosts\.tcp\.sack"):
        replay({"sack": True})
    flows.write_text("0 5 x 0\n")
    with pytest.raises(ValueError, match=r"f\.htsim:1: bytes"):
        replay({})
