"""`LighthouseNet`: the native network (python/src/net.rs) plus what is
easier in Python: a script's own `topo()` and routing, warnings with the
reasons of refusals, monitoring iterators, node objects, and teardown on
every way out (a `with` block, an exception, SIGINT, SIGTERM, exit)."""

from __future__ import annotations

import atexit
import inspect
import os
import signal
import subprocess
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, cast, overload

from ._config import ConfigView
from ._monitor import Monitor
from ._pyline import caller_namespace, evaluate
from ._native import LighthouseNet as _NativeNet
from ._native import NetworkError, TopologyError

if TYPE_CHECKING:
    from ._native import _Entries, _HostPlan, _Paths

_T = TypeVar("_T")
_N = TypeVar("_N", bound="LighthouseNet")


class TopologyWarning(UserWarning):
    """A `connect()` or topology call was refused (the reason is the
    message, and `net.refusal`)."""


class RoutingWarning(UserWarning):
    """Paths leave some (src, dst, slice) without a route."""


# Networks started and not stopped: torn down when the interpreter exits
# without leaving their `with` block (a script that forgot stop()).
_running: weakref.WeakSet[LighthouseNet] = weakref.WeakSet()

# Topology methods a subclass may write itself (Fig. 6b overrides
# round_robin): they run as a topo(), on an empty schedule that grows
# with the slices they connect.
_TOPO_METHODS = ("round_robin", "topo_opera", "topo_shale")


def _as_topo(f: Callable[..., Any]) -> Callable[..., bool]:
    def run(self: LighthouseNet, *args: Any, **kwargs: Any) -> bool:
        return self._run_topo(lambda: f(self, *args, **kwargs))

    run.__name__ = f.__name__
    run.__doc__ = f.__doc__
    run.__wrapped__ = f  # type: ignore[attr-defined]
    run._lh_topo = True  # type: ignore[attr-defined]
    return run


def _caller(f: Any, net: LighthouseNet, what: str) -> Callable[[], Any]:
    """How to call a script's function, method or class with `net`."""
    if inspect.isclass(f):
        obj: Any = f()
        if hasattr(obj, what):
            return lambda: getattr(obj, what)(net)
        return lambda: obj(net)
    if inspect.ismethod(f) and f.__self__ is net:
        return f
    if callable(f):
        return lambda: f(net)
    raise TypeError(f"{what}(f): f is a function, a method or a class, not {type(f).__name__}")


