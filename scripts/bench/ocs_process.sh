#!/bin/sh
# The data plane in the run's process vs as its own process (`lighthouse
# ocs`, `--ocs-process`; docs/benchmarks.md, "OCS process"): ping RTT and
# iperf through one ToR and the OCS on topologies/static-2.json (h1 - s1 -
# always-up circuit - s2 - h2), both ways in one run, the order rotated each
# repetition. Run as root from the workspace root after
# `cargo build --release -p lighthouse-cmd`. Output: a Markdown table.
#   scripts/bench/ocs_process.sh [REPS] [PINGS]
set -eu
reps=${1:-3}
pings=${2:-500}
bin=target/release/lighthouse
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'h1 ping -c %s -i 0.002 -q h2\niperf h1 h2\nh2 ping -c %s -i 0.002 -q h1\n' "$pings" "$pings" >"$work/s.lh"
echo "| rep | data plane | ping h1->h2 rtt min/avg/max/mdev (ms) | ping h2->h1 avg (ms) | iperf h1 h2 (client, server) | --test build (s) | load avg |"
echo "|---:|---|---|---:|---|---:|---:|"
i=0
while [ "$i" -lt "$reps" ]; do
    if [ $((i % 2)) -eq 0 ]; then order="thread process"; else order="process thread"; fi
    for mode in $order; do
        flag=""
        m=0
        if [ "$mode" = process ]; then flag="--ocs-process"; m=1; fi
        prefix=$(printf 'lh0c%x%d' "$((i % 16))" "$m")
        load=$(cut -d' ' -f1 /proc/loadavg)
        # shellcheck disable=SC2086
        "$bin" run topologies/static-2.json --prefix "$prefix" --script "$work/s.lh" $flag >"$work/out" 2>&1 || {
            cat "$work/out" >&2
            exit 1
        }
        rtt1=$(grep 'rtt min/avg/max/mdev' "$work/out" | sed -n 1p | sed 's/.*= //; s/ ms//')
        rtt2=$(grep 'rtt min/avg/max/mdev' "$work/out" | sed -n 2p | sed 's/.*= //; s/ ms//' | cut -d/ -f2)
        ip=$(grep '^\*\*\* Results:' "$work/out" | tail -1 | sed "s/\*\*\* Results: //; s/'//g")
        # Bring-up and teardown alone (the OCS process compiles the config
        # again and opens its socket).
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        "$bin" run topologies/static-2.json --prefix "$prefix" --test build $flag >"$work/build" 2>&1 || {
            cat "$work/build" >&2
            exit 1
        }
        t1=$(date +%s%N)
        build=$(awk "BEGIN { printf \"%.2f\", ($t1 - $t0) / 1e9 }")
        echo "| $i | $mode | $rtt1 | $rtt2 | $ip | $build | $load |"
        if ip netns list 2>/dev/null | grep -q "^$prefix-"; then
            echo "run $prefix left namespaces behind" >&2
            exit 1
        fi
    done
    i=$((i + 1))
done
