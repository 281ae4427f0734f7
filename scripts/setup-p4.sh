#!/usr/bin/env bash
# BMv2 (simple_switch) and p4c, for lab 07 and the P4 ToR target (docs/p4.md).
# Idempotent: does nothing when both run. Root.
#
# Order: (1) already installed -> done; (2) on the project's build machine the
# prebuilt toolchain ../shared/toolchains/install-p4.sh (beside the checkout)
# is used when it exists; (3) otherwise p4lang's Ubuntu packages. Only step 3
# needs a package repository outside the distribution, and it is the only
# part of provisioning that CI on the build machine cannot reach.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

have() { command -v "$1" >/dev/null 2>&1; }
if have simple_switch && { have p4c || have p4c-bm2-ss; } && simple_switch --version >/dev/null 2>&1; then
  echo "setup-p4: simple_switch and p4c already installed"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "setup-p4: run as root (sudo)" >&2; exit 1; }

fallback="$root/../shared/toolchains/install-p4.sh"
if [ -f "$fallback" ]; then
  echo "setup-p4: using the prebuilt toolchain $fallback"
  exec bash "$fallback"
fi

# ------------------------------------------------------------------------
# PACKAGE-REPOSITORY LINES: p4lang's packages on the openSUSE Build Service.
# (Not reachable from the project's build machine; exercised by `vagrant up`.)
# ------------------------------------------------------------------------
. /etc/os-release
if [ "${ID:-}" != ubuntu ]; then
  echo "setup-p4: p4lang publishes packages for Ubuntu; on ${PRETTY_NAME:-this system} build BMv2 and p4c from source (docs/p4.md)" >&2
  exit 1
fi
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "setup-p4: p4lang's packages are amd64 only; on $(dpkg --print-architecture) build BMv2 and p4c from source (vagrant/README.md, Apple Silicon)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
repo="https://download.opensuse.org/repositories/home:/p4lang/xUbuntu_${VERSION_ID}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends curl gnupg ca-certificates >/dev/null
echo "deb $repo/ /" > /etc/apt/sources.list.d/home-p4lang.list
curl -fsSL "$repo/Release.key" | gpg --dearmor --yes -o /etc/apt/trusted.gpg.d/home-p4lang.gpg
apt-get update -qq
apt-get install -y -qq p4lang-bmv2 p4lang-p4c >/dev/null
# ------------------------------------------------------------------------

simple_switch --version >/dev/null
echo "setup-p4: installed BMv2 $(simple_switch --version 2>&1 | head -n1) and p4c"
