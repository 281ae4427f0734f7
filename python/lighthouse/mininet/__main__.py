"""`python -m lighthouse.mininet SCRIPT.py [ARGS]`: run a Mininet script
with its imports unchanged (`from mininet.net import Mininet` is
lighthouse.mininet.net while it runs)."""

import importlib
import runpy
import sys

MODULES = ['net', 'topo', 'topolib', 'node', 'link', 'cli', 'log', 'util']


def install():
    """Make `import mininet.X` resolve to lighthouse.mininet.X."""
    sys.modules['mininet'] = importlib.import_module('lighthouse.mininet')
    for m in MODULES:
        sys.modules['mininet.' + m] = importlib.import_module('lighthouse.mininet.' + m)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: python -m lighthouse.mininet SCRIPT.py [ARGS]\n')
        return 2
    install()
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name='__main__')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
