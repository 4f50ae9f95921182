import { SimGuests } from './sim-guests.js';
import type { SimGuest } from './sim-state.js';

const guest = (vmid: number, volids: string[]): SimGuest => ({
  type: 'qemu',
  vmid,
  name: `vm${vmid}`,
  memoryMiB: 512,
  template: false,
  status: 'stopped',
  volids,
});

describe('the simulated guests', () => {
  it('knows which volume ids are held as guests are added, replaced and removed, keeping their order', () => {
    const guests = new SimGuests();
    guests.set(guest(100, ['local:100/a', 'local:100/b']));
    guests.set(guest(101, ['local:101/a']));
    guests.set(guest(100, ['local:100/b', 'local:100/c']));
    expect([...guests.values()].map((held) => held.vmid)).toEqual([100, 101]);
    expect(['local:100/a', 'local:100/b', 'local:100/c', 'local:101/a'].map((volid) => guests.holds(volid))).toEqual([
      false,
      true,
      true,
      true,
    ]);
    guests.delete(100);
    expect(guests.holds('local:100/b')).toBe(false);
    expect(guests.get(100)).toBeUndefined();
    expect(guests.holds('local:101/a')).toBe(true);
  });
});
