#!/usr/bin/env python3
"""Does the dashboard slow the data plane? opera-108 runs, alternating in
one invocation without a dashboard and with one serving CLIENTS clients,
each run a TCP flow h1 -> h13 for SECS seconds; per run the flow's
throughput, the data plane's slice-boundary lateness (p50/p99 of
`Counters::boundary_lateness_hist`), the conservation check, the run's
peak RSS and, with the dashboard, what the clients received.

    sudo python3 scripts/bench/dashboard.py [SECS] [REPS] [CLIENTS] [sse|chromium|chromium-nice]

sse: each client a thread that reads /api/events and parses every event,
as the page does. chromium: one headless Chromium (Debian's) with CLIENTS
tabs of the page, which also draw; chromium-nice: the same at nice 19
(docs/dashboard.md, docs/benchmarks.md).
"""

import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "lighthouse"
CONFIG = ROOT / "topologies" / "opera-108.json"
sys.path.insert(0, str(ROOT / "python" / "tests"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quantile(hist, q):
    """Upper bound (ns) of the log2 bucket (from 256 ns) holding quantile q."""
    total = sum(hist)
    if total == 0:
        return 0
    acc = 0
    for i, n in enumerate(hist):
        acc += n
        if acc >= q * total:
            return 256 << i
    return 256 << (len(hist) - 1)


def fmt_ns(ns):
    return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.1f} ms"


class SseClient(threading.Thread):
    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.events, self.bytes, self.lagged, self.stop = url, 0, 0, 0, False

    def run(self):
        try:
            with urllib.request.urlopen(self.url + "api/events", timeout=30) as r:
                event = None
                for raw in r:
                    if self.stop:
                        return
                    self.bytes += len(raw)
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: "):
                        data = json.loads(line[6:])
                        self.events += 1
                        if event == "tick":
                            self.lagged = max(self.lagged, data.get("lagged", 0))
        except OSError:
            pass


def peak_rss_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def one_run(secs, clients, kind):
    prefix = "lh" + secrets.token_hex(2)
    port = free_port()
    script = tempfile.NamedTemporaryFile("w", suffix=".lh", delete=False)
    # The pause lets the clients connect (the URL is printed before the
    # script runs).
    script.write(f"sh sleep 4\nflow h1 h13 {secs}s\ndrops\n")
    script.close()
    args = [str(BIN), "run", str(CONFIG), "--prefix", prefix, "--json", "--script", script.name]
    if clients:
        args += ["--dashboard", f"127.0.0.1:{port}"]
    p = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines = []

    def read_err():
        for line in p.stderr:
            err_lines.append(line)

    threading.Thread(target=read_err, daemon=True).start()
    rss = [0]

    def watch_rss():
        while p.poll() is None:
            rss[0] = max(rss[0], peak_rss_mib(p.pid) or 0)
            time.sleep(0.5)

    threading.Thread(target=watch_rss, daemon=True).start()
    t0 = time.time()
    while clients and not any("*** Dashboard: " in l for l in err_lines):
        if time.time() - t0 > 300 or p.poll() is not None:
            raise RuntimeError("run did not start:\n" + "".join(err_lines))
        time.sleep(0.1)
    readers, browser = [], None
    if clients and kind == "sse":
        readers = [SseClient(f"http://127.0.0.1:{port}/") for _ in range(clients)]
        for r in readers:
            r.start()
    elif clients:
        from cdp import Browser

        prof = tempfile.mkdtemp(prefix="lh-bench-chromium-")
        # chromium-nice: the browser at nice 19, as a desktop browser
        # beside a real-time process would best be run.
        browser = Browser(prof, nice=19 if kind == "chromium-nice" else 0)
        browser.open(f"http://127.0.0.1:{port}/")
        for _ in range(clients - 1):
            browser.call("Target.createTarget", url=f"http://127.0.0.1:{port}/")
    out = [json.loads(line) for line in p.stdout]
    p.wait(120)
    os.unlink(script.name)
    for r in readers:
        r.stop = True
    if browser:
        browser.close()
    rec = {r["verb"]: r.get("ok") for r in out}
    flow, drops = rec.get("flow") or {}, rec.get("drops") or {}
    hist = drops.get("counters", {}).get("boundary_lateness_hist", [])
    return {
        "clients": clients,
        "mbps": flow.get("server_bps", 0) / 1e6,
        "p50": quantile(hist, 0.5),
        "p99": quantile(hist, 0.99),
        "holds": drops.get("conservation", {}).get("holds"),
        "rss": rss[0],
        "events": sum(r.events for r in readers),
        "mb": sum(r.bytes for r in readers) / 1e6,
        "lagged": max((r.lagged for r in readers), default=0),
        "exit": p.returncode,
    }


def main():
    secs = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    kind = sys.argv[4] if len(sys.argv) > 4 else "sse"
    print(f"opera-108, flow h1 -> h13 for {secs} s; dashboard with {clients} {kind} clients; "
          f"load average {os.getloadavg()[0]:.1f} at start")
    print("| rep | dashboard | TCP Mb/s | boundary p50 / p99 | conservation | peak RSS | client events / MB | max lagged |")
    print("|---:|---|---:|---|---|---:|---:|---:|")
    for rep in range(reps):
        for n in ([0, clients] if rep % 2 == 0 else [clients, 0]):
            r = one_run(secs, n, kind)
            dash = f"{n} {kind} clients" if n else "off"
            cl = f"{r['events']} / {r['mb']:.0f}" if n and kind == "sse" else "-"
            print(f"| {rep} | {dash} | {r['mbps']:.1f} | {fmt_ns(r['p50'])} / {fmt_ns(r['p99'])} | "
                  f"{'holds' if r['holds'] else 'VIOLATED'} | {r['rss']} MiB | {cl} | "
                  f"{r['lagged'] if n and kind == 'sse' else '-'} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
