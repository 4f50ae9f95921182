import type { GuestSpec, GuestType, GuestVolume, ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';

const GIB = 1024 ** 3;

/** The config key through which the control plane hands `pct create` its template as a PVE volume id. */
export const OSTEMPLATE_KEY = 'ostemplate';

/**
 * `qm create <vmid> --key value ...` / `pct create <vmid> <template> --key value ...` from the
 * guest's PVE config. PVE allocates new volumes itself, from `<storage>:<size in GiB>`: each volume
 * of `allocate` is given that way, with its other options (its size and name are PVE's to choose,
 * its format is kept). The other volumes are given as they are, and PVE attaches them.
 *
 * `pct create` wants its template as a PVE volume id (`local:vztmpl/debian-12.tar.zst`), which
 * the agent cannot derive from the host path in `ostemplate`; the control plane adds that volume id
 * to the config under `ostemplate`, which is not a config key of a container and is left out of
 * the options.
 */
export function createArguments({ guest, allocate, ignoreUnpackErrors }: ParamsOf<'guest.create'>): string[] {
  const config = allocated(guest, allocate);
  if (guest.type === 'qemu') return ['create', String(guest.vmid), ...options(config)];
  const template = config.get(OSTEMPLATE_KEY);
  if (template === undefined)
    throw new CommandFailure(
      'invalid-params',
      `pct create needs the template of CT ${guest.vmid} as a PVE volume id in config key ${OSTEMPLATE_KEY}`,
    );
  config.delete(OSTEMPLATE_KEY);
  return [
    'create',
    String(guest.vmid),
    template,
    ...options(config),
    ...(ignoreUnpackErrors === true ? ['--ignore-unpack-errors', '1'] : []),
  ];
}

/**
 * `pct restore <vmid> <archive> --key value ...`: a container's create from a backup archive in
 * place of a template. PVE allocates the volumes of `restore` as in a create and fills the root
 * from the archive; its config's other options are the control plane's.
 */
export function restoreArguments(guest: GuestSpec, archive: string, restore: readonly string[]): string[] {
  const config = allocated(guest, restore);
  config.delete(OSTEMPLATE_KEY);
  return ['restore', String(guest.vmid), archive, ...options(config)];
}

/**
 * `qm clone <source> <target> --name N --full 0|1` (`pct clone ... --hostname N`): a linked clone
 * when the target's volumes are overlays of the source's (`base`), else a full copy, onto the
 * target volumes' storage when they share one.
 */
export function cloneArguments({ source, target }: ParamsOf<'guest.clone'>): string[] {
  const full = target.volumes.every((volume) => volume.base === undefined);
  const storages = new Set(target.volumes.map((volume) => storageOf(volume)));
  const [storage] = storages;
  return [
    'clone',
    String(source.vmid),
    String(target.vmid),
    target.type === 'qemu' ? '--name' : '--hostname',
    target.name,
    '--full',
    full ? '1' : '0',
    ...(full && storages.size === 1 && storage !== undefined ? ['--storage', storage] : []),
  ];
}

/**
 * `qm set <target> --net0 ... --net1 ...` after a clone: PVE gives a clone new MAC addresses, the
 * control plane chose its own. Empty when the target has no card.
 */
export function cloneNicArguments({ target }: ParamsOf<'guest.clone'>): string[] {
  const nics = target.nics.flatMap((nic) => {
    const value = target.config[nic.key];
    return value === undefined ? [] : [`--${nic.key}`, value];
  });
  return nics.length === 0 ? [] : ['set', String(target.vmid), ...nics];
}

/** The guest's config with each volume of `keys` given as a new allocation. */
function allocated(guest: GuestSpec, keys: readonly string[]): Map<string, string> {
  const config = new Map(Object.entries(guest.config));
  for (const volume of guest.volumes.filter((candidate) => keys.includes(candidate.key))) {
    config.set(volume.key, allocation(guest, volume, config.get(volume.key)));
  }
  return config;
}

function options(config: ReadonlyMap<string, string>): string[] {
  return [...config].flatMap(([key, value]) => [`--${key}`, value]);
}

/** `<storage>:<GiB>` plus the value's options other than the volume itself, its size and format; a disk keeps its format. */
function allocation(guest: GuestSpec, volume: GuestVolume, value: string | undefined): string {
  const kept = (value ?? '').split(',').filter((part) => part.includes('=') && !/^(?:file|volume|size|format)=/.test(part));
  const format = guest.type === 'qemu' && volume.format !== 'subvol' ? [`format=${volume.format}`] : [];
  return [`${storageOf(volume)}:${gibibytes(volume.size)}`, ...format, ...kept].join(',');
}

function storageOf(volume: GuestVolume): string {
  return volume.volid.slice(0, volume.volid.indexOf(':'));
}

/** PVE takes new sizes in GiB, fractions allowed: rounded up to a thousandth, so a volume is never smaller than asked. */
function gibibytes(bytes: number): string {
  return String(Math.ceil((bytes / GIB) * 1000) / 1000);
}

/** PVE's tool for the guest's type. */
export function tool(type: GuestType): 'qm' | 'pct' {
  return type === 'qemu' ? 'qm' : 'pct';
}
