#!/usr/bin/env bash
# The Python API's tests (python/tests, docs/python.md) in the project venv
# that scripts/setup-python.sh made. `make test` runs this after cargo test.
#   scripts/test-python.sh LOG
# The log's last line is pytest's count; exits with pytest's status (1
# when there is no venv).
set -uo pipefail
log=$1
root=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
py=$root/.venv/bin/python
if [ ! -x "$py" ]; then
  echo "no .venv: run scripts/setup-python.sh (docs/python.md)" | tee "$log" >&2
  exit 1
fi
cd "$root" && "$py" -m pytest python/tests -q -p no:cacheprovider 2>&1 | tee "$log"
