/**
 * PVE's `unused[n]` config keys: volumes of the guest that nothing attaches (a disk detached with
 * `delete`, or left behind by a move). They are read and deleted, never set by hand; deleting one
 * destroys its volume. The value is the bare volume id (`local:100/vm-100-disk-1.qcow2`).
 */

/** PVE numbers them 0 to 255. */
export const MAX_UNUSED = 256;

export function isUnusedKey(key: string): boolean {
  return /^unused\d+$/.test(key) && Number(key.slice(6)) < MAX_UNUSED;
}

/** The first `unusedN` that `taken` does not hold. */
export function freeUnusedKey(taken: (key: string) => boolean): string {
  for (let index = 0; index < MAX_UNUSED; index += 1) if (!taken(`unused${index}`)) return `unused${index}`;
  throw new Error(`all ${MAX_UNUSED} unused keys are taken`);
}
