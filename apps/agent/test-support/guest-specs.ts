import type { GuestSpec, GuestVolume } from '@corral/protocol';

/*
 * The sample guests of the driver specs: the ones of the protocol's golden fixtures
 * (libs/protocol/fixtures/commands), so that every driver is tested on what the control plane sends.
 */

export const GIB = 1024 ** 3;

/** VM 100 of guest.start's fixture: one qcow2 disk of 32 GiB and one card on vmbr0. */
export const WEB1: GuestSpec = {
  type: 'qemu',
  vmid: 100,
  name: 'web1',
  memoryMiB: 2048,
  cores: 2,
  sockets: 1,
  cpu: 'x86-64-v2-AES',
  ostype: 'l26',
  template: false,
  nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:01', bridge: 'vmbr0', model: 'virtio' }],
  volumes: [
    {
      key: 'scsi0',
      volid: 'local:100/vm-100-disk-0.qcow2',
      path: '/var/lib/vz/images/100/vm-100-disk-0.qcow2',
      format: 'qcow2',
      size: 32 * GIB,
    },
  ],
  config: {
    name: 'web1',
    memory: '2048',
    cores: '2',
    cpu: 'x86-64-v2-AES',
    ostype: 'l26',
    net0: 'virtio=BC:24:11:3A:5F:01,bridge=vmbr0',
    scsi0: 'local:100/vm-100-disk-0.qcow2,size=32G',
    scsihw: 'virtio-scsi-single',
    smbios1: 'uuid=7d1c1f0e-2f3a-4b5c-8d9e-0a1b2c3d4e5f',
    boot: 'order=scsi0;net0',
  },
};

/** CT 200 of guest.create's fixture: a root directory of 8 GiB and one card with a static address on vmbr0. */
export const DB1: GuestSpec = {
  type: 'lxc',
  vmid: 200,
  name: 'db1',
  memoryMiB: 512,
  cores: 1,
  sockets: 1,
  ostype: 'debian',
  template: false,
  nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:02', bridge: 'vmbr0', name: 'eth0', ip: '192.0.2.20/24', gw: '192.0.2.1' }],
  volumes: [
    {
      key: 'rootfs',
      volid: 'local:200/subvol-200-disk-0',
      path: '/var/lib/vz/images/200/subvol-200-disk-0',
      format: 'subvol',
      size: 8 * GIB,
    },
  ],
  config: {
    hostname: 'db1',
    memory: '512',
    swap: '512',
    cores: '1',
    ostype: 'debian',
    arch: 'amd64',
    net0: 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:3A:5F:02,ip=192.0.2.20/24,gw=192.0.2.1,type=veth',
    rootfs: 'local:200/subvol-200-disk-0,size=8G',
  },
};

/** A container volume directory of 1 GiB on `local`, as the native driver keeps them. */
export function subvolume(vmid: number, key = 'rootfs', disk = 0): GuestVolume {
  return {
    key,
    volid: `local:${vmid}/subvol-${vmid}-disk-${disk}`,
    path: `/var/lib/vz/images/${vmid}/subvol-${vmid}-disk-${disk}`,
    format: 'subvol',
    size: GIB,
  };
}

/** A small container `ct<vmid>` with its root directory on `local` and no cards, unless `changes` say otherwise. */
export function smallContainer(vmid: number, changes: Partial<GuestSpec> = {}): GuestSpec {
  return {
    type: 'lxc',
    vmid,
    name: `ct${vmid}`,
    memoryMiB: 128,
    cores: 1,
    sockets: 1,
    ostype: 'alpine',
    template: false,
    nics: [],
    volumes: [subvolume(vmid)],
    config: {},
    ...changes,
  };
}
