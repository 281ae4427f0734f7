"""Mininet's `mininet.log`: `setLogLevel`, `info`, `output`, `warn`,
`error`, `debug`. Messages go to stderr, as Mininet's logger writes them;
the level also decides whether Lighthouse's own banners are printed
(`output` and above: none). The default is Mininet's, `output`."""

import sys

from .. import _native

LEVELS = {'debug': 10, 'info': 20, 'output': 25, 'warning': 30, 'warn': 30,
          'error': 40, 'critical': 50}
_level = [LEVELS['output']]


def setLogLevel(levelname: str = 'output') -> None:
    """Mininet's setLogLevel; an unknown level raises ValueError naming the
    levels."""
    if levelname not in LEVELS:
        raise ValueError('setLogLevel(%r): expected one of %s' % (
            levelname, ', '.join(k for k in LEVELS if k != 'warn')))
    _native.set_log_level(levelname)
    _level[0] = LEVELS[levelname]


def _log(level: str, *args: object) -> None:
    if LEVELS[level] >= _level[0]:
        sys.stderr.write(' '.join(str(a) for a in args))
        sys.stderr.flush()


def debug(*args: object) -> None:
    _log('debug', *args)


def info(*args: object) -> None:
    _log('info', *args)


def output(*args: object) -> None:
    _log('output', *args)


def warn(*args: object) -> None:
    _log('warning', *args)


warning = warn


def error(*args: object) -> None:
    _log('error', *args)


class _Lg(object):
    """Mininet's `lg` object, for `lg.setLogLevel` and friends."""
    setLogLevel = staticmethod(setLogLevel)
    debug = staticmethod(debug)
    info = staticmethod(info)
    output = staticmethod(output)
    warn = warning = staticmethod(warn)
    error = staticmethod(error)


lg = _Lg()

# Mininet's default level (scripts usually say setLogLevel('info')).
setLogLevel('output')
