#!/usr/bin/env bash
# The flake budget (docs/experiments.md): N rounds of every `--quick`
# figure and every timing-sensitive test, and the failures per check. A
# check that fails 1 run in 20 is a defect, so 20 rounds on a quiet machine
# must print 0 failures. Root (live runs), from the repository; a round
# takes about 3 minutes here.
#   scripts/bench/flake.sh [N] [OUT_DIR]
# Exits 1 when anything failed. Per-run logs stay in OUT_DIR (default a
# fresh /var/tmp/lh-flake.XXXX; never /tmp, which Mininet's cleanup empties).
set -uo pipefail
n=${1:-20}
out=${2:-$(mktemp -d /var/tmp/lh-flake.XXXX)}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[ "$(id -u)" -eq 0 ] || { echo "flake: run as root (live networks)" >&2; exit 2; }
mkdir -p "$out"
cargo build --release -q --workspace || exit 2
bin=target/release/lighthouse
figures=(fig8 fig9 fig10 fig13 otcp sopa)
# The live tests whose assertions depend on timing (circuits, RTTs, rates,
# losses), one test binary each; the experiment_* ones run the figures
# above through the binary again with their own assertions.
tests=(
  "lighthouse-cmd e2e" "lighthouse-cmd guardband_run" "lighthouse-cmd probe"
  "lighthouse-cmd workload" "lighthouse-cmd fattree_run" "lighthouse-cmd otcp"
  "lighthouse-cmd apps" "lighthouse-cmd golden" "lighthouse-cmd json_api"
  "lighthouse-cmd mininet_parity" "lighthouse-cmd habits_pty"
  "lighthouse-cmd sim" "lighthouse-cmd dashboard"
  "swtor fabric" "swtor torsys"
)
# The Python suite (docs/python.md): live runs, signals, monitors.
py=$root/.venv/bin/python
[ -x "$py" ] || { echo "flake: no .venv: run scripts/setup-python.sh" >&2; exit 2; }
# Test executables, built once (cargo test --no-run prints their paths).
declare -A exe
for t in "${tests[@]}"; do
  read -r pkg name <<<"$t"
  exe[$t]=$root/$(cargo test --release -p "$pkg" --test "$name" --no-run 2>&1 |
    grep -oE '\(target/release/deps/[^)]+\)' | tr -d '()' | tail -n1)
  [ -x "${exe[$t]}" ] || { echo "flake: no test binary for $t" >&2; exit 2; }
done
tally=$out/failures.txt
: >"$tally"
runs=0
for i in $(seq 1 "$n"); do
  for f in "${figures[@]}"; do
    log=$out/$f-$i.txt
    "$bin" experiment "$f" --quick --out "$out/$f-$i" >"$log" 2>&1
    rc=$?
    runs=$((runs + 1))
    # One line per failed check, its measurements cut off at the first ':'.
    grep -F '[FAILED]' "$log" | sed -E 's/^ *\[FAILED\] //; s/:.*//' |
      sed "s/^/$f: /" >>"$tally"
    if [ "$rc" -ne 0 ] && ! grep -qF '[FAILED]' "$log"; then
      echo "$f: the run itself failed (exit $rc; $log)" >>"$tally"
    fi
  done
  for t in "${tests[@]}"; do
    log=$out/${t// /-}-$i.txt
    # The tests' own directory, as cargo test runs them.
    read -r pkg name <<<"$t"
    dir=$root/$( [ "$pkg" = swtor ] && echo swtor || echo emu )
    (cd "$dir" && "${exe[$t]}" --test-threads=1) >"$log" 2>&1
    rc=$?
    runs=$((runs + 1))
    grep -E '^test .* \.\.\. FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' |
      sed "s/^/$name: /" >>"$tally"
    if [ "$rc" -ne 0 ] && ! grep -qE '\.\.\. FAILED$' "$log"; then
      echo "$name: the test binary failed (exit $rc; $log)" >>"$tally"
    fi
  done
  log=$out/python-$i.txt
  "$py" -m pytest python/tests -q -p no:cacheprovider >"$log" 2>&1
  rc=$?
  runs=$((runs + 1))
  grep -E '^FAILED ' "$log" | sed -E 's/^FAILED ([^ ]*).*/\1/' | sed "s/^/python: /" >>"$tally"
  if [ "$rc" -ne 0 ] && ! grep -qE '^FAILED ' "$log"; then
    echo "python: pytest failed (exit $rc; $log)" >>"$tally"
  fi
  echo "flake: round $i of $n done, $(wc -l <"$tally") failures so far ($(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "flake: $n rounds, ${#figures[@]} quick figures, ${#tests[@]} timing-sensitive test binaries and the Python suite each ($runs runs); logs in $out"
if [ -s "$tally" ]; then
  echo "failures per check:"
  sort "$tally" | uniq -c | sort -rn
  exit 1
fi
echo "failures per check: none (0 of $runs runs)"
