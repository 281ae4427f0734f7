"""The live web dashboard (docs/dashboard.md) in a real browser: headless
Chromium against a live `lighthouse run --dashboard`, with the CLI driven
through its standard input. Screenshots go to target/dashboard/."""

import json
import os
import queue
import secrets
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from cdp import Browser
from conftest import ROOT, ROTORNET, leftovers, needs_root, require_p4

BIN = ROOT / "target" / "release" / "lighthouse"
SHOTS = ROOT / "target" / "dashboard"

pytestmark = needs_root


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveRun:
    """`lighthouse run CONFIG --dashboard` with the CLI on a pipe."""

    def __init__(self, config, *extra):
        if not BIN.exists():
            raise RuntimeError(f"{BIN} is missing: build it (cargo build --release)")
        self.prefix = "lh" + secrets.token_hex(2)
        self.port = free_port()
        self.proc = subprocess.Popen(
            [str(BIN), "run", str(config), "--prefix", self.prefix,
             "--dashboard", f"127.0.0.1:{self.port}", *extra],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines = queue.Queue()
        self.out = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self.expect("*** Dashboard: ", 120).split("*** Dashboard: ", 1)[1].strip()

    def _read(self):
        for line in self.proc.stdout:
            self.out.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, text, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                break
            if line is None:
                break
            if text in line:
                return line
        raise AssertionError(f"no {text!r} from the run; it printed:\n{''.join(self.out)}")

    def cmd(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
            return json.load(r)

    def finish(self):
        if self.proc.poll() is None:
            try:
                self.cmd("exit")
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                self.proc.wait(30)
        return self.proc.returncode


@pytest.fixture
def browser(tmp_path):
    b = Browser(str(tmp_path / "chromium-profile"))
    yield b
    b.close()


def shown_circuits(b):
    """The (lower, higher) ToR pairs the fabric view draws, and its slice,
    read at once: following the live slice, the view changes every tick."""
    pairs, ts = b.eval(
        "[[...document.querySelectorAll('#fabric svg line.circuit')]"
        ".map(l => [+l.dataset.a, +l.dataset.b]),"
        " document.querySelector('#fabric svg').dataset.slice]"
    )
    return sorted(tuple(p) for p in pairs), int(ts)


def check_common(b, run, hosts, name):
    """What every fabric's page shows: live status, a queue chart that
    draws, a pingall from the CLI, the conservation line, a screenshot."""
    b.wait("document.getElementById('status').textContent === 'live'", what="status live")
    b.wait(
        "(document.querySelector('#queue-chart path.series')?.getAttribute('d') || '').length > 20",
        what="a queue chart series",
    )
    b.wait(
        "(document.querySelector('#bw-chart path.series')?.getAttribute('d') || '').length > 20",
        what="a link-use chart series",
    )
    pairs = hosts * (hosts - 1)
    run.cmd("pingall")
    summary = b.wait(
        "(t => t.includes('received') && t)(document.getElementById('ping-summary').textContent)",
        timeout=120, what="the pingall summary",
    )
    assert f"{pairs}/{pairs} received, 0% loss" in summary, summary
    assert b.count("#ping-matrix td.ok") == pairs
    assert b.count("#ping-matrix td.lost") == 0
    cons = b.wait(
        "(t => t.includes('conservation') && t)(document.getElementById('conservation').textContent)",
        what="the conservation line",
    )
    assert "conservation holds" in cons, cons
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{name}.png"
    b.screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    assert not b.errors, b.errors


def end(b, run):
    assert run.finish() == 0, "".join(run.out)
    b.wait("document.getElementById('status').textContent === 'run ended'", what="run ended")
    assert leftovers(run.prefix) == []


def test_rotornet8_page_shows_slices_queues_and_a_cli_pingall(browser):
    run = LiveRun(ROTORNET)
    try:
        b = browser
        b.open(run.url)
        b.wait("document.querySelectorAll('#fabric svg g.tor').length === 8", what="8 ToRs")
        assert b.count("#fabric svg g.ocs") == 1
        assert b.count("#fabric svg g.tor.bmv2") == 0
        # The drawn circuits are the server's schedule for the drawn slice.
        b.wait("document.querySelectorAll('#fabric svg line.circuit').length === 4", what="4 circuits")
        pairs, ts = shown_circuits(b)
        sched = run.get(f"/api/schedule/{ts}")
        want = sorted({tuple(sorted((c["a_tor"], c["b_tor"]))) for c in sched["circuits"]})
        assert pairs == want, (ts, pairs, want)
        # Scrubbing to another slice draws that slice's circuits.
        other = (ts + 3) % sched["slices"]
        b.eval(
            "(s => { s.value = '%d'; s.dispatchEvent(new Event('input')); })"
            "(document.getElementById('scrub'))" % other
        )
        b.wait(f"document.querySelector('#fabric svg').dataset.slice === '{other}'", what="scrubbed slice")
        assert not b.eval("document.getElementById('follow').checked")
        pairs, _ = shown_circuits(b)
        sched = run.get(f"/api/schedule/{other}")
        assert pairs == sorted({tuple(sorted((c["a_tor"], c["b_tor"]))) for c in sched["circuits"]})
        # The config's monitoring request, with a live value.
        assert run.get("/api/snapshot")["monitors"] == [
            {"metric": "buffer_usage", "tor": None, "port": None, "interval": "1ms"}
        ]
        assert b.text("#monitor-table tbody tr td") == "buffer_usage(every ToR, every uplink, 1ms)"
        b.wait("document.querySelector('#monitor-table tbody tr').cells[1].textContent.endsWith('B')",
               what="the monitor's latest value")
        # A failed link shows.
        run.cmd("link s1 s2 down")
        b.wait("document.querySelectorAll('#fabric svg line.failed').length > 0", what="a failed link")
        assert b.text('#failed-links').startswith('s1-up0')
        run.cmd("link s1 s2 up")
        b.wait("document.querySelectorAll('#fabric svg line.failed').length === 0", what="the link restored")
        check_common(b, run, 16, "rotornet-8")
        end(b, run)
    finally:
        run.finish()


def test_fat_tree_page_draws_the_tree(browser):
    run = LiveRun(ROOT / "topologies" / "fattree-4.json")
    try:
        b = browser
        b.open(run.url)
        b.wait("document.querySelectorAll('#fabric svg g.switch').length === 20", what="20 switches")
        for layer, n in [("core", 4), ("agg", 8), ("edge", 8)]:
            assert b.count(f"#fabric svg g.switch[data-layer={layer}]") == n, layer
        assert b.count("#fabric svg line.link") == 32
        assert "fat tree" in b.text("#slice-now")
        check_common(b, run, 16, "fattree-4")
        end(b, run)
    finally:
        run.finish()


def test_mixed_fabric_page_marks_the_bmv2_tor(browser):
    require_p4("the dashboard on a mixed fabric")
    # BMv2 ToRs need ms-scale slices (docs/p4.md): at rotornet-8's 100us
    # every departure tag through BMv2 is late, and under load a ping of
    # the pingall (2 of 240) timed out.
    run = LiveRun(ROOT / "topologies" / "rotornet-8-1ms.json", "--tor", "bmv2:s3")
    try:
        b = browser
        b.open(run.url)
        b.wait("document.querySelectorAll('#fabric svg g.tor').length === 8", what="8 ToRs")
        assert b.eval(
            "[...document.querySelectorAll('#fabric svg g.tor.bmv2')].map(g => g.dataset.tor)"
        ) == ["2"]
        check_common(b, run, 16, "rotornet-8-bmv2-s3")
        end(b, run)
    finally:
        run.finish()


def sse_events(port, want, timeout=30):
    """Reads /api/events until an event named `want[0]` whose data has
    `want[1]` at key "verb" (or any, if None); returns its data."""
    name, verb = want
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/events", timeout=timeout) as r:
        event = None
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == name:
                data = json.loads(line[6:])
                if verb is None or data.get("verb") == verb:
                    return data
    raise AssertionError(f"no {name} event")


def test_python_start_dashboard_serves_the_scripts_run(capfd):
    import lighthouse

    port = free_port()
    net = lighthouse.LighthouseNet(ROTORNET)
    try:
        with pytest.raises(ValueError, match="dashboard"):
            net.start(dashboard=[1])
        assert not net.running
        # Fig. 6a's dashboard.update(): the page lists these requests only.
        net.dashboard.update(net.buffer_usage(2, 0, "1ms"))
        with pytest.raises(TypeError):
            net.dashboard.update("s1")
        net.bw_usage(None, None, "5ms")  # requested, not on the dashboard
        net.start(dashboard=port)
        assert net.dashboard_url == f"http://127.0.0.1:{port}/"
        assert f"*** Dashboard: http://127.0.0.1:{port}/" in capfd.readouterr().err
        snap = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot"))
        assert snap["prefix"] == net.prefix and len(snap["tors"]) == 8
        assert snap["monitors"] == [{"metric": "buffer_usage", "tor": 2, "port": 0, "interval": "1ms"}]
        assert net.dashboard.url == net.dashboard_url
        tick = sse_events(port, ("tick", None))
        assert tick["slice"]["slices"] == snap["slices"] and tick["usage"]
        p = net.pingall()
        res = sse_events(port, ("result", "pingall"))
        assert (res["value"]["sent"], res["value"]["received"]) == (p["sent"], p["received"])
    finally:
        prefix = net.prefix
        assert net.stop()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
    assert leftovers(prefix) == []
