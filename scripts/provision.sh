#!/usr/bin/env bash
# Provisions a machine for Lighthouse and its labs: the student VM
# (vagrant/Vagrantfile) runs it, and so does CI on the build machine
# (.ci/run), so both get the same set-up. Idempotent; root.
#
#   scripts/provision.sh [--user NAME] [--link]
#
#   --user NAME  build as NAME (the VM's `vagrant` user owns the checkout)
#   --link       link target/release/lighthouse into /usr/local/bin (VM only;
#                a shared build machine keeps its PATH untouched)
#
# Steps: a Rust toolchain >= 1.85 (rustup into /opt/rust when missing or
# too old); scripts/setup.sh (iproute2, ping, iperf3, ethtool, python3,
# memcached, procps, fonts-dejavu-core);
# scripts/setup-p4.sh (BMv2 and p4c; package-repository lines isolated
# there); a release build of the workspace; `lighthouse lab list`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
user="" link=0
while [ $# -gt 0 ]; do
  case "$1" in
    --user) user=$2; shift 2 ;;
    --link) link=1; shift ;;
    *) echo "provision: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "provision: run as root (sudo)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

# Rust 1.85+ (edition 2024).
export PATH="/opt/rust/bin:$PATH"
# A toolchain an earlier run put into /opt/rust (rustup's proxies need it).
[ -d /opt/rust/toolchains ] && export RUSTUP_HOME=/opt/rust CARGO_HOME=/opt/rust
rust_ok() {
  command -v cargo >/dev/null 2>&1 || return 1
  local v; v=$(rustc --version | awk '{print $2}')
  [ "$(printf '%s\n1.85.0\n' "$v" | sort -V | head -n1)" = 1.85.0 ]
}
if rust_ok; then
  echo "provision: $(rustc --version)"
else
  echo "provision: installing Rust (rustup, stable) into /opt/rust"
  apt-get install -y -qq --no-install-recommends curl ca-certificates build-essential >/dev/null
  export RUSTUP_HOME=/opt/rust CARGO_HOME=/opt/rust
  curl -fsSL https://sh.rustup.rs | sh -s -- -y --no-modify-path --profile minimal
  chmod -R a+rX /opt/rust
  printf 'export RUSTUP_HOME=/opt/rust\nexport PATH=/opt/rust/bin:$PATH\n' > /etc/profile.d/rust.sh
fi

bash "$root/scripts/setup.sh"

# Where the toolchain is required (../shared/toolchains beside the checkout,
# or LH_REQUIRE_P4=1), a failed install fails provisioning; elsewhere the
# P4 tests skip visibly (scripts/check-p4.sh says which).
bash "$root/scripts/setup-p4.sh" || true
bash "$root/scripts/check-p4.sh"

build() { (cd "$root" && cargo build --release --workspace); }
if [ -n "$user" ]; then
  runuser -u "$user" -- env PATH="$PATH" ${RUSTUP_HOME:+RUSTUP_HOME=$RUSTUP_HOME} \
    bash -c "cd '$root' && cargo build --release --workspace"
else
  build
fi
if [ "$link" = 1 ]; then
  ln -sf "$root/target/release/lighthouse" /usr/local/bin/lighthouse
fi
"$root/target/release/lighthouse" lab list >/dev/null
echo "provision: ready ($root/target/release/lighthouse; labs: lighthouse lab list)"
