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
#
# LIGHTHOUSE_PREBUILT=PATH (not for users: the path for users is rustup and
# a build inside). A lighthouse binary built elsewhere, such as the host's
# target/release/lighthouse handed into a VM that cannot fetch rustup or
# would take too long to build (TCG; scripts/vm-test.sh does this). Then:
# no toolchain and no cargo build; instead of scripts/setup.sh only the
# run-time packages above are checked (iproute2 ... fonts-dejavu-core; the
# build's test tools, tshark, chromium, mininet, the Python virtualenv, are
# not: they serve `make test`, which needs the toolchain), and apt runs only
# for those that are missing; where the archive cannot be reached that is
# one WARNING line naming them and provisioning goes on. The binary is
# installed as target/release/lighthouse, where the build would have put it
# (owned by --user), and --link links that as usual. E.g.
#   sudo LIGHTHOUSE_PREBUILT=/tmp/lighthouse scripts/provision.sh --user vagrant --link
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

prebuilt=${LIGHTHOUSE_PREBUILT:-}
if [ -n "$prebuilt" ]; then
  [ -f "$prebuilt" ] && [ -x "$prebuilt" ] \
    || { echo "provision: LIGHTHOUSE_PREBUILT=$prebuilt is not an executable file; unset it to build here" >&2; exit 1; }
  "$prebuilt" --version >/dev/null 2>&1 \
    || { echo "provision: LIGHTHOUSE_PREBUILT=$prebuilt does not run here (another architecture or libc?); unset it to build here" >&2; exit 1; }
  echo "provision: LIGHTHOUSE_PREBUILT=$prebuilt ($("$prebuilt" --version)): no toolchain, no build"
  # scripts/setup.sh's run-time packages (its test tools need the toolchain).
  need=()
  for pair in ip:iproute2 ping:iputils-ping iperf3:iperf3 ethtool:ethtool python3:python3 \
              memcached:memcached sysctl:procps; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair##*:}")
  done
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
  if [ ${#need[@]} -eq 0 ]; then
    echo "provision: run-time packages present (iproute2, iputils-ping, iperf3, ethtool, python3, memcached, procps, fonts-dejavu-core); apt not run"
  else
    echo "provision: installing ${need[*]}"
    apt_quick=(-o Acquire::Retries=0 -o Acquire::http::Timeout=20 -o Acquire::https::Timeout=20)
    if ! { apt-get "${apt_quick[@]}" update -qq && \
           apt-get "${apt_quick[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
      echo "provision: WARNING: could not install ${need[*]} (is the package archive reachable?); going on without them" >&2
    fi
  fi
  echo "provision: skipped with LIGHTHOUSE_PREBUILT, scripts/setup.sh's test tools: tshark, chromium, mininet, python3-pexpect, bridge-utils, python3-venv, the Python virtualenv"
  bash "$root/scripts/setup-p4.sh" || true
  bash "$root/scripts/check-p4.sh"
  bin="$root/target/release/lighthouse"
  if ! [ "$prebuilt" -ef "$bin" ]; then
    owner=()
    [ -n "$user" ] && owner=(-o "$user" -g "$(id -gn "$user")")
    for d in "$root/target" "$root/target/release"; do
      [ -d "$d" ] || install -d "${owner[@]}" "$d"
    done
    install -m 0755 "${owner[@]}" "$prebuilt" "$bin"
  fi
  if [ "$link" = 1 ]; then
    ln -sf "$bin" /usr/local/bin/lighthouse
  fi
  "$bin" lab list >/dev/null
  echo "provision: ready ($bin, from LIGHTHOUSE_PREBUILT; labs: lighthouse lab list)"
  exit 0
fi

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
