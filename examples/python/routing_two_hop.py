"""A routing that Lighthouse does not have built in, written in Python and
deployed live: for every pair and arrival slice, the two-hop path through
any intermediate ToR that arrives first (ties: leaves first).

    sudo .venv/bin/python examples/python/routing_two_hop.py [CONFIG]

It uses only Table 1's helpers: neighbors() to see the circuits of each
slice and path() to write each path down (path() checks every hop against
the schedule). Source lookup (lighthouse.SOURCE), because a two-hop path
fixes both hops at the source ToR.
"""

import os
import sys

import lighthouse


def earliest_two_hop(net: lighthouse.LighthouseNet) -> list[lighthouse.Path]:
    n, S = net.config.tor_num, net.ts_num
    up = [[set(net.neighbors(t, ts)) for ts in range(S)] for t in range(n)]
    paths = []
    for ts in range(S):
        for src in range(n):
            for dst in range(n):
                if src == dst:
                    continue
                best = None
                for d1 in range(ts, ts + S):
                    for m in sorted(up[src][d1 % S] - {dst}):
                        # One hop per slice: the second hop leaves later.
                        d2 = next((d for d in range(d1 + 1, d1 + S) if dst in up[m][d % S]), None)
                        if d2 is not None and (best is None or (d2, d1) < best[0]):
                            best = ((d2, d1), [src, m, dst], [d1, d2])
                if best is None:
                    raise ValueError(f"no two-hop path from ToR {src} to ToR {dst} in slice {ts}")
                paths.append(net.path(best[1], best[2], ts))
    return paths


def main() -> int:
    config = sys.argv[1] if len(sys.argv) > 1 else "topologies/rotornet-8.json"
    net = lighthouse.LighthouseNet(config)
    paths = net.routing(earliest_two_hop)
    built = net.entries(paths, lookup=lighthouse.SOURCE)
    worst = max(p.latency or 0 for p in paths)  # latency is None only on static fabrics
    print(f"{len(paths)} two-hop paths, {built['entries']} entries, worst latency {worst} slots")
    if os.geteuid() != 0:
        print("not root: stopping before start() (run with sudo to bring the network up)")
        return 0
    with net:
        net.start()
        p = net.pingall()
        print(f"pingall: {p['received']}/{p['sent']} received, {p['loss']:.0f}% loss")
        ok = net.stop()
    return 0 if ok and p["loss"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
