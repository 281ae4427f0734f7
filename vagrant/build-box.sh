#!/usr/bin/env bash
# Builds the Lighthouse student VM's image from Debian's packages alone
# (mmdebstrap): Debian 12 with its stock kernel (linux-image-amd64, which
# has netem and Open vSwitch's datapath, unlike some hosts' kernels),
# systemd, udev, kmod, iproute2, ping, openssh-server, sudo, iperf3,
# python3, memcached, fonts-dejavu-core (the run-time packages of
# scripts/provision.sh, so that it provisions this offline guest with
# LIGHTHOUSE_PREBUILT and installs nothing), and a `vagrant` user with Vagrant's well-known insecure key.
#
#   vagrant/build-box.sh [--out DIR] [--size GB] [--mirror URL]
#
# Writes into DIR (default /var/tmp/lighthouse-vm, never the checkout):
#   lighthouse-debian12.qcow2   the disk (MBR, one ext4 partition, GRUB),
#                               bootable by plain qemu or by libvirt
#   vmlinuz, initrd.img         the guest's kernel and initrd, for qemu's
#                               -kernel/-initrd (scripts/vm-test.sh)
#   lighthouse-debian12.box     a libvirt Vagrant box (metadata.json,
#                               Vagrantfile, box.img): vagrant/README.md
#
# Root; needs mmdebstrap, qemu-system-x86, qemu-utils, e2fsprogs and fdisk
# (scripts/setup-vm.sh installs them). GRUB goes onto the disk from inside
# the guest on a first boot (no loop device or mount on the host). The
# guest's image also carries the runner scripts/vm-test.sh uses: booted
# with `lhvm.run` on its kernel command line, it mounts the 9p share
# `lhvm` and runs its guest.sh; otherwise (a Vagrant box) it does nothing.
set -euo pipefail
out=/var/tmp/lighthouse-vm size=8 mirror=http://deb.debian.org/debian
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --mirror) mirror=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "build-box: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
# Bad input: one line naming the fix, before anything is created.
[ "$(id -u)" -eq 0 ] || { echo "build-box: run as root (sudo vagrant/build-box.sh)" >&2; exit 1; }
for t in mmdebstrap qemu-system-x86_64 qemu-img mkfs.ext4 sfdisk; do
  command -v "$t" >/dev/null 2>&1 || { echo "build-box: $t not found; run scripts/setup-vm.sh" >&2; exit 1; }
