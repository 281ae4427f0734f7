"""The Python API: configs, views, the live basics (docs/python.md). Run by `make test` as
`.venv/bin/python -m pytest python/tests -q`; the live tests need root."""

import json
import os
import pathlib

import pytest

import lighthouse
from conftest import ROTORNET, namespaces, needs_root


def test_import():
    assert lighthouse.__version__
    assert issubclass(lighthouse.ConfigError, ValueError)


def test_dict_path_and_string_give_the_same_schedule():
    from_path = lighthouse.LighthouseNet(str(ROTORNET))
    from_pathlib = lighthouse.LighthouseNet(ROTORNET)
    cfg = json.loads(ROTORNET.read_text())
    from_dict = lighthouse.LighthouseNet(cfg)
    from_text = lighthouse.LighthouseNet(json.dumps(cfg))
    summary = from_path.compile()
    assert summary["tors"] == 8
    slices = from_path.slices
    assert slices > 1
    for net in (from_pathlib, from_dict, from_text):
        assert net.slices == slices
        for ts in range(slices):
            assert net.schedule(ts) == from_path.schedule(ts)
    s0 = from_path.schedule(0)
    assert s0["slice"] == 0 and s0["circuits"]
    c = s0["circuits"][0]
    assert c["b_tor"] in from_path.neighbors(c["a_tor"], 0)


def test_earliest_path_follows_the_schedule():
    net = lighthouse.LighthouseNet(ROTORNET)
    p = net.earliest_path(0, 5, 0, 2)
    assert p.src == 0 and p.dst == 5 and p.tors[0] == 0 and p.tors[-1] == 5
    d = p.to_dict()
    assert d["hops"][0]["tor"] == 0 and d["arrival"] == 0
    # Each hop leaves on a circuit that is up in its departure slice.
    for (tor, port, depart), nxt in zip(p.hops, p.tors[1:]):
        assert nxt in net.neighbors(tor, depart % net.slices)
    with pytest.raises(IndexError, match="slice 99"):
        net.schedule(99)
    with pytest.raises(IndexError, match="ToR 42"):
        net.neighbors(42, 0)


def test_bad_config_names_the_field():
    cfg = json.loads(ROTORNET.read_text())
    cfg["tors"]["count"] = "eight"
    with pytest.raises(lighthouse.ConfigError, match=r"\$\.tors\.count") as e:
        lighthouse.LighthouseNet(cfg)
    assert e.value.json_path == "$.tors.count"
    cfg = json.loads(ROTORNET.read_text())
    cfg["tors"]["colour"] = 1
    with pytest.raises(lighthouse.ConfigError, match="colour"):
        lighthouse.LighthouseNet(cfg)
    with pytest.raises(lighthouse.ConfigError, match="no-such.json"):
        lighthouse.LighthouseNet("no-such.json")


def test_not_running():
    net = lighthouse.LighthouseNet(ROTORNET)
    with pytest.raises(lighthouse.NetworkError, match="start"):
        net.pingall()
    assert net.stop() is True
    assert not net.running and net.prefix is None


@needs_root
def test_start_as_non_root_fails_before_creating_anything():
    before = namespaces()
    net = lighthouse.LighthouseNet(ROTORNET)
    os.seteuid(65534)
    try:
        with pytest.raises(PermissionError, match="root"):
            net.start()
    finally:
        os.seteuid(0)
    assert not net.running
    assert namespaces() == before


@needs_root
def test_live_pingall_and_teardown():
    with lighthouse.LighthouseNet(str(ROTORNET)) as net:
        net.start()
        prefix = net.prefix
        assert prefix and any(ns.startswith(prefix) for ns in namespaces())
        p = net.pingall()
        assert p["sent"] == p["received"] > 0
        assert net.schedule()["slices"] == net.slices
    assert not net.running
    assert not [ns for ns in namespaces() if ns.startswith(prefix)]
    assert not (pathlib.Path("/run/lighthouse") / prefix).exists()


@needs_root
def test_stop_reports_conservation_and_is_idempotent():
    net = lighthouse.LighthouseNet(ROTORNET)
    net.start()
    prefix = net.prefix
    assert net.pingall()["received"] > 0
    assert net.stop() is True
    assert net.stop() is True
    assert not [ns for ns in namespaces() if ns.startswith(prefix)]


@needs_root
def test_with_tears_down_on_an_exception():
    with pytest.raises(RuntimeError, match="boom"):
        with lighthouse.LighthouseNet(ROTORNET) as net:
            net.start()
            prefix = net.prefix
            raise RuntimeError("boom")
    assert not net.running
    assert not [ns for ns in namespaces() if ns.startswith(prefix)]


def test_the_wheel_installs_offline_into_a_fresh_venv(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    wheels = sorted((ROOT / "target" / "wheels").glob("lighthouse_dcn-*.whl"))
    assert wheels, "scripts/setup-python.sh builds target/wheels/lighthouse_dcn-*.whl"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-index", "--disable-pip-version-check", str(wheels[-1])],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [str(py), "-c", f"import lighthouse; print(lighthouse.LighthouseNet({str(ROTORNET)!r}).slices)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0 and r.stdout.strip() == "7", r.stderr
