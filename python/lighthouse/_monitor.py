"""Monitoring (Table 1): `buffer_usage(tor, port, interval)` and
`bw_usage(...)` return a `Monitor`, a request the running data plane
serves; iterating it yields a sample every interval."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._native import NetworkError

if TYPE_CHECKING:
    from ._native import LighthouseNet, _MonitorRequest


class Monitor:
    """A monitoring request. `for s in mon:` (or `next(mon)`) yields each
    interval's samples, a list of dicts `{metric, tor, port, value, extra,
    t}` (one per ToR uplink the request covers; `value` is bytes buffered
    for buffer_usage, the fraction of the port's rate used for bw_usage,
    whose `extra` is bit/s; `t` is seconds since the first sample).
    `mon.take(n)`, `mon.every(callback, count=..., seconds=...)`."""

    def __init__(self, net: LighthouseNet, request: _MonitorRequest) -> None:
        self._net = net
        self.spec: dict[str, Any] = request["spec"]
        spec = self.spec
        self.metric = "buffer_usage" if "buffer" in str(spec["metric"]).lower() else "bw_usage"
        self.tor: int | None = spec.get("tor")
        self.port: int | None = spec.get("port")
        self.interval_s = request["interval_ns"] / 1e9
        self._t0: float | None = None
        self._next: float = 0.0

    def __repr__(self) -> str:
        return (
            f"Monitor({self.metric}, tor={self.tor}, port={self.port}, "
            f"interval={self.spec['interval']})"
        )

    def __iter__(self) -> Monitor:
        return self

    def __next__(self) -> list[dict[str, Any]]:
        if not self._net.running:
            raise NetworkError(
                f"{self!r}: the network is not running: call start() first"
            )
        now = time.monotonic()
        if self._t0 is None:
            self._t0 = self._next = now
        elif self.metric == "buffer_usage":
            # bw_usage's own read spans one interval; buffer_usage waits.
            delay = self._next - now
            if delay > 0:
                time.sleep(delay)
        self._next = max(self._next + self.interval_s, time.monotonic())
        usage = self._net._usage(self.spec)
        t = time.monotonic() - self._t0
        samples: list[dict[str, Any]] = usage["samples"]
        for s in samples:
            s["t"] = t
        return samples

    def take(self, n: int) -> list[list[dict[str, Any]]]:
        """The next `n` samples (lists), as a list."""
        return [next(self) for _ in range(n)]

    def every(
        self,
        callback: Callable[[list[dict[str, Any]]], object],
        count: int | None = None,
        seconds: float | None = None,
    ) -> int:
        """Call `callback(samples)` each interval, `count` times or for
        `seconds` (one of them)."""
        if (count is None) == (seconds is None):
            raise ValueError("every(callback): give count= or seconds=")
        end = None if seconds is None else time.monotonic() + seconds
        n = 0
        while (count is None or n < count) and (end is None or time.monotonic() < end):
            callback(next(self))
            n += 1
        return n
