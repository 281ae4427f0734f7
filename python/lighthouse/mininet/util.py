"""Mininet's `mininet.util`: `dumpNodeConnections`, `dumpNodes`,
`irange`, `natural`, `quietRun`, `decode`, `encode`, `pmonitor`, `custom`,
`waitListening`."""

from __future__ import annotations

import codecs
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, cast

from .log import output
from .topo import irange as irange, natural as natural  # noqa: F401

if TYPE_CHECKING:
    from .net import Mininet
    from .node import Node


def dumpNodeConnections(nodes: Iterable[Node]) -> None:
    """Each node and its interfaces with their far ends, as Mininet's
    (`h1 h1-eth0:s1-eth1`)."""
    for node in nodes:
        line = node.name
        for intf in node.intfList():
            line += ' %s:' % intf
            link = intf.link
            line += str(link.intf2) if link else ' '
        output(line + '\n')


def dumpNodes(nodes: Iterable[Node]) -> None:
    for node in nodes:
        output('%s\n' % repr(node))


def dumpNetConnections(net: Mininet) -> None:
    dumpNodeConnections(net.values())


def quietRun(cmd: str | list[str], **kwargs: Any) -> str:
    """Run a command in the root namespace; its output (stdout+stderr)."""
    if isinstance(cmd, str):
        cmd = cmd.split()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.stdout


def decode(s: bytes | str) -> str:
    """Bytes from a process as text (UTF-8); text as it is."""
    return s.decode('utf-8', 'replace') if isinstance(s, bytes) else s


def encode(s: str | bytes) -> bytes:
    """Text as bytes (UTF-8); bytes as they are."""
    return s.encode('utf-8') if isinstance(s, str) else s


def pmonitor(popens: Mapping[Any, subprocess.Popen[Any]], timeoutms: int = 500,
             readline: bool = True, readmax: int = 1024) -> Iterator[tuple[Any, str]]:
    """Yield (host, line) as the processes of `popens` ({host: Popen})
    write to their stdout, and (None, '') when `timeoutms` passes with
    nothing to read; ends when every one has closed its output. As
    Mininet's: `readline=False` yields whatever is there, up to `readmax`
    bytes. Reads the descriptors themselves, so no line waits in a file
    object's buffer after its process has ended."""
    poller = select.poll()
    by_fd: dict[int, Any] = {}
    partial: dict[int, bytes] = {}
    text: dict[int, codecs.IncrementalDecoder] = {}
    for host, p in popens.items():
        fd = cast(IO[Any], p.stdout).fileno()
        by_fd[fd] = host
        partial[fd] = b''
        # Raw reads may split a character: decode each stream on.
        text[fd] = codecs.getincrementaldecoder('utf-8')('replace')
        poller.register(fd, select.POLLIN)
    while by_fd:
        ready = poller.poll(timeoutms)
        if not ready:
            yield None, ''
            continue
        for fd, _event in ready:
            host = by_fd[fd]
            try:
                data = os.read(fd, 4096 if readline else readmax)
            except OSError:
                data = b''
            if not readline and data:
                yield host, text[fd].decode(data)
                continue
            partial[fd] += data
            while b'\n' in partial[fd]:
                line, partial[fd] = partial[fd].split(b'\n', 1)
                yield host, decode(line + b'\n')
            if not data:
                # Its output is closed: what is left, then it is done.
                if partial[fd]:
                    yield host, decode(partial[fd])
                poller.unregister(fd)
                del by_fd[fd]


def custom(cls: Any, **params: Any) -> Callable[..., Any]:
    """`cls` with `params`, as Mininet's: they override the call's own
    keyword arguments. What Lighthouse cannot honour is refused where the
    class is used, naming the parameters (`Mininet(host=...)`,
    `addHost(cls=...)`, `link=`, `intf=`), never dropped."""
    name = getattr(cls, '__name__', 'custom')

    def customized(*args: Any, **kwargs: Any) -> Any:
        merged = dict(kwargs)
        merged.update(params)
        return cls(*args, **merged)

    customized.__name__ = 'custom(%s)' % name
    customized._lh_class = cls  # type: ignore[attr-defined]
    customized._lh_params = dict(params)  # type: ignore[attr-defined]
    return customized


def waitListening(client: Any = None, server: Any = '127.0.0.1', port: int = 80,
                  timeout: float | None = None) -> bool:
    """Wait until something listens on `server`:`port`, tried from
    `client`'s namespace (a node) or the root namespace, as Mininet's:
    False at once when there is no route, or after `timeout` seconds (None
    or 0: wait on)."""
    ip = server.IP() if hasattr(server, 'IP') else server
    probe = ("timeout 1 bash -c '</dev/tcp/%s/%s' 2>&1 && echo LISTENING" % (ip, port))
    waited = 0.0
    while True:
        if client is not None and hasattr(client, 'cmd'):
            out = client.cmd(probe)
        else:
            out = subprocess.run(['bash', '-c', probe], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, universal_newlines=True).stdout
        if 'LISTENING' in out:
            return True
        if 'No route' in out or 'unreachable' in out:
            output('no route to %s:\n%s' % (ip, out))
            return False
        if timeout and waited >= timeout:
            output('could not connect to %s on port %d\n' % (ip, port))
            return False
        time.sleep(.5)
        waited += .5
