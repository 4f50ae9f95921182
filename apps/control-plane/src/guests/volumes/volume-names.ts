import type { GuestType } from '@corral/protocol';
import { parseDisk } from '@corral/pve-formats';

/**
 * The name of a new volume of guest `vmid` on `storage`, as PVE's create names them
 * (`100/vm-100-disk-<n>.qcow2`, `200/subvol-200-disk-<n>`): the lowest `n` that no volume of the
 * guest's config on that storage has (`reserved` holds the volume ids already chosen for this change).
 */
export function newVolumeName(
  type: GuestType,
  vmid: number,
  storage: string,
  format: 'qcow2' | 'raw',
  config: Readonly<Record<string, string>>,
  reserved: ReadonlySet<string> = new Set(),
): string {
  const used = new Set([...Object.values(config), ...reserved].map((value) => diskNumber(value, storage, vmid)));
  let index = 0;
  while (used.has(index)) index += 1;
  return type === 'qemu' ? `${vmid}/vm-${vmid}-disk-${index}.${format}` : `${vmid}/subvol-${vmid}-disk-${index}`;
}

/** The `n` of a value naming `<storage>:<...>-<vmid>-disk-<n>`, else undefined. */
function diskNumber(value: string, storage: string, vmid: number): number | undefined {
  if (!value.startsWith(`${storage}:`)) return undefined;
  let volname: string;
  try {
    const { source } = parseDisk(value.split(',')[0] ?? '');
    if (source.kind !== 'volume') return undefined;
    volname = source.volname;
  } catch {
    return undefined;
  }
  const match = new RegExp(`(?:^|/)(?:vm|base|subvol|basevol)-${vmid}-disk-(\\d+)(?:\\.(?:qcow2|raw))?$`).exec(volname);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
