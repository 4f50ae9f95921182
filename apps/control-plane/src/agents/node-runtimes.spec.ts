import type { GuestRuntime } from '@corral/protocol';
import { NodeRuntimes } from './node-runtimes.js';

const vm = (vmid: number, status: GuestRuntime['status'] = 'stopped'): GuestRuntime => ({
  vmid,
  type: 'qemu',
  status,
  uptime: 0,
  cpu: 0,
  mem: 0,
});

describe("the nodes' run state from their runtime reports", () => {
  it('applies each report of changes on top of the one it follows, and a whole report in place of all', () => {
    const runtimes = new NodeRuntimes();
    expect(runtimes.apply('pve1', 's1', 3, { guests: [vm(100), vm(101)] })).toEqual({
      guests: new Map([
        [100, vm(100)],
        [101, vm(101)],
      ]),
      changed: 'all',
      making: new Set(),
    });
    const update = runtimes.apply('pve1', 's1', 5, { guests: [vm(100, 'running'), vm(102)], gone: [101], since: 3, making: [103] });
    expect(update?.changed).toEqual([101, 100, 102]);
    expect(update?.making).toEqual(new Set([103]));
    expect([...(update?.guests.values() ?? [])]).toEqual([vm(100, 'running'), vm(102)]);
    expect(runtimes.apply('pve1', 's1', 6, { guests: [vm(104)] })?.guests).toEqual(new Map([[104, vm(104)]]));
  });

  it('drops a report of changes that follows one it never applied: of another session, another number, or another node', () => {
    const runtimes = new NodeRuntimes();
    runtimes.apply('pve1', 's1', 3, { guests: [vm(100)] });
    expect(runtimes.apply('pve1', 's2', 4, { guests: [vm(101)], gone: [], since: 3 })).toBeUndefined();
    expect(runtimes.apply('pve1', 's1', 5, { guests: [vm(101)], gone: [], since: 4 })).toBeUndefined();
    expect(runtimes.apply('pve2', 's1', 5, { guests: [vm(101)], gone: [], since: 3 })).toBeUndefined();
    expect(runtimes.apply('pve1', 's1', 6, { guests: [vm(102)], gone: [100], since: 3 })?.guests).toEqual(new Map([[102, vm(102)]]));
  });
});
