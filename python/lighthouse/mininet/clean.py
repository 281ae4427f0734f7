"""Mininet's `mininet.clean`: `cleanup()`.

Mininet's cleanup kills processes by broad name and deletes links and
/tmp/*.log, whoever made them. Lighthouse's runs tear themselves down, so
here `cleanup()` stops the networks this process started; what a killed
run left behind is `lighthouse clean --stale`'s (docs/cli.md), which
removes only what provably belongs to a dead run.
"""

from .log import info


def cleanup() -> None:
    from .net import _stop_all
    info('*** Cleanup: stopping the networks this script started '
         '(lighthouse clean --stale removes what dead runs left)\n')
    _stop_all()


class Cleanup(object):
    """Mininet's class form: `Cleanup.cleanup()`."""

    @classmethod
    def cleanup(cls) -> None:
        cleanup()
