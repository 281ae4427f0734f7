"""Mininet's Python API on Lighthouse (docs/mininet.md#python-api).

A Mininet script runs with only its imports changed::

    from lighthouse.mininet.net import Mininet
    from lighthouse.mininet.topo import SingleSwitchTopo
    from lighthouse.mininet.cli import CLI
    from lighthouse.mininet.log import setLogLevel

Switches become Lighthouse ToRs and switch-switch links static optical
circuits (the same translation as `lighthouse run --custom`); hosts are
network namespaces with the kernel's TCP. Node and interface names are the
script's own. What Lighthouse does not support raises `Unsupported` (a
NotImplementedError) naming the nearest equivalent.

`python -m lighthouse.mininet SCRIPT.py` runs a script with its imports
unchanged (`from mininet.net import Mininet` resolves here).
"""


class Unsupported(NotImplementedError):
    """A Mininet feature Lighthouse does not have; the message names the
    nearest equivalent."""


def unsupported(what: str, instead: str) -> Unsupported:
    return Unsupported('%s is not supported by Lighthouse: %s' % (what, instead))
