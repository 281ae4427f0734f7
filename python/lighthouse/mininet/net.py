"""Mininet's `mininet.net`: `Mininet(topo=...)` on Lighthouse.

Switches become Lighthouse ToRs, switch-switch links static optical
circuits, hosts network namespaces (the translation of `lighthouse run
--custom`, docs/mininet.md). Names are the script's own. The network is
torn down by `net.stop()`, and also without it: at interpreter exit
(`atexit`), after an exception, on Ctrl-C (KeyboardInterrupt) and on
SIGTERM/SIGHUP (a handler raises SystemExit, so the same teardown runs).
"""

from __future__ import annotations

import atexit
import functools
import json
import signal
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, cast, overload

from .. import _native
from . import unsupported
from .cli import CLI
from .log import info, output
from .node import Controller, CPULimitedHost, Host, Node, Switch
from .link import Link
from .topo import natural

if TYPE_CHECKING:
    from .._native import MnNet, _Confine, _Link
    from .topo import Topo

_T = TypeVar('_T')
_M = TypeVar('_M', bound='Mininet')
# A class's preset parameters, and whether they win over the call's own.
_Layers = list[tuple[dict[str, Any], bool]]
# pingFull's rows: (src, dst, (sent, received, rttmin, rttavg, rttmax, rttdev)).
_PingFullRow = tuple[Node, Node, tuple[int, int, float, float, float, float]]

# Link options: what Lighthouse does with each. netem's are the data
# plane's own (config hosts.link; a switch link's delay, loss and queue are
# its circuit's: slice.propagation, tors.link_loss, tors.queue_capacity).
_NETEM = ('delay', 'jitter', 'loss', 'max_queue_size')
_LINK_IGNORED = {'cls', 'use_htb', 'use_tbf', 'use_hfsc', 'enable_ecn', 'enable_red', 'r2q',
                 'speedup', 'key', 'intf'}
_SWITCH_IGNORED = {'cls', 'dpid', 'protocols', 'failMode', 'stp', 'inband', 'listenPort',
                   'datapath', 'batch', 'verbose', 'isSwitch', 'opts', 'inNamespace'}
_HOST_IGNORED = {'cls', 'inNamespace'}
_HOST_USED = ('ip', 'defaultRoute', 'privateDirs', 'cpu', 'period_us', 'sched', 'cores')
# A link's ends: Mininet's interface names and per-interface `ip`.
_LINK_ENDS = ('intfName1', 'intfName2', 'params1', 'params2')

_running: weakref.WeakSet[Mininet] = weakref.WeakSet()


def _unwrap(cls: Any) -> tuple[Any, _Layers]:
    """(class, preset layers) of a class wrapped in `custom(cls, **p)`
    and `functools.partial(cls, **p)`, however deep, outermost layer
    first; a layer is (its parameters, whether they win over the call's
    own: a `custom`'s do, as in Mininet, a `partial`'s do not)."""
    layers: _Layers = []
    while True:
        if hasattr(cls, '_lh_class'):
            layers.append((dict(cls._lh_params), True))
            cls = cls._lh_class
        elif isinstance(cls, functools.partial):
            layers.append((dict(cls.keywords or {}), False))
            cls = cls.func
        else:
            return cls, layers


def _with_presets(params: dict[str, Any], layers: _Layers) -> dict[str, Any]:
    """A call's parameters as the wrapped class would receive them."""
    out = dict(params)
    for preset, wins in layers:
        out = dict(out, **preset) if wins else dict(preset, **out)
    return out