class Node:
    """A host or ToR of the running network, as Mininet's nodes:
    `cmd()`, `popen()`, `IP()`, `MAC()`, `intfList()`."""

    def __init__(self, net: LighthouseNet, name: str) -> None:
        self.net = net
        self.name = name

    def __repr__(self) -> str:
        ip = self.IP()
        return f"<{'Host' if ip else 'ToR'} {self.name}{': ' + ip if ip else ''}>"

    def __str__(self) -> str:
        return self.name

    def _host(self) -> _HostPlan | None:
        return self.net._host(self.name)

    def cmd(self, *args: object) -> str:
        """Run a shell command in the node's persistent shell; its output."""
        line = " ".join(str(a) for a in args)
        return self.net._cmd(self.name, line)

    def popen(self, args: str | Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """`subprocess.Popen` of `args` in the node's network namespace."""
        if isinstance(args, str):
            args = ["sh", "-c", args]
        ns = os.fspath(self.net._ns(self.name))
        return subprocess.Popen(["nsenter", f"--net={ns}", "--", *args], **kwargs)

    def IP(self) -> str | None:
        """The host's address (None for a ToR)."""
        h = self._host()
        return h["ip"] if h else None

    def MAC(self) -> str | None:
        """The MAC of the host's interface (None for a ToR)."""
        h = self._host()
        if not h:
            return None
        out = self.cmd(f"ip -o link show {h['host_if']}").split()
        return out[out.index("link/ether") + 1] if "link/ether" in out else None

    def intfList(self) -> list[str]:
        """The node's interface names."""
        return [i for i, _ in self.net._intfs(self.name)]

    def intfs(self) -> list[tuple[str, str | None]]:
        """Interfaces and their far ends: `[(name, peer or None)]`."""
        return self.net._intfs(self.name)


class Dashboard:
    """The paper's `dashboard` (Fig. 6a) of one network: `update(monitor)`
    puts a monitoring request (`net.buffer_usage(...)`, `net.bw_usage(...)`)
    on the live web dashboard, which `net.start(dashboard=True)` serves
    (docs/dashboard.md). Without any `update()`, the page lists every
    request made before `start()`."""

    def __init__(self, net: LighthouseNet) -> None:
        self._net = weakref.ref(net)
        self.monitors: list[Monitor] = []

    def update(self, monitor: Monitor) -> Monitor:
        if not isinstance(monitor, Monitor):
            raise TypeError(
                f"dashboard.update({monitor!r}): a Monitor (net.buffer_usage(...) or net.bw_usage(...))"
            )
        if monitor._net is not self._net():
            raise ValueError(f"dashboard.update({monitor!r}): a monitor of another network")
        if cast("LighthouseNet", self._net()).running:
            warnings.warn(
                f"dashboard.update({monitor!r}) after start(): the page lists the monitors given before start()",
                stacklevel=2,
            )
        self.monitors.append(monitor)
        return monitor

    @property
    def url(self) -> str | None:
        """The page's URL once the network runs with a dashboard, else None."""
        return cast("LighthouseNet", self._net()).dashboard_url


class LighthouseNet(_NativeNet):
    __doc__ = _NativeNet.__doc__

    # Set by the Python layer (a subclass instance has a __dict__).
    _why: str | None
    _in_topo: bool

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _TOPO_METHODS:
            f = cls.__dict__.get(name)
            if callable(f) and not getattr(f, "_lh_topo", False):
                setattr(cls, name, _as_topo(f))

    # -- config --

    @property
    def config(self) -> ConfigView:
        """The config (defaults filled in): `net.config.tor_num`,
        `net.config.tors` (the ToRs, each with `.ports`), `net.config.slice`."""
        return ConfigView(self._config)

    @property
    def dashboard(self) -> Dashboard:
        """This network's `Dashboard` (Fig. 6a's `dashboard.update(...)`)."""
        d: Dashboard | None = self.__dict__.get("_dashboard")
        if d is None:
            d = self.__dict__["_dashboard"] = Dashboard(self)
        return d

    @property
    def ts_num(self) -> int:
        """Slices in the cycle (Fig. 6c's `ts_num`)."""
        return self.slices

    # -- topology --

    def connect(self, tor1: int, port1: int, tor2: int, port2: int, ts: int) -> bool:
        ok = super().connect(tor1, port1, tor2, port2, ts)
        if not ok:
            warnings.warn(
                f"connect({tor1}, {port1}, {tor2}, {port2}, {ts}) refused: {self.refusal}",
                TopologyWarning,
                stacklevel=2,
            )
        return ok

    def topo(self, f: Callable[..., object], slices: int | None = None) -> bool:
        """`topo()`: run a script's topology (a function taking the net, a
        method of it, or a class with `topo(net)` or `__call__(net)`), which
        calls `connect()`; the cycle is the slices it connects (or
        `slices`). True when the schedule is valid on the fabric; else False,
        with the reason in `net.refusal` and a TopologyWarning."""
        return self._run_topo(_caller(f, self, "topo"), slices)

    def _run_topo(self, call: Callable[[], Any], slices: int | None = None) -> bool:
        if getattr(self, "_in_topo", False):
            # Inside a running topo(): the topology function's own result,
            # which the outer run checks.
            result: bool = call()
            return result
        self._why = None
        self._begin_topo()
        self._in_topo = True
        try:
            ok = call()
        except BaseException:
            self._abort_topo()
            raise
        finally:
            self._in_topo = False
        if ok is False:
            self._why = self.refusal or "topo() returned False"
            self._abort_topo()
            warnings.warn(f"topology refused: {self._why}", TopologyWarning, stacklevel=3)
            return False
        try:
            self._end_topo(slices)
        except TopologyError as e:
            self._why = str(e)
            warnings.warn(f"topology refused: {e}", TopologyWarning, stacklevel=3)
            return False
        return True

    def _abort_topo(self) -> None:
        try:
            self._end_topo(None)
        except TopologyError:
            pass
        self.new_schedule(1)

    @property
    def refusal(self) -> str | None:
        """Why the last `connect()` or topology call returned False."""
        why: str | None = getattr(self, "_why", None) or _NativeNet.refusal.__get__(self)
        return why

    def round_robin(self) -> bool:
        ok = super().round_robin()
        self._why = None
        return ok

    # -- routing --

    # A class (its `routing(net)` or `__call__(net)`), a function of the
    # net, or a method of it (no arguments): what it returns.
    @overload
    def routing(self, f: type[Any]) -> Any: ...
    @overload
    def routing(self: _N, f: Callable[[_N], _T]) -> _T: ...
    @overload
    def routing(self, f: Callable[[], _T]) -> _T: ...
    def routing(self, f: Any) -> Any:
        """`routing()`: run a script's routing (a function taking the net, a
        method, or a class with `routing(net)`); its paths, for `entries()`."""
        return _caller(f, self, "routing")()

    def entries(
        self, paths: _Paths, lookup: str = "hop", multipath: str | None = None
    ) -> _Entries:
        s = super().entries(paths, lookup, multipath)
        if s["missing"]:
            src, dst, ts = cast("list[int]", s["first_missing"])
            warnings.warn(
                f"entries(): {s['missing']} (src, dst, arrival slice) triples have no path, "
                f"e.g. ToR {src} -> ToR {dst} arriving in slice {ts}; their packets are "
                f"dropped (no entry)",
                RoutingWarning,
                stacklevel=2,
            )
        return s

    # -- monitoring --

    def buffer_usage(
        self, tor: int | None = None, port: int | None = None, interval: str | float = "1ms"
    ) -> Monitor:
        """`buffer_usage(tor, port, interval)`: a monitoring request (None:
        every ToR / port); iterate it on the running network for samples."""
        return Monitor(self, self._monitor("buffer_usage", _int(tor), _int(port), interval))

    def bw_usage(
        self, tor: int | None = None, port: int | None = None, interval: str | float = "1ms"
    ) -> Monitor:
        """`bw_usage(tor, port, interval)`: as buffer_usage, the share of
        each port's rate used over each interval."""
        return Monitor(self, self._monitor("bw_usage", _int(tor), _int(port), interval))

    # -- the live network --

    # Not the native start()'s signature: `watch` is the dashboard's
    # monitors, which this start() passes itself.
    def start(  # type: ignore[override]
        self,
        tor: str = "native",
        dashboard: bool | int | str | None = None,
        backend: str = "live",
        own_cpu: bool = False,
    ) -> None:
        """Bring the network up (`tor` as `lighthouse run --tor`);
        `dashboard`: serve the live web dashboard (True: 127.0.0.1:8001, a
        port, or "HOST:PORT"; docs/dashboard.md). `backend="sim"`: the same
        ToR and OCS code in virtual time instead (docs/virtual-time.md): no
        root, deterministic; `pingall()`, `ping()`, `flows()`, `drops()`
        and `now` (virtual seconds). `own_cpu=True`: as `lighthouse run
        --own-cpu`, for bulk TCP (docs/dataplane.md); live only."""
        watch = [m.spec for m in self.dashboard.monitors] or None
        super().start(tor, dashboard, watch, backend, own_cpu)
        _running.add(self)
        if backend == "live":
            _install_sigterm()

    def stop(self) -> bool:
        _running.discard(self)
        return super().stop()

    def __exit__(self, ty: object, value: object, tb: object) -> Literal[False]:
        self.stop()
        return False

    def pingall(self, timeout: float | None = None) -> dict[str, Any]:
        """Every host pings every other: `rows`, `sent`, `received`, and
        `loss` (percent, as Mininet's pingAll returns)."""
        return _with_loss(super().pingall(timeout))

    def ping(
        self, hosts: Iterable[str | Node] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        return _with_loss(super().ping([str(h) for h in hosts] if hosts else None, timeout))

    def iperf(
        self, client: str | Node, server: str | Node, seconds: float | None = None
    ) -> dict[str, Any]:
        return super().iperf(str(client), str(server), seconds)

    def get(self, name: str) -> Node:
        """The node `name` (`h1`, `s1`, ...)."""
        if name not in self._node_names():
            raise KeyError(f"no node {name!r} (nodes: {', '.join(self._node_names())})")
        return Node(self, name)

    def __getitem__(self, name: str) -> Node:
        return self.get(name)

    @property
    def hosts(self) -> list[Node]:
        return [Node(self, n) for n in self._node_names() if self._host(n)]

    @property
    def tors(self) -> list[Node]:
        return [Node(self, n) for n in self._node_names() if not self._host(n)]

    def cli(self, script: str | os.PathLike[str] | None = None) -> None:
        """The CLI of `lighthouse run` on this network (Mininet's
        `CLI(net)`); with `script`, its lines instead of the terminal. `py`
        and `px` run Python in the calling script's namespace, with `net`
        and every node by name."""
        globals_ = caller_namespace()

        def hook(line: str, px: bool) -> str:
            locals_: dict[str, Any] = {"net": self}
            locals_.update({n: Node(self, n) for n in self._node_names()})
            return evaluate(line, px, globals_, locals_)

        saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            self._cli(None if script is None else os.fspath(script), hook)
        finally:
            for s, h in saved.items():
                if h is not None:
                    signal.signal(s, h)


def _int(v: int | None) -> int | None:
    return None if v is None else int(v)


def _with_loss(p: dict[str, Any]) -> dict[str, Any]:
    sent = p.get("sent", 0)
    p["loss"] = 100.0 * (sent - p.get("received", 0)) / sent if sent else 0.0
    return p


_sigterm_installed = False


def _install_sigterm() -> None:
    """SIGTERM ends the script as an exception would (SystemExit), so `with`
    blocks and atexit tear the network down; a script's own handler wins."""
    global _sigterm_installed
    if _sigterm_installed or signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        return

    def on_term(signum: int, frame: FrameType | None) -> NoReturn:
        raise SystemExit(128 + signum)

    try:
        signal.signal(signal.SIGTERM, on_term)
        _sigterm_installed = True
    except ValueError:
        pass  # not the main thread: the default (exit without teardown) stays


@atexit.register
def _stop_all() -> None:
    for net in list(_running):
        net.stop()


__all__ = ["LighthouseNet", "Node", "TopologyWarning", "RoutingWarning", "NetworkError"]
