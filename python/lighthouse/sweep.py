"""Parameter sweeps in virtual time (docs/virtual-time.md, "Sweeps").

    import lighthouse.sweep

    df = lighthouse.sweep.sweep(
        "topologies/rotornet-8.json",
        {"routing.algorithm": ["direct", "vlb"], "load": [0.1, 0.4]},
        workload="websearch", duration="5ms",
    )                                   # a local pool, one row a point
    df = lighthouse.sweep.sweep(..., scheduler="tcp://10.0.0.5:8786")  # Dask

Every combination of the axes' values is one workload run of
`lighthouse sim` (an axis is a config field by its JSON path, or the
workload's `load` or `seed`). Runs in virtual time are deterministic, so a
point gives the same row wherever it runs: on this machine's cores
(threads in Rust, with the GIL released) or on a Dask cluster's workers
(each needs this package). Dask was chosen over Ray because it is plain
Python on PyPI with a small footprint, a `LocalCluster` starts in-process
for tests, and `Client(address)` is all a user with a cluster types.

`python -m lighthouse.sweep --dask ADDRESS` reads a spec (JSON) on stdin
and prints the table as CSV: `lighthouse sweep --dask` runs it.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from . import _native

#: The result columns after the axes', in order.
COLUMNS: list[str] = list(_native.SWEEP_COLUMNS)

_SHIPPED = ("websearch", "hadoop", "kvstore")


def spec(
    config: str | os.PathLike[str] | dict[str, Any],
    axes: Mapping[str, Sequence[Any]],
    *,
    workload: str = "websearch",
    pattern: str = "all-to-all",
    load: float = 0.1,
    duration: str = "10ms",
    drain: str = "1s",
    seed: int = 1,
) -> str:
    """The sweep as JSON text (what crosses to a worker), checked: every
    point's config parses and validates, or ConfigError names the point
    and the field."""
    if isinstance(config, dict):
        text, file = json.dumps(config), "<dict>"
    else:
        file = os.fspath(config)
        with open(file, encoding="utf-8") as f:
            text = f.read()
    cdf_text = None
    if workload not in _SHIPPED:
        # A CDF file travels as text, so a remote worker needs no file.
        with open(workload, encoding="utf-8") as f:
            cdf_text = f.read()
    s = json.dumps(
        {
            "config": text,
            "file": file,
            "axes": [{"name": k, "values": list(v)} for k, v in axes.items()],
            "workload": {
                "cdf": workload,
                **({"cdf_text": cdf_text} if cdf_text is not None else {}),
                "pattern": pattern,
                "load": load,
                "duration": duration,
                "drain": drain,
                "seed": seed,
            },
        }
    )
    _native._sweep_check(s)
    return s


def _run_point(s: str, i: int) -> str:
    """One point (a Dask task): its row as JSON."""
    return _native._sweep_point(s, i)


def rows(s: str, *, jobs: int | None = None, scheduler: Any = None) -> list[str]:
    """Runs every point of spec `s`: locally on `jobs` threads (default:
    the machine's cores), or on the Dask cluster at `scheduler` (an
    address, or a `dask.distributed.Client`). The rows (JSON) in the grid's
    order."""
    n = len(json.loads(_native._sweep_check(s)))
    if scheduler is None:
        return _native._sweep_local(s, jobs or os.cpu_count() or 1)
    if jobs is not None:
        raise ValueError("sweep: jobs is for the local pool; a Dask cluster has its own workers")
    try:
        # Any: dask.distributed is not typed.
        distributed: Any = importlib.import_module("dask.distributed")
    except ImportError:
        raise ImportError(
            "a sweep on a Dask cluster needs dask.distributed: pip install 'lighthouse-dcn[sweep]'"
        ) from None
    client = scheduler if isinstance(scheduler, distributed.Client) else distributed.Client(scheduler)
    try:
        futures = client.map(_run_point, [s] * n, range(n))
        out: list[str] = client.gather(futures)
        return out
    finally:
        if client is not scheduler:
            client.close()


def csv(s: str, rows: list[str]) -> str:
    """The table as CSV: the same text as `lighthouse sweep`'s."""
    return _native._sweep_csv(s, rows)


def frame(s: str, rows: list[str]) -> Any:
    """The table as a pandas DataFrame: the axes' columns, then COLUMNS."""
    try:
        import pandas  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        raise ImportError("sweep() returns a DataFrame: pip install 'lighthouse-dcn[sweep]'") from None
    names = [a["name"] for a in json.loads(s)["axes"]]
    table = []
    for r in rows:
        row = json.loads(r)
        table.append({**dict(zip(names, row["point"])), **{c: row[c] for c in COLUMNS}})
    return pandas.DataFrame(table, columns=names + COLUMNS)


def sweep(
    config: str | os.PathLike[str] | dict[str, Any],
    axes: Mapping[str, Sequence[Any]],
    *,
    workload: str = "websearch",
    pattern: str = "all-to-all",
    load: float = 0.1,
    duration: str = "10ms",
    drain: str = "1s",
    seed: int = 1,
    jobs: int | None = None,
    scheduler: Any = None,
) -> Any:
    """Runs the sweep and returns its table as a DataFrame (see the module's
    doc). Bad input raises ConfigError before any point runs."""
    s = spec(
        config,
        axes,
        workload=workload,
        pattern=pattern,
        load=load,
        duration=duration,
        drain=drain,
        seed=seed,
    )
    return frame(s, rows(s, jobs=jobs, scheduler=scheduler))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m lighthouse.sweep --dask ADDRESS`: a spec on stdin, the
    table (CSV) on stdout; exit 1 if a point broke packet conservation."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m lighthouse.sweep")
    p.add_argument("--dask", metavar="ADDRESS", required=True)
    a = p.parse_args(argv)
    s = sys.stdin.read()
    try:
        out = rows(s, scheduler=a.dask)
    except (ImportError, ValueError, RuntimeError, OSError) as e:
        print(f"lighthouse.sweep: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(csv(s, out))
    broken = [json.loads(r)["point"] for r in out if not json.loads(r)["conservation"]]
    if broken:
        print(f"lighthouse.sweep: a point broke packet conservation: {broken[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
