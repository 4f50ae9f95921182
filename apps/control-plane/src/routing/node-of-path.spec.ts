import { guestOfPath, nodeOfPath, servedByAnyReplica } from './node-of-path.js';

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

describe('the requests for a node that any replica serves', () => {
  it('are the reads of its tasks, from the database: the list, one task, its status (with ?wait=) and its log', () => {
    for (const url of [
      '/api2/json/nodes/pve2/tasks',
      '/api2/json/nodes/pve2/tasks?vmid=100&limit=5',
      '/api2/json/nodes/pve2/tasks/UPID%3Apve2%3A0000A1B2%3A00C0FFEE%3A6560A1B2%3Aqmstart%3A100%3Aroot%40pam%3A',
      '/api2/json/nodes/pve2/tasks/UPID:pve2:0000A1B2:00C0FFEE:6560A1B2:qmstart:100:root@pam:/status?wait=30',
      '/api2/json/nodes/pve2/tasks/UPID:pve2:0000A1B2:00C0FFEE:6560A1B2:qmstart:100:root@pam:/log?start=0&limit=50',
    ])
      expect(servedByAnyReplica('GET', url)).toBe('database');
  });

  it("are the reads of its history and of its guests' and storages', from the database, and their graphs", () => {
    for (const url of [
      '/api2/json/nodes/pve2/rrddata?timeframe=hour',
      '/api2/json/nodes/pve2/rrd?timeframe=day&ds=cpu',
      '/api2/json/nodes/pve2/qemu/100/rrddata?timeframe=week&cf=MAX',
      '/api2/json/nodes/pve2/lxc/105/rrddata',
      '/api2/json/nodes/pve2/storage/local/rrddata?timeframe=year',
    ])
      expect(servedByAnyReplica('GET', url)).toBe('database');
    for (const url of [
      '/api2/json/nodes/pve2/rrddatax',
      '/api2/json/nodes/pve2/qemu/100/status/rrddata',
      '/api2/json/nodes/pve2/storage/a/b/rrd',
    ])
      expect(servedByAnyReplica('GET', url)).toBeNull();
  });

  it("are the reads of its guests, from the guest view: the lists, a guest's index, config, pending changes and current status", () => {
    for (const url of [
      '/api2/json/nodes/pve2/qemu',
      '/api2/json/nodes/pve2/lxc?full=1',
      '/api2/json/nodes/pve2/qemu/100',
      '/api2/json/nodes/pve2/lxc/100/',
      '/api2/json/nodes/pve2/qemu/100/config',
      '/api2/json/nodes/pve2/qemu/100/config?current=1',
      '/api2/json/nodes/pve2/lxc/105/pending',
      '/api2/json/nodes/pve2/qemu/100/status/current',
    ])
      expect(servedByAnyReplica('GET', url)).toBe('view');
  });

  it("are not a task's stop, a guest's change, nor anything else of the node", () => {
    for (const [method, url] of [
      ['DELETE', '/api2/json/nodes/pve2/tasks/UPID:pve2:0000A1B2:00C0FFEE:6560A1B2:qmstart:100:root@pam:'],
      ['PUT', '/api2/json/nodes/pve2/qemu/100/config'],
      ['POST', '/api2/json/nodes/pve2/qemu/100/config'],
      ['POST', '/api2/json/nodes/pve2/qemu'],
      ['GET', '/api2/json/nodes/pve2/tasks/UPID:pve2:1:2:3:qmstart:100:root@pam:/other'],
      ['GET', '/api2/json/nodes/pve2/taskss'],
      ['GET', '/api2/json/nodes/pve2/qemu/100/status'],
      ['GET', '/api2/json/nodes/pve2/qemu/100/agent/info'],
      ['GET', '/api2/json/nodes/pve2/qemu/100/configs'],
      ['GET', '/api2/json/nodes/pve2/qemux'],
      ['GET', '/api2/json/nodes/pve2/status'],
    ] as const)
      expect(servedByAnyReplica(method, url)).toBeNull();
  });
});
