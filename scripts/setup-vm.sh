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
# qemu-system-x86 and qemu-utils come from one QEMU release: installing
# Debian's qemu-system-x86 removes a qemu-utils from another (a backport's,
# as some images have), and qemu-img with it. Asking for both lets apt
# install a matching pair (seen in CI: qemu-img gone after this script).
if [[ " ${need[*]} " == *" qemu-system-x86 "* && " ${need[*]} " != *" qemu-utils "* ]]; then
  need+=(qemu-utils)
fi
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "setup-vm: need root to install: ${need[*]} (run with sudo)" >&2; exit 1; }
  echo "setup-vm: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# What the VM test runs must be here now, whatever apt removed on the way.
for cmd in mmdebstrap qemu-system-x86_64 qemu-img mkfs.ext4 sfdisk; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "setup-vm: $cmd is still missing after the install; install it (apt-get install qemu-utils for qemu-img) and run again" >&2; exit 1; }
done
echo "setup-vm: ready ($(qemu-system-x86_64 --version | head -n1); mmdebstrap $(mmdebstrap --version | awk '{print $2}'))"
