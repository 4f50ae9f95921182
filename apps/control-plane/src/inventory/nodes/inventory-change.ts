import type { StorageSpace } from '@corral/protocol';
import type { NodeInventory } from './node.entity.js';

/** CPU load that moved by this much (of all CPUs) is news. */
const CPU_STEP = 0.05;
/** Memory or disk use that moved by this share of the total is news. */
const USE_STEP = 0.01;
/** An inventory this much older (by the host's uptime) is written anyway, so other replicas' uptime and load stay roughly current. */
const MAX_AGE_S = 60;

/**
 * Whether a new inventory differs enough from the one last written to be worth writing: what a
 * reader would notice, not every tick of load and uptime. At 2 s reports from
 * a thousand nodes, writing every report would be 500 writes a second for nothing.
 */
export function meaningfulChange(written: NodeInventory, next: NodeInventory): boolean {
  const elapsed = next.uptime - written.uptime;
  return (
    next.maxcpu !== written.maxcpu ||
    next.maxmem !== written.maxmem ||
    next.maxdisk !== written.maxdisk ||
    next.os !== written.os ||
    next.kernel !== written.kernel ||
    Math.abs(next.cpu - written.cpu) >= CPU_STEP ||
    Math.abs(next.mem - written.mem) >= USE_STEP * next.maxmem ||
    Math.abs(next.disk - written.disk) >= USE_STEP * next.maxdisk ||
    storagesChanged(written.storages ?? [], next.storages ?? []) ||
    // The host rebooted.
    elapsed < 0 ||
    elapsed >= MAX_AGE_S
  );
}

/** Another storage, one that became active or inactive or changed size, or a use that moved by a share of its total. */
function storagesChanged(written: readonly StorageSpace[], next: readonly StorageSpace[]): boolean {
  return (
    written.length !== next.length ||
    next.some((space, index) => {
      const before = written[index];
      return (
        before === undefined ||
        before.storage !== space.storage ||
        before.active !== space.active ||
        before.total !== space.total ||
        Math.abs(before.used - space.used) >= USE_STEP * space.total
      );
    })
  );
}
