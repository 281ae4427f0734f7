#!/usr/bin/env bash
# The project virtualenv .venv with `import lighthouse` (docs/python.md):
# Debian 12's system Python is externally managed, so the wheel goes into a
# venv. Installs maturin, pytest and mypy (python/tests/test_types.py) from
# PyPI (the first run needs network), builds the wheel into target/wheels
# and installs it. Idempotent: the venv and its tools are reused, and the
# wheel is rebuilt only when a Rust or Python source (or a type stub)
# changed since the last install (cargo does the rest).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
# python3-venv (Debian's venv and ensurepip): setup.sh installs it.
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  LH_SETUP_NO_PYTHON=1 bash scripts/setup.sh
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup-python: creating $VENV"
  "$PY" -m venv "$VENV"
fi
pip() { "$VENV/bin/python" -m pip --disable-pip-version-check -q "$@"; }
# dask.distributed and pandas: lighthouse.sweep's extra ([sweep]), which
# the tests run on a local Dask cluster (python/tests/test_sweep.py).
"$VENV/bin/python" -c 'import maturin, pytest, mypy, dask.distributed, pandas' >/dev/null 2>&1 \
  || pip install 'maturin>=1.9,<2' 'pytest>=7' 'mypy>=1.11,<3' 'dask[distributed]>=2024.1' 'pandas>=2'

# Rebuild when anything the wheel is made of is newer than the stamp: the
# crates it links (python/Cargo.toml's, and theirs) and what they embed
# (P4 source, the dashboard's assets, the workloads' CDFs).
stamp=$VENV/.lighthouse-wheel
if [ -f "$stamp" ] && "$VENV/bin/python" -c 'import lighthouse' >/dev/null 2>&1 \
  && [ -z "$(find python ctrl emu swtor netns p4gen bmv2-thrift sim dash p4 workloads Cargo.toml Cargo.lock pyproject.toml \
        -newer "$stamp" \( -name '*.rs' -o -name '*.toml' -o -name '*.py' -o -name '*.pyi' -o -name py.typed \
        -o -name '*.lock' -o -name '*.p4' -o -name '*.js' -o -name '*.html' -o -name '*.css' -o -name '*.cdf' \) \
        -not -path '*/tests/*' -print -quit)" ]; then
  exit 0
fi
echo "setup-python: building the lighthouse-dcn wheel"
rm -f target/wheels/lighthouse_dcn-*.whl
# pyproject.toml at the root names the crate (manifest-path), as `pip install .` reads it.
"$VENV/bin/maturin" build --release -q -o target/wheels \
  --interpreter "$VENV/bin/python"
pip install --force-reinstall --no-deps target/wheels/lighthouse_dcn-*.whl
touch "$stamp"
echo "setup-python: $VENV has lighthouse $("$VENV/bin/python" -c 'import lighthouse; print(lighthouse.__version__)')"
