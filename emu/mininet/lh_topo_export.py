#!/usr/bin/python3
"""Export a Mininet topology as JSON for `lighthouse run --custom FILE --topo NAME[,args]`.

Usage: lh_topo_export.py FILE NAME [ARG ...]

Loads FILE the way `mn --custom FILE` does (it must define a dict `topos`
mapping NAME to a Topo subclass or a function returning a Topo), builds
topos[NAME](*args) and prints {"switches": [...], "hosts": [...], "links":
[[a, b, {opts}], ...]} on stdout. The real `mininet` package is never
imported: a small shim of `mininet.topo.Topo` (plus inert stand-ins for the
other mininet modules a topology file may import) is installed in
sys.modules first, so this runs with a bare /usr/bin/python3 and touches no
network state. Errors: the traceback goes to stderr, exit status 1.
"""

import json
import os
import sys
import types


# The Topo classes: python/lighthouse/mininet/topo.py, written beside this
# file as lh_mn_topo.py (one source for `--custom` and the Python API).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lh_mn_topo import (  # noqa: E402
    TOPOS, LinearTopo, SingleSwitchTopo, Topo, TorusTopo, TreeTopo, irange, natural)
del sys.path[0]


class _Inert(object):
    """Stand-in for any other mininet object: accepts anything, does nothing."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Inert()

    def __getattr__(self, name):
        return _Inert()


def _module_getattr(attr):
    # Any mininet class a topology file imports is inert here; dunders
    # (__file__, __path__, ...) stay absent so the shim is recognisable.
    if attr.startswith('__'):
        raise AttributeError(attr)
    return _Inert


def _install_shim():
    names = ['mininet', 'mininet.topo', 'mininet.topolib', 'mininet.net', 'mininet.node',
             'mininet.link', 'mininet.cli', 'mininet.log', 'mininet.util', 'mininet.clean']
    for n in names:
        m = types.ModuleType(n)
        m.__getattr__ = _module_getattr
        sys.modules[n] = m
    sys.modules['mininet.topo'].Topo = Topo
    for cls in (SingleSwitchTopo, LinearTopo):
        setattr(sys.modules['mininet.topo'], cls.__name__, cls)
    sys.modules['mininet.topolib'].TreeTopo = TreeTopo
    sys.modules['mininet.topolib'].TorusTopo = TorusTopo
    sys.modules['mininet.util'].natural = natural
    sys.modules['mininet.util'].irange = irange
    sys.modules['mininet.log'].setLogLevel = lambda *a, **k: None
    for n in names[1:]:
        setattr(sys.modules['mininet'], n.split('.')[1], sys.modules[n])


def _arg(s):
    """Mininet's splitArgs conversion: int, then float, else string."""
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def main(argv):
    if len(argv) < 3:
        sys.stderr.write('usage: lh_topo_export.py FILE NAME [ARG ...]\n')
        return 2
    path, name, args = argv[1], argv[2], [_arg(a) for a in argv[3:]]
    _install_shim()
    sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(path)))
    scope = {'__name__': 'lighthouse_custom', '__file__': path}
    with open(path) as f:
        code = compile(f.read(), path, 'exec')
    exec(code, scope)
    topos = scope.get('topos')
    if not isinstance(topos, dict):
        raise LookupError('%s defines no dict `topos` (Mininet custom files map names to Topo classes); '
                          'to run a whole Mininet script: sudo .venv/bin/python -m lighthouse.mininet %s'
                          % (path, path))
    # Like `mn --custom`, the built-in topologies stay available.
    topos = dict(TOPOS, **topos)
    if name not in topos:
        raise LookupError('%s: no topology %r; it defines %s' % (path, name, ', '.join(sorted(topos)) or 'none'))
    topo = topos[name](*args)
    if not isinstance(topo, Topo):
        raise TypeError('topos[%r] returned %r, not a mininet.topo.Topo' % (name, type(topo).__name__))
    def scalars(o):
        return {k: v for k, v in o.items() if isinstance(v, (int, float, str, bool))}

    def link_opts(o):
        # An interface's params (params1/params2) keep their scalars too.
        out = scalars(o)
        for k in ('params1', 'params2'):
            if isinstance(o.get(k), dict):
                out[k] = scalars(o[k])
        return out
    json.dump({
        'switches': topo.switches(),
        'hosts': topo.hosts(),
        'links': [[a, b, link_opts(o)] for a, b, o in topo.links(withInfo=True)],
        'host_opts': {h: {k: topo.nodeInfo(h)[k] for k in ('ip', 'defaultRoute')
                          if isinstance(topo.nodeInfo(h).get(k), str)}
                      for h in topo.hosts()},
    }, sys.stdout)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
