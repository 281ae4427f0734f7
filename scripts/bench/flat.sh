#!/usr/bin/env bash
# Compile time, peak RSS and --out size per routing algorithm on
# topologies/opera-108.json, and `run --test build` bring-up and peak RSS,
# for two lighthouse binaries measured in the same session (docs/benchmarks.md,
# "Flat paths and tables").
#
#   scripts/bench/flat.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# OLD_BINARY: e.g. built from main with
#   git worktree add /tmp/lh-main main &&
#   cargo build --release -p lighthouse-emu --manifest-path /tmp/lh-main/Cargo.toml \
#       --target-dir /tmp/lh-main-target
# `run` needs root; it uses run prefixes lhfb01/lhfb02 and tears them down.
set -euo pipefail
old=$1 new=$2 work=${3:-$(mktemp -d /tmp/lh-flat-bench.XXXX)}
here=$(cd "$(dirname "$0")/../.." && pwd)
base=$here/topologies/opera-108.json
mkdir -p "$work"
for alg in direct vlb hoho opera ucmp; do
  sed "s/\"algorithm\": \"opera\"/\"algorithm\": \"$alg\"/" "$base" > "$work/opera-108-$alg.json"
done
measure() { # label binary args...
  local label=$1; shift
  /usr/bin/time -f "$label %e s %M KB" "$@" > /dev/null 2> "$work/time.txt" || { cat "$work/time.txt"; return 1; }
  tail -1 "$work/time.txt"
}
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for alg in direct vlb hoho opera ucmp; do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    measure "compile $alg $which" "$bin" compile "$work/opera-108-$alg.json"
  done
done
for which in old new; do
  bin=$old; [ "$which" = new ] && bin=$new
  rm -rf "$work/out-$which"
  measure "compile --out opera $which" "$bin" compile "$base" --out "$work/out-$which"
  echo "out $which: $(du -sb "$work/out-$which" | cut -f1) bytes ($(ls "$work/out-$which" | tr '\n' ' '))"
  rm -rf "$work/out-$which"
done
if [ "$(id -u)" = 0 ]; then
  i=0
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    i=$((i + 1))
    /usr/bin/time -f "run build $which %e s %M KB" "$bin" run "$base" --test build --prefix "lhfb0$i" \
      > "$work/run-$which.txt" 2> "$work/run-$which.err" || { cat "$work/run-$which.err"; exit 1; }
    grep -h "completed in" "$work/run-$which.txt" "$work/run-$which.err" | sed "s/^/run build $which: /"
    tail -1 "$work/run-$which.err"
  done
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
