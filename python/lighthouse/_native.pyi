"""Type stubs of `lighthouse._native`, the extension module built from the
Rust crate python/ (python/src/*.rs). Keep in step with its #[pyclass],
#[pymethods], #[pyfunction] and #[pyo3(signature = ...)].

Values other than paths cross through serde and `json.loads`
(python/src/convert.rs): plain dicts and lists with the Rust field names,
typed `dict[str, Any]` here; the few dicts built field by field in net.rs
are TypedDicts (private names: they exist only for type checkers). ToR,
port, slice and slot ids are ints.
"""

import os
import pathlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, SupportsIndex, TypedDict, final, overload

from typing_extensions import Self

__all__ = [
    "__version__",
    "LighthouseNet",
    "Path",
    "Routes",
    "ConfigError",
    "CompileError",
    "TopologyError",
    "PathError",
    "NetworkError",
    "MnNet",
    "set_log_level",
]

__version__: str

# ---- Exceptions (lib.rs) ----

class ConfigError(ValueError):
    """A config that does not parse or validate; `json_path` names the field."""

    #: The JSON path alone (`$.tors.count`).
    json_path: str

class CompileError(RuntimeError):
    """The config parses but cannot be compiled (topology, routing, tables)."""

class TopologyError(ValueError):
    """A script's topo() built a schedule the fabric cannot realise."""

class PathError(ValueError):
    """A path that the schedule cannot carry (names the path, the hop and the slice)."""

class NetworkError(RuntimeError):
    """A live-network operation failed; `kind` names the error."""

    #: The error's kind as `--json` has it. Set when the error came from the
    #: live network (convert.rs `net_err`); absent on the Python layer's own
    #: "not running" errors.
    kind: str

# ---- Paths (path.rs) ----

@final
class Path:
    """Packets arriving at `src` in slice `arrival` leave ToR `hops[i][0]` on
    uplink `hops[i][1]` in slot `hops[i][2]`. Made by `earliest_path()`,
    `path()`, `shortest_path()` and `Routes`; there is no constructor."""

    @property
    def src(self) -> int: ...
    @property
    def dst(self) -> int: ...
    @property
    def arrival(self) -> int | None:
        """The arrival slice (`None`: any slice; static fabrics)."""
    @property
    def hops(self) -> list[tuple[int, int, int | None]]:
        """`[(tor, port, depart), ...]`."""
    @property
    def tors(self) -> list[int]:
        """The ToRs visited, `src` first and `dst` last."""
    @property
    def departs(self) -> list[int | None]:
        """The slot each hop departs in."""
    @property
    def latency(self) -> int | None:
        """Slots from arrival to the last departure (`None` on static fabrics)."""
    def __len__(self) -> int: ...
    def to_dict(self) -> dict[str, Any]:
        """The path as plain data (`src`, `dst`, `arrival`, `hops`, `class`)."""
    def __eq__(self, value: object, /) -> bool: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Routes:
    """The paths of a routing (`direct()`, `hoho()`, ...), a read-only
    sequence of `Path` kept in Rust. `entries()` takes it as it is."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, i: SupportsIndex, /) -> Path: ...
    @overload
    def __getitem__(self, i: slice, /) -> list[Path]: ...
    # Not a method of the class: `for p in routes` goes through
    # __getitem__ (the sequence protocol, ending at IndexError). Declared so
    # that type checkers see what iteration yields.
    def __iter__(self) -> Iterator[Path]: ...
    @property
    def algorithm(self) -> str:
        """The algorithm that made them (`"direct"`, ..., `"script"`)."""
    def to_list(self) -> list[Path]:
        """Every path as a `Path` (a list; large on large fabrics)."""

#: What `entries()` takes: a `Routes`, a `Path`, a dict of
#: `Path.to_dict()`'s form, or a list or tuple of them, nested as a routing
#: appends them (the elements are checked at run time).
_Paths = Routes | Path | dict[str, Any] | list[Any] | tuple[Any, ...]

class _Entries(TypedDict):
    """`entries()`'s summary."""

    paths: int
    entries: int
    per_tor: list[int]
    #: (src, dst, arrival slice) triples no path serves.
    missing: int
    #: The first of them, `[src, dst, slice]`, or None.
    first_missing: list[int] | None

