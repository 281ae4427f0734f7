"""The labs' Python driver (shipped in the `lighthouse` binary; labs/src/py.rs
runs it with the project venv's interpreter). It imports a student's
`topo.py`, `routing.py`, `tables.py`, `tm.py` or `answers.py`, runs it
through the real `lighthouse` package on the lab's shipped config (read
from stdin) and prints one line `LHLAB-RESULT <json>` with what the Rust
grader checks.

    python -I -B -c <this> topo    <dir>/topo.py     < nonce + config.json
    python -I -B -c <this> routing <dir>/routing.py  < nonce + config.json
    python -I -B -c <this> tables  <dir>/tables.py   < nonce + config.json
    python -I -B -c <this> tm      <dir>/tm.py       < nonce + config.json
    python -I -B -c <this> answers <dir>/answers.py  < nonce + [config, ...]

The first line of stdin is a nonce that the result line repeats; the
student's own prints go to stderr. The rest is one config, or a JSON list
of configs: then the function gets one net per config, in order (lab 06's
answers(direct, hoho)). The built-in generators the lab is about writing
(round_robin() for lab 04, hoho() and the other built-in routings for lab
03, those and earliest_path() for lab 05) are blocked on the student's net
and flagged when the source calls them; net.start() is an error on every
net (nothing live is brought up by a grade)."""

import importlib.util
import io
import json
import os
import sys
import tokenize
import traceback
import warnings

MARK = "LHLAB-RESULT "
ROUTINGS = ("direct", "vlb", "hoho", "opera", "ucmp", "ecmp", "ksp")
BUILTIN = {
    "topo": ("round_robin", "topo_opera", "topo_shale", "topo_aware"),
    "routing": ROUTINGS,
    # Lab 05: working out each hop's departure slice is the lab.
    "tables": ROUTINGS + ("earliest_path", "shortest_path"),
    "tm": (),
    "answers": (),
}
# What each mode's function is called with, for messages.
ARGS = {"answers": "direct, hoho"}

_out = sys.stdout
sys.stdout = sys.stderr


# The grader's nonce (the first line of stdin): a result line a student's
# print() forges lacks it.
_nonce = sys.stdin.readline().strip()


def emit(**kv):
    _out.write(MARK + _nonce + " " + json.dumps(kv) + "\n")
    _out.flush()
    os._exit(0)


class Shortcut(Exception):
    pass


def attribute_uses(src, names):
    """`.name` attribute uses of the built-ins in the source (not comments or
    strings): [(name, line)]."""
    found = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    for a, b in zip(toks, toks[1:]):
        if a.type == tokenize.OP and a.string == "." and b.type == tokenize.NAME and b.string in names:
            found.append((b.string, b.start[0]))
    return found


def main():
    mode, student = sys.argv[1], os.path.abspath(sys.argv[2])
    name = os.path.basename(student)
    config = sys.stdin.read()
    try:
        import lighthouse
    except Exception as e:  # noqa: BLE001
        emit(status="nolighthouse", message=f"{type(e).__name__}: {e}")

    def student_line():
        """The innermost frame of the student's file on the stack now."""
        f = sys._getframe(1)
        while f is not None:
            if os.path.abspath(f.f_code.co_filename) == student:
                return f.f_lineno
            f = f.f_back
        return None

    def error(e):
        last = traceback.format_exception_only(type(e), e)[-1].strip().replace("_native.", "lighthouse.")
        line, code = None, None
        if isinstance(e, SyntaxError) and e.filename and os.path.abspath(e.filename) == student:
            line, code = e.lineno, (e.text or "").strip()
        else:
            frames = [f for f in traceback.extract_tb(e.__traceback__) if os.path.abspath(f.filename) == student]
            if frames:
                line, code = frames[-1].lineno, (frames[-1].line or "").strip()
        emit(status="error", file=name, line=line, code=code, message=last)

    with open(student, encoding="utf-8") as fh:
        src = fh.read()
    banned = BUILTIN[mode]
    configs = json.loads(config) if config.lstrip().startswith("[") else [config]
    nets = [lighthouse.LighthouseNet(c) for c in configs]
    net = nets[0]
    call = f"{mode}({ARGS.get(mode, 'net')})"

    # The grader's reference, before any student code runs.
    ref = {}
    if mode == "routing":
        n, s = net.config.tor_num, net.slices
        for a in range(n):
            for b in range(n):
                for ts in range(s):
                    if a != b:
                        p = net.earliest_path(a, b, ts, 2)
                        ref[(a, b, ts)] = None if p is None else p.latency

    called = []

    def block(what):
        def f(*args, **kwargs):
            called.append((what, student_line()))
            raise Shortcut(what)

        return f

    for x in nets:
        for b in banned:
            setattr(x, b, block(b))

    # A graded function only builds the net it is given. start() would bring
    # up a live network as the grader's user (root in a VM), and the driver
    # ends with os._exit, which would leave it up.
    def no_start(*args, **kwargs):
        raise RuntimeError(
            "net.start() brings up a live network; a lab's function only builds the net it is given"
        )

    for x in nets:
        x.start = no_start

    sys.path.insert(0, os.path.dirname(student))
    spec = importlib.util.spec_from_file_location(f"student_{mode}", student)
    mod = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            spec.loader.exec_module(mod)
            f = getattr(mod, mode, None)
            if not callable(f):
                emit(status="missing", file=name, message=f"{name} defines no {call}")
            if mode == "topo":
                result = net.topo(f)
            elif mode in ("routing", "tables"):
                result = net.routing(f)
            else:
                result = f(*nets)
        except Shortcut:
            pass
        except BaseException as e:  # noqa: BLE001 (SystemExit, KeyboardInterrupt too)
            if not called:
                error(e)
    uses = attribute_uses(src, banned)
    if called or uses:
        what, line = called[0] if called else uses[0]
        emit(status="shortcut", file=name, builtin=what, line=line)

    if mode == "tm":
        emit_matrix(net, name, result)
    if mode == "answers":
        emit_answers(name, call, result)

    if mode == "topo":
        refused = [w for w in caught if issubclass(w.category, lighthouse.TopologyWarning)]
        if refused or result is False:
            w = next((w for w in refused if os.path.abspath(w.filename) == student), None)
            emit(
                status="refused",
                file=name,
                line=w.lineno if w else None,
                message=str(w.message) if w else f"topology refused: {net.refusal}",
            )
        circuits = []
        for ts in range(net.slices):
            for c in net.schedule(ts)["circuits"]:
                a, b = (c["a_tor"], c["a_port"]), (c["b_tor"], c["b_port"])
                if a < b:
                    circuits.append({"ts": ts, "tor1": a[0], "port1": a[1], "tor2": b[0], "port2": b[1]})
        emit(status="ok", schedule={"slices": net.slices, "circuits": circuits})

    # routing and tables: the paths, through the paper's entries()
    paths, summary = entries_of(net, name, call, result)
    if mode == "tables":
        emit_tables(net)
    mine = [p if isinstance(p, lighthouse.Path) else as_path(net, p) for p in paths]
    long = [p for p in mine if len(p) > 2]
    best = {}
    for p in mine:
        k = (p.src, p.dst, p.arrival)
        if p.latency is not None and (k not in best or p.latency < best[k][0]):
            best[k] = (p.latency, p)
    slower = [(k, lat, p, ref.get(k)) for k, (lat, p) in sorted(best.items())
              if ref.get(k) is not None and lat > ref[k]]
    emit(
        status="ok",
        paths=summary["paths"],
        entries=summary["entries"],
        missing=summary["missing"],
        first_missing=summary["first_missing"],
        triples=len(ref),
        too_long=len(long),
        first_too_long=repr(long[0]) if long else None,
        slower=len(slower),
        first_slower=(
            {"path": repr(slower[0][2]), "latency": slower[0][1], "best": slower[0][3]} if slower else None
        ),
    )


