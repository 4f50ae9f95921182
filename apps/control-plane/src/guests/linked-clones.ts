import { parseVolname } from '../storage/volumes.js';
import { isDiskKey, parseDisk } from '@corral/pve-formats';

type Config = Readonly<Record<string, string>>;

/**
 * The templates each config's disks are overlays of, by config: a guest's row (and its config) is
 * replaced, never changed, when the guest changes, so each config is parsed once, not at every
 * destroy, move or migration that asks which guests are linked clones.
 */
const basesOf = new WeakMap<Config, readonly number[]>();

function bases(config: Config): readonly number[] {
  let found = basesOf.get(config);
  if (found === undefined) {
    found = Object.entries(config).flatMap(([key, value]) => {
      if (!isDiskKey(key)) return [];
      const { source } = parseDisk(value);
      const base = source.kind === 'volume' ? parseVolname(source.volname)?.base?.vmid : undefined;
      return base === undefined ? [] : [base];
    });
    basesOf.set(config, found);
  }
  return found;
}

/** The VMs whose disks are overlays of VM `vmid`'s images (linked clones of the template). */
export function linkedClonesOf(vmid: number, guests: readonly { readonly vmid: number; readonly config: Config }[]): number[] {
  return guests
    .filter((guest) => bases(guest.config).includes(vmid))
    .map((guest) => guest.vmid)
    .sort((a, b) => a - b);
}
