"""The paper's Fig. 6 (a, b, c), as printed, in Lighthouse's Python API.

    sudo .venv/bin/python examples/python/fig6.py [topologies/rotornet-8.json]

Lines that differ from the paper are marked `# differs:`; docs/python.md
lists each with the reason. Without root it stops before start().
"""

import os
import sys

from lighthouse import HOP, LighthouseNet, paths

class Fig6Net(LighthouseNet):
    # (b) Realizing round-robin topology.
    def round_robin(self) -> bool:
        tor_num = self.config.tor_num
        assert tor_num % 2 == 0  # differs: the extracted text reads "assert tor_num"
        tors = list(range(tor_num))
        for ts in range(tor_num - 1):
            for i in range(tor_num // 2):
                if not self.connect(tors[i], 0, tors[-i - 1], 0, ts):
                    return False
            tors.insert(1, tors.pop(-1))
        return True

    # (c) Realizing direct-path routing.
    def direct(self) -> paths:
        tor_num = self.config.tor_num
        ts_num = self.ts_num  # differs: the paper leaves ts_num undefined
        paths = []
        for ts in range(ts_num):
            for src in range(tor_num):
                for dst in range(tor_num):
                    if src != dst:
                        paths.append(
                            self.earliest_path(src, dst, ts, max_hop=1)  # differs: ts passed
                        )
        return paths


def main() -> None:
    config = sys.argv[1] if len(sys.argv) > 1 else "topologies/rotornet-8.json"
    # (a) Steps to set up an optical DCN.
    net = Fig6Net(config)
    dashboard = net.dashboard  # differs: the paper's dashboard is global
    assert net.round_robin() == True, "Invalid Topology."  # noqa: E712 (as printed)
    paths = net.direct()
    net.entries(paths, lookup=HOP, multipath=None)  # differs: net.entries, not entries
    # Monitor
    for tor in net.config.tors:  # differs: net.config, not config
        for port in tor.ports:
            dashboard.update(net.buffer_usage(tor, port, "1ms"))  # differs: net.buffer_usage

    print(f"round_robin: {net.slices} slices; direct: {len(paths)} paths; "
          f"{len(dashboard.monitors)} monitoring requests")

    if os.geteuid() != 0:
        print("not root: stopping before start() (run with sudo to bring the network up)")
        sys.exit(0)

    with net:
        # LH_DASHBOARD=8001 serves the page (docs/dashboard.md).
        net.start(dashboard=os.environ.get("LH_DASHBOARD") or None)
        p = net.pingall()
        print(f"pingall: {p['received']}/{p['sent']} received, {p['loss']:.0f}% loss")
        busiest = max(
            (s for m in dashboard.monitors[:4] for s in next(m)),
            key=lambda s: s["value"],
        )
        print(f"buffer_usage sample: ToR {busiest['tor']} port {busiest['port']}: "
              f"{busiest['value']:.0f} bytes")
        ok = net.stop()
        print(f"stopped; conservation held: {ok}")
        sys.exit(0 if ok and p["loss"] == 0 else 1)


if __name__ == "__main__":
    main()
