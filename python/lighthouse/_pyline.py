"""`py` and `px` lines of the CLI, evaluated as Mininet's `do_py`/`do_px`:
real Python in the script's namespace; an error is printed, not raised."""

import sys
from typing import Any


def evaluate(line: str, px: bool, globals_: dict[str, Any], locals_: dict[str, Any]) -> str:
    """The text the CLI prints for `py LINE` (`px`: a statement)."""
    try:
        if px:
            exec(line, globals_, locals_)
            result = None
        else:
            result = eval(line, globals_, locals_)
    except Exception as e:  # Mininet prints the error and goes on
        text = str(e) + "\n"
    else:
        if result is None:
            text = ""
        elif isinstance(result, str):
            text = result + "\n"
        else:
            text = repr(result) + "\n"
    sys.stdout.flush()
    return text


def caller_namespace(depth: int = 2) -> dict[str, Any]:
    """The globals and then the locals of the frame `depth` up (the script
    that opened the CLI)."""
    caller = sys._getframe(depth)
    g = dict(caller.f_globals)
    g.update(caller.f_locals)
    return g