def entries_of(net, name, call, result):
    """The paths a routing returned and entries()'s summary of the
    per-hop tables it makes of them; a result that is no list of paths,
    or a path the schedule cannot carry, is the student's error."""
    import lighthouse

    if result is None:
        emit(status="error", file=name, line=None, code=None, message=f"{call} returned None; return the list of paths")
    try:
        paths = list(result)
    except TypeError:
        emit(status="error", file=name, line=None, code=None,
             message=f"{call} returned a {type(result).__name__}, not a list of paths")
    try:
        return paths, net.entries(paths, lookup=lighthouse.HOP)
    except (lighthouse.PathError, TypeError, ValueError) as e:
        emit(status="badpath", file=name, message=str(e))


def emit_tables(net):
    """Lab 05: the time-flow tables entries() made, as a tables.json (the
    grader walks them as it walks the student's file)."""
    tors = [{"tor": t, "entries": net.table(t)["entries"]} for t in range(net.config.tor_num)]
    emit(status="ok", tables={"slices": net.slices, "lookup": "hop", "multipath": "none", "buckets": 1, "tors": tors})


def emit_answers(name, call, a):
    """Lab 06: the answers as answers.json holds them (question -> a
    number, a string or a list), for the same checks."""
    if not isinstance(a, dict):
        emit(status="error", file=name, line=None, code=None,
             message=f"{call} returns a dict {{question: answer}}; it returned a {type(a).__name__}")
    for k, v in a.items():
        try:
            json.dumps({k: v})
        except (TypeError, ValueError):
            emit(status="error", file=name, line=None, code=None,
                 message=f"{call}[{k!r}] is a {type(v).__name__}; answers are numbers, strings or lists of them")
    emit(status="ok", answers=a)


def emit_matrix(net, name, m):
    """Lab 08: tm(net)'s matrix, handed to the paper's topo_aware() with
    the hotspot scheduler (the grader checks the matching it picks)."""
    n = net.config.tor_num
    shape = f"tm(net) returns {n} rows of {n} non-negative integers (bytes)"
    try:
        rows = [list(r) for r in m]
    except TypeError:
        emit(status="error", file=name, line=None, code=None, message=f"{shape}; it returned a {type(m).__name__}")
    if len(rows) != n or any(len(r) != n for r in rows):
        got = f"{len(rows)} rows of " + "/".join(sorted({str(len(r)) for r in rows}) or ["0"])
        emit(status="error", file=name, line=None, code=None, message=f"{shape}; it returned {got}")
    bad = [(a, b, x) for a, r in enumerate(rows) for b, x in enumerate(r)
           if isinstance(x, bool) or not isinstance(x, int) or x < 0]
    if bad:
        a, b, x = bad[0]
        emit(status="error", file=name, line=None, code=None,
             message=f"{shape}; row {a + 1}, column {b + 1} is {x!r}")
    try:
        ok = net.topo_aware(rows, scheduler="hotspot")
    except (ValueError, TypeError) as e:
        emit(status="refused", file=name, line=None, message=f"topo_aware(): {e}")
    if ok is False:
        emit(status="refused", file=name, line=None, message=f"topo_aware() refused it: {net.refusal}")
    emit(status="ok", matrix=rows)


def as_path(net, d):
    hops = d["hops"]
    return net.path([h["tor"] for h in hops] + [d["dst"]], [h["depart"] for h in hops], d["arrival"])


main()
