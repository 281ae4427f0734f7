#!/usr/bin/env bash
# Frame-hops per second of `lighthouse sim` on one core (issue 46, item 2;
# docs/benchmarks.md, "Toward the limit on one core"), for one or more
# binaries, alternating run by run so that each pair sees the same machine:
#
#   scripts/bench/sim-rate.sh [REPS] [FLOWS.htsim] -- BINARY...
#
# Two workloads:
# - Fig. 8's TCP (`experiment fig8 --sim`: 7 fabrics of 8 ToRs, mice,
#   SETs and allreduces; 75 335 233 frame-hops);
# - with FLOWS, the Opera authors' Fig. 9 flow list replayed on
#   topologies/opera-108-htsim-fig9.json (`sim --flows`: 648 hosts, 4 360
#   flows, 96 793 062 frame-hops). The list is theirs, not shipped:
#   `Figure9_websearch/opera/traffic_gen/flows_1percLLload_1sec_648hosts.htsim`
#   of TritonNetworking/opera-sim.
# Each line: repetition, binary, M frame-hops/s of each (the figure the
# binary prints on stderr: frame-hops over the loop's wall time).
#
# Where the time went (perf record -e cpu-clock, self time, 2026-12-07):
#
# Before (d5cafa8), Fig. 8 --sim at 2.5 M/s:
#   event heap pop 12.6% (56-byte events: a Vec per frame in the heap),
#   memmove 11.5%, page faults and clearing ~10% (a fresh zeroed 1514-byte
#   Vec per TCP segment: `ipv4_frame`, 11% with its callees),
#   Pipeline::forward 9.3%, Engine::poll 3.3%.
# Before, the flow replay at 4.2-4.4 M/s:
#   event heap pop 8.3%, Pipeline::forward 8.2%, Calendar::rotate 6.7%,
#   Engine::poll 6.6% (13% of it the uplink-tap check, a cache line per
#   uplink), Engine::poll_at 6.1% (an iterator over four options),
#   Hosts::transmit 5.2%, Calendar::head 4.4%, Hosts::next_at 4.0% (a scan
#   of 11 words of the busy-host set).
#
# The changes: hosts' frames are their headers (the payload's zeros are
# counted, not stored) in recycled buffers; the host-event queue sifts
# 24-byte keys, with each NIC's frames in a FIFO lane; taps are boxed and
# skipped when none is set; the busy sets keep a summary word; poll_at is
# plain comparisons; thin LTO. The output is the same to the byte.
#
# After (b156450), Fig. 8 at 5.4-5.8 M/s:
#   Pipeline::forward 17.7% (the first read of a frame's metadata and
#   headers), the host-event queue 13% (its pop and heap), memmove 6.3%,
#   Calendar::head 5.5%, Engine::poll 5.0%, Calendar::rotate 4.4%,
#   LookupIndex::actions 3.6%, ipv4_frame_into 3.0%.
# After, the flow replay at 5.9-6.1 M/s:
#   Pipeline::forward 10.5%, Calendar::rotate 8.5%, the heaps 17% (the
#   host events', the uplinks due and the OCS lines'), Engine::poll 6.8%,
#   Calendar::head 5.4%, Calendar::enqueue 4.8%, Calendar::next_at 3.8%.
#   What is left is the engine's own per-frame work, spread thin.
set -euo pipefail
reps=1 flows=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    *.htsim) flows=$1 ;;
    *) reps=$1 ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: sim-rate.sh [REPS] [FLOWS.htsim] -- BINARY..." >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
cfg=$here/topologies/opera-108-htsim-fig9.json
out=$(mktemp -d /tmp/lh-sim-rate.XXXX)
trap 'rm -rf "$out"' EXIT
rate() { grep -o '[0-9.]* M/s' | head -1 | cut -d' ' -f1; }
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-4s %-40s %10s %10s\n" rep binary fig8_M/s flows_M/s
for r in $(seq "$reps"); do
  for b in "$@"; do
    # (fig8 exits 1 when a claim's verdict fails: the rate is still printed)
    f8=$({ "$b" experiment fig8 --sim --out "$out/fig8" 2>&1 || true; } | rate)
    fl=-
    if [ -n "$flows" ]; then
      fl=$({ "$b" sim "$cfg" --flows "$flows" --drain 1s 2>&1 >/dev/null || true; } | rate)
    fi
    printf "%-4s %-40s %10s %10s\n" "$r" "$b" "$f8" "$fl"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
