"""The one fixture of the Python tests: paths, the root mark, and checks
that a run left nothing behind (its namespaces, its run-state folder, its
processes, its hosts' cgroups)."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROTORNET = ROOT / "topologies" / "rotornet-8.json"
PYTHON = sys.executable
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (namespaces)")


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


def leftovers(prefix):
    """What a run with `prefix` left: its namespaces, its state folder, its
    processes (node shells carry `<prefix>:` on their command line, and
    every process of a run LH_RUN=<prefix> in its environment)."""
    left = [ns for ns in namespaces() if ns.startswith(prefix + "-")]
    # CPULimitedHost's cgroups (<prefix>-<host>), v2's or v1's cpu.
    for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/cpu"):
        if os.path.isdir(root):
            left += [f"{root}/{d}" for d in os.listdir(root) if d.startswith(prefix + "-")]
    if (pathlib.Path("/run/lighthouse") / prefix).exists():
        left.append(f"/run/lighthouse/{prefix}")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            env = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        if (prefix + ":").encode() in cmd or f"LH_RUN={prefix}".encode() in env.split(b"\0"):
            left.append(f"pid {pid}: {cmd!r}")
    return left


def script(body, tmp_path, name="script.py"):
    """A script file of `body` run from the repo root."""
    f = tmp_path / name
    f.write_text(body)
    return f


def run(f, *args, **kwargs):
    return subprocess.run(
        [PYTHON, str(f), *args], cwd=ROOT, capture_output=True, text=True, timeout=300, **kwargs
    )


def require_p4(test):
    """As bmv2_thrift::require: run when simple_switch and p4c-bm2-ss are on
    PATH; else fail where the toolchain is required (LH_REQUIRE_P4=1, or
    ../shared/toolchains exists, so provisioning installs it), skip
    visibly elsewhere."""
    import shutil

    missing = [t for t in ("simple_switch", "p4c-bm2-ss") if shutil.which(t) is None]
    if not missing:
        return
    env = os.environ.get("LH_REQUIRE_P4", "").strip()
    shared = (ROOT.parent / "shared" / "toolchains").is_dir()
    why = f"{' and '.join(missing)} not found on PATH"
    if env == "1" or (env != "0" and shared):
        pytest.fail(f"{test}: {why}, and the P4 toolchain is required here")
    pytest.skip(f"{test}: {why} (install p4lang's packages or scripts/setup.sh)")


def default_signals():
    """For Popen's preexec_fn: SIGINT and SIGTERM as a terminal's child has
    them. A shell's background job (`cmd &`) starts with SIGINT ignored,
    Python then installs no KeyboardInterrupt handler, and a SIGINT test
    would test the shell, not the script."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


# A Mininet script as test_mininet*.py run them: these imports, then the
# test's body.
HEAD = """\
from lighthouse.mininet.net import Mininet
from lighthouse.mininet.topo import Topo, SingleSwitchTopo, LinearTopo
from lighthouse.mininet.topolib import TreeTopo, TorusTopo
from lighthouse.mininet.cli import CLI
from lighthouse.mininet.log import setLogLevel
from lighthouse.mininet.util import dumpNodeConnections
import sys
setLogLevel('info')
"""


def run_mn_script(tmp_path, body, *, pre="", timeout=120, signal_after=None, argv=()):
    """Runs HEAD + body as a script; (exit status, stdout, stderr, prefix).
    With `signal_after=SIG`, sends SIG once the script printed READY."""
    script = tmp_path / "script.py"
    script.write_text(HEAD + pre + textwrap.dedent(body))
    p = subprocess.Popen([sys.executable, str(script), *argv], cwd=tmp_path,
                         preexec_fn=default_signals,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if signal_after is not None:
        line = p.stdout.readline()
        assert line.startswith("READY"), line + p.stderr.read()
        p.send_signal(signal_after)
        out, err = p.communicate(timeout=timeout)
        out = line + out
    else:
        out, err = p.communicate(timeout=timeout)
    m = re.search(r"\*\*\* Run (lh[0-9a-f]{4}):", err)
    assert m, "no run line in:\n" + err
    return p.returncode, out, err, m.group(1)
