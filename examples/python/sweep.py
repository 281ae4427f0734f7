"""A parameter sweep in virtual time (docs/virtual-time.md, "Sweeps"):
direct routing against VLB on RotorNet-8 at two loads, one row a point.

    .venv/bin/python examples/python/sweep.py                     # this machine's cores
    .venv/bin/python examples/python/sweep.py tcp://HOST:8786     # a Dask cluster
"""

import sys

import lighthouse.sweep

df = lighthouse.sweep.sweep(
    "topologies/rotornet-8.json",
    {"routing.algorithm": ["direct", "vlb"], "load": [0.1, 0.3]},
    workload="kvstore",
    duration="2ms",
    drain="200ms",
    scheduler=sys.argv[1] if len(sys.argv) > 1 else None,
)
print(df[["routing.algorithm", "load", "flows", "fct_p50_us", "fct_p99_us"]].to_string(index=False))
