"""A Mininet custom topology: 4 switches in a ring, one host on each.

Mininet:    sudo mn --custom four-switches.py --topo ring4 --test pingall
Lighthouse: sudo lighthouse run --custom four-switches.py --topo ring4 --test pingall
"""

from mininet.topo import Topo


class RingTopo(Topo):
    "n switches in a ring, one host per switch."

    def build(self, n=4):
        switches = [self.addSwitch('s%d' % (i + 1)) for i in range(n)]
        for i, s in enumerate(switches):
            self.addLink(self.addHost('h%d' % (i + 1)), s)
        for i in range(n):
            self.addLink(switches[i], switches[(i + 1) % n])


class DumbbellTopo(Topo):
    "Two switches, k hosts on each (left and right)."

    def build(self, k=2):
        left, right = self.addSwitch('s1'), self.addSwitch('s2')
        self.addLink(left, right)
        for i in range(k):
            self.addLink(self.addHost('h%d' % (i + 1)), left)
            self.addLink(self.addHost('h%d' % (k + i + 1)), right)


topos = {'ring4': (lambda: RingTopo(4)), 'ring': RingTopo, 'dumbbell': DumbbellTopo}
