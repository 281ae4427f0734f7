"""Results as tables: a pandas DataFrame when pandas is installed (it is
not a dependency)."""


def _rows(value):
    if isinstance(value, dict):
        for key in ("rows", "samples", "flows", "records", "entries"):
            if isinstance(value.get(key), list):
                return value[key]
        return [value]
    return list(value)


def to_frame(value):
    """A DataFrame of a result's rows: `pingall()`'s `rows`, a usage's
    `samples`, `flows()`'s `flows`, a list of dicts."""
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "to_frame() needs pandas: `.venv/bin/pip install pandas` (results "
            "are plain lists and dicts without it)"
        ) from None
    return pandas.DataFrame(_rows(value))
