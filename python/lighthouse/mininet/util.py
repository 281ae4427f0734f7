"""Mininet's `mininet.util`: `dumpNodeConnections`, `dumpNodes`,
`irange`, `natural`, `quietRun`."""

import subprocess

from .log import output
from .topo import irange, natural  # noqa: F401


def dumpNodeConnections(nodes):
    """Each node and its interfaces with their far ends, as Mininet's
    (`h1 h1-eth0:s1-eth1`)."""
    for node in nodes:
        line = node.name
        for intf in node.intfList():
            line += ' %s:' % intf
            link = intf.link
            line += str(link.intf2) if link else ' '
        output(line + '\n')


def dumpNodes(nodes):
    for node in nodes:
        output('%s\n' % repr(node))


def dumpNetConnections(net):
    dumpNodeConnections(net.values())


def quietRun(cmd, **kwargs):
    """Run a command in the root namespace; its output (stdout+stderr)."""
    if isinstance(cmd, str):
        cmd = cmd.split()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.stdout
