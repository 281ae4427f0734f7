"""Mininet's links beyond one per host (issue 47 items 2 and 3): a node
with several links and its own addresses on each (Mininet's linuxrouter
and multilink), `intf.config(...)` on a running link (intfoptions), and a
switch link's jitter. Each script runs as root in a subprocess, as in
test_mininet.py."""

import re
import statistics

from conftest import leftovers, needs_root
from conftest import run_mn_script as run

ROUTER = """\
from lighthouse.mininet.node import Node

class LinuxRouter(Node):
    def config(self, **params):
        super(LinuxRouter, self).config(**params)
        self.cmd('sysctl net.ipv4.ip_forward=1')

    def terminate(self):
        print('TERMINATE', self.cmd('sysctl -n net.ipv4.ip_forward').strip())
        super(LinuxRouter, self).terminate()

class Routed(Topo):
    def build(self):
        r0 = self.addNode('r0', cls=LinuxRouter, ip='192.168.1.1/24')
        s1, s2, s3 = [self.addSwitch(s) for s in ('s1', 's2', 's3')]
        self.addLink(s1, r0, intfName2='r0-eth1', params2={'ip': '192.168.1.1/24'})
        self.addLink(s2, r0, intfName2='r0-eth2', params2={'ip': '172.16.0.1/12'})
        self.addLink(s3, r0, intfName2='r0-eth3', params2={'ip': '10.0.0.1/8'})
        h1 = self.addHost('h1', ip='192.168.1.100/24', defaultRoute='via 192.168.1.1')
        h2 = self.addHost('h2', ip='172.16.0.100/12', defaultRoute='via 172.16.0.1')
        h3 = self.addHost('h3', ip='10.0.0.100/8', defaultRoute='via 10.0.0.1')
        for h, s in [(h1, s1), (h2, s2), (h3, s3)]:
            self.addLink(h, s)
"""


@needs_root
def test_a_router_node_routes_between_three_switches_on_its_own_addresses(tmp_path):
    """linuxrouter.py's network: r0 has a link to each switch with an
    address of its own there, the hosts route through it, and the ToRs
    deliver a frame to the port whose MAC it is sent to."""
    code, out, err, prefix = run(tmp_path, """
        net = Mininet(topo=Routed())
        net.start()
        r0, h1, h2 = net['r0'], net['h1'], net['h2']
        print('ROUTES', r0.cmd('ip -4 -o addr show'))
        print('H1ROUTE', h1.cmd('ip route show default'))
        print('LOSS', net.pingAll())
        print('TTL', h1.cmd('ping -c 1 %s' % h2.IP()))
        print('INTFS', r0.intfNames(), [i.name for i in net['s2'].intfList()])
        print('IP', r0.IP(), h2.IP())
        net.configLinkStatus('r0', 's2', 'down')
        print('DOWN', h1.cmd('ping -c 1 -W 1 %s' % h2.IP()))
        net.configLinkStatus('r0', 's2', 'up')
        print('UP', h1.cmd('ping -c 1 -W 2 %s' % h2.IP()))
        net.stop()
    """, pre=ROUTER)
    assert code == 0, err
    routes = out.split("ROUTES", 1)[1].split("H1ROUTE", 1)[0]
    for ifn, addr in [("r0-eth1", "192.168.1.1/24"), ("r0-eth2", "172.16.0.1/12"),
                      ("r0-eth3", "10.0.0.1/8")]:
        assert re.search(rf"{ifn}\s+inet {re.escape(addr)}", routes), routes
    assert "default via 192.168.1.1 dev h1-eth0" in out, out
    # Every pair among r0, h1, h2, h3, the hosts' through r0.
    assert "LOSS 0.0" in out, out + err
    ttl = out.split("TTL", 1)[1]
    assert re.search(r"ttl=63 ", ttl), "one router hop: " + ttl
    assert "INTFS ['r0-eth1', 'r0-eth2', 'r0-eth3'] ['lo', 's2-eth1', 's2-eth2']" in out, out
    assert "IP 192.168.1.1 172.16.0.100" in out, out
    assert "1 received" not in out.split("DOWN", 1)[1].split("UP", 1)[0], out
    assert "1 received" in out.split("UP", 1)[1], out
    # Its terminate() ran while the router was up, forwarding.
    assert "TERMINATE 1" in out, out
    assert "(conservation OK)" in err, err
    assert leftovers(prefix) == []


