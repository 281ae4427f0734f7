#!/usr/bin/env python3
"""Plain Python/networkx reference for route compilation (benchmark only).

Reads a schedule.json written by `lighthouse compile CONFIG --out DIR` and
computes, for every (src, dst, arrival slice):
  direct: the first slice >= arrival with a direct circuit (one hop);
  hoho:   the earliest-arrival path, ties to fewer hops, RotorNet style
          (one hop per slice), by Dijkstra over the time-expanded graph.
Prints wall times as JSON so docs/benchmarks.md can report Rust/Python ratios
measured in the same run. Written for this project from the algorithm
definitions; it is a baseline, not part of the toolkit.
"""
import json
import sys
import time

import networkx as nx


def load(path):
    s = json.load(open(path))
    n, u, S = s["tors"], s["uplinks"], s["slices"]
    slices = []
    for ts in range(S):
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for t in range(n):
            for p in range(u):
                e = s["tx"][(ts * n + t) * u + p]
                if e is not None:
                    g.add_edge(t, e["tor"])
        slices.append(g)
    return n, S, slices


def direct(n, S, slices):
    out = {}
    for ts in range(S):
        for src in range(n):
            for dst in range(n):
                if src == dst:
                    continue
                for w in range(S):
                    if slices[(ts + w) % S].has_edge(src, dst):
                        out[(src, dst, ts)] = ts + w
                        break
    return out


def hoho(n, S, slices):
    # Time-expanded graph over two cycles; cost = slot * BIG + hops.
    big = 10_000
    horizon = 2 * S
    g = nx.DiGraph()
    for t in range(horizon):
        gs = slices[t % S]
        for x in range(n):
            g.add_edge((x, t), (x, t + 1), weight=big)
            for y in gs.neighbors(x):
                g.add_edge((x, t), (y, t + 1), weight=big + 1)
    rev = g.reverse(copy=False)
    out = {}
    for dst in range(n):
        sink = ("sink", dst)
        for t in range(horizon + 1):
            rev.add_edge(sink, (dst, t), weight=0)
        dist = nx.single_source_dijkstra_path_length(rev, sink)
        for src in range(n):
            if src == dst:
                continue
            for ts in range(S):
                out[(src, dst, ts)] = dist.get((src, ts))
        rev.remove_node(sink)
    return out


def main():
    n, S, slices = load(sys.argv[1])
    res = {"tors": n, "slices": S}
    for name, fn in (("direct", direct), ("hoho", hoho)):
        t0 = time.perf_counter()
        r = fn(n, S, slices)
        res[name + "_s"] = round(time.perf_counter() - t0, 3)
        res[name + "_paths"] = len(r)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