def _confinement(c: Any, params: dict[str, Any], what: str, name: str | None = None
                 ) -> tuple[float | None, int | None, list[tuple[str, str | None]]]:
    """(cpu fraction or None, period_us or None, [(target, bind source or
    None)]) a host class and its parameters ask for (CPULimitedHost's
    cgroup, privateDirs' mounts), or Unsupported naming what cannot be."""
    cpu: float | None = None
    period: int | None = None
    limited = isinstance(c, type) and issubclass(c, CPULimitedHost)
    if limited:
        sched = params.get('sched')
        if sched not in (None, 'cfs'):
            raise unsupported('%s CPULimitedHost sched=%r' % (what, sched),
                              "hosts get CFS quotas (cgroup cpu.max); use sched='cfs'")
        if params.get('cores') is not None:
            raise unsupported('%s CPULimitedHost cores=%r' % (what, params['cores']),
                              'hosts share the CPUs; limit them with cpu= (a fraction of '
                              'the machine)')
        f = params.get('cpu', -1)
        if f is not None and not isinstance(f, (int, float)):
            raise ValueError('%s cpu=%r: expected a fraction of the machine' % (what, f))
        # Mininet's default cpu=-1: a cgroup without a limit.
        cpu = None if f is None or f < 0 else float(f)
        period = params.get('period_us')
    elif params.get('cpu') is not None:
        raise unsupported('%s cpu=%r on a plain Host' % (what, params['cpu']),
                          'CPU limits are CPULimitedHost\'s: Mininet(host=CPULimitedHost) or '
                          'addHost(..., cls=CPULimitedHost, cpu=...)')
    dirs: list[tuple[str, str | None]] = []
    for d in params.get('privateDirs') or []:
        if isinstance(d, tuple) and len(d) == 2:
            src = d[1] % {'name': name} if name is not None else d[1]
            dirs.append((str(d[0]), str(src)))
        elif isinstance(d, str):
            dirs.append((d, None))
        else:
            raise ValueError("%s privateDirs entry %r: expected '/dir' or ('/dir', "
                             "'/persistent/%%(name)s/dir')" % (what, d))
    for t, _ in dirs:
        if not t.startswith('/'):
            raise ValueError('%s privateDirs %r: expected an absolute path' % (what, t))
    return cpu, period, dirs


def _link_args(a: str, b: str, opts: dict[str, Any]) -> _Link:
    """(a, b, bw, port1, port2, netem as JSON) of a link, or Unsupported
    naming the option."""
    for k in opts:
        if k not in _LINK_IGNORED and k not in ('bw', 'port1', 'port2') + _NETEM + _LINK_ENDS:
            raise unsupported('link %s-%s option %s=' % (a, b, k),
                              'links take bw= (Mbit/s; a host link paces the host, a switch '
                              'link is the circuit rate), delay=, jitter=, loss=, '
                              'max_queue_size=, port1=, port2=, intfName1=, intfName2= and '
                              "params1=/params2= with 'ip'")
    bw = opts.get('bw')
    if bw is not None and not (isinstance(bw, (int, float)) and 0 < bw <= 1e6):
        raise ValueError('link %s-%s bw=%r: expected Mbit/s, > 0 and at most 1000000' % (a, b, bw))
    netem = {k: opts[k] for k in _NETEM + _LINK_ENDS if opts.get(k) is not None}
    for k in ('params1', 'params2'):
        if k in netem and not isinstance(netem[k], dict):
            raise ValueError("link %s-%s %s=%r: expected {'ip': 'A.B.C.D/N'}" % (a, b, k, netem[k]))
    try:
        text = json.dumps(netem) if netem else None
    except TypeError as e:
        raise ValueError('link %s-%s: %s' % (a, b, e)) from None
    return (a, b, None if bw is None else float(bw), opts.get('port1'), opts.get('port2'), text)


def _str(v: Any, host: str, key: str) -> str | None:
    if v is not None and not isinstance(v, str):
        raise ValueError('addHost(%r, %s=%r): expected a string' % (host, key, v))
    return v


def _name(n: Node | str) -> str:
    """A node's name (a node, or a name already)."""
    return cast(str, getattr(n, 'name', n))


def _node_params(params: dict[str, Any]) -> dict[str, Any]:
    """A host's parameters as Mininet's config() receives them."""
    return {k: v for k, v in params.items() if k != 'cls'}


def _on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    # Leave the script as an exception would: `finally`, `with` and atexit
    # run, and with them the teardown.
    raise SystemExit(128 + signum)


def _install_signal_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _on_signal)


@atexit.register
def _stop_all() -> None:
    for net in list(_running):
        net.stop()