@needs_root
def test_a_host_with_two_links_to_one_switch_has_both_interfaces(tmp_path):
    """multilink.py: each host has two links to s1; the second interface
    is up without an address, and reached by its MAC (a ToR delivers a
    frame to the port whose MAC it is sent to)."""
    code, out, err, prefix = run(tmp_path, """
        class Multi(Topo):
            def build(self):
                h1, h2, s1 = self.addHost('h1'), self.addHost('h2'), self.addSwitch('s1')
                for _ in range(2):
                    self.addLink(s1, h1)
                    self.addLink(s1, h2)
        net = Mininet(topo=Multi())
        net.start()
        h1, h2 = net.hosts
        print('INTFS', h1.intfNames(), h2.intfNames(), [i.name for i in net['s1'].intfList()])
        print('ADDR', h1.cmd('ip -4 -o addr show'))
        print('LINK', h1.cmd('ip -o link show h1-eth1'))
        # Through the second interfaces: addresses added at run time are
        # not the ToRs' (no proxy ARP for them), so the neighbours are set.
        mac = lambda h, i: h.cmd('ip -o link show %s' % i).split('link/ether ')[1].split()[0]
        h2.cmd('ip addr add 192.168.9.2/24 dev h2-eth1')
        h1.cmd('ip addr add 192.168.9.1/24 dev h1-eth1')
        h1.cmd('ip neigh replace 192.168.9.2 lladdr %s dev h1-eth1' % mac(h2, 'h2-eth1'))
        h2.cmd('ip neigh replace 192.168.9.1 lladdr %s dev h2-eth1' % mac(h1, 'h1-eth1'))
        print('SECOND', h1.cmd('ping -c 2 -I h1-eth1 192.168.9.2'))
        print('LOSS', net.pingAll())
        net.stop()
    """)
    assert code == 0, err
    assert ("INTFS ['h1-eth0', 'h1-eth1'] ['h2-eth0', 'h2-eth1'] "
            "['lo', 's1-eth1', 's1-eth2', 's1-eth3', 's1-eth4']") in out, out
    addr = out.split("ADDR", 1)[1].split("LINK", 1)[0]
    assert "h1-eth0" in addr and "10.0.0.1/8" in addr and "h1-eth1" not in addr, addr
    assert "state UP" in out.split("LINK", 1)[1].split("SECOND", 1)[0], out
    assert "2 received" in out.split("SECOND", 1)[1], out
    assert "LOSS 0.0" in out, out
    assert leftovers(prefix) == []


@needs_root
def test_intf_config_changes_a_running_host_links_rate_delay_and_loss(tmp_path):
    """intfoptions.py: `link.intf1.config(...)` on h1-eth0 while the
    network runs: bw= is the host's token bucket, delay= and loss= the
    data plane's on what h1 sends; each call replaces the last."""
    code, out, err, prefix = run(tmp_path, """
        from lighthouse.mininet.link import TCLink
        net = Mininet(autoStaticArp=True)
        h1, h2, s1 = net.addHost('h1'), net.addHost('h2'), net.addSwitch('s1')
        link1 = net.addLink(h1, s1, cls=TCLink)
        net.addLink(h2, s1)
        net.start()
        print('BEFORE', h1.cmd('ping -c 3 -i 0.05 10.0.0.2'))
        link1.intf1.config(bw=10)
        print('BW', net.iperf(seconds=3))
        link1.intf1.config(delay='15ms')
        print('DELAY', h1.cmd('ping -c 3 -i 0.05 10.0.0.2'))
        print('FULL', net.pingPairFull())
        link1.intf1.config(loss=50)
        print('LOSSY', h1.cmd('ping -q -c 200 -i 0.005 10.0.0.2'))
        link1.intf2.config(delay='7ms')
        link1.intf1.config()
        print('BACK', h1.cmd('ping -c 3 -i 0.05 10.0.0.2'))
        try:
            link1.intf2.config(bw=5)
        except Exception as e:
            print('REFUSED', type(e).__name__, e)
        net.stop()
    """, timeout=180)
    assert code == 0, err

    def rtts(tag, nxt):
        part = out.split(tag, 1)[1].split(nxt, 1)[0]
        return [float(t) for t in re.findall(r"time=([0-9.]+) ms", part)]

    assert all(t < 5 for t in rtts("BEFORE", "BW")), out
    bw = re.search(r"BW \['([0-9.]+) Mbits/sec', '([0-9.]+) Mbits/sec'\]", out)
    assert bw, out
    # iperf's server and client rates at 10 Mbit/s, within Mininet's 25%.
    assert all(7.5 <= float(x) <= 12.5 for x in bw.groups()), out
    # 15 ms on h1's way out only.
    d = rtts("DELAY", "FULL")
    assert len(d) == 3 and all(15.0 <= t < 17.5 for t in d), out
    assert re.search(r"FULL \[\(<Host h1.*, \(1, 1, 1[5-7]\.[0-9]+", out), out
    lossy = out.split("LOSSY", 1)[1]
    got = int(re.search(r"(\d+) received", lossy).group(1))
    # 50% of the echo requests (sd 7 of 200); the delay is gone.
    assert 70 <= got <= 130, lossy
    # h1's end cleared; s1-eth1 (towards h1) has 7 ms.
    b = rtts("BACK", "REFUSED")
    assert len(b) == 3 and all(7.0 <= t < 9.5 for t in b), out
    assert "REFUSED ValueError" in out and "give bw= to the host's end (h1-eth0)" in out, out
    assert leftovers(prefix) == []


@needs_root
def test_a_switch_links_jitter_spreads_its_circuits_delay(tmp_path):
    """TCLink(delay='5ms', jitter='4ms') on linear,2: the host links and
    the switch link each delay 1-9 ms a way, frames in order."""
    code, out, err, prefix = run(tmp_path, """
        import functools
        from lighthouse.mininet.link import TCLink
        net = Mininet(topo=LinearTopo(2), link=functools.partial(TCLink, delay='5ms',
                                                                jitter='4ms'))
        net.start()
        h1, h2 = net.hosts
        print('PING', h1.cmd('ping -c 40 -i 0.05 %s' % h2.IP()))
        net.stop()
    """)
    assert code == 0, err
    assert "jitter" not in err.lower() or "Warning" not in err, err
    rtts = [float(t) for t in re.findall(r"time=([0-9.]+) ms", out)]
    assert len(rtts) >= 38, out
    # Six link directions of 5 +- 4 ms: mean 30 ms; spread well beyond a
    # fixed delay's.
    assert 24 <= statistics.mean(rtts) <= 36, rtts
    assert max(rtts) - min(rtts) >= 6, rtts
    assert all(6 <= t <= 56 for t in rtts), rtts
    assert leftovers(prefix) == []
