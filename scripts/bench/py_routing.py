#!/usr/bin/env python3
"""A routing written in Python that calls earliest_path() for every pair and
arrival slice (Fig. 6c's loop), with Lighthouse's API and with the same loop
over networkx (benchmark only; docs/benchmarks.md, "Python API").

    .venv/bin/python scripts/bench/py_routing.py CONFIG [--skip-networkx]

The networkx earliest_path mirrors the helper's definition with no hop
budget: the earliest-arrival path over the time-expanded graph of two
cycles, ties to fewer hops, one hop per slice (RotorNet style) or several
(`routing.same_slice_hops`, Opera style), by one reverse Dijkstra per
destination kept for later calls (as Lighthouse keeps each solved
destination). Prints JSON: both loop times, their ratio, and how many
paths arrive in a different slot (0 when the two agree).
"""
import json
import sys
import time

import lighthouse


def lighthouse_loop(net):
    n, S = net.config.tor_num, net.ts_num
    paths = []
    for ts in range(S):
        for src in range(n):
            for dst in range(n):
                if src != dst:
                    paths.append(net.earliest_path(src, dst, ts, max_hop=255))
    return paths


class NxEarliest:
    """earliest_path(src, dst, ts) over networkx."""

    BIG = 10_000

    def __init__(self, net):
        import networkx as nx

        self.nx = nx
        n, S = net.config.tor_num, net.ts_num
        self.n, self.S = n, S
        # As lh_ctrl::routing::RoutingOptions: Opera routes several hops a slice.
        same = net.config.routing.same_slice_hops
        if same is None:
            same = net.config.routing.algorithm == "opera"
        g = nx.DiGraph()
        for t in range(2 * S):
            nbrs = [net.neighbors(x, t % S) for x in range(n)]
            for x in range(n):
                g.add_edge((x, t), (x, t + 1), weight=self.BIG)
                for y in nbrs[x]:
                    # A hop leaves in slot t; same-slice hops stay in it.
                    g.add_edge((x, t), (y, t if same else t + 1), weight=(1 if same else self.BIG + 1))
        self.rev = g.reverse(copy=True)
        self.solved = {}

    def __call__(self, src, dst, ts):
        paths = self.solved.get(dst)
        if paths is None:
            sink = ("sink", dst)
            for t in range(2 * self.S + 1):
                self.rev.add_edge(sink, (dst, t), weight=0)
            _, paths = self.nx.single_source_dijkstra(self.rev, sink)
            self.rev.remove_node(sink)
            self.solved = {dst: paths}  # one destination at a time, as the loop goes
        p = paths.get((src, ts))
        if p is None:
            return None
        # Reverse-graph path: sink, (dst, t_arrive), ..., (src, ts).
        hops = [node for node in reversed(p[1:])]
        tors, slots = [], []
        for (x, t), (y, _) in zip(hops, hops[1:]):
            if x != y:
                tors.append(x)
                slots.append(t)
        return tors + [dst], slots


def networkx_loop(net):
    ep = NxEarliest(net)
    n, S = net.config.tor_num, net.ts_num
    out = []
    # Destination-major, so each destination is solved once.
    for dst in range(n):
        for ts in range(S):
            for src in range(n):
                if src != dst:
                    out.append(((src, dst, ts), ep(src, dst, ts)))
    return out


def main():
    config = sys.argv[1]
    res = {"config": config}
    net = lighthouse.LighthouseNet(config)
    net.slices  # compile the config before timing
    t0 = time.perf_counter()
    paths = lighthouse_loop(net)
    res["lighthouse_loop_s"] = round(time.perf_counter() - t0, 4)
    res["paths"] = len(paths)
    res["no_path"] = sum(p is None for p in paths)
    if "--skip-networkx" not in sys.argv:
        t0 = time.perf_counter()
        ref = networkx_loop(net)
        res["networkx_loop_s"] = round(time.perf_counter() - t0, 4)
        res["ratio"] = round(res["networkx_loop_s"] / max(res["lighthouse_loop_s"], 1e-4), 1)
        n, S = net.config.tor_num, net.ts_num
        by = {}
        i = 0
        for ts in range(S):
            for src in range(n):
                for dst in range(n):
                    if src != dst:
                        by[(src, dst, ts)] = paths[i]
                        i += 1
        differ = 0
        for key, r in ref:
            p = by[key]
            mine = None if p is None else p.departs[-1]
            theirs = None if r is None else r[1][-1]
            differ += mine != theirs
        res["arrival_slot_differs"] = differ
    print(json.dumps(res))


if __name__ == "__main__":
    main()
