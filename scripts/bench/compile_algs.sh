#!/usr/bin/env bash
# `lighthouse compile` of topologies/opera-108.json with routing.algorithm
# set to each time-flow algorithm, with and without `--out DIR` (binary
# tables.lht), for two binaries measured interleaved in one session
# (docs/benchmarks.md, "Compile time per algorithm"). Prints, per case, the
# best and median wall time of REPS runs of each binary, their ratio, the
# CPU time (user + sys) and peak RSS of the best run, and whether both wrote
# byte-identical tables.lht.
#
#   scripts/bench/compile_algs.sh OLD_BINARY NEW_BINARY [REPS] [WORKDIR]
set -euo pipefail
old=$1 new=$2 reps=${3:-3} work=${4:-$(mktemp -d /tmp/lh-compile-bench.XXXX)}
here=$(cd "$(dirname "$0")/../.." && pwd)
base=$here/topologies/opera-108.json
mkdir -p "$work"
for alg in direct vlb hoho opera ucmp; do
  sed "s/\"algorithm\": \"opera\"/\"algorithm\": \"$alg\"/" "$base" > "$work/opera-108-$alg.json"
done
# One run: "wall cpu rss_kb".
once() { # binary args...
  /usr/bin/time -f "%e %U %S %M" "$@" > /dev/null 2> "$work/time.txt" || { cat "$work/time.txt"; return 1; }
  tail -1 "$work/time.txt" | awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }'
}
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-14s %-5s | %-22s | %-22s | %s\n" case out "old best/median s (cpu, MiB)" "new best/median s (cpu, MiB)" "new/old best, median; tables.lht"
for alg in direct vlb hoho opera ucmp; do
  for out in no yes; do
    : > "$work/old.txt"; : > "$work/new.txt"
    for _ in $(seq "$reps"); do
      for which in old new; do
        bin=$old; [ "$which" = new ] && bin=$new
        args=(compile "$work/opera-108-$alg.json")
        if [ "$out" = yes ]; then
          rm -rf "$work/out-$which"
          args+=(--out "$work/out-$which")
        fi
        once "$bin" "${args[@]}" >> "$work/$which.txt"
      done
    done
    same=-
    if [ "$out" = yes ]; then
      same=differ
      cmp -s "$work/out-old/tables.lht" "$work/out-new/tables.lht" && same=identical
      rm -rf "$work/out-old" "$work/out-new"
    fi
    stats() { # file -> "best median cpu_of_best rss_mib_of_best"
      sort -n "$1" | awk '{ w[NR] = $1; c[NR] = $2; m[NR] = $3 }
        END { printf "%.2f %.2f %.2f %.0f\n", w[1], w[int((NR + 1) / 2)], c[1], m[1] / 1024 }'
    }
    read -r ob om oc orss < <(stats "$work/old.txt")
    read -r nb nm nc nrss < <(stats "$work/new.txt")
    printf "%-14s %-5s | %5s / %5s (%5s, %4s) | %5s / %5s (%5s, %4s) | %s, %s; %s\n" \
      "$alg" "$out" "$ob" "$om" "$oc" "$orss" "$nb" "$nm" "$nc" "$nrss" \
      "$(awk -v a="$nb" -v b="$ob" 'BEGIN { printf "%.2f", a / b }')" \
      "$(awk -v a="$nm" -v b="$om" 'BEGIN { printf "%.2f", a / b }')" "$same"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
