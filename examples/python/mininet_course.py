#!/usr/bin/env python3
# mypy: allow-untyped-defs, allow-untyped-calls
# (the course's code stays as written, unannotated; mypy --strict still
# checks its calls into lighthouse.mininet)
"""A Mininet course script (the walkthrough's simpleTest and friends) with
only its imports changed: `mininet.` became `lighthouse.mininet.`.

    sudo .venv/bin/python examples/python/mininet_course.py            # CLI at the end on a terminal
    sudo .venv/bin/python examples/python/mininet_course.py cmds.lh    # CLI(net, script=cmds.lh)

(`sudo .venv/bin/python -m lighthouse.mininet SCRIPT.py` runs a script
whose imports are still `from mininet.net import Mininet`.)
"""

import sys

from lighthouse.mininet.net import Mininet
from lighthouse.mininet.topo import Topo
from lighthouse.mininet.cli import CLI
from lighthouse.mininet.log import setLogLevel, info
from lighthouse.mininet.util import dumpNodeConnections


class SingleSwitchTopo(Topo):
    "Single switch connected to n hosts."

    def build(self, n=2):
        switch = self.addSwitch('s1')
        for h in range(n):
            host = self.addHost('h%s' % (h + 1))
            self.addLink(host, switch)


def simpleTest(script=None):
    "Create and test a simple network"
    topo = SingleSwitchTopo(n=4)
    net = Mininet(topo)
    net.start()
    print("Dumping host connections")
    dumpNodeConnections(net.hosts)
    print("Testing network connectivity")
    loss = net.pingAll()
    h1, h4 = net.get('h1', 'h4')
    print("h1 is %s (%s); h4 is %s" % (h1.IP(), h1.MAC(), h4.IP()))
    print(h1.cmd('ping -c1 %s' % h4.IP()).strip().splitlines()[-1])
    info("*** Testing bandwidth between h1 and h4\n")
    print("iperf:", net.iperf((h1, h4), seconds=2))
    if script:
        CLI(net, script=script)
    elif sys.stdin.isatty():
        CLI(net)
    net.stop()
    return loss


if __name__ == '__main__':
    # Tell mininet to print useful information
    setLogLevel('info')
    sys.exit(0 if simpleTest(*sys.argv[1:2]) == 0 else 1)
