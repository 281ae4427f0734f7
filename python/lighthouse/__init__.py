"""Lighthouse's user API in Python (the paper's Table 1 names).

    import lighthouse
    with lighthouse.LighthouseNet("topologies/rotornet-8.json") as net:
        print(net.schedule(0))
        net.start()            # root: namespaces, veths
        print(net.pingall())

Values are plain dicts and lists (the Rust values' serde form).
Reference: docs/python.md.
"""

import atexit as _atexit
import weakref as _weakref

from ._native import (  # noqa: F401
    CompileError,
    ConfigError,
    NetworkError,
    __version__,
)
from ._native import LighthouseNet as _NativeNet

__all__ = ["LighthouseNet", "ConfigError", "CompileError", "NetworkError", "__version__"]

# Networks started and not stopped: torn down when the interpreter exits
# without leaving their `with` block (a script that forgot stop()).
_running = _weakref.WeakSet()


class LighthouseNet(_NativeNet):
    __doc__ = _NativeNet.__doc__

    def start(self, tor="native"):
        super().start(tor)
        _running.add(self)

    def stop(self):
        _running.discard(self)
        return super().stop()

    def __exit__(self, ty, value, tb):
        self.stop()
        return False


@_atexit.register
def _stop_all():
    for net in list(_running):
        net.stop()
