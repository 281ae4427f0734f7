#!/usr/bin/env bash
# The paper's 648 hosts pinged all-pairs live, and the bring-up of more
# than 1,000 namespaces (issue 42, item 3; docs/benchmarks.md, "pingall
# at scale"). Opera-108 (topologies/opera-108.json) with 6 hosts per ToR
# (648 hosts, 419,256 pings) and with 10 (1,080 hosts, 1,081 namespaces).
#
#   sudo scripts/bench/pingall-scale.sh [BINARY] [RUNS]
#
# For each run: `run --test build` on 1,080 hosts (bring-up and teardown
# alone), then `run --test pingall` on 648 hosts as shipped (rows in
# flight together: lh_emu::net::PING_ROWS) and, as the reference in the
# same run, one row at a time (LH_PING_ROWS=1, as before). Wall time and
# peak RSS from /usr/bin/time; the loss from the pingall's own line.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$here/target/release/lighthouse} runs=${2:-1}
work=$(mktemp -d /tmp/lh-pingall-bench.XXXX)
trap 'rm -rf "$work"' EXIT
for n in 6 10; do
  python3 - "$here/topologies/opera-108.json" "$n" > "$work/opera-108-h$n.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["tors"]["hosts_per_tor"] = int(sys.argv[2])
c["name"] = f"Opera-108, {108 * int(sys.argv[2])} hosts"
print(json.dumps(c, indent=1))
PY
done
measure() { # label config test [env...]
  local label=$1 cfg=$2 test=$3; shift 3
  env "$@" /usr/bin/time -f "%e %M" "$bin" run "$cfg" --test "$test" > "$work/out.txt" 2>&1 \
    || { tail -20 "$work/out.txt"; echo "$label: FAILED"; return 1; }
  local t rss loss
  read -r t rss < <(tail -1 "$work/out.txt")
  loss=$(grep -o 'Results: [^(]*([0-9/]* received)' "$work/out.txt" || true)
  printf '%-44s %7.1f s %6d MiB  %s\n' "$label" "$t" $((rss / 1024)) "$loss"
}
echo "# $(date -u '+%F %T') UTC, load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for r in $(seq "$runs"); do
  measure "run $r: bring-up + teardown, 1,080 hosts" "$work/opera-108-h10.json" build
  measure "run $r: pingall, 648 hosts (shipped)" "$work/opera-108-h6.json" pingall
  measure "run $r: pingall, 648 hosts (one row at a time)" "$work/opera-108-h6.json" pingall LH_PING_ROWS=1
done
