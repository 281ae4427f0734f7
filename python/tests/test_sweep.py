"""Parameter sweeps (lighthouse.sweep, docs/virtual-time.md "Sweeps"): a
local pool, a Dask cluster the test starts itself, and the CLI's --dask,
all giving the same table."""

import os
import subprocess

import pytest

import lighthouse
import lighthouse.sweep as sw
from conftest import PYTHON, ROOT, ROTORNET

pandas = pytest.importorskip("pandas", reason="scripts/setup-python.sh installs pandas")
distributed = pytest.importorskip(
    "dask.distributed", reason="scripts/setup-python.sh installs dask[distributed]"
)

BIN = ROOT / "target" / "release" / "lighthouse"
AXES = {"routing.algorithm": ["direct", "vlb"], "seed": [1, 2]}
# Small flows, so that every one ends within the drain.
KW = {"workload": "kvstore", "load": 0.3, "duration": "2ms", "drain": "200ms"}


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of two worker processes, started by the test."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def local():
    return sw.sweep(ROTORNET, AXES, jobs=2, **KW)


def test_a_sweep_is_one_call_and_its_table_a_dataframe(local):
    assert list(local.columns) == ["routing.algorithm", "seed"] + sw.COLUMNS
    assert local[["routing.algorithm", "seed"]].values.tolist() == [
        ["direct", 1],
        ["direct", 2],
        ["vlb", 1],
        ["vlb", 2],
    ]
    assert (local.flows > 0).all() and (local.completed == local.flows).all()
    assert local.conservation.all()
    # The seed draws other flows; VLB's detour changes the FCTs.
    assert local.flows[0] != local.flows[1]
    assert local.fct_p50_us[0] != local.fct_p50_us[2]
    # One point of the table is that point's own `lighthouse sim` run.
    s = sw.spec(ROTORNET, AXES, **KW)
    assert sw.frame(s, [sw._run_point(s, 3)]).iloc[0].equals(local.iloc[3])


def test_a_sweep_on_a_dask_cluster_gives_the_same_table(local, cluster):
    with distributed.Client(cluster) as client:
        on_dask = sw.sweep(ROTORNET, AXES, scheduler=client, **KW)
        # The points ran on the workers, not here.
        assert client.run(lambda: "lighthouse._native" in __import__("sys").modules)
    pandas.testing.assert_frame_equal(on_dask, local)
    # And by address, as a user with a cluster gives it.
    by_address = sw.sweep(ROTORNET, AXES, scheduler=cluster.scheduler_address, **KW)
    pandas.testing.assert_frame_equal(by_address, local)


def cli(*args, env=None, axes=("routing.algorithm=direct,vlb", "seed=1,2")):
    if not BIN.exists():
        pytest.skip("no target/release/lighthouse: run `make test` (it builds it)")
    grid = [x for a in axes for x in ("--axis", a)]
    return subprocess.run(
        [str(BIN), "sweep", str(ROTORNET), *grid, "--workload", "kvstore", "--load", "0.3",
         "--duration", "2ms", "--drain", "200ms", "--quiet", *args],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )


def test_the_cli_gives_the_same_csv_locally_and_on_dask(local, cluster):
    here = cli("--jobs", "2")
    assert here.returncode == 0, here.stderr
    s = sw.spec(ROTORNET, AXES, **KW)
    rows = sw.rows(s, jobs=1)
    assert here.stdout == sw.csv(s, rows)
    env = dict(os.environ, LIGHTHOUSE_PYTHON=PYTHON)
    there = cli("--dask", cluster.scheduler_address, env=env)
    assert there.returncode == 0, there.stderr
    assert there.stdout == here.stdout
    # No cluster at the address: a non-zero exit that names it.
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "2s"
    gone = cli("--dask", "tcp://127.0.0.1:9", env=env)
    assert gone.returncode != 0
    assert "tcp://127.0.0.1:9" in gone.stderr


def test_bad_input_is_refused_before_any_point_runs():
    with pytest.raises(lighthouse.ConfigError, match=r"slice.duration=soon.*slice\.duration"):
        sw.sweep(ROTORNET, {"slice.duration": ["100us", "soon"]}, **KW)
    with pytest.raises(lighthouse.ConfigError, match="load 2"):
        sw.sweep(ROTORNET, {"load": [0.1, 2]}, **KW)
    with pytest.raises(lighthouse.ConfigError, match="no axis"):
        sw.sweep(ROTORNET, {}, **KW)
    r = cli(axes=("routing.algorithm=direct,warp",))
    assert r.returncode != 0 and "routing.algorithm" in r.stderr and r.stdout == ""


def test_the_example_runs_and_prints_its_table():
    r = subprocess.run(
        [PYTHON, str(ROOT / "examples" / "python" / "sweep.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["routing.algorithm", "load", "flows", "fct_p50_us", "fct_p99_us"]
    assert [line.split()[:2] for line in lines[1:]] == [
        ["direct", "0.1"], ["direct", "0.3"], ["vlb", "0.1"], ["vlb", "0.3"],
    ]
