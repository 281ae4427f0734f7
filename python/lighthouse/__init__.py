"""Lighthouse's user API in Python, with the paper's names (Table 1,
Table 5, Fig. 6).

    import lighthouse
    from lighthouse import HOP

    net = lighthouse.LighthouseNet("topologies/rotornet-8.json")
    assert net.round_robin() == True, "Invalid Topology."
    paths = net.direct()
    net.entries(paths, lookup=HOP, multipath=None)
    with net:
        net.start()            # root: namespaces, veths, ToRs, OCS
        print(net.pingall())

Values are plain dicts and lists (the Rust values' serde form); paths are
`lighthouse.Path`. Reference: docs/python.md.
"""

from typing import TYPE_CHECKING, Any

from ._native import (  # noqa: F401
    CompileError,
    ConfigError,
    NetworkError,
    Path,
    PathError,
    Routes,
    TopologyError,
    __version__,
)
from ._config import ConfigView  # noqa: F401
from ._data import to_frame  # noqa: F401
from ._monitor import Monitor  # noqa: F401
from ._net import Dashboard, LighthouseNet, Node, TopologyWarning, RoutingWarning  # noqa: F401

#: `entries(paths, lookup=HOP | SOURCE, multipath=None | PACKET | FLOW)`.
HOP = "hop"
SOURCE = "source"
PACKET = "packet"
FLOW = "flow"

#: The type of what a routing returns (Fig. 6c's `-> paths`): a list at run
#: time. For type checkers it is Any: a routing returns a `Routes` (the
#: built-in ones) or a list of paths, dicts and lists (a script's), and a
#: subclass's `def direct(self) -> paths` overrides the built-in
#: `direct() -> Routes` (Fig. 6c).
if TYPE_CHECKING:
    from typing import TypeAlias

    paths: TypeAlias = Any
else:
    paths = list

__all__ = [
    "LighthouseNet",
    "Dashboard",
    "Node",
    "Path",
    "Routes",
    "Monitor",
    "ConfigView",
    "HOP",
    "SOURCE",
    "PACKET",
    "FLOW",
    "paths",
    "to_frame",
    "ConfigError",
    "CompileError",
    "TopologyError",
    "PathError",
    "NetworkError",
    "TopologyWarning",
    "RoutingWarning",
    "__version__",
]
