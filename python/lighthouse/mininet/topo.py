"""Mininet's `mininet.topo`: `Topo`, `SingleSwitchTopo`, `LinearTopo`
(and `TreeTopo`, `TorusTopo`, which `lighthouse.mininet.topolib` exports
under Mininet's module name).

A topology is names and links only; `lighthouse.mininet.net.Mininet` turns
it into a Lighthouse fabric. This file is also the topology shim of
`lighthouse run --custom` (emu/mininet/lh_topo_export.py runs it with a bare
/usr/bin/python3), so it imports nothing but the standard library.
"""

from __future__ import annotations

import re
from typing import Any


def natural(text: object) -> list[int | str]:
    """Mininet's natural sort key: s2 before s10."""
    return [int(s) if s.isdigit() else s for s in re.split(r'(\d+)', str(text))]


def irange(start: int, end: int) -> range:
    """Mininet's inclusive range."""
    return range(start, end + 1)


class Topo(object):
    """The part of Mininet's Topo that topology files and scripts use."""

    def __init__(self, *args: Any, **params: Any) -> None:
        self.g: dict[str, tuple[bool, dict[str, Any]]] = {}  # name -> (is_switch, opts)
        self._order: list[str] = []
        self._links: list[tuple[str, str, dict[str, Any]]] = []  # (a, b, opts)
        self.hopts = params.pop('hopts', {})
        self.sopts = params.pop('sopts', {})
        self.lopts = params.pop('lopts', {})
        self.build(*args, **params)

    def build(self, *args: Any, **params: Any) -> None:
        pass

    def addNode(self, name: str, **opts: Any) -> str:
        if name not in self.g:
            self._order.append(name)
        self.g[name] = (bool(opts.get('isSwitch')), opts)
        return name

    def addHost(self, name: str, **opts: Any) -> str:
        if not opts and self.hopts:
            opts = self.hopts
        return self.addNode(name, **opts)

    def addSwitch(self, name: str, **opts: Any) -> str:
        if not opts and self.sopts:
            opts = self.sopts
        opts = dict(opts, isSwitch=True)
        return self.addNode(name, **opts)

    def addLink(self, node1: str, node2: str, port1: int | None = None,
                port2: int | None = None, key: Any = None, **opts: Any) -> Any:
        if not opts and self.lopts:
            opts = self.lopts
        for n in (node1, node2):
            if n not in self.g:
                raise KeyError('addLink: unknown node %r (add it first)' % n)
        opts = dict(opts)
        if port1 is not None:
            opts['port1'] = port1
        if port2 is not None:
            opts['port2'] = port2
        self._links.append((node1, node2, opts))
        return key if key is not None else len(self._links) - 1

    def isSwitch(self, n: str) -> bool:
        return self.g[n][0]

    def nodes(self, sort: bool = True) -> list[str]:
        return sorted(self._order, key=natural) if sort else list(self._order)

    def switches(self, sort: bool = True) -> list[str]:
        return [n for n in self.nodes(sort) if self.isSwitch(n)]

    def hosts(self, sort: bool = True) -> list[str]:
        return [n for n in self.nodes(sort) if not self.isSwitch(n)]

    def links(self, sort: bool = False, withKeys: bool = False,
              withInfo: bool = False) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for i, (a, b, o) in enumerate(self._links):
            if withInfo:
                out.append((a, b, i, o) if withKeys else (a, b, o))
            else:
                out.append((a, b, i) if withKeys else (a, b))
        return out

    def nodeInfo(self, name: str) -> dict[str, Any]:
        return self.g[name][1]

    def setNodeInfo(self, name: str, info: dict[str, Any]) -> None:
        self.g[name] = (bool(info.get('isSwitch')), info)

    def linkInfo(self, src: str, dst: str, key: Any = None) -> dict[str, Any]:
        for a, b, o in self._links:
            if {a, b} == {src, dst}:
                return o
        raise KeyError((src, dst))

    def port(self, src: str, dst: str) -> tuple[int, int]:
        raise NotImplementedError(
            'Topo.port() is not supported: after Mininet(topo).start(), '
            'net[%r].intfList() lists the interfaces in port order' % src)


class SingleSwitchTopo(Topo):
    "Single switch connected to k hosts."

    def build(self, k: int = 2, **_opts: Any) -> None:
        s = self.addSwitch('s1')
        for h in irange(1, k):
            self.addLink(self.addHost('h%s' % h), s)


class SingleSwitchReversedTopo(Topo):
    "Single switch connected to k hosts, with reversed ports."

    def build(self, k: int = 2, **_opts: Any) -> None:
        s = self.addSwitch('s1')
        for h in irange(1, k):
            self.addLink(self.addHost('h%s' % h), s, port1=0, port2=(k - h + 1))


class MinimalTopo(SingleSwitchTopo):
    "Minimal topology with two hosts and one switch."

    def build(self, **_opts: Any) -> None:  # type: ignore[override]  # k is always 2
        return SingleSwitchTopo.build(self, k=2)


class LinearTopo(Topo):
    "Linear topology of k switches, with n hosts per switch."

    def build(self, k: int = 2, n: int = 1, **_opts: Any) -> None:
        last = None
        for i in irange(1, k):
            s = self.addSwitch('s%s' % i)
            for j in irange(1, n):
                h = self.addHost('h%s' % i if n == 1 else 'h%ss%d' % (j, i))
                self.addLink(h, s)
            if last:
                self.addLink(s, last)
            last = s


class TreeTopo(Topo):
    "Topology for a tree network with a given depth and fanout."

    def build(self, depth: int = 1, fanout: int = 2) -> None:
        self.hostNum, self.switchNum = 1, 1
        self.addTree(depth, fanout)

    def addTree(self, depth: int, fanout: int) -> str:
        if depth > 0:
            node = self.addSwitch('s%s' % self.switchNum)
            self.switchNum += 1
            for _ in range(fanout):
                self.addLink(node, self.addTree(depth - 1, fanout))
        else:
            node = self.addHost('h%s' % self.hostNum)
            self.hostNum += 1
        return node


class TorusTopo(Topo):
    "2-D torus topology (x, y >= 3), n hosts per switch."

    def build(self, x: int, y: int, n: int = 1) -> None:
        if x < 3 or y < 3:
            raise Exception('Please use 3x3 or greater for compatibility with 2.1')
        switches: dict[tuple[int, int], str] = {}
        for i in range(x):
            for j in range(y):
                loc = '%dx%d' % (i + 1, j + 1)
                switches[i, j] = s = self.addSwitch('s' + loc)
                for k in range(n):
                    h = 'h%s' % loc if n == 1 else 'h%sx%d' % (loc, k + 1)
                    self.addLink(self.addHost(h), s)
        for i in range(x):
            for j in range(y):
                self.addLink(switches[i, j], switches[i, (j + 1) % y])
                self.addLink(switches[i, j], switches[(i + 1) % x, j])


# `mn --topo NAME`'s built-in topologies, as Mininet's TOPOS.
TOPOS = {
    'minimal': MinimalTopo,
    'single': SingleSwitchTopo,
    'reversed': SingleSwitchReversedTopo,
    'linear': LinearTopo,
    'tree': TreeTopo,
    'torus': TorusTopo,
}