class Mininet(object):
    """Mininet(topo=None, ...): a network from a Topo (or addHost,
    addSwitch, addLink), started with start(), stopped with stop()."""

    # Node and link classes are Mininet's (or custom()/partial() of them):
    # Any. What addHost/addSwitch/addLink gathered, for build():
    _hosts: list[tuple[str, dict[str, Any]]]
    _switches: list[str]
    _links: list[_Link]
    _confine: list[_Confine]
    _nodes: dict[str, Node]
    _native: MnNet | None

    def __init__(self, topo: Topo | None = None, switch: Any = None, host: Any = None,
                 controller: Any = None, link: Any = None, intf: Any = None,
                 build: bool = True, xterms: bool = False, cleanup: bool = False,
                 ipBase: str = '10.0.0.0/8', inNamespace: bool = False,
                 autoSetMacs: bool = False, autoStaticArp: bool = False,
                 autoPinCpus: bool = False, listenPort: int | None = None,
                 waitConnected: bool = False) -> None:
        if xterms:
            raise unsupported('Mininet(xterms=True)',
                              "run commands with h1.cmd('...'), or `xterm h1` in CLI(net)")
        if inNamespace:
            raise unsupported('Mininet(inNamespace=True)',
                              "every host already is its own namespace; the switches share "
                              "the fabric's")
        if autoPinCpus:
            raise unsupported('Mininet(autoPinCpus=True)', 'hosts share the CPUs; limit them '
                              'with host=CPULimitedHost and cpu=')
        # Classes may carry options (custom(CPULimitedHost, cpu=.1),
        # partial(Host, privateDirs=...), custom(TCLink, bw=10, delay=...),
        # custom(TCIntf, bw=10)): every node or link made with them gets
        # them, and what Lighthouse cannot honour is refused, never dropped.
        self._host_cls, self._switch_cls = host, switch
        self._link_cls, self._intf_cls = link, intf
        c, layers = _unwrap(host)
        _confinement(c, _with_presets({}, layers), 'Mininet(host=...):')
        self._check_host_params(lambda k: 'Mininet(host=...) with %s=' % k,
                                _with_presets({}, layers))
        self._check_switch_params(lambda k: 'Mininet(switch=...) with %s=' % k,
                                  _with_presets({}, _unwrap(switch)[1]))
        every = self._link_options({})
        if every:
            _link_args('(every link: Mininet(link/intf=...))', '', every)
        self.topo = topo
        self.ipBase = ipBase
        self.autoSetMacs, self.autoStaticArp = autoSetMacs, autoStaticArp
        self.controllers: list[Controller] = []
        self._hosts, self._switches, self._links = [], [], []
        self._confine = []
        self._nodes = {}
        self._native = None
        self.built = False
        if controller is not None and not isinstance(controller, type):
            self.controllers.append(Controller('c0'))
        if topo is not None and build:
            self.build()

    # -- building ---------------------------------------------------------

    def _check_open(self, what: str) -> None:
        if self._native is not None:
            raise unsupported('%s after build()' % what,
                              'add every node and link first, then call net.start() (a '
                              'Lighthouse fabric is compiled once)')

    def addHost(self, name: str, cls: Any = None, **params: Any) -> Node:
        self._check_open('addHost(%r)' % name)
        c, layers = _unwrap(cls if cls is not None else self._host_cls)
        params = _with_presets(params, layers)
        self._check_host_params(lambda k: 'addHost(%r, %s=...)' % (name, k), params)
        cpu, period, dirs = _confinement(c, params, 'addHost(%r):' % name, name)
        if cpu is not None or dirs:
            self._confine.append((name, cpu, period, dirs))
        self._hosts.append((name, params))
        # A Node subclass of the script's own (linuxrouter's LinuxRouter)
        # is the node, so its config() and terminate() run; one with an
        # __init__ of Mininet's signature cannot be made here.
        own = isinstance(c, type) and issubclass(c, Node) and c.__init__ is Node.__init__
        return self._node(name, c if own else Host)

    @staticmethod
    def _check_host_params(label: Callable[[str], str], params: dict[str, Any]) -> None:
        """Refuse what a host cannot have; `label(k)` names the call."""
        for k in params:
            if k == 'mac':
                raise unsupported(label(k), "MACs are kernel-random, or Mininet's with "
                                  "Mininet(autoSetMacs=True)")
            if k not in _HOST_IGNORED and k not in _HOST_USED:
                raise unsupported(label(k), 'hosts take ip= (checked against ipBase), '
                                  'privateDirs=, cls=Host, and cls=CPULimitedHost with cpu=, '
                                  'period_us= and sched=\'cfs\'')

    def addSwitch(self, name: str, cls: Any = None, **params: Any) -> Node:
        self._check_open('addSwitch(%r)' % name)
        _, layers = _unwrap(cls if cls is not None else self._switch_cls)
        self._check_switch_params(lambda k: 'addSwitch(%r, %s=...)' % (name, k),
                                  _with_presets(params, layers))
        self._switches.append(name)
        return self._node(name, Switch)

    @staticmethod
    def _check_switch_params(label: Callable[[str], str], params: dict[str, Any]) -> None:
        for k in params:
            if k not in _SWITCH_IGNORED:
                raise unsupported(label(k), 'a switch is a Lighthouse ToR running compiled '
                                  'time-flow tables; it takes no options')

    def _link_options(self, opts: dict[str, Any]) -> dict[str, Any]:
        """A link's options with those its classes carry (`cls=`, `intf=`,
        or Mininet's `link=`/`intf=`)."""
        opts = dict(opts)
        cls, intf = opts.pop('cls', None), opts.pop('intf', None)
        for c in (cls if cls is not None else self._link_cls,
                  intf if intf is not None else self._intf_cls):
            opts = _with_presets(opts, _unwrap(c)[1])
        return opts

    def addController(self, name: str = 'c0', controller: Any = None, **params: Any
                      ) -> Controller:
        c = Controller(name)
        self.controllers.append(c)
        return c

    def addLink(self, node1: Node | str, node2: Node | str, port1: int | None = None,
                port2: int | None = None, cls: Any = None, **params: Any) -> Link:
        a, b = _name(node1), _name(node2)
        self._check_open('addLink(%r, %r)' % (a, b))
        opts = dict(params)
        if port1 is not None:
            opts['port1'] = port1
        if port2 is not None:
            opts['port2'] = port2
        if cls is not None:
            opts['cls'] = cls
        self._links.append(_link_args(a, b, self._link_options(opts)))
        return Link._of_net(self, a, b)

    def addNAT(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise unsupported('addNAT()', "emulated hosts have no route out of the run; use "
                          "quietRun(...) or a command in the root namespace")

    def _node(self, name: str, cls: type[Node]) -> Node:
        if name not in self._nodes:
            self._nodes[name] = cls(self, name)
        return self._nodes[name]

    def build(self) -> None:
        """Mininet's build: check the topology can be a Lighthouse fabric
        (a ValueError names what cannot) and compile nothing yet."""
        if self.built:
            return
        t = self.topo
        if t is not None:
            for n in t.hosts():
                self.addHost(n, **t.nodeInfo(n))
            for n in t.switches():
                self.addSwitch(n, **t.nodeInfo(n))
            # In Topo.addLink order: Mininet numbers ports that way.
            for a, b, o in t.links(withInfo=True):
                self._links.append(_link_args(a, b, self._link_options(o)))
        self._check_ipbase()
        opts = [(h, _str(p.get('ip'), h, 'ip'), _str(p.get('defaultRoute'), h, 'defaultRoute'))
                for h, p in self._hosts]
        self._native = _native.MnNet(list(self._switches), [h for h, _ in self._hosts],
                                     self._links, self.ipBase, self.autoSetMacs,
                                     self.autoStaticArp, self._confine, opts)
        self._native.build()
        self.built = True

    def _check_ipbase(self) -> None:
        import ipaddress
        try:
            ipaddress.IPv4Network(self.ipBase, strict=False)
        except ValueError:
            raise ValueError("Mininet(ipBase=%r): expected A.B.C.D/N, e.g. '192.168.50.0/24'"
                             % (self.ipBase,)) from None

    def _params_of(self, name: str) -> dict[str, Any]:
        for h, p in self._hosts:
            if h == name:
                return _node_params(p)
        return {}

    # -- running ----------------------------------------------------------

    def start(self) -> None:
        """Bring the network up (root): namespaces, veths, ToRs, circuits."""
        self.build()
        _install_signal_handlers()
        _running.add(self)
        info('*** Starting %d switches\n' % len(self._switches))
        cast('MnNet', self._native).start()  # made by build()
        # Mininet's configHosts: each host's config() with its own
        # parameters (a subclass such as linuxrouter's LinuxRouter turns
        # on forwarding there); Lighthouse applied them at start.
        for name, params in self._hosts:
            self._nodes[name].config(**_node_params(params))

    def stop(self) -> bool:
        """Tear everything down (idempotent); whether conservation held."""
        _running.discard(self)
        if self._native is None:
            return True
        try:
            if self._native.prefix is not None:
                # Mininet's stop: each host's terminate() while it still runs.
                for name, _ in self._hosts:
                    self._nodes[name].terminate()
        finally:
            ok = self._native.stop()
        return ok

    def _started(self) -> MnNet:
        if self._native is None or self._native.prefix is None:
            raise _native.NetworkError('the network is not running: call net.start() first')
        return self._native

    def __enter__(self: _M) -> _M:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.stop()
        return False

    @property
    def prefix(self) -> str | None:
        """The run's prefix (its namespaces are PREFIX-<host>)."""
        return self._native.prefix if self._native else None

    # -- nodes ------------------------------------------------------------

    @property
    def hosts(self) -> list[Node]:
        names = [h for h, _ in self._hosts]
        if self.topo is not None:
            names = sorted(names, key=natural)
        return [self._nodes[n] for n in names]

    @property
    def switches(self) -> list[Node]:
        names = list(self._switches)
        if self.topo is not None:
            names = sorted(names, key=natural)
        return [self._nodes[n] for n in names]

    @property
    def nameToNode(self) -> dict[str, Node]:
        return dict(self._nodes)

    # One name: its node; none or several: a list of them.
    @overload
    def get(self, name: str, /) -> Node: ...
    @overload
    def get(self, *names: str) -> list[Node]: ...
    def get(self, *names: str) -> Node | list[Node]:
        nodes = [self[n] for n in names]
        return nodes[0] if len(nodes) == 1 else nodes

    getNodeByName = get

    def __getitem__(self, name: str) -> Node:
        if name not in self._nodes:
            raise KeyError(name)
        return self._nodes[name]

    def __contains__(self, name: object) -> bool:
        return name in self._nodes

    def __iter__(self) -> Iterator[str]:
        for n in self.hosts + self.switches:
            yield n.name

    def __len__(self) -> int:
        return len(self._nodes)

    def keys(self) -> list[str]:
        return list(self)

    def values(self) -> list[Node]:
        return [self[n] for n in self]

    def items(self) -> list[tuple[str, Node]]:
        return [(n, self[n]) for n in self]

    # -- tests ------------------------------------------------------------

    def ping(self, hosts: Sequence[Node | str] | None = None, timeout: float | None = None
             ) -> float:
        """Mininet's ping: prints its rows; the loss in percent."""
        names = None if hosts is None else [_name(h) for h in hosts]
        sent, received, _ = self._started().ping(names, timeout)
        if not sent:
            output('*** Warning: No packets sent\n')
            return 0
        return 100.0 * (sent - received) / sent

    def pingAll(self, timeout: float | None = None) -> float:
        return self.ping(timeout=timeout)

    def pingPair(self) -> float:
        return self.ping(hosts=self.hosts[:2])

    def pingFull(self, hosts: Sequence[Node | str] | None = None,
                 timeout: float | None = None) -> list[_PingFullRow]:
        """Mininet's pingFull: one ping per pair, a line each; [(src,
        dst, (sent, received, rttmin, rttavg, rttmax, rttdev))]."""
        names = None if hosts is None else [_name(h) for h in hosts]
        _, _, rows = self._started().ping(names, timeout, True)
        out: list[_PingFullRow] = []
        for src, dst, rtt in rows:
            r = rtt if rtt is not None else 0.0
            out.append((self[src], self[dst], (1, int(rtt is not None), r, r, r, 0.0)))
        return out

    def pingAllFull(self) -> list[_PingFullRow]:
        return self.pingFull()

    def pingPairFull(self) -> list[_PingFullRow]:
        return self.pingFull(hosts=self.hosts[:2])

    def iperf(self, hosts: Sequence[Node | str] | None = None, l4Type: str = 'TCP',
              udpBw: str = '10M', fmt: Any = None, seconds: float = 5, port: int = 5001
              ) -> list[str]:
        """Mininet's iperf between two hosts (default: the first and last):
        [server rate, client rate] as iperf prints them (UDP: udpBw first)."""
        if fmt is not None:
            raise unsupported('iperf(fmt=...)', 'rates are printed as iperf does (Mbits/sec)')
        if l4Type not in ('TCP', 'UDP'):
            raise ValueError("iperf(l4Type=%r): expected 'TCP' or 'UDP'" % l4Type)
        hosts = hosts or [self.hosts[0], self.hosts[-1]]
        if len(hosts) != 2:
            raise ValueError('iperf(hosts=...): expected two hosts')
        c, s = [_name(h) for h in hosts]
        return self._started().iperf(c, s, float(seconds), udpBw if l4Type == 'UDP' else None)

    def iperfUdp(self, udpBw: str = '10M') -> list[str]:
        return self.iperf(l4Type='UDP', udpBw=udpBw)

    def configLinkStatus(self, src: Node | str, dst: Node | str, status: str) -> None:
        if status not in ('up', 'down'):
            raise ValueError("configLinkStatus(status=%r): expected 'up' or 'down'" % status)
        self._started().link(_name(src), _name(dst), status == 'up')

    def waitConnected(self, timeout: float | None = None, delay: float = .5) -> bool:
        """Every ToR runs its table from the start: connected at once."""
        return True

    def staticArp(self) -> None:
        """The ToRs answer ARP; Mininet(autoStaticArp=True) installs
        permanent entries at start instead."""

    def interact(self) -> None:
        self.start()
        CLI(self)
        self.stop()

    def run(self, test: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        self.start()
        try:
            return test(*args, **kwargs)
        finally:
            self.stop()

    def __repr__(self) -> str:
        state = 'running as %s' % self.prefix if self.prefix else 'stopped'
        return '<Mininet %d hosts %d switches, %s>' % (len(self._hosts), len(self._switches),
                                                        state)
