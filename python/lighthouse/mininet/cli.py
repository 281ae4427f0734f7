"""Mininet's `mininet.cli`: `CLI(net)` (the interactive prompt, with Tab
completion and ~/.lighthouse_history) and `CLI(net, script=FILE)`.
The commands are `lighthouse run`'s (docs/cli.md); `py` and `px` run real
Python in the script's namespace, with `net` and every node by name."""

import sys

from .log import info


class CLI(object):
    prompt = 'lighthouse> '

    def __init__(self, mininet, stdin=sys.stdin, script=None, **kwargs):
        self.mn = mininet
        caller = sys._getframe(1)
        # py/px see the script's globals, then its locals where CLI() was
        # called, `net`, and every node by name (Mininet's getLocals).
        self._globals = dict(caller.f_globals)
        self._globals.update(caller.f_locals)
        self.locals = {'net': mininet}
        if script is None:
            info('*** Starting CLI:\n')
        mininet._started().cli(script, self._py)

    def getLocals(self):
        self.locals.update(mininet_nodes(self.mn))
        return self.locals

    def _py(self, line, px):
        loc = self.getLocals()
        try:
            if px:
                exec(line, self._globals, loc)
                result = None
            else:
                result = eval(line, self._globals, loc)
        except Exception as e:  # Mininet prints the error and goes on
            text = str(e) + '\n'
        else:
            if result is None:
                text = ''
            elif isinstance(result, str):
                text = result + '\n'
            else:
                text = repr(result) + '\n'
        sys.stdout.flush()
        return text


def mininet_nodes(net):
    return {name: net[name] for name in net}
