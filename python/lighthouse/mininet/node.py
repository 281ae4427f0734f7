"""Mininet's `mininet.node`: the nodes of a running network (hosts and
switches, which are Lighthouse ToRs) and the class names scripts pass to
`Mininet(...)` (accepted: every switch is a ToR, every host a namespace)."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, cast

from . import unsupported

if TYPE_CHECKING:
    from .._native import MnNet
    from .net import Mininet


class Intf(object):
    """An interface of a node, and its link's far end (`intf.link`)."""

    def __init__(self, node: Node | None, name: str, peer: str | None = None,
                 net: Mininet | None = None) -> None:
        self.node, self.name, self._peer = node, name, peer
        self._net: Mininet | None = net if net is not None else getattr(node, '_net', None)

    @property
    def link(self) -> Link | None:
        if not self._peer:
            return None
        return Link(self, Intf(None, self._peer.split(',')[0], net=self._net))

    def IP(self) -> str | None:
        return self.node.IP() if self.node and self.name != 'lo' else (
            '127.0.0.1' if self.name == 'lo' else None)

    def MAC(self) -> str | None:
        return self.node.MAC() if self.node and self.name != 'lo' else None

    # Mininet's TCIntf.config options; the tc implementation choices are
    # accepted (they choose how tc shapes, not what).
    _TC = ('bw', 'delay', 'jitter', 'loss', 'max_queue_size')
    _TC_IMPL = ('use_hfsc', 'use_tbf', 'use_htb', 'latency_ms', 'enable_ecn', 'enable_red',
                'speedup', 'r2q')

    def config(self, **params: Any) -> dict[str, Any]:
        """Mininet's TCIntf.config on a running host link's end: bw=
        (Mbit/s, a host's end only), delay=, jitter=, loss=,
        max_queue_size=, for what this interface sends; each call replaces
        them all, as in Mininet."""
        for k in params:
            if k not in self._TC and k not in self._TC_IMPL:
                raise unsupported('%s.config(%s=...)' % (self.name, k),
                                  'a running interface takes bw=, delay=, jitter=, loss= and '
                                  "max_queue_size=; run %s.cmd('ip ...') for the rest"
                                  % (self.node.name if self.node else 'h1'))
        import json
        bw = params.get('bw')
        if bw is not None and not isinstance(bw, (int, float)):
            raise ValueError('%s.config(bw=%r): expected Mbit/s' % (self.name, bw))
        netem = {k: params[k] for k in self._TC[1:] if params.get(k) is not None}
        if self._net is None:
            raise unsupported('%s.config() outside a network' % self.name,
                              'use the interfaces of net[...] once net.start() ran')
        self._net._started().intf_config(self.name, None if bw is None else float(bw),
                                         json.dumps(netem) if netem else None)
        return {}

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return '<Intf %s>' % self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Intf) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class Link(object):
    """Both ends of a link, as Mininet's `Link.intf1`, `intf2`. What
    `net.addLink(a, b)` returns names its ends before the network runs;
    its `intf1`/`intf2` are the interfaces once it does. Mininet's
    low-level `Link(node1, node2)` (a link made outside a network) is
    refused: links are made with `net.addLink` before `net.start()`."""

    # (net, a, b, which a-b link) before the network runs; the interfaces
    # once resolved (a link made by addLink or Intf.link has both).
    _ends: tuple[Mininet, str, str, int] | None
    _intfs: tuple[Any, Any] | None

    def __init__(self, intf1: Intf | None, intf2: Intf | None = None, *args: Any,
                 **kwargs: Any) -> None:
        if not (isinstance(intf1, Intf) or intf1 is None) or args or kwargs:
            raise unsupported('Link(%s, %s)' % (intf1, intf2),
                              'make links with net.addLink(a, b) (or Topo.addLink) before '
                              'net.start()')
        self._ends, self._intfs = None, (intf1, intf2)

    @classmethod
    def _of_net(cls, net: Mininet, a: str, b: str) -> Link:
        link = cls.__new__(cls)
        # Which a-b link this is, if there are several between them.
        nth = sum(1 for l in net._links if {l[0], l[1]} == {a, b}) - 1
        link._ends, link._intfs = (net, a, b, nth), None
        return link

    def _resolve(self) -> tuple[Intf, Intf]:
        if self._intfs is None:
            net, a, b, nth = cast('tuple[Mininet, str, str, int]', self._ends)
            pairs = net[a].connectionsTo(net[b])
            if len(pairs) <= nth:
                raise unsupported('link %s-%s before net.start()' % (a, b),
                                  'use its interfaces once the network runs')
            self._intfs = pairs[nth]
        return self._intfs

    @property
    def intf1(self) -> Intf:
        return self._resolve()[0]

    @property
    def intf2(self) -> Intf:
        return self._resolve()[1]

    def __str__(self) -> str:
        if self._intfs is None and self._ends is not None:
            return '%s<->%s' % self._ends[1:3]
        return '%s<->%s' % self._resolve()


