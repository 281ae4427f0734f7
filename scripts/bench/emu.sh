#!/bin/sh
# Emulation benchmarks (docs/benchmarks.md): TCP over an always-up circuit vs
# a Linux bridge, the slice-duration sweep, bring-up/teardown vs Mininet.
# Run as root from the workspace root. Output: Markdown tables on stdout.
#   scripts/bench/emu.sh [TCP_SECS] [REPS]
set -eu
secs=${1:-5}
reps=${2:-3}
cargo build --release -p lighthouse-cmd --bin lighthouse && cargo build --release -p lighthouse-emu --examples
ex=target/release/examples
echo "## TCP throughput ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
"$ex/bench_tcp" "$secs" "$reps"
echo "## Shortest slice"
"$ex/bench_slice" 3 "$reps"
echo "## Bring-up and teardown"
"$ex/bench_bringup" "$reps"
left=$(ip netns list)
if [ -n "$left" ]; then
    echo "namespaces left behind:" >&2
    echo "$left" >&2
    exit 1
fi
