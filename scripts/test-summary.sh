#!/usr/bin/env bash
# The closing lines of `make test`, from the log of `cargo test`: how many
# P4 tests ran and skipped (each prints `P4 RAN: NAME` or `SKIPPED NAME: ...`
# on stderr, bmv2_thrift::require), then the totals over every test binary.
#   scripts/test-summary.sh LOG [EXIT]
# Exits with EXIT (cargo's status, default 0), or 1 when the P4 toolchain
# is required here (scripts/check-p4.sh's rule) and no P4 test ran.
set -uo pipefail
log=$1 status=${2:-0}
root=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
# A test's line to stderr lands after libtest's "test NAME ... " on stdout.
marks() { grep -oE "(^|\.\.\. )$1.*" "$log" | sed -E 's/^\.\.\. //'; }
p4_ran=$(marks 'P4 RAN: ' | wc -l)
p4_skipped=$(marks 'SKIP(PED)?:? ' | grep -ciE 'p4|simple_switch|bmv2')
skips=$(marks 'SKIP(PED)?:? ' | wc -l)
read -r passed failed ignored < <(awk '/^test result: /{
  for (i = 1; i <= NF; i++) {
    if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) g += $i
  }} END { print p+0, f+0, g+0 }' "$log")
echo "P4 tests: $p4_ran ran, $p4_skipped skipped"
if [ "$p4_ran" -eq 0 ] && [ "$status" -eq 0 ] && [ "${LH_REQUIRE_P4:-}" != 0 ] && \
   { [ "${LH_REQUIRE_P4:-}" = 1 ] || [ -d "$root/../shared/toolchains" ]; }; then
  echo "test-summary: ERROR: no P4 test ran, but the P4 toolchain is required here" >&2
  status=1
fi
[ "$ignored" -eq 0 ] || echo "($ignored tests ignored)"
echo "tests: $passed passed, $failed failed, $skips skipped"
exit "$status"
