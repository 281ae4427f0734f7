"""Results as tables: a pandas DataFrame when pandas is installed (it is
not a dependency)."""

from typing import Any


def _rows(value: Any) -> list[Any]:
    if isinstance(value, dict):
        for key in ("rows", "samples", "flows", "records", "entries"):
            if isinstance(value.get(key), list):
                rows: list[Any] = value[key]
                return rows
        return [value]
    return list(value)


def to_frame(value: Any) -> Any:
    """A DataFrame of a result's rows: `pingall()`'s `rows`, a usage's
    `samples`, `flows()`'s `flows`, a list of dicts."""
    try:
        import pandas  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        raise ImportError(
            "to_frame() needs pandas: `.venv/bin/pip install pandas` (results "
            "are plain lists and dicts without it)"
        ) from None
    return pandas.DataFrame(_rows(value))