class _MonitorRequest(TypedDict):
    """`_monitor()`'s value: the request as `_usage()` takes it back."""

    spec: dict[str, Any]
    interval_ns: int

class _HostPlan(TypedDict):
    """`_host()`'s value."""

    name: str
    ip: str
    prefix_len: int
    tor: int
    host_if: str
    tor_if: str

# ---- The network (net.rs) ----

class LighthouseNet:
    """`LighthouseNet(config)`: a network from a config.json path, a dict or a
    JSON string. The topology and routing calls change what `start()`
    brings up; without them it is the config's."""

    def __new__(cls, config: str | os.PathLike[str] | dict[str, Any]) -> Self: ...
    def compile(self) -> dict[str, Any]:
        """The summary of `lighthouse compile` of what the script built."""
    @property
    def _config(self) -> dict[str, Any]: ...
    @property
    def slices(self) -> int:
        """Slices in the cycle of the current schedule."""

    # Topology (Table 1, Table 5)
    def connect(self, tor1: int, port1: int, tor2: int, port2: int, ts: int) -> bool: ...
    @property
    def refusal(self) -> str | None:
        """Why the last `connect()` or topology call returned False."""
    def _begin_topo(self) -> None: ...
    def _end_topo(self, slices: int | None = None) -> None: ...
    def new_schedule(self, slices: int) -> None: ...
    def round_robin(self) -> bool: ...
    def topo_opera(self) -> bool: ...
    def topo_shale(self, h: int = 2) -> bool: ...
    def topo_aware(self, tm: Sequence[Sequence[int]], scheduler: str = "bvn") -> bool: ...
    def schedule(self, ts: int | None = None) -> dict[str, Any]: ...

    # Routing (Table 1, Table 5)
    def neighbors(self, tor: int, ts: int = 0) -> list[int]: ...
    def earliest_path(
        self, src: int, dst: int, ts: int = 0, max_hop: int = 2
    ) -> Path | None: ...
    def shortest_path(self, src: int, dst: int) -> list[Path]: ...
    def path(self, tors: Sequence[int], departs: Sequence[int], ts: int = 0) -> Path: ...
    def direct(self) -> Routes: ...
    def vlb(self) -> Routes: ...
    def hoho(self) -> Routes: ...
    def opera(self) -> Routes: ...
    def ucmp(self) -> Routes: ...
    def ecmp(self) -> Routes: ...
    def ksp(self) -> Routes: ...
    def entries(
        self, paths: _Paths, lookup: str = "hop", multipath: str | None = None
    ) -> _Entries: ...

    # Monitoring (Table 1)
    def _monitor(
        self,
        metric: str,
        tor: int | None = None,
        port: int | None = None,
        interval: str | float | None = None,
    ) -> _MonitorRequest: ...
    def _usage(self, monitor: dict[str, Any]) -> dict[str, Any]: ...
    def monitors(self) -> list[dict[str, Any]]: ...

    # The live network
    def start(
        self,
        tor: str = "native",
        dashboard: bool | int | str | None = None,
        watch: Sequence[dict[str, Any]] | None = None,
        backend: str = "live",
        own_cpu: bool = False,
    ) -> None: ...
    @property
    def dashboard_url(self) -> str | None: ...
    @property
    def running(self) -> bool: ...
    @property
    def backend(self) -> Literal["live", "sim"] | None: ...
    @property
    def now(self) -> float | None:
        """Virtual seconds since `start(backend="sim")`, or None."""
    @property
    def prefix(self) -> str | None: ...
    def stop(self) -> bool: ...
    def pingall(self, timeout: float | None = None) -> dict[str, Any]: ...
    def ping(
        self, hosts: Sequence[str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]: ...
    def iperf(self, client: str, server: str, seconds: float | None = None) -> dict[str, Any]: ...
    def flows(self, args: str) -> dict[str, Any]: ...
    def flow_list(
        self, path: str, csv: str | None = None, grace: float | None = None
    ) -> dict[str, Any]: ...
    def queues(self, tor: int) -> dict[str, Any]: ...
    def drops(self) -> dict[str, Any]: ...
    def table(self, tor: int) -> dict[str, Any]: ...
    def slice(self) -> dict[str, Any]: ...
    def link(self, x: str, y: str, up: bool = True) -> None: ...
    def pcap(self, node: str, port: str, file: str | os.PathLike[str]) -> dict[str, Any]: ...
    def _node_names(self) -> list[str]: ...
    def _host(self, name: str) -> _HostPlan | None: ...
    def _intfs(self, name: str) -> list[tuple[str, str | None]]: ...
    def _ns(self, name: str) -> pathlib.Path: ...
    def _cmd(self, node: str, line: str) -> str: ...
    def _cli(
        self, script: str | None = None, py: Callable[[str, bool], str] | None = None
    ) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, ty: object, value: object, tb: object, /) -> bool: ...

