import type { GuestVolume } from '@corral/protocol';
import type { Host } from '../../../host/host.js';
import { convertImagePlan, createImagePlan } from './qemu-images.js';

const host: Host = { root: '/srv/host', live: false };

function volume(overrides: Partial<GuestVolume> = {}): GuestVolume {
  return {
    key: 'scsi0',
    volid: 'local:101/vm-101-disk-0.qcow2',
    path: '/images/101/vm-101-disk-0.qcow2',
    format: 'qcow2',
    size: 67108864,
    ...overrides,
  };
}

describe('qemu-img plans', () => {
  it("creates an image of the volume's format and size under the host root", () => {
    expect(createImagePlan(host, 101, volume({ format: 'raw', path: '/images/101/vm-101-disk-0.raw' })).args).toEqual([
      'create',
      '-f',
      'raw',
      '/srv/host/images/101/vm-101-disk-0.raw',
      '67108864',
    ]);
  });

  it("creates a linked clone as a qcow2 overlay naming its base's format, never probing it", () => {
    expect(createImagePlan(host, 101, volume({ base: '/images/100/base-100-disk-0.raw' })).args).toEqual([
      ...['create', '-f', 'qcow2', '-F', 'raw', '-b', '/srv/host/images/100/base-100-disk-0.raw'],
      ...['/srv/host/images/101/vm-101-disk-0.qcow2', '67108864'],
    ]);
  });

  it('refuses a raw linked clone, a base of no known format and a subvol, naming the VM and the volume', () => {
    expect(() => createImagePlan(host, 101, volume({ format: 'raw', base: '/images/100/base-100-disk-0.qcow2' }))).toThrow(
      'VM 101: volume scsi0 is a linked clone, so it must be qcow2, not raw',
    );
    expect(() => createImagePlan(host, 101, volume({ base: '/images/100/base-100-disk-0.vmdk' }))).toThrow(
      'VM 101: the base image of volume scsi0, /images/100/base-100-disk-0.vmdk, is neither .qcow2 nor .raw',
    );
    expect(() => createImagePlan(host, 101, volume({ format: 'subvol' }))).toThrow(
      'VM 101: volume scsi0 must be a qcow2 or raw image, not a subvol',
    );
  });

  it("copies a full clone from the source's format into the target's", () => {
    const source = volume({ path: '/images/100/vm-100-disk-0.raw', format: 'raw' });
    expect(convertImagePlan(host, 101, source, volume()).args).toEqual([
      'convert',
      '-f',
      'raw',
      '-O',
      'qcow2',
      '/srv/host/images/100/vm-100-disk-0.raw',
      '/srv/host/images/101/vm-101-disk-0.qcow2',
    ]);
  });
});
