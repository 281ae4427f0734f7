"""A router node with a link to each of two switches and an address of its
own on each, as Mininet's linuxrouter.py (docs/mininet.md, "Hosts with
several links"):

    sudo lighthouse run --custom topologies/mininet/router.py --topo router
    mininet> r0 sysctl -w net.ipv4.ip_forward=1
    mininet> h1 ping -c1 h2        # ttl=63: one router hop
"""

from mininet.topo import Topo


class Router(Topo):
    "h1 - s1 - r0 - s2 - h2, in two subnets"

    def build(self):
        r0 = self.addNode('r0', ip='192.168.1.1/24')
        s1, s2 = self.addSwitch('s1'), self.addSwitch('s2')
        self.addLink(s1, r0, intfName2='r0-eth1', params2={'ip': '192.168.1.1/24'})
        self.addLink(s2, r0, intfName2='r0-eth2', params2={'ip': '172.16.0.1/12'})
        h1 = self.addHost('h1', ip='192.168.1.100/24', defaultRoute='via 192.168.1.1')
        h2 = self.addHost('h2', ip='172.16.0.100/12', defaultRoute='via 172.16.0.1')
        self.addLink(h1, s1)
        self.addLink(h2, s2)


topos = {'router': Router}
