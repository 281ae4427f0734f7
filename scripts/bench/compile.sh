#!/usr/bin/env bash
# Compile-time benchmark (issue: controller core): opera-108, all pairs x all
# slices, Rust pipeline vs a plain Python/networkx implementation measured in
# the same run. Prints a markdown table for docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
cfg=${1:-topologies/opera-108.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build --release -q -p lighthouse-ctrl --example bench_compile
bin=target/release/examples/bench_compile
$bin "$cfg" --schedule-out "$tmp/schedule.json" direct vlb hoho ucmp > "$tmp/rust.jsonl"
python3 -c 'import networkx' 2>/dev/null || pip install -q networkx
python3 scripts/bench/ref_routing.py "$tmp/schedule.json" > "$tmp/py.json"
python3 - "$tmp/rust.jsonl" "$tmp/py.json" <<'PY'
import json, sys, os
rust = [json.loads(l) for l in open(sys.argv[1])]
py = json.load(open(sys.argv[2]))
print(f"load average: {os.getloadavg()[0]:.1f}")
print("| algorithm | schedule ms | routing ms | tables ms | total ms | paths | Python/networkx routing s | routing speed-up | total speed-up |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rust:
    ref = py.get(r["algorithm"] + "_s")
    su = f"{ref * 1000 / r['routing_ms']:.0f}x" if ref else "-"
    tu = f"{ref * 1000 / r['total_ms']:.0f}x" if ref else "-"
    print(f"| {r['algorithm']} | {r['schedule_ms']:.0f} | {r['routing_ms']:.0f} | {r['tables_ms']:.0f} | {r['total_ms']:.0f} | {r['paths']} | {ref if ref else '-'} | {su} | {tu} |")
PY
