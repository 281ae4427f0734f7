"""Mininet's `mininet.cli`: `CLI(net)` (the interactive prompt, with Tab
completion and ~/.lighthouse_history) and `CLI(net, script=FILE)`.
The commands are `lighthouse run`'s (docs/cli.md); `py` and `px` run real
Python in the script's namespace, with `net` and every node by name."""

import sys

from .._pyline import caller_namespace, evaluate
from .log import info


class CLI(object):
    prompt = 'mininet> '

    def __init__(self, mininet, stdin=sys.stdin, script=None, **kwargs):
        self.mn = mininet
        # py/px see the script's globals, then its locals where CLI() was
        # called, `net`, and every node by name (Mininet's getLocals).
        self._globals = caller_namespace()
        self.locals = {'net': mininet}
        if script is None:
            info('*** Starting CLI:\n')
        mininet._started().cli(script, self._py)

    def getLocals(self):
        self.locals.update(mininet_nodes(self.mn))
        return self.locals

    def _py(self, line, px):
        return evaluate(line, px, self._globals, self.getLocals())


def mininet_nodes(net):
    return {name: net[name] for name in net}
