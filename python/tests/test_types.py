"""Type stubs and annotations (docs/python.md, "Types"): `mypy --strict`
passes on examples/python/, against the package source with its stub of
the native module (MYPYPATH=python), and as a user sees it, against the
installed wheel (PEP 561: `py.typed` and `_native.pyi` ship in it). mypy
is installed into .venv by scripts/setup-python.sh; without it these tests
are skipped, visibly."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = ROOT / "examples" / "python"


def mypy_strict(tmp_path, mypypath=None):
    """`python -m mypy --strict examples/python`, run outside the repo (so
    only MYPYPATH or the installed package can provide `lighthouse`)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed in this Python (scripts/setup-python.sh installs it)")
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    if mypypath is not None:
        env["MYPYPATH"] = str(mypypath)
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         str(EXAMPLES)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success: no issues found" in r.stdout, r.stdout


def test_examples_pass_mypy_strict_against_the_source(tmp_path):
    mypy_strict(tmp_path, mypypath=ROOT / "python")


def test_examples_pass_mypy_strict_against_the_installed_package(tmp_path):
    spec = importlib.util.find_spec("lighthouse")
    assert spec is not None and spec.origin is not None, "lighthouse is not installed"
    pkg = pathlib.Path(spec.origin).parent
    for f in ("py.typed", "_native.pyi"):
        assert (pkg / f).is_file(), (
            f"{pkg / f} is missing: the installed wheel predates the stubs "
            "(rebuild it: scripts/setup-python.sh)"
        )
    mypy_strict(tmp_path)
