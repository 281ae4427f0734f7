"""The paper's user API (Table 1, Table 5, Fig. 6) without a live network:
a script's topo() and routing, built-in ones, entries, and the errors that
name what is wrong (docs/python.md)."""

import importlib.util
import warnings

import pytest

import lighthouse
from conftest import ROOT, ROTORNET
from lighthouse import HOP, SOURCE


def circle(net):
    """The circle method as ../shared/REFERENCE.md defines it: round r pairs
    N-1 with r, and (r+i) mod (N-1) with (r-i) mod (N-1)."""
    n = net.config.tor_num
    k = n - 1
    for r in range(k):
        if not net.connect(k, 0, r, 0, r):
            return False
        for i in range(1, n // 2):
            if not net.connect((r + i) % k, 0, (r - i) % k, 0, r):
                return False
    return True


def fig6():
    """examples/python/fig6.py as a module (its Fig. 6 classes)."""
    spec = importlib.util.spec_from_file_location("fig6", ROOT / "examples" / "python" / "fig6.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def pairs_per_cycle(net):
    seen = {}
    for ts in range(net.slices):
        # A circuit is listed from both ends.
        for key in {frozenset((c["a_tor"], c["b_tor"])) for c in net.schedule(ts)["circuits"]}:
            seen[key] = seen.get(key, 0) + 1
    return seen


def schedules(net):
    return [net.schedule(ts)["circuits"] for ts in range(net.slices)]


@pytest.mark.parametrize("config", ["rotornet-8.json", "shale-16.json"])
def test_python_circle_method_is_round_robin(config):
    builtin = lighthouse.LighthouseNet(ROOT / "topologies" / config)
    assert builtin.round_robin() is True
    mine = lighthouse.LighthouseNet(ROOT / "topologies" / config)
    assert mine.topo(circle) is True
    assert mine.slices == builtin.slices == builtin.config.tor_num - 1
    assert schedules(mine) == schedules(builtin)
    # Not vacuous: every pair of ToRs meets exactly once per cycle.
    n = builtin.config.tor_num
    assert len(pairs_per_cycle(mine)) == n * (n - 1) // 2
    assert set(pairs_per_cycle(mine).values()) == {1}


def test_the_figure_6b_subclass_as_printed_is_a_round_robin():
    a, b = fig6().Fig6Net(ROTORNET), lighthouse.LighthouseNet(ROTORNET)
    assert a.round_robin() is True and b.round_robin() is True
    assert a.slices == b.slices == 7
    # Every pair of ToRs meets exactly once per cycle, as in round_robin();
    # Fig. 6b pins ToR 0 where the built-in pins ToR N-1, so the slices
    # come in another order (docs/python.md).
    assert pairs_per_cycle(a) == pairs_per_cycle(b)
    assert set(pairs_per_cycle(a).values()) == {1} and len(pairs_per_cycle(a)) == 28
    # Fig. 6c's direct() as printed: one direct path per pair and slice.
    paths = a.direct()
    assert len(paths) == 8 * 7 * 7 and all(len(p) == 1 for p in paths)
    assert a.entries(paths)["missing"] == 0


def test_topo_changes_routing_and_compile():
    net = lighthouse.LighthouseNet(ROTORNET)
    assert net.slices == 7
    assert net.topo(lambda n: n.connect(0, 0, 1, 0, 0) and n.connect(2, 0, 3, 0, 2)) is True
    assert net.slices == 3
    assert net.neighbors(0, 0) == [1] and net.neighbors(2, 2) == [3]
    assert net.neighbors(0, 1) == []
    assert net.earliest_path(0, 1, 1, 1).tors == [0, 1]
    assert net.earliest_path(0, 2, 0, 2) is None


def test_connect_that_books_a_port_twice_is_false_with_a_reason():
    def twice(net):
        assert net.connect(0, 0, 1, 0, 0)
        with pytest.warns(lighthouse.TopologyWarning, match=r"ToR 0 port 0.*slice 0|slice 0.*ToR 0 port 0"):
            ok = net.connect(0, 0, 2, 0, 0)
        assert ok is False
        assert "ToR 0 port 0" in net.refusal
        return ok

    net = lighthouse.LighthouseNet(ROTORNET)
    with pytest.warns(lighthouse.TopologyWarning, match="refused"):
        assert net.topo(twice) is False
    assert "ToR 0 port 0" in net.refusal
    # The failed topo() leaves an empty schedule, not a half-built one.
    assert net.schedule(0)["circuits"] == []


def test_topo_off_the_cabling_is_refused():
    # rotornet-8 has one uplink: port 1 does not exist.
    net = lighthouse.LighthouseNet(ROTORNET)
    with pytest.warns(lighthouse.TopologyWarning, match="port 1"):
        assert net.topo(lambda n: n.connect(0, 1, 1, 1, 0)) is False
    with pytest.warns(lighthouse.TopologyWarning, match="connected nothing"):
        assert net.topo(lambda n: True) is False


def test_an_exception_in_topo_leaves_no_half_schedule():
    def broken(net):
        net.connect(0, 0, 1, 0, 0)
        raise KeyError("student bug")

    net = lighthouse.LighthouseNet(ROTORNET)
    with pytest.raises(KeyError, match="student bug"):
        net.topo(broken)
    assert net.schedule(0)["circuits"] == []
    assert net.round_robin() is True


def test_a_path_over_a_circuit_that_is_not_up_names_path_hop_and_slice():
    net = lighthouse.LighthouseNet(ROTORNET)
    up = net.neighbors(0, 0)[0]
    down = next(t for t in range(1, 8) if t not in net.neighbors(0, 0))
    assert net.path([0, up], [0], 0).tors == [0, up]
    with pytest.raises(lighthouse.PathError) as e:
        net.path([0, down], [0], 0)
    msg = str(e.value)
    assert f"path 0->{down}" in msg and "hop 0" in msg and "slice 0" in msg
    # A hand-edited Path dict is checked by entries() too.
    good = net.earliest_path(0, up, 0, 1).to_dict()
    bad = dict(good, dst=down)
    with pytest.raises(lighthouse.PathError, match=rf"path 0->{down}.*hop 0"):
        net.entries([bad])
    # A routing that returns None for a pair says so, with its index.
    with pytest.raises(ValueError, match=r"paths\[1\] is None"):
        net.entries([good, None])


def test_builtin_routings_and_entries():
    net = lighthouse.LighthouseNet(ROTORNET)
    assert net.round_robin()
    n, s = 8, net.slices
    for name in ("direct", "vlb", "hoho", "opera", "ucmp"):
        r = getattr(net, name)()
        assert isinstance(r, lighthouse.Routes) and r.algorithm == name
        assert len(r) >= n * (n - 1) * s, name
    d = net.direct()
    assert all(len(p) == 1 for p in d.to_list())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = net.entries(d, lookup=HOP)
    assert summary["paths"] == len(d) and summary["missing"] == 0
    assert summary["entries"] == sum(summary["per_tor"]) > 0
    assert net.entries(net.hoho(), lookup=SOURCE)["missing"] == 0
    with pytest.raises(ValueError, match="lookup"):
        net.entries(d, lookup="sideways")
    with pytest.warns(lighthouse.RoutingWarning, match="no path"):
        assert net.entries(d[:5])["missing"] > 0


def test_table5_shortest_path_ecmp_and_topo_aware():
    net = lighthouse.LighthouseNet(ROOT / "topologies" / "jupiter-8.json")
    assert net.shortest_path(0, 1)
    assert all(p.tors[0] == 0 and p.tors[-1] == 1 for p in net.shortest_path(0, 1))
    assert len(net.ecmp()) > 0 and len(net.ksp()) > 0
    net = lighthouse.LighthouseNet(ROOT / "topologies" / "c-through-8.json")
    tm = [[0 if i == j else (100 if j == (i + 1) % 8 else 1) for j in range(8)] for i in range(8)]
    assert net.topo_aware(tm, "bvn") is True
    assert 1 in net.neighbors(0, 0) or any(1 in net.neighbors(0, t) for t in range(net.slices))
    with pytest.raises(ValueError, match="scheduler"):
        net.topo_aware(tm, "magic")
    with pytest.raises(ValueError, match="8 x 8"):
        net.topo_aware([[0]], "bvn")


def test_monitoring_requests_are_recorded():
    net = lighthouse.LighthouseNet(ROTORNET)
    m = net.buffer_usage(0, 0, "1ms")
    b = net.bw_usage(None, None, 0.01)
    assert m.metric == "buffer_usage" and m.tor == 0 and m.interval_s == 0.001
    assert b.metric == "bw_usage" and b.interval_s == 0.01
    assert len(net.monitors()) >= 2
    with pytest.raises(lighthouse.NetworkError, match="start"):
        next(m)
    with pytest.raises(ValueError, match="interval"):
        net.buffer_usage(0, 0, "soon")
    with pytest.raises(IndexError, match="port 5"):
        net.buffer_usage(0, 5)


def test_config_view_has_the_papers_names():
    net = lighthouse.LighthouseNet(ROTORNET)
    c = net.config
    assert c.tor_num == 8 == c.tors.count
    assert [int(t) for t in c.tors] == list(range(8))
    assert [t.ports for t in c.tors][0] == [0]
    assert c.slice.duration == c["slice"]["duration"]
    with pytest.raises(AttributeError, match="no field"):
        c.colour


def test_to_frame_without_pandas_names_the_install():
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            lighthouse.to_frame([{"a": 1}])
    else:
        assert list(lighthouse.to_frame({"rows": [{"a": 1}]}).columns) == ["a"]


def test_earliest_path_answers_follow_the_current_schedule():
    net = lighthouse.LighthouseNet(ROTORNET)
    before = net.earliest_path(0, 1, 0, 1)
    assert before is not None and before.tors == [0, 1]
    # Solved destinations answer again, and bad arguments still raise.
    assert net.earliest_path(0, 1, 0, 1) == before
    with pytest.raises(IndexError, match="ToR 8"):
        net.earliest_path(8, 1, 0, 1)
    with pytest.raises(IndexError, match="slice 7"):
        net.earliest_path(0, 1, 7, 1)
    assert net.earliest_path(1, 1, 0, 1) is None
    # A new topology: the old answers are gone.
    assert net.topo(lambda n: n.connect(0, 0, 2, 0, 0) and n.connect(0, 0, 1, 0, 1)) is True
    assert net.earliest_path(0, 1, 0, 1).departs == [1]
    assert net.earliest_path(0, 2, 0, 1).departs == [0]
    # Another max_hop is solved on its own.
    assert net.earliest_path(2, 1, 0, 1) is None
    assert net.earliest_path(2, 1, 0, 2).tors == [2, 0, 1]
