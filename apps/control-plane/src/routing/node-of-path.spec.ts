import { guestOfPath, nodeOfPath } from './node-of-path.js';

describe('the node a request is for', () => {
  it('is the node its path names, decoded', () => {
    expect(nodeOfPath('/api2/json/nodes/pve2/qemu/100/status/start')).toBe('pve2');
    expect(nodeOfPath('/api2/json/nodes/pve2')).toBe('pve2');
    expect(nodeOfPath('/api2/json/nodes/pve2?wait=1')).toBe('pve2');
    expect(nodeOfPath('/api2/json/nodes/p%76e2/tasks')).toBe('pve2');
  });

  it('is none for the node list, other areas, other prefixes and malformed names', () => {
    for (const url of [
      '/api2/json/nodes',
      '/api2/json/nodes/',
      '/api2/json/cluster/resources',
      '/agent/v1',
      '/nodes/pve2',
      '/api2/json/nodes/%E0%A4%A/tasks',
    ])
      expect(nodeOfPath(url)).toBeNull();
  });
});

describe('the guest an HA move is for', () => {
  it('is the vmid of its sid, in any of its spellings', () => {
    expect(guestOfPath('/api2/json/cluster/ha/resources/vm:100/migrate')).toBe(100);
    expect(guestOfPath('/api2/json/cluster/ha/resources/ct%3A201/relocate')).toBe(201);
    expect(guestOfPath('/api2/json/cluster/ha/resources/300/migrate?node=b')).toBe(300);
  });

  it('is none for the other HA paths', () => {
    for (const url of [
      '/api2/json/cluster/ha/resources/vm:100',
      '/api2/json/cluster/ha/resources',
      '/api2/json/cluster/ha/resources/vm:100/migrated',
    ])
      expect(guestOfPath(url)).toBeNull();
  });
});