done
case "$size" in ''|*[!0-9]*) echo "build-box: --size takes whole GB, e.g. --size 8" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
case "$(realpath -m "$out")/" in
  "$(dirname "$here")"/*) echo "build-box: --out $out is inside the checkout; pick a directory outside it" >&2; exit 2 ;;
esac

mkdir -p "$out"
work=$(mktemp -d "$out/lhvm-build.XXXXXX")
qpid=""
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null || true; fi
  # mmdebstrap mounts proc, sys and devpts in the root while it runs; never
  # delete through a mount that an interrupted run may have left.
  grep -o " $work/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$(date +%s)
stamp() { echo "build-box: $1 ($(( $(date +%s) - t0 )) s)"; }

# --- 1. The root file system -------------------------------------------------
pkgs=linux-image-amd64,systemd-sysv,udev,kmod,dbus,iproute2,iputils-ping,procps,ethtool
pkgs+=,openssh-server,sudo,rsync,iperf3,python3,grub-pc,less,ca-certificates
# The rest of scripts/provision.sh's run-time packages (its LIGHTHOUSE_PREBUILT
# path checks for them and installs nothing when all are here).
pkgs+=,memcached,fonts-dejavu-core
# Vagrant's well-known insecure key (hashicorp/vagrant keys/vagrant.pub);
# `vagrant up` replaces it with a key of its own on first boot.
key='ssh-rsa AAAAB3NzaC1yc2EAAAABIwAAAQEA6NF8iallvQVp22WDkTkyrtvp9eWW6A8YVr+kz4TjGYe7gHzIw+niNltGEFHzD8+v1I2YJ6oXevct1YeS0o9HZyN1Q9qgCgzUFtdOKLv6IedplqoPkcmF0aYet2PkEDo3MlTBckFXPITAMzF8dJSIFo9D8HfdOV0IAdx4O7PtixWKn5y2hMNG0zQPyUecp4pzC6kivAIhyfHilFR61RGL+GPXQ2MWZWFYbAGjyiYJnAmCP3NOTd0jMZEnDkbUvxhMmBYSdETk1rRgm+R4LOzFUGaHqHDLKLX+FIPKcF96hrucXzcWyLbIbEgE98OHlnVYCzRdK8jlqm8tehUc9c9WhQ== vagrant insecure public key'

cat > "$work/customize.sh" <<'EOF'
#!/bin/sh
# mmdebstrap --customize-hook: $1 is the new root.
set -e
r=$1 key=$2
echo lighthouse > "$r/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tlighthouse\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$r/etc/hosts"
echo 'LABEL=lhvm-root / ext4 errors=remount-ro 0 1' > "$r/etc/fstab"
# The vagrant user: password vagrant, passwordless sudo, the insecure key.
chroot "$r" useradd -m -s /bin/bash -G sudo vagrant
echo 'vagrant:vagrant' | chroot "$r" chpasswd
echo 'vagrant ALL=(ALL) NOPASSWD: ALL' > "$r/etc/sudoers.d/vagrant"
chmod 0440 "$r/etc/sudoers.d/vagrant"
install -d -m 0700 -o 1000 -g 1000 "$r/home/vagrant/.ssh"
echo "$key" > "$r/home/vagrant/.ssh/authorized_keys"
chown 1000:1000 "$r/home/vagrant/.ssh/authorized_keys"
chmod 0600 "$r/home/vagrant/.ssh/authorized_keys"
echo 'UseDNS no' > "$r/etc/ssh/sshd_config.d/vagrant.conf"
# sshd's host keys are made at first boot, not baked into every box.
rm -f "$r"/etc/ssh/ssh_host_*
cat > "$r/etc/systemd/system/lhvm-ssh-keys.service" <<'UNIT'
[Unit]
Description=Make sshd's host keys
Before=ssh.service
ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key
[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -A
[Install]
WantedBy=multi-user.target
UNIT
chroot "$r" systemctl enable lhvm-ssh-keys.service systemd-networkd.service
# memcached is there for Lighthouse's memcached application, which starts
# its own in the hosts' namespaces: no daemon of the package's own.
chroot "$r" systemctl disable memcached.service 2>/dev/null || true
# DHCP on every wired interface (libvirt's management network).
cat > "$r/etc/systemd/network/50-dhcp.network" <<'NET'
[Match]
Name=en* eth*
[Network]
DHCP=yes
NET
# GRUB on the serial console too, and quickly.
sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=1/' \
  -e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=tty0 console=ttyS0,115200n8"/' "$r/etc/default/grub"
printf 'GRUB_TERMINAL="console serial"\nGRUB_SERIAL_COMMAND="serial --speed=115200"\n' >> "$r/etc/default/grub"
# The first boot's job (vagrant/build-box.sh): GRUB onto the disk, then off.
cat > "$r/usr/local/sbin/lhvm-firstboot" <<'FB'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mount -o remount,rw /
ok=0
grub-install --target=i386-pc /dev/vda && update-grub && ok=1
sync
echo "lhvm-firstboot: ok=$ok"
mount -o remount,ro /
echo 1 > /proc/sys/kernel/sysrq; echo o > /proc/sysrq-trigger
sleep 30
FB
chmod 0755 "$r/usr/local/sbin/lhvm-firstboot"
# The test runner (scripts/vm-test.sh): only with lhvm.run on the kernel's
# command line; runs the 9p share's guest.sh, logs into the share, powers off.
cat > "$r/usr/local/sbin/lhvm-run" <<'RUN'
#!/bin/sh
mkdir -p /mnt/lhvm
modprobe 9pnet_virtio 2>/dev/null
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 lhvm /mnt/lhvm; then
  echo "lhvm-run: guest up $(cut -d' ' -f1 /proc/uptime) s after boot" > /mnt/lhvm/out/boot
  bash /mnt/lhvm/guest.sh > /mnt/lhvm/out/log 2>&1
  echo $? > /mnt/lhvm/out/rc.tmp && mv /mnt/lhvm/out/rc.tmp /mnt/lhvm/out/rc
  sync
  umount /mnt/lhvm
else
  echo "lhvm-run: no 9p share lhvm" > /dev/console
fi
systemctl --no-block poweroff
RUN
chmod 0755 "$r/usr/local/sbin/lhvm-run"
cat > "$r/etc/systemd/system/lhvm-run.service" <<'UNIT'
[Unit]
Description=Lighthouse VM test runner (scripts/vm-test.sh)
ConditionKernelCommandLine=lhvm.run
# After the boot has settled (it is wanted by multi-user.target, and runs
# once that is reached): timings inside are not the boot's.
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/lhvm-run
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
chroot "$r" systemctl enable lhvm-run.service
# Smaller: no apt lists or caches in the image.
rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin
EOF
chmod +x "$work/customize.sh"

stamp "mmdebstrap: Debian 12 (bookworm) from $mirror"
mmdebstrap --variant=minbase --include="$pkgs" \
  --customize-hook="$work/customize.sh \"\$1\" '$key'" \
  bookworm "$work/root" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb ${mirror%/debian}/debian-security bookworm-security main" \
  > "$work/mmdebstrap.log" 2>&1 \
  || { tail -n 30 "$work/mmdebstrap.log" >&2; echo "build-box: mmdebstrap failed (above)" >&2; exit 1; }
kver=$(ls "$work/root/lib/modules" | sort -V | tail -n 1)
stamp "root built: kernel $kver, $(du -sm "$work/root" | cut -f1) MB"
# The guest's kernel has netem (a module), the point of the VM for tests.
ls "$work/root/lib/modules/$kver/kernel/net/sched/" | grep -q '^sch_netem' \
  || { echo "build-box: the guest kernel $kver has no sch_netem module" >&2; exit 1; }

# --- 2. The disk: MBR, one ext4 partition from 1 MiB -------------------------
raw=$work/disk.raw
truncate -s "${size}G" "$raw"
echo 'start=2048, type=83, bootable' | sfdisk -q "$raw"
mkfs.ext4 -q -F -L lhvm-root -E offset=1048576 -d "$work/root" "$raw" $(( size * 1024 - 1 ))M
cp "$work/root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$work/root/boot/initrd.img-$kver" "$work/initrd.img"
stamp "disk laid out (${size} GB, sparse)"

# --- 3. First boot: GRUB onto the disk from inside the guest -----------------
accel=tcg
[ -w /dev/kvm ] && [ "${LHVM_ACCEL:-}" != tcg ] && accel=kvm
firstboot() { # accelerator, seconds
  timeout "$2" qemu-system-x86_64 -accel "$1" -m 1024 -smp 2 -nographic -no-reboot -nic none \
    -drive file="$raw",format=raw,if=virtio \
    -kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
    -append "root=/dev/vda1 rw console=ttyS0 init=/usr/local/sbin/lhvm-firstboot" \
    < /dev/null > "$work/firstboot.log" 2>&1 &
  qpid=$!
  # A KVM guest can hang in early boot on some hosts (nested
  # virtualisation, after "Probing EDD"): no kernel banner in 20 s, stop.
  if [ "$1" = kvm ]; then
    for _ in $(seq 200); do
      grep -qa 'Linux version' "$work/firstboot.log" && break
      kill -0 "$qpid" 2>/dev/null || break
      sleep 0.1
    done
    grep -qa 'Linux version' "$work/firstboot.log" || kill "$qpid" 2>/dev/null
  fi
  wait "$qpid" || true
  qpid=""
  grep -q 'lhvm-firstboot: ok=1' "$work/firstboot.log"
}
if ! { [ "$accel" = kvm ] && firstboot kvm 300; }; then
  [ "$accel" = kvm ] && echo "build-box: the KVM guest printed no kernel banner in 20 s (or failed); using TCG"
  accel=tcg
  firstboot tcg 600 || { tail -n 30 "$work/firstboot.log" >&2; echo "build-box: GRUB install in the guest failed (above)" >&2; exit 1; }
fi
stamp "GRUB installed from inside the guest (accel $accel)"

# --- 4. The outputs -------------------------------------------------------------
qemu-img convert -O qcow2 "$raw" "$work/lighthouse-debian12.qcow2"
rm -f "$raw"
mkdir "$work/box"
ln "$work/lighthouse-debian12.qcow2" "$work/box/box.img"
printf '{"provider": "libvirt", "format": "qcow2", "virtual_size": %d}\n' "$size" > "$work/box/metadata.json"
cat > "$work/box/Vagrantfile" <<'EOF'
# The Lighthouse student VM's Debian 12 box (vagrant/build-box.sh).
Vagrant.configure("2") do |config|
  config.vm.provider :libvirt do |lv|
    lv.disk_bus = "virtio"
    lv.nic_model_type = "virtio"
  end
end
EOF
tar -C "$work/box" -cf "$work/lighthouse-debian12.box" metadata.json Vagrantfile box.img
for f in lighthouse-debian12.qcow2 vmlinuz initrd.img lighthouse-debian12.box; do
  mv -f "$work/$f" "$out/$f"
done
echo "$kver" > "$out/kernel-version"
# Which recipe made the image: scripts/vm-test.sh refuses one made by
# another, and `make vm-test` rebuilds it.
sha256sum < "$0" | cut -d' ' -f1 > "$out/recipe"
stamp "done: $out/lighthouse-debian12.qcow2 ($(du -m "$out/lighthouse-debian12.qcow2" | cut -f1) MB), vmlinuz, initrd.img, lighthouse-debian12.box"
