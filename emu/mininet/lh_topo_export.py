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
import re
import sys
import types


class Topo(object):
    """The part of mininet.topo.Topo that topology files use."""

    def __init__(self, *args, **params):
        self.g = {}          # name -> (is_switch, opts)
        self._order = []
        self._links = []     # (a, b, opts)
        self.hopts = params.pop('hopts', {})
        self.sopts = params.pop('sopts', {})
        self.lopts = params.pop('lopts', {})
        self.build(*args, **params)

    def build(self, *args, **params):
        pass

    def addNode(self, name, **opts):
        if name not in self.g:
            self._order.append(name)
        self.g[name] = (bool(opts.get('isSwitch')), opts)
        return name

    def addHost(self, name, **opts):
        if not opts and self.hopts:
            opts = self.hopts
        return self.addNode(name, **opts)

    def addSwitch(self, name, **opts):
        if not opts and self.sopts:
            opts = self.sopts
        opts = dict(opts, isSwitch=True)
        return self.addNode(name, **opts)

    def addLink(self, node1, node2, port1=None, port2=None, key=None, **opts):
        if not opts and self.lopts:
            opts = self.lopts
        for n in (node1, node2):
            if n not in self.g:
                raise KeyError('addLink: unknown node %r (add it first)' % n)
        self._links.append((node1, node2, dict(opts)))
        return key

    def isSwitch(self, n):
        return self.g[n][0]

    def nodes(self, sort=True):
        return sorted(self._order, key=natural) if sort else list(self._order)

    def switches(self, sort=True):
        return [n for n in self.nodes(sort) if self.isSwitch(n)]

    def hosts(self, sort=True):
        return [n for n in self.nodes(sort) if not self.isSwitch(n)]

    def links(self, sort=False, withKeys=False, withInfo=False):
        out = []
        for i, (a, b, o) in enumerate(self._links):
            if withInfo:
                out.append((a, b, i, o) if withKeys else (a, b, o))
            else:
                out.append((a, b, i) if withKeys else (a, b))
        return out

    def nodeInfo(self, name):
        return self.g[name][1]

    def setNodeInfo(self, name, info):
        self.g[name] = (bool(info.get('isSwitch')), info)

    def linkInfo(self, src, dst, key=None):
        for a, b, o in self._links:
            if {a, b} == {src, dst}:
                return o
        raise KeyError((src, dst))

    def port(self, src, dst):
        raise NotImplementedError('Topo.port() is not supported by the Lighthouse export')


class SingleSwitchTopo(Topo):
    def build(self, k=2, **_opts):
        s = self.addSwitch('s1')
        for h in range(1, k + 1):
            self.addLink(self.addHost('h%s' % h), s)


class LinearTopo(Topo):
    def build(self, k=2, n=1, **_opts):
        last = None
        for i in range(1, k + 1):
            s = self.addSwitch('s%s' % i)
            for j in range(1, n + 1):
                h = self.addHost('h%s' % i if n == 1 else 'h%ss%d' % (j, i))
                self.addLink(h, s)
            if last:
                self.addLink(s, last)
            last = s


class TreeTopo(Topo):
    def build(self, depth=1, fanout=2):
        self.hostNum, self.switchNum = 1, 1
        self._tree(depth, fanout)

    def _tree(self, depth, fanout):
        if depth > 0:
            node = self.addSwitch('s%s' % self.switchNum)
            self.switchNum += 1
            for _ in range(fanout):
                self.addLink(node, self._tree(depth - 1, fanout))
        else:
            node = self.addHost('h%s' % self.hostNum)
            self.hostNum += 1
        return node


def natural(text):
    """Mininet's natural sort key: s2 before s10."""
    return [int(s) if s.isdigit() else s for s in re.split(r'(\d+)', text)]


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
    sys.modules['mininet.util'].natural = natural
    sys.modules['mininet.util'].irange = lambda a, b: range(a, b + 1)
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
        raise LookupError('%s defines no dict `topos` (Mininet custom files map names to Topo classes)' % path)
    # Like `mn --custom`, the built-in topologies stay available.
    builtins = {'minimal': lambda: SingleSwitchTopo(2), 'single': SingleSwitchTopo,
                'linear': LinearTopo, 'tree': TreeTopo}
    topos = dict(builtins, **topos)
    if name not in topos:
        raise LookupError('%s: no topology %r; it defines %s' % (path, name, ', '.join(sorted(topos)) or 'none'))
    topo = topos[name](*args)
    if not isinstance(topo, Topo):
        raise TypeError('topos[%r] returned %r, not a mininet.topo.Topo' % (name, type(topo).__name__))
    json.dump({
        'switches': topo.switches(),
        'hosts': topo.hosts(),
        'links': [[a, b, {k: v for k, v in o.items() if isinstance(v, (int, float, str, bool))}]
                  for a, b, o in topo.links(withInfo=True)],
    }, sys.stdout)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
