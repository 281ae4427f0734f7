#!/usr/bin/env bash
# Installs what the demo and the tests need on a fresh Debian 12 or Ubuntu 24.04
# machine (python3: the Mininet topology exporter, docs/mininet.md; memcached:
# the memcached application, docs/cli.md#applications-memcached-allreduce;
# fonts-dejavu-core: the font of the experiments' PNG plots; chromium: the
# dashboard's browser tests; tshark: the Wireshark dissector's tests,
# cmd/tests/dissector.rs).
# Idempotent and quick when everything is present.
set -euo pipefail

need_pkgs=()
for pair in ip:iproute2 ping:iputils-ping iperf3:iperf3 ethtool:ethtool python3:python3 memcached:memcached sysctl:procps tshark:tshark; do
  cmd=${pair%%:*}; pkg=${pair##*:}
  command -v "$cmd" >/dev/null 2>&1 || need_pkgs+=("$pkg")
done
# DejaVu Sans: the font of the experiments' PNG plots (experiments/src/plot.rs).
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_pkgs+=(fonts-dejavu-core)
# Debian's Chromium: the dashboard's browser tests (python/tests/test_dashboard.py).
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
# Mininet's own examples and their pexpect tests (Debian's mininet, without
# Open vSwitch): scripts/mininet-examples.py and its CI test run them on
# Lighthouse (docs/mininet.md). bridge-utils: real Mininet's lxbr switches,
# for the same script's real-Mininet side.
command -v mn >/dev/null 2>&1 || need_pkgs+=(mininet)
/usr/bin/python3 -c 'import pexpect' >/dev/null 2>&1 || need_pkgs+=(python3-pexpect)
command -v brctl >/dev/null 2>&1 || need_pkgs+=(bridge-utils)
# venv and ensurepip: the project virtualenv of scripts/setup-python.sh.
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_pkgs+=(python3-venv)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need root to install: ${need_pkgs[*]} (run with sudo)" >&2
    exit 1
  fi
  echo "setup: installing ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install a Rust toolchain (1.85 or newer), e.g. Debian's rustup or cargo package" >&2
  exit 1
fi

# The project virtualenv with `import lighthouse` (docs/python.md): make
# test's pytest runs in it. The demo does not need it, so a failure here
# (no network for PyPI on a first run) is reported and set-up goes on.
if [ "${LH_SETUP_NO_PYTHON:-}" != 1 ] && ! bash "$(dirname "$0")/setup-python.sh"; then
  echo "setup: WARNING: scripts/setup-python.sh failed; the Python tests will fail (docs/python.md)" >&2
fi
