"""Mininet's `mininet.link`: `TCLink` and `Link` as the `link=` and `cls=`
of links (also as `custom(TCLink, ...)` or `functools.partial`, whose
options are every link's defaults). `bw=` (Mbit/s) is kept: a host link's
paces the host's interface (tbf), a switch link's is the circuit rate;
`delay`, `loss`, `jitter` and `max_queue_size` are netem's, in Lighthouse's
own data plane (docs/mininet.md: host links' as config `hosts.link`,
switch links' delay and queue as the circuits'). `TCIntf` likewise as
`intf=`."""

from .node import Intf, Link  # noqa: F401

__all__ = ['Intf', 'Link', 'TCLink', 'TCIntf']


class TCLink(Link):
    "Accepted as link=/cls=: its bw= and netem options are used."


TCIntf = Intf
