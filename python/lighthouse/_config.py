"""`net.config`: the config with attribute access, and the names the
paper's scripts use (`config.tor_num`, `for tor in config.tors: for port
in tor.ports`)."""


class _Attrs(dict):
    """A dict whose keys are also attributes (nested dicts too)."""

    def __getattr__(self, name):
        try:
            return _wrap(self[name])
        except KeyError:
            raise AttributeError(
                f"config has no field {name!r} (fields: {', '.join(sorted(self))})"
            ) from None

    def __getitem__(self, key):
        return _wrap(dict.__getitem__(self, key))


def _wrap(v):
    return _Attrs(v) if isinstance(v, dict) and not isinstance(v, _Attrs) else v


class Tor(int):
    """A ToR id (an int) with its uplinks: `tor.ports`."""

    def __new__(cls, i, uplinks):
        t = super().__new__(cls, i)
        t.ports = list(range(uplinks))
        return t

    @property
    def id(self):
        return int(self)

    def __repr__(self):
        return f"Tor({int(self)})"


class Tors:
    """`config.tors`: the ToRs (iterable, `Tor` objects) and the config's
    `tors` fields as attributes (`config.tors.count`, `.uplinks`, ...)."""

    def __init__(self, fields):
        self.fields = _Attrs(fields)
        self._tors = [Tor(i, fields["uplinks"]) for i in range(fields["count"])]

    def __iter__(self):
        return iter(self._tors)

    def __len__(self):
        return len(self._tors)

    def __getitem__(self, i):
        if isinstance(i, str):
            return self.fields[i]
        return self._tors[i]

    def __getattr__(self, name):
        if name.startswith("_") or name == "fields":
            raise AttributeError(name)
        return getattr(self.fields, name)

    def __repr__(self):
        return f"Tors({len(self._tors)} ToRs, {dict(self.fields)})"


class ConfigView(_Attrs):
    """The config of a `LighthouseNet` as the Rust side read it (defaults
    filled in): `config["slice"]["duration"]` or `config.slice.duration`."""

    @property
    def tor_num(self):
        """Fig. 6's `config.tor_num`: the number of ToRs."""
        return dict.__getitem__(self, "tors")["count"]

    @property
    def tors(self):
        """Fig. 6's `config.tors`: the ToRs, each with `.ports`."""
        return Tors(dict.__getitem__(self, "tors"))
