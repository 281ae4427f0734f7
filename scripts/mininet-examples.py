#!/usr/bin/env python3
"""Mininet's own examples through their own tests: real Mininet beside
Lighthouse (issue 47, docs/mininet.md "Mininet's own examples").

Mininet 2.3.0 ships example scripts and a pexpect test for most of them
(Debian's `mininet`: /usr/share/doc/mininet/examples/test/test_*.py, the
examples in /usr/lib/python3/dist-packages/mininet/examples/). Each test
spawns `python -m mininet.examples.NAME`; only that spawn command is
changed, per side:

  mininet     real Mininet (/usr/bin/python3) with Linux bridges and no
              controller, as `mn --switch lxbr --controller none`: a small
              runner sets those defaults, then runs the example unchanged.
              Mininet's `cleanup()` (it kills by broad name and deletes
              /tmp/*.log) is replaced by a no-op.
  lh-m        Lighthouse, the example unchanged: `python -m
              lighthouse.mininet -m mininet.examples.NAME`.
  lh-imports  Lighthouse, a copy of the example with its imports pointed
              at `lighthouse.mininet` (what a user does by hand).

The tests themselves run under /usr/bin/python3 (they import pexpect from
Mininet's `mininet.util`). After each test, anything the example left is
reported (network namespaces, links in the root namespace, processes of a
Mininet host); on the mininet side it is removed by name, and only what
appeared during that test. On every side the root namespace's sysctls an
example or Mininet's fixLimits() changes (TCP buffers, backlog, the
congestion control linearbandwidth sets; new namespaces inherit some) are
put back after it. Run it on an otherwise idle machine: another
run's namespaces would count as left behind.

    sudo python3 scripts/mininet-examples.py                 # every in-scope example, all sides
    sudo python3 scripts/mininet-examples.py --only emptynet,treeping64 --sides lh-m
    sudo python3 scripts/mininet-examples.py --md            # the table for docs/mininet.md

Exit status: 0 when every example that passed on real Mininet passed on
each Lighthouse side run (`--require-pass a,b`: these must pass on every
side run, CI's list), 1 otherwise, 2 when Mininet's examples are missing.
Results as JSON in --out (default target/mininet-examples/). Python
standard library only.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = "/usr/share/doc/mininet/examples/test"
SYS_PY = "/usr/bin/python3"

# In scope: the examples a Linux-bridge, controller-less Mininet can run
# here. Out: cluster*, consoles, miniedit, ssh (baresshd, sshd), NAT (nat,
# natnet), controllers, controlnet, hwintf, and mobility (it calls OVS's
# tools directly).
IN_SCOPE = [
    "bind", "cpu", "emptynet", "intfoptions", "limit", "linearbandwidth",
    "linuxrouter", "multilink", "multiping", "multipoll", "multitest",
    "numberedports", "popen", "scratchnet", "simpleperf", "tree1024",
    "treeping64", "vlanhost",
]
SIDES = ["mininet", "lh-m", "lh-imports"]

REF_RUNNER = '''"""Run a Mininet example as `mn --switch lxbr --controller none`."""
import runpy, sys
import mininet.clean, mininet.net, mininet.node
from mininet.nodelib import LinuxBridge
def _no_cleanup(*a, **k):
    print("*** (mininet-examples: Mininet's cleanup() skipped)")
mininet.clean.cleanup = _no_cleanup
mininet.clean.Cleanup.cleanup = classmethod(lambda cls: _no_cleanup())
from mininet.node import NullController
_init = mininet.net.Mininet.__init__
def _init_lxbr(self, *a, **k):
    k["switch"] = LinuxBridge
    k["controller"] = NullController
    return _init(self, *a, **k)
mininet.net.Mininet.__init__ = _init_lxbr
# Every switch a Linux bridge, no controller, whatever the example names.
for _n in ("OVSSwitch", "OVSKernelSwitch", "UserSwitch", "OVSBridge", "IVSSwitch"):
    setattr(mininet.node, _n, LinuxBridge)
for _n in ("Controller", "OVSController", "DefaultController"):
    setattr(mininet.node, _n, NullController)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
'''


# Between the test and the example: a pty of its own (the example sees a
# terminal, as under pexpect), its output copied to the test and to a log,
# and its exit status written down. Some tests read to EOF and pass
# whatever the example did, so an example that dies (a traceback, a
# refusal) must be caught here.
TEE = '''import os, pty, sys
log, status = sys.argv[1], sys.argv[2]
out = open(log, "ab")
def read(fd):
    data = os.read(fd, 4096)
    out.write(data)
    out.flush()
    return data
st = pty.spawn(sys.argv[3:], read)
with open(status, "a") as f:
    f.write("%d\\n" % os.waitstatus_to_exitcode(st))
'''


def venv_python():
    p = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.access(p, os.X_OK):
        sys.exit("mininet-examples: no %s: run scripts/setup-python.sh" % p)
    return p


def examples_dir():
    out = subprocess.run([SYS_PY, "-c", "import mininet.examples, os;"
                          "print(os.path.dirname(mininet.examples.__file__))"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return out.stdout.strip() or None


IMPORT_RE = re.compile(r"^(\s*)(from|import)(\s+)mininet\b", re.M)


def prepare(side, test, work, exdir):
    """The test file with its spawn command changed for `side`."""
    src = open(os.path.join(TESTS, "test_%s.py" % test)).read()
    if side == "mininet":
        with open(os.path.join(work, "lh_mn_ref.py"), "w") as f:
            f.write(REF_RUNNER)
        src = src.replace("python -m ", "%s -m lh_mn_ref " % SYS_PY)
    elif side == "lh-m":
        src = src.replace("python -m ", "%s -m lighthouse.mininet -m " % venv_python())
    else:
        pkg = os.path.join(work, "lhex")
        if not os.path.isdir(pkg):
            os.makedirs(pkg)
            for name in os.listdir(exdir):
                if name.endswith(".py"):
                    text = open(os.path.join(exdir, name)).read()
                    text = text.replace("mininet.examples.", "lhex.")
                    text = IMPORT_RE.sub(r"\1\2\3lighthouse.mininet", text)
                    with open(os.path.join(pkg, name), "w") as f:
                        f.write(text)
        src = src.replace("python -m ", "%s -m " % venv_python())
        # The examples the test spawns become the copies; what the test
        # itself imports stays Mininet's (it runs under /usr/bin/python3,
        # without lighthouse: test_simpleperf imports a Topo it never uses).
        src = "".join(l if re.match(r"\s*(from|import)\s+mininet\.examples\.", l)
                      else l.replace("mininet.examples.", "lhex.")
                      for l in src.splitlines(True))
    with open(os.path.join(work, "lh_tee.py"), "w") as f:
        f.write(TEE)
    tee = "%s %s %s %s " % (SYS_PY, os.path.join(work, "lh_tee.py"),
                            os.path.join(work, "example.log"), os.path.join(work, "status"))
    src = re.sub(r"'(%s|%s) -m " % (re.escape(SYS_PY), re.escape(venv_python())),
                 lambda m: "'" + tee + m.group(0)[1:], src)
    path = os.path.join(work, "test_%s.py" % test)
    with open(path, "w") as f:
        f.write(src)
    return path


def snapshot():
    """Namespaces, root-namespace links, Mininet host shells and hosts'
    cgroups now."""
    ns = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    links = set()
    out = subprocess.run(["ip", "-o", "link", "show"], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        parts = line.split(": ")
        if len(parts) > 1:
            links.add(parts[1].split("@")[0])
    procs = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ")
            except OSError:
                continue
            # A Mininet host's shell, or an example's own process (both
            # runners): never another run's.
            if b"mininet:" in cmd or b"lh_mn_ref" in cmd or b"lh_tee.py" in cmd or \
                    b"-m lighthouse.mininet -m mininet.examples." in cmd or b"-m lhex." in cmd:
                procs.add(int(pid))
    # CPULimitedHost's cgroups: Lighthouse's (<prefix>-<host>) and
    # Mininet's (named after the host).
    cgroups = set()
    for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/cpu"):
        if os.path.isdir(root):
            cgroups |= {os.path.join(root, d) for d in os.listdir(root)
                        if re.match(r"^(lh[0-9a-f]{4}-\w+|[hsr]\d+)$", d)}
    return ns, links, procs, cgroups


def live_run(prefix):
    try:
        pid = json.load(open("/run/lighthouse/%s/state.json" % prefix))["pid"]
        os.kill(pid, 0)
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


# How Mininet names its nodes' links in the examples: h1, s1, r0, and
# their -ethN interfaces.
MN_LINK = re.compile(r"^[hsr]\d+(-eth\d+)?$")


def leftovers(before, side):
    """What the test left; on the mininet side, removed (only what is new
    and named as Mininet names its nodes)."""
    time.sleep(0.5)
    ns0, l0, p0, c0 = before
    ns1, l1, p1, c1 = snapshot()
    # A namespace of a run that is still alive (another run on this
    # machine, /run/lighthouse/PREFIX/state.json) is not left behind.
    left_ns = [n for n in sorted(ns1 - ns0) if not live_run(n.split("-")[0])]
    left = {"namespaces": left_ns, "links": sorted(l1 - l0),
            "processes": sorted(p1 - p0), "cgroups": sorted(c1 - c0)}
    if side == "mininet":
        for pid in left["processes"]:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        for l in left["links"]:
            if MN_LINK.match(l):
                subprocess.run(["ip", "link", "del", l], stderr=subprocess.DEVNULL)
    return {k: v for k, v in left.items() if v}


# Mininet's fixLimits() raises these in the root namespace, and
# linearbandwidth.py sets the root's congestion control to reno (through
# quietRun, on either side); new namespaces inherit some of them (TCP
# buffers, the congestion control): a Lighthouse run afterwards would not
# run on this machine's own settings. Put back after each test.
FIXLIMITS = ["net.ipv4.tcp_congestion_control", "net.core.wmem_max", "net.core.rmem_max", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
             "net.core.netdev_max_backlog", "net.ipv4.neigh.default.gc_thresh1",
             "net.ipv4.neigh.default.gc_thresh2", "net.ipv4.neigh.default.gc_thresh3",
             "net.ipv4.route.max_size", "kernel.pty.max", "fs.file-max"]


def sysctls():
    out = {}
    for k in FIXLIMITS:
        try:
            out[k] = open("/proc/sys/" + k.replace(".", "/")).read().strip()
        except OSError:
            pass
    return out


def restore_sysctls(saved):
    for k, v in saved.items():
        try:
            with open("/proc/sys/" + k.replace(".", "/"), "w") as f:
                f.write(v)
        except OSError:
            pass


def run_one(side, test, work, exdir, timeout):
    saved = sysctls()
    try:
        return run_one_as_is(side, test, work, exdir, timeout)
    finally:
        restore_sysctls(saved)


def run_one_as_is(side, test, work, exdir, timeout):
    path = prepare(side, test, work, exdir)
    env = dict(os.environ, PYTHONPATH=work, PYTHONDONTWRITEBYTECODE="1")
    before = snapshot()
    t0 = time.monotonic()
    try:
        p = subprocess.run([SYS_PY, "-m", "unittest", "-v", os.path.basename(path)[:-3]],
                           cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        out, code = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, code = (e.stdout or b"").decode(errors="replace") + "\n(timeout)", -1
    secs = time.monotonic() - t0
    log = open(os.path.join(work, "example.log"), errors="replace").read() \
        if os.path.exists(os.path.join(work, "example.log")) else ""
    codes = [int(x) for x in open(os.path.join(work, "status")).read().split()] \
        if os.path.exists(os.path.join(work, "status")) else []
    verdict = "pass" if code == 0 and re.search(r"^OK", out, re.M) else "FAIL"
    why = cause(out) if verdict == "FAIL" else ""
    # Exited with an error: the test may have passed only because it read
    # to EOF. (Killed by the test on close, SIGHUP, is fine.)
    died = [c for c in codes if c > 0]
    if died and verdict == "pass":
        verdict = "FAIL"
    if died and (verdict == "FAIL"):
        why = "example exited %d: %s" % (died[0], last_words(log)) + ("; " + why if why else "")
    elif verdict == "FAIL" and re.search(r"Traceback|Unsupported|Error:", log):
        why = "example: %s; %s" % (last_words(log), why)
    if not codes:
        # No exit status: the example never ran under the tee (the spawn
        # command was not rewritten) or was cut off; not a pass.
        verdict = "FAIL"
        why = why or "the example did not run to its end under the runner"
    if code == 0 and "skipped" in out and verdict == "pass":
        verdict = "pass (skips)"
    return {"side": side, "test": test, "verdict": verdict, "seconds": round(secs, 1),
            "cause": why, "left": leftovers(before, side),
            "output": out[-4000:], "example": log[-4000:], "exits": codes}


def last_words(log):
    """The example's own last meaningful line (its exception, usually)."""
    lines = [l.strip() for l in log.replace("\r", "").splitlines() if l.strip()]
    for l in reversed(lines):
        if re.match(r"^(\w+\.)*\w*(Error|Exception|Unsupported|Exit)\b", l):
            return l[:200]
    return lines[-1][:200] if lines else "(no output)"


