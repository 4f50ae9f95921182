#!/usr/bin/env bash
# Debian packages the test suite drives: real PVE clients for the compatibility tests (proxmoxer,
# Ansible with community.general), HAProxy in front of several control-plane replicas, and the
# host tools the agent's commands run (nft, sgdisk, LVM, ip; its disk and storage tests also need root), and
# Chromium for the web console's browser tests (driven by playwright-core), QEMU and LXC with a static busybox for the native driver's real guests, genisoimage for its cloud-init drives,
# the UEFI firmware (ovmf) and the TPM emulator (swtpm, swtpm-tools) that its VMs' EFI disks and TPM state use.
# Installs only what is missing; needs root (or sudo) the first time.
set -euo pipefail
packages=(chromium python3-proxmoxer python3-requests ansible haproxy nftables gdisk lvm2 iproute2 qemu-system-x86 qemu-utils lxc busybox-static zstd genisoimage ovmf swtpm swtpm-tools)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Debian packages for the tests: ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
