"""`net.config`: the config with attribute access, and the names the
paper's scripts use (`config.tor_num`, `for tor in config.tors: for port
in tor.ports`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, SupportsIndex, overload


class _Attrs(dict[str, Any]):
    """A dict whose keys are also attributes (nested dicts too)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return _wrap(self[name])
        except KeyError:
            raise AttributeError(
                f"config has no field {name!r} (fields: {', '.join(sorted(self))})"
            ) from None

    def __getitem__(self, key: str) -> Any:
        return _wrap(dict.__getitem__(self, key))


def _wrap(v: Any) -> Any:
    return _Attrs(v) if isinstance(v, dict) and not isinstance(v, _Attrs) else v


class Tor(int):
    """A ToR id (an int) with its uplinks: `tor.ports`."""

    ports: list[int]

    def __new__(cls, i: int, uplinks: int) -> Tor:
        t = super().__new__(cls, i)
        t.ports = list(range(uplinks))
        return t

    @property
    def id(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Tor({int(self)})"


class Tors:
    """`config.tors`: the ToRs (iterable, `Tor` objects) and the config's
    `tors` fields as attributes (`config.tors.count`, `.uplinks`, ...)."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = _Attrs(fields)
        self._tors = [Tor(i, fields["uplinks"]) for i in range(fields["count"])]

    def __iter__(self) -> Iterator[Tor]:
        return iter(self._tors)

    def __len__(self) -> int:
        return len(self._tors)

    @overload
    def __getitem__(self, i: str) -> Any: ...
    @overload
    def __getitem__(self, i: SupportsIndex) -> Tor: ...
    @overload
    def __getitem__(self, i: slice) -> list[Tor]: ...
    def __getitem__(self, i: str | SupportsIndex | slice) -> Any:
        if isinstance(i, str):
            return self.fields[i]
        return self._tors[i]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "fields":
            raise AttributeError(name)
        return getattr(self.fields, name)

    def __repr__(self) -> str:
        return f"Tors({len(self._tors)} ToRs, {dict(self.fields)})"


class ConfigView(_Attrs):
    """The config of a `LighthouseNet` as the Rust side read it (defaults
    filled in): `config["slice"]["duration"]` or `config.slice.duration`."""

    @property
    def tor_num(self) -> int:
        """Fig. 6's `config.tor_num`: the number of ToRs."""
        n: int = dict.__getitem__(self, "tors")["count"]
        return n

    @property
    def tors(self) -> Tors:
        """Fig. 6's `config.tors`: the ToRs, each with `.ports`."""
        return Tors(dict.__getitem__(self, "tors"))