def cause(out):
    """The first line that says why: an exception, or pexpect's timeout."""
    lines = out.splitlines()
    for pat in (r"^(\w+\.)*\w*(Error|Exception|Unsupported)\b.*", r"^\s*Timeout exceeded",
                r"^AssertionError.*", r"^(FAIL|ERROR):.*"):
        for l in lines:
            if re.match(pat, l.strip()):
                return l.strip()[:200]
    return lines[-1][:200] if lines else "no output"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated examples (default: all in scope)")
    ap.add_argument("--sides", default=",".join(SIDES), help="comma-separated: " + ", ".join(SIDES))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "mininet-examples"))
    ap.add_argument("--md", action="store_true", help="print the table as Markdown")
    ap.add_argument("--require-pass", default="",
                    help="examples that must pass on every side run (CI)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("mininet-examples: needs root (namespaces)", file=sys.stderr)
        return 2
    exdir = examples_dir()
    if not exdir or not os.path.isdir(TESTS):
        print("mininet-examples: Mininet's examples are missing (apt-get install mininet"
              " python3-pexpect; scripts/setup.sh does it)", file=sys.stderr)
        return 2
    tests = [t for t in (a.only.split(",") if a.only else IN_SCOPE) if t]
    sides = [s for s in a.sides.split(",") if s]
    for s in sides:
        if s not in SIDES:
            ap.error("unknown side %r" % s)
    os.makedirs(a.out, exist_ok=True)
    results = []
    for test in tests:
        for side in sides:
            work = tempfile.mkdtemp(prefix="lh-mnex-")
            try:
                r = run_one(side, test, work, exdir, a.timeout)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            results.append(r)
            print("%-16s %-10s %-12s %6.1f s  %s%s" % (
                test, side, r["verdict"], r["seconds"], r["cause"],
                ("  LEFT " + json.dumps(r["left"])) if r["left"] else ""), flush=True)
    with open(os.path.join(a.out, "report.json"), "w") as f:
        json.dump(results, f, indent=1)
    by = {(r["test"], r["side"]): r for r in results}
    passed = {s: sum(r["verdict"].startswith("pass") for r in results if r["side"] == s)
              for s in sides}
    print("\n*** passed: " + ", ".join("%s %d/%d" % (s, passed[s], len(tests)) for s in sides))
    if a.md:
        print("\n| example | " + " | ".join(sides) + " | cause of each failure |")
        print("|---|" + "---|" * len(sides) + "---|")
        for t in tests:
            cells = [by[(t, s)]["verdict"] for s in sides]
            why = "; ".join("%s: %s" % (s, by[(t, s)]["cause"]) for s in sides
                            if by[(t, s)]["verdict"] == "FAIL")
            print("| %s | %s | %s |" % (t, " | ".join(cells), why.replace("|", "\\|")))
    bad = []
    must = [t for t in a.require_pass.split(",") if t]
    for t in tests:
        for s in sides:
            if s == "mininet":
                continue
            ok = by[(t, s)]["verdict"].startswith("pass")
            ref = by.get((t, "mininet"))
            if not ok and (t in must or (ref and ref["verdict"].startswith("pass"))):
                bad.append("%s on %s" % (t, s))
            if by[(t, s)]["left"]:
                bad.append("%s on %s left %s" % (t, s, by[(t, s)]["left"]))
    if bad:
        print("*** not as good as real Mininet: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