class Node(object):
    """A node of a running Mininet: its commands run in its namespace's
    persistent shell (hosts: their own; switches: the fabric's)."""

    isSwitch = False

    def __init__(self, net: Mininet, name: str) -> None:
        self._net, self.name = net, name

    @property
    def _native(self) -> MnNet:
        return self._net._started()

    def cmd(self, *args: object, **kwargs: Any) -> str:
        """Run a shell command in the node's shell; what it printed."""
        line = ' '.join(str(a) for a in args)
        return self._native.cmd(self.name, line)

    def cmdPrint(self, *args: object) -> str:
        """cmd(), announced and echoed as Mininet's (`*** h1 : ('ping',
        ...)`, then the output)."""
        from .log import info, output
        info('*** %s : %s\n' % (self.name, args))
        out = self.cmd(*args)
        output(out)
        return out

    def IP(self, intf: Any = None) -> str | None:
        return self._native.ip(self.name)

    def MAC(self, intf: Any = None) -> str | None:
        return self._native.mac(self.name)

    def intfList(self) -> list[Intf]:
        return [Intf(self, n, p) for n, p in self._native.intfs(self.name)]

    def intfNames(self) -> list[str]:
        return [i.name for i in self.intfList()]

    def defaultIntf(self) -> Intf | None:
        real = [i for i in self.intfList() if i.name != 'lo']
        return real[0] if real else None

    @property
    def intfs(self) -> dict[int, Intf]:
        return dict(enumerate(self.intfList()))

    def connectionsTo(self, node: Node | str) -> list[tuple[Intf, Intf]]:
        name = cast(str, getattr(node, 'name', node))
        return [(i, i.link.intf2) for i in self.intfList()
                if i.link and i.link.intf2.name.startswith(name + '-')]

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[Any]:
        """A subprocess in the node's namespace (`ip netns exec`), as
        Mininet's popen: args as a list or words. A CPULimitedHost's joins
        its cgroup, a host with privateDirs' its mount namespace."""
        cmd = list(args[0]) if len(args) == 1 and not isinstance(args[0], str) else \
            ' '.join(str(a) for a in args).split()
        kwargs.setdefault('stdout', subprocess.PIPE)
        kwargs.setdefault('stderr', subprocess.PIPE)
        procs = None if self.isSwitch else self._native.cgroup_procs(self.name)
        if procs:
            theirs = kwargs.get('preexec_fn')

            def join() -> None:
                with open(procs, 'w') as f:
                    f.write('0')
                if theirs:
                    theirs()
            kwargs['preexec_fn'] = join
        return subprocess.Popen(self._native.exec_prefix(self.name) + cmd, **kwargs)

    def pexec(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, int]:
        """(stdout, stderr, exit status) of a command in the namespace."""
        p = self.popen(*args, universal_newlines=True, **kwargs)
        out, err = p.communicate()
        return out, err, p.returncode

    # Mininet's map from a node's shell output fd to the node, for poll().
    outToNode: ClassVar[dict[int, Node]] = {}

    @property
    def stdout(self) -> _ShellOutput:
        """The node's shell output, as a file with fileno() (for poll();
        read it with monitor())."""
        fd = self._native.stdout_fd(self.name)
        Node.outToNode[fd] = self
        return _ShellOutput(fd)

    def sendCmd(self, *args: object, **kwargs: Any) -> None:
        """Send a command to the node's shell and return at once; read its
        output with monitor() or waitOutput()."""
        line = ' '.join(str(a) for a in args)
        self._native.send_cmd(self.name, line)

    @property
    def waiting(self) -> bool:
        """True while a command sent with sendCmd() has not ended."""
        return self._native.waiting(self.name)

    def sendInt(self, intr: Any = None) -> None:
        """Interrupt the command sent with sendCmd() (as Ctrl-C would); its
        end still comes through monitor() or waitOutput()."""
        self._native.send_int(self.name)

    def monitor(self, timeoutms: float | None = None, findPid: bool = True) -> str:
        """What the node's shell printed since the last read (waiting up
        to timeoutms for output; None: until some comes)."""
        out, _status = self._native.read_output(self.name, timeoutms)
        return out

    def waitOutput(self, verbose: bool = False, findPid: bool = True) -> str:
        """The output of the command sent with sendCmd(), once it ended."""
        from .log import output
        out = ''
        while self.waiting:
            got = self.monitor()
            if verbose:
                output(got)
            out += got
        return out

    def setIP(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise unsupported('%s.setIP()' % self.name,
                          "addresses come from Mininet(ipBase='A.B.C.D/N'), or run "
                          "%s.cmd('ip addr add ...')" % self.name)

    def setMAC(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise unsupported('%s.setMAC()' % self.name,
                          "use Mininet(autoSetMacs=True) for Mininet's MACs, or "
                          "%s.cmd('ip link set ... address ...')" % self.name)

    setDefaultRoute = setIP

    def config(self, **params: Any) -> dict[str, Any]:
        """Mininet's config(): a host's own parameters (ip=,
        defaultRoute=, cpu=, privateDirs=...), which Lighthouse applied
        when the network started; `net.start()` calls it with them, as
        Mininet does, so a subclass can add its own set-up. A value other
        than the host's is refused: change a running host with cmd()."""
        mine = dict(self._net._params_of(self.name))
        for k, v in sorted(params.items()):
            if v is None or (k in mine and mine[k] == v):
                continue
            raise unsupported('%s.config(%s=%r)' % (self.name, k, v),
                              'give it to addHost(%r, %s=...) before net.start(), or run '
                              "%s.cmd('ip ...')" % (self.name, k, self.name))
        return {}

    def terminate(self) -> None:
        """Nodes go with net.stop()."""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        try:
            return self._native.repr_of(self.name)
        except Exception:  # not running
            return '<%s %s>' % (type(self).__name__, self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.name == self.name and other._net is self._net

    def __hash__(self) -> int:
        return hash(self.name)


class _ShellOutput(object):
    """A node's shell output as Mininet's `node.stdout` is used: its
    fileno(), for select.poll()."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


class Host(Node):
    "A host: a network namespace with the kernel's TCP."


class Switch(Node):
    "A switch: a Lighthouse ToR."
    isSwitch = True

    @classmethod
    def setup(cls) -> None:
        """Mininet's switch class set-up (OVS checks its kernel module):
        a Lighthouse ToR needs none."""

    @classmethod
    def isOldOVS(cls) -> bool:
        return False

    @property
    def ports(self) -> dict[Intf, int]:
        """{interface: port number}, as Mininet's (`s1-eth3` is port 3)."""
        out = {}
        for i in self.intfList():
            tail = i.name.rsplit('-eth', 1)
            if i.name != 'lo' and len(tail) == 2 and tail[1].isdigit():
                out[i] = int(tail[1])
        return out


# Class names scripts pass to Mininet(switch=..., host=..., controller=...)
# or addSwitch(cls=...): every switch is a ToR, every host a namespace,
# and the controller compiles the tables at start, so these are accepted.
OVSSwitch = OVSKernelSwitch = OVSBridge = UserSwitch = LinuxBridge = IVSSwitch = Switch


class Controller(object):
    """Accepted and inert: the ToRs run compiled time-flow tables."""

    def __init__(self, name: str = 'c0', *args: Any, **kwargs: Any) -> None:
        self.name = name

    def start(self, *args: Any) -> None:
        pass

    def stop(self, *args: Any) -> None:
        pass

    def __repr__(self) -> str:
        return '<Controller %s: inert (ToRs run compiled tables)>' % self.name


RemoteController = DefaultController = NullController = OVSController = Ryu = Controller


class CPULimitedHost(Host):
    """A host in a cgroup of its own with a CFS quota: `cpu` of the whole
    machine (Mininet's cpu=, period_us=, sched='cfs'; cgroup v2's cpu.max,
    else v1's cpu.cfs_quota_us)."""
