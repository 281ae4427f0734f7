#!/usr/bin/env bash
# The Python API against the CLI and against networkx, in one run
# (docs/benchmarks.md, "Python API"):
#  1. opera-108 with HOHO routing compiled by `lighthouse compile` and by
#     `LighthouseNet(cfg).compile()` from Python, REPS times interleaved
#     (process wall time, interpreter start and import included), and the
#     same from a script's calls (topo_opera(), hoho(), entries());
#  2. scripts/bench/py_routing.py: earliest_path() for every pair and slice
#     of opera-108 from Python, against the same loop over networkx.
# Needs the project venv (scripts/setup-python.sh); installs networkx into
# it for the reference (benchmark only, not a dependency).
#
#   scripts/bench/py_api.sh [REPS] [WORKDIR]
set -euo pipefail
reps=${1:-5} work=${2:-$(mktemp -d /var/tmp/lh-py-bench.XXXX)}
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
py=$here/.venv/bin/python
bin=$here/target/release/lighthouse
[ -x "$py" ] || { echo "no .venv: run scripts/setup-python.sh" >&2; exit 1; }
[ -x "$bin" ] || cargo build --release -q -p lighthouse-cmd
"$py" -c 'import networkx' 2>/dev/null || "$py" -m pip -q --disable-pip-version-check install networkx
cfg=$work/opera-108-hoho.json
sed 's/"algorithm": "opera"/"algorithm": "hoho"/' topologies/opera-108.json > "$cfg"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
wall() { /usr/bin/time -f "%e" "$@" > /dev/null 2> "$work/t" || { cat "$work/t"; exit 1; }; tail -1 "$work/t"; }
: > "$work/cli"; : > "$work/py"; : > "$work/script"
for _ in $(seq "$reps"); do
  wall "$bin" compile "$cfg" >> "$work/cli"
  wall "$py" -c "import lighthouse; lighthouse.LighthouseNet('$cfg').compile()" >> "$work/py"
  wall "$py" -c "
import lighthouse
net = lighthouse.LighthouseNet('$cfg')
assert net.topo_opera()
net.entries(net.hoho(), lookup=lighthouse.SOURCE)" >> "$work/script"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -n "$1" | head -1; }
c=$(median "$work/cli") p=$(median "$work/py") s=$(median "$work/script")
printf "compile opera-108 hoho, median of %d (best): CLI %ss (%s), Python compile() %ss (%s), script calls %ss (%s)\n" \
  "$reps" "$c" "$(best "$work/cli")" "$p" "$(best "$work/py")" "$s" "$(best "$work/script")"
awk -v c="$c" -v p="$p" -v s="$s" 'BEGIN { printf "Python/CLI: compile() %.3f, script calls %.3f\n", p / c, s / c }'
"$py" scripts/bench/py_routing.py "$cfg"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