# ---- Mininet's Python API, the native half (mininet.rs) ----

#: A link: ends, bw (Mbit/s), port1, port2, netem's options and the ends'
#: names and addresses as a JSON object.
_Link = tuple[str, str, float | None, int | None, int | None, str | None]
#: A host's confinement: host, cpu fraction, period_us, [(target, bind
#: source or None)].
_Confine = tuple[str, float | None, int | None, Sequence[tuple[str, str | None]]]
#: A host's own options: host, ip, defaultRoute.
_HostOpts = tuple[str, str | None, str | None]

@final
class MnNet:
    """`MnNet(switches, hosts, links, ipbase=None, mac=False, arp=False,
    confine=None, host_opts=None)`: one network built from a Python Topo's
    names and links."""

    def __new__(
        cls,
        switches: Sequence[str],
        hosts: Sequence[str],
        links: Sequence[_Link],
        ipbase: str | None = None,
        mac: bool = False,
        arp: bool = False,
        confine: Sequence[_Confine] | None = None,
        host_opts: Sequence[_HostOpts] | None = None,
    ) -> MnNet: ...
    def build(self) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> bool: ...
    @property
    def prefix(self) -> str | None: ...
    def ns_name(self, node: str) -> str: ...
    def exec_prefix(self, node: str) -> list[str]: ...
    def cgroup_procs(self, node: str) -> str | None: ...
    def ip(self, node: str) -> str | None: ...
    def mac(self, node: str) -> str | None: ...
    def intfs(self, node: str) -> list[tuple[str, str | None]]: ...
    def repr_of(self, node: str) -> str: ...
    def cmd(self, node: str, line: str) -> str: ...
    def send_cmd(self, node: str, line: str) -> None: ...
    def read_output(self, node: str, timeout_ms: float | None = None) -> tuple[str, int | None]: ...
    def send_int(self, node: str) -> None: ...
    def waiting(self, node: str) -> bool: ...
    def stdout_fd(self, node: str) -> int: ...
    def ping(
        self,
        hosts: Sequence[str] | None = None,
        timeout: float | None = None,
        full: bool = False,
    ) -> tuple[int, int, list[tuple[str, str, float | None]]]: ...
    def intf_config(self, intf: str, bw: float | None = None, netem: str | None = None) -> None: ...
    def iperf(
        self, client: str, server: str, seconds: float = 5.0, udp_bw: str | None = None
    ) -> list[str]: ...
    def link(self, a: str, b: str, up: bool) -> None: ...
    def cli(
        self, script: str | None = None, py: Callable[[str, bool], str] | None = None
    ) -> None: ...
    def onecmd(self, line: str) -> bool: ...

def set_log_level(name: str) -> None:
    """`setLogLevel(name)`: Mininet's levels."""

# ---- Sweeps (sweep.rs): specs and rows cross as JSON text ----

SWEEP_COLUMNS: list[str]

def _sweep_check(text: str) -> str:
    """Checks a spec; its points as JSON."""

def _sweep_point(text: str, i: int) -> str:
    """Point `i`'s row as JSON (the GIL released)."""

def _sweep_local(text: str, jobs: int) -> list[str]:
    """Every point on `jobs` threads; the rows in the grid's order."""

def _sweep_csv(text: str, rows: list[str]) -> str:
    """The table as `lighthouse sweep`'s CSV."""
