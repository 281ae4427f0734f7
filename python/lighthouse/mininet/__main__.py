"""`python -m lighthouse.mininet SCRIPT.py [ARGS]` or `python -m
lighthouse.mininet -m MODULE [ARGS]`: run a Mininet script with its imports
unchanged (`from mininet.net import Mininet` is lighthouse.mininet.net
while it runs). `mininet.examples` is Mininet's own examples package where
Mininet is installed (Debian's `mininet`), so `-m mininet.examples.NAME`
runs one of them on Lighthouse."""

from __future__ import annotations

import importlib
import os
import runpy
import sys
import types

MODULES = ['net', 'topo', 'topolib', 'node', 'link', 'cli', 'log', 'util', 'clean']

# Where Mininet's examples may be: the interpreter's own path, then the
# system's (Debian installs them with Mininet).
SYSTEM_SITES = ['/usr/lib/python3/dist-packages', '/usr/local/lib/python3/dist-packages']


def examples_path() -> str | None:
    for d in sys.path + SYSTEM_SITES:
        p = os.path.join(d or '.', 'mininet', 'examples')
        if os.path.isfile(os.path.join(p, '__init__.py')):
            return p
    return None


def install() -> None:
    """Make `import mininet.X` resolve to lighthouse.mininet.X."""
    sys.modules['mininet'] = importlib.import_module('lighthouse.mininet')
    for m in MODULES:
        sys.modules['mininet.' + m] = importlib.import_module('lighthouse.mininet.' + m)
    ex = examples_path()
    if ex is not None:
        pkg = types.ModuleType('mininet.examples')
        pkg.__path__ = [ex]
        pkg.__package__ = 'mininet.examples'
        sys.modules['mininet.examples'] = pkg


def main(argv: list[str]) -> int:
    usage = 'usage: python -m lighthouse.mininet SCRIPT.py [ARGS] | -m MODULE [ARGS]\n'
    if len(argv) < 2 or (argv[1] == '-m' and len(argv) < 3):
        sys.stderr.write(usage)
        return 2
    install()
    if argv[1] == '-m':
        name = argv[2]
        if name.startswith('mininet.examples') and 'mininet.examples' not in sys.modules:
            sys.stderr.write('%s: Mininet\'s examples are not installed here '
                             '(Debian: apt-get install mininet)\n' % name)
            return 2
        sys.argv = [name] + argv[3:]
        runpy.run_module(name, run_name='__main__', alter_sys=True)
        return 0
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name='__main__')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
