#!/usr/bin/env bash
# Lighthouse's simulator against the Opera authors' htsim on one topology
# and one flow list, each alone (issue 46, item 1; docs/benchmarks.md,
# "Against htsim on one topology").
#
#   scripts/bench/htsim.sh HTSIM_BINARY FLOWS.htsim [REPS] [WORKDIR]
#
# HTSIM_BINARY: their `htsim_ndp_dynexpTopology`, built from their
# repository (TritonNetworking/opera-sim, `src/opera/`) as its README says;
# this project ships none of their code and no script that builds it.
# FLOWS.htsim: a flow list of theirs (`src dst bytes start_ns`), e.g.
# `Figure9_websearch/opera/traffic_gen/flows_1percLLload_1sec_648hosts.htsim`.
#
# Both run topologies/opera-108-htsim-fig9.json's fabric: `lighthouse
# compile --htsim-topology` writes its schedule and low-latency paths in
# their format, and their simulator takes it with their Fig. 9 flags
# (run.sh). Prints, per run, wall time, simulated seconds per wall second
# and peak RSS of each, and the two sides' FCTs per size bucket, flow by
# flow (scripts/fidelity/compare.py, their output against ours).
set -euo pipefail
htsim=$1 flows=$2 reps=${3:-1} work=${4:-$(mktemp -d /tmp/lh-htsim-bench.XXXX)}
here=$(cd "$(dirname "$0")/../.." && pwd)
lh=${LIGHTHOUSE:-$here/target/release/lighthouse}
cfg=$here/topologies/opera-108-htsim-fig9.json
[ -x "$htsim" ] || { echo "htsim.sh: $htsim is not an executable (their htsim_ndp_dynexpTopology)" >&2; exit 2; }
[ -r "$flows" ] || { echo "htsim.sh: cannot read the flow list $flows" >&2; exit 2; }
mkdir -p "$work"
# Their simulator writes its log (logout.dat) where it runs: in $work.
htsim=$(realpath "$htsim") flows=$(realpath "$flows") work=$(realpath "$work")
cd "$work"
"$lh" compile "$cfg" --htsim-topology "$work/topology.txt" | grep '^htsim'
# Their run.sh for Fig. 9: 1 s of flows, bulk (RotorLB) from 30 MB.
simtime=1.00001
# One run: "wall_s peak_kib" from /usr/bin/time; the command's stdout to $1.
timed() { # out args...
  local out=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$out"
  cat "$work/time.txt"
}
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-4s %-10s %9s %12s %9s\n" rep simulator wall_s sim_s/wall_s peak_MiB
for rep in $(seq "$reps"); do
  read -r wall kib < <(timed "$work/theirs.txt" "$htsim" -simtime "$simtime" -cutoff 30000000 \
    -rlbflow 100000 -cwnd 20 -q 8 -pullrate 1 -topfile "$work/topology.txt" -flowfile "$flows")
  printf "%-4s %-10s %9s %12.4f %9d\n" "$rep" htsim "$wall" "$(echo "$simtime / $wall" | bc -l)" $((kib / 1024))
  # Ours: the same flows, drained for as long as theirs runs past the last.
  read -r wall kib < <(timed "$work/ours.json" "$lh" sim "$cfg" --flows "$flows" \
    --fct-csv "$work/ours.csv" --drain 1s --json -q)
  secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["simulated_ns"] / 1e9)' "$work/ours.json")
  printf "%-4s %-10s %9s %12.4f %9d\n" "$rep" lighthouse "$wall" "$(echo "$secs / $wall" | bc -l)" $((kib / 1024))
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/scripts/fidelity/compare.py" "$flows" "$work/theirs.txt" "$work/ours.csv" --as-htsim --md
