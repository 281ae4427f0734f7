#!/usr/bin/env bash
# Installs, from Debian's packages, what the student VM's box build and the
# VM test need (vagrant/README.md): mmdebstrap (vagrant/build-box.sh),
# qemu-system-x86 and qemu-utils (scripts/vm-test.sh boots the image with
# plain qemu), e2fsprogs and fdisk (the disk image). With --vagrant also
# vagrant, vagrant-libvirt and libvirt-daemon-system (scripts/vm-test.sh
# --vagrant). Not part of scripts/setup.sh: `make vm-test` runs it (CI
# does, after `make test`).
# Idempotent and quick when everything is present. Root.
#
#   scripts/setup-vm.sh [--vagrant]
set -euo pipefail
vagrant=0
case "${1:-}" in
  "") ;;
  --vagrant) vagrant=1 ;;
  *) echo "setup-vm: unknown option $1 (use --vagrant or nothing)" >&2; exit 2 ;;
esac

need=()
for pair in mmdebstrap:mmdebstrap qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils \
            mkfs.ext4:e2fsprogs sfdisk:fdisk; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair##*:}")
done
if [ "$vagrant" = 1 ]; then
  command -v vagrant >/dev/null 2>&1 || need+=(vagrant)
  [ -d /usr/share/rubygems-integration/all/gems ] && ls /usr/share/rubygems-integration/all/gems 2>/dev/null | grep -q '^vagrant-libvirt' \
    || need+=(vagrant-libvirt)
  command -v libvirtd >/dev/null 2>&1 || need+=(libvirt-daemon-system)
  command -v virsh >/dev/null 2>&1 || need+=(libvirt-clients)
  # vagrant-libvirt's synced folders (rsync) and its default box format.
  command -v rsync >/dev/null 2>&1 || need+=(rsync)
  # DHCP on the management network: how vagrant-libvirt learns the address.
  command -v dnsmasq >/dev/null 2>&1 || [ -x /usr/sbin/dnsmasq ] || need+=(dnsmasq-base)
fi
# What is missing, as Debian packages. Run twice: installing Debian's
# qemu-system-x86 removes a qemu-utils from another QEMU release (a
# backport's, which some images have, breaks the older qemu-system-common),
# and qemu-img with it (seen in CI); the second pass installs the matching
# qemu-utils, which nothing then holds back.
missing() {
  local pair
  for pair in mmdebstrap:mmdebstrap qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils \
              mkfs.ext4:e2fsprogs sfdisk:fdisk; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || echo "${pair##*:}"
  done
}
for pass in 1 2; do
  [ ${#need[@]} -gt 0 ] || break
  [ "$(id -u)" -eq 0 ] || { echo "setup-vm: need root to install: ${need[*]} (run with sudo)" >&2; exit 1; }
  echo "setup-vm: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  [ "$pass" = 1 ] && apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  mapfile -t need < <(missing)
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup-vm: still missing after installing: ${need[*]}; install them (apt-get install ${need[*]}) and run again" >&2
  exit 1
fi
echo "setup-vm: ready ($(qemu-system-x86_64 --version | head -n1); mmdebstrap $(mmdebstrap --version | awk '{print $2}'))"
