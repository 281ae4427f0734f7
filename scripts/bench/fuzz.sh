#!/bin/sh
# Fuzz lighthouse's input parsers with cargo fuzz (libFuzzer), one target
# at a time (fuzzing is CPU heavy), and print one line per target:
#   target seconds execs crashes
#
#   scripts/bench/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS defaults to 60 (the benchmark's short run); docs/fuzzing.md records
# the 600-second runs. Targets: config schedule_file wire cli_line.
# Seeds: fuzz/seeds/<target> (topologies/, captured frames, CLI lines);
# the growing corpus lives in target/fuzz-corpus/<target> (not committed);
# crashes land in fuzz/artifacts/<target>/ and make the script exit 1.
# Needs the nightly toolchain and `cargo install cargo-fuzz`.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-config schedule_file wire cli_line}
logs=target/fuzz-logs
mkdir -p "$logs"
cargo +nightly fuzz build -O >/dev/null
status=0
for t in $targets; do
    corpus=target/fuzz-corpus/$t
    mkdir -p "$corpus"
    cp -n fuzz/seeds/$t/* "$corpus"/ 2>/dev/null || true
    log=$logs/$t-$secs.txt
    # -timeout: one input may take 10 s at most (a hang is a finding);
    # -rss_limit_mb: an allocation bomb is a finding too.
    set +e
    cargo +nightly fuzz run -O "$t" "$corpus" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(ls fuzz/artifacts/"$t" 2>/dev/null | wc -l)
    echo "$t ${secs}s execs=${execs:-?} rc=$rc artifacts=$crashes"
    [ "$rc" -ne 0 ] && status=1
done
exit $status
