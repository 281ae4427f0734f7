"""Mininet's `mininet.cli`: `CLI(net)` (the interactive prompt, with Tab
completion and ~/.lighthouse_history) and `CLI(net, script=FILE)`.
The commands are `lighthouse run`'s (docs/cli.md); `py` and `px` run real
Python in the script's namespace, with `net` and every node by name."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .._pyline import caller_namespace, evaluate
from .log import info

if TYPE_CHECKING:
    from .net import Mininet
    from .node import Node


class CLI(object):
    prompt = 'mininet> '

    def __init__(self, mininet: Mininet, stdin: Any = sys.stdin, script: str | None = None,
                 **kwargs: Any) -> None:
        self.mn = mininet
        # py/px see the script's globals, then its locals where CLI() was
        # called, `net`, and every node by name (Mininet's getLocals).
        self._globals = caller_namespace()
        self.locals: dict[str, Any] = {'net': mininet}
        if script is None:
            info('*** Starting CLI:\n')
        mininet._started().cli(script, self._py)

    def getLocals(self) -> dict[str, Any]:
        self.locals.update(mininet_nodes(self.mn))
        return self.locals

    def _py(self, line: str, px: bool) -> str:
        return evaluate(line, px, self._globals, self.getLocals())


def mininet_nodes(net: Mininet) -> dict[str, Node]:
    return {name: net[name] for name in net}
