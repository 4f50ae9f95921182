import type { StorageSpace } from '@corral/protocol';
import { meaningfulChange } from './inventory-change.js';
import type { NodeInventory } from './node.entity.js';

const GIB = 1024 ** 3;
const WRITTEN: NodeInventory = {
  cpu: 0.1,
  maxcpu: 8,
  mem: 4 * GIB,
  maxmem: 16 * GIB,
  uptime: 1000,
  disk: 10 * GIB,
  maxdisk: 100 * GIB,
  os: 'Debian GNU/Linux 13 (trixie)',
  kernel: '6.12.38+deb13-amd64',
  storages: [{ storage: 'local', active: true, total: 100 * GIB, used: 40 * GIB, avail: 60 * GIB }],
};
const local = (change: Partial<StorageSpace>): StorageSpace[] => [{ ...(WRITTEN.storages?.[0] as StorageSpace), ...change }];

describe('a meaningful change of a node inventory', () => {
  it('is not a tick of load, uptime or use', () => {
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, cpu: 0.12, uptime: 1010, mem: 4.1 * GIB, storages: local({ used: 40.5 * GIB }) })).toBe(
      false,
    );
  });

  it("is a storage's use that moved by 1 % of its size, a storage that became inactive or changed size, or another set of storages", () => {
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, storages: local({ used: 41 * GIB }) })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, storages: local({ active: false, total: 0, used: 0, avail: 0 }) })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, storages: local({ total: 200 * GIB }) })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, storages: local({ storage: 'other' }) })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, storages: [] })).toBe(true);
    const { storages: _none, ...without } = WRITTEN;
    expect(meaningfulChange(without, WRITTEN)).toBe(true);
    expect(meaningfulChange(without, { ...without, uptime: 1001 })).toBe(false);
  });

  it('is a host fact that changed, a reboot, or a minute without a write', () => {
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, kernel: '6.12.41+deb13-amd64' })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, uptime: 5 })).toBe(true);
    expect(meaningfulChange(WRITTEN, { ...WRITTEN, uptime: 1060 })).toBe(true);
  });
});
