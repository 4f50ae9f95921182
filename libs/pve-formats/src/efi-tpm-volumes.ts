import { formatSize } from './size.js';

/**
 * The sizes PVE gives an EFI vars disk and a TPM state volume, whatever size the request names: an
 * EFI vars disk is a copy of OVMF's vars template of its `efitype` (`OVMF_VARS.fd` 128 KiB for 2m,
 * `OVMF_VARS_4M.fd` 528 KiB for 4m), a TPM state a raw image of 4 MiB.
 */
export const EFI_VARS_SIZE = { '2m': 128 * 1024, '4m': 528 * 1024 } as const;
export const TPM_STATE_SIZE = 4 * 1024 * 1024;

/** Keys whose new volumes PVE allocates after the disks', so that they take the next free numbers (`vm-100-disk-1` beside `scsi0`'s `disk-0`). */
const ALLOCATED_LAST = ['efidisk0', 'tpmstate0'];

/** What a new volume of `key` becomes: its image format and the options written beside its name (`size=`, the rest as given, `format` gone: the name ends in it). */
export function newVolumeLayout(
  key: string,
  size: number,
  options: ReadonlyMap<string, string>,
): { format: 'qcow2' | 'raw'; options: Map<string, string> } {
  const rest = new Map(options);
  rest.delete('format');
  if (key === 'efidisk0') {
    rest.set('size', formatSize(EFI_VARS_SIZE[options.get('efitype') === '4m' ? '4m' : '2m']));
    return { format: options.get('format') === 'raw' ? 'raw' : 'qcow2', options: sortedItems(rest) };
  }
  if (key === 'tpmstate0') {
    // swtpm reads and writes a plain file: PVE makes TPM state raw whatever format is given.
    rest.set('size', formatSize(TPM_STATE_SIZE));
    return { format: 'raw', options: sortedItems(rest) };
  }
  rest.set('size', formatSize(size));
  return { format: options.get('format') === 'raw' ? 'raw' : 'qcow2', options: rest };
}

/** The config's entries in the order their volumes are allocated: the EFI vars and TPM state last. */
export function inAllocationOrder<T>(entries: readonly (readonly [string, T])[]): (readonly [string, T])[] {
  return [...entries].sort(([a], [b]) => Number(ALLOCATED_LAST.includes(a)) - Number(ALLOCATED_LAST.includes(b)));
}

/** PVE writes these keys' items sorted by name: `efitype=4m,pre-enrolled-keys=1,size=528K`. */
function sortedItems(options: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...options].sort(([a], [b]) => a.localeCompare(b)));
}
