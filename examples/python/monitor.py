"""monitor.py (the paper's §5): watch a running network's ports with
buffer_usage() and bw_usage() while traffic flows.

    sudo .venv/bin/python examples/python/monitor.py [CONFIG] [SECONDS]

A flood ping from h1 to the last host loads the fabric; bw_usage samples
every ToR's uplink 0 every 10 ms and buffer_usage ToR 0's uplinks every
1 ms. With pandas installed the samples also print as a DataFrame.
"""

import os
import subprocess
import sys
import time

import lighthouse


def main() -> int:
    config = sys.argv[1] if len(sys.argv) > 1 else "topologies/rotornet-8.json"
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    if os.geteuid() != 0:
        sys.exit("monitor.py needs root: sudo .venv/bin/python examples/python/monitor.py")
    with lighthouse.LighthouseNet(config) as net:
        bw = net.bw_usage(tor=None, port=0, interval="10ms")
        buf = net.buffer_usage(tor=0, port=None, interval="1ms")
        net.start()
        h1, last = net.hosts[0], net.hosts[-1]
        dst = last.IP()
        assert dst is not None  # a host's address (only a ToR's IP() is None)
        load = h1.popen(["ping", "-q", "-i", "0.002", "-s", "1400", dst],
                        stdout=subprocess.DEVNULL)
        try:
            rows = []
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                rows += next(bw)
                rows += next(buf)
        finally:
            load.terminate()
            load.wait()
        peak = max((r for r in rows if r["metric"] == "bw_usage"), key=lambda r: r["extra"])
        deepest = max((r for r in rows if r["metric"] == "buffer_usage"), key=lambda r: r["value"])
        print(f"{len(rows)} samples; busiest uplink: ToR {peak['tor']} port {peak['port']} "
              f"at {peak['extra'] / 1e6:.1f} Mb/s; deepest buffer at ToR 0: "
              f"{deepest['value']:.0f} bytes (port {deepest['port']})")
        try:
            print(lighthouse.to_frame({"samples": rows}).groupby(["metric", "tor"])["value"].max())
        except ImportError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
