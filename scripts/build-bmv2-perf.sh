#!/usr/bin/env bash
# A performance build of BMv2's simple_switch, beside the stock one (issue
# 41, item 3; docs/performance.md, "BMv2 builds"). The same release as the
# stock toolchain (1.15.5), configured the way p4lang's README advises for
# performance: the debug and trace logging macros compiled out
# (--disable-logging-macros), no event logger (--disable-elogger, and so no
# nanomsg), no structured packet tracing (--without-packet-trace), -O3. The
# stock build stays where it is.
#
#   sudo bash scripts/build-bmv2-perf.sh            # into /opt/p4-perf
#   PATH=/opt/p4-perf/bin:$PATH cargo run --release -p lighthouse-emu --example bench_p4 -- 5 3
#
# Variables: PREFIX (default /opt/p4-perf), BMV2_GIT (the repository to
# clone; a local mirror works), BMV2_REF (default the tag 1.15.5), JOBS.
# Needs root for Debian's build dependencies and for the prefix. Took 7
# minutes on 2 cores (Debian 12). Idempotent: does nothing when
# $PREFIX/bin/simple_switch runs.
set -euo pipefail
PREFIX=${PREFIX:-/opt/p4-perf}
BMV2_GIT=${BMV2_GIT:-https://github.com/p4lang/behavioral-model.git}
BMV2_REF=${BMV2_REF:-1.15.5}
JOBS=${JOBS:-$(nproc)}

if "$PREFIX/bin/simple_switch" --version >/dev/null 2>&1; then
  echo "build-bmv2-perf: $PREFIX/bin/simple_switch already built ($("$PREFIX/bin/simple_switch" --version))"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "build-bmv2-perf: run as root (sudo)" >&2; exit 1; }

# BMv2's README lists most of these for Ubuntu (its configure also wants
# xxhash and jsoncpp); Debian 12 carries all of them,
# Thrift included (0.17, which BMv2's configure accepts).
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  automake autoconf libtool pkg-config g++ make flex bison git \
  libgmp-dev libpcap-dev libboost-dev libboost-program-options-dev \
  libboost-system-dev libboost-filesystem-dev libboost-thread-dev \
  libevent-dev libssl-dev libxxhash-dev libjsoncpp-dev libthrift-dev thrift-compiler >/dev/null

work=$(mktemp -d /var/tmp/lh-bmv2-perf.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q --depth 1 --branch "$BMV2_REF" "$BMV2_GIT" "$work/src"
cd "$work/src"
echo "build-bmv2-perf: $(git log -1 --format='%h %s')"
./autogen.sh >/dev/null
./configure --prefix="$PREFIX" --with-thrift --without-nanomsg \
  --without-packet-trace --disable-logging-macros --disable-elogger \
  CXXFLAGS="-O3 -g" CFLAGS="-O3 -g" >/dev/null
# Only what simple_switch needs: the Thrift runtime, the simulator library
# and the target (the other targets and the unit tests are not built).
for d in thrift_src third_party src include targets/simple_switch; do
  make -s -j"$JOBS" -C "$d"
done
for d in thrift_src src include targets/simple_switch; do
  make -s -C "$d" install
done
"$PREFIX/bin/simple_switch" --version
echo "build-bmv2-perf: installed into $PREFIX (PATH=$PREFIX/bin:\$PATH to use it)"
