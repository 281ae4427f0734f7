#!/bin/sh
# Crash-safety loop (issue 7): N times, start a run, SIGKILL it after a
# random time (0-3 s: during bring-up, data-plane start or the CLI), then
# `lighthouse clean --prefix P`; count what is left behind (namespaces of
# the run, its run directory, links in the root namespace, processes in its
# namespaces). Run as root from the workspace root; exits 1 on any leftover.
#   scripts/bench/sigkill-loop.sh [N] [CONFIG]
set -eu
n=${1:-20}
cfg=${2:-}
cargo build --release -q -p lighthouse-cmd --bin lighthouse
bin=target/release/lighthouse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$cfg" ]; then
    cfg=$tmp/small.json
    cat >"$cfg" <<'JSON'
{ "mode": "TO",
  "tors": { "count": 4, "uplinks": 1, "link_rate": "1Gbps", "hosts_per_tor": 2, "host_link_rate": "1Gbps" },
  "ocs": { "count": 1, "ports": 4, "reconfiguration_delay": "10us", "cabling": "auto" },
  "slice": { "duration": "100us", "guardband": "10us" },
  "topology": { "kind": "round_robin" }, "routing": { "algorithm": "direct" } }
JSON
fi
links_before=$(ip -o link | awk -F': ' '{print $2}' | sort)
left=0
i=1
while [ "$i" -le "$n" ]; do
    p=$(printf 'lh%04x' "$(shuf -i 0-65535 -n 1)")
    [ -e "/run/lighthouse/$p" ] && continue
    ms=$(shuf -i 0-3000 -n 1)
    # stdin: a pipe that stays open past the kill (5 s > 3 s), with a process
    # inside h1 for clean to find.
    # $! of a background pipeline is its last command: lighthouse itself.
    (echo "h1 sleep 300 &"; sleep 5) | "$bin" run "$cfg" --prefix "$p" >/dev/null 2>&1 &
    pid=$!
    sleep "$(echo "$ms" | awk '{printf "%.3f", $1/1000}')"
    # The run's namespace inodes, to find processes left inside them later.
    inodes=$(for f in /run/netns/"$p"-*; do [ -e "$f" ] && stat -L -c %i "$f"; done 2>/dev/null || true)
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    "$bin" clean --prefix "$p" >"$tmp/clean.txt" 2>&1 || true
    ns=$(ip netns list | grep -c "^$p-" || true)
    dir=0; [ -e "/run/lighthouse/$p" ] && dir=1
    links_now=$(ip -o link | awk -F': ' '{print $2}' | sort)
    links=0; [ "$links_now" = "$links_before" ] || links=1
    procs=0
    for ino in $inodes; do
        k=$(find /proc/[0-9]*/ns/net -maxdepth 0 -lname "net:\[$ino\]" 2>/dev/null | wc -l)
        procs=$((procs + k))
    done
    total=$((ns + dir + links + procs))
    echo "run $i: $p killed after ${ms} ms: leftovers ns=$ns dir=$dir root-links=$links procs=$procs"
    left=$((left + total))
    i=$((i + 1))
done
echo "SIGKILL loop: $n runs, $left leftovers"
[ "$left" -eq 0 ]
