import { SUPERUSER } from '@corral/acl';
import type { Principal } from '../http/principal.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import { DISK, ROOT_ONLY_KEYS, ValueError } from '@corral/pve-formats';
import type { GuestKind } from './guest-kinds.js';

/**
 * The config keys a create or change gives, from its validated parameters: only the kind's keys,
 * with PVE's `cdrom` as the alias of `ide2` it is (`cdrom: local:iso/x.iso` is
 * `ide2: local:iso/x.iso,media=cdrom`).
 */
export function givenConfig(kind: GuestKind, params: Readonly<Record<string, unknown>>): Record<string, string> {
  const config = Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[0] in kind.keys && typeof entry[1] === 'string'));
  const cdrom = params['cdrom'];
  if (typeof cdrom === 'string') {
    if (config['ide2'] !== undefined) throw badParam('cdrom', 'is an alias of ide2: give one of them');
    config['ide2'] = cdromDrive(cdrom);
  }
  return config;
}

function cdromDrive(value: string): string {
  try {
    return DISK.parse(`${value === 'cdrom' ? 'none' : value},media=cdrom`);
  } catch (error) {
    if (error instanceof ValueError) throw badParam('cdrom', error.message);
    throw error;
  }
}

/** Keys only root@pam itself may set (not its API tokens), as PVE's `Only root can set ...`: they name what runs on the host. */
export function mayGiveKeys(keys: Iterable<string>, caller: Principal): void {
  if (caller.userid === SUPERUSER && caller.tokenid === null) return;
  for (const key of keys) {
    if (ROOT_ONLY_KEYS.has(key)) throw new ApiError('PERMISSION_DENIED', 'permission denied', { reason: `permission denied - only root@pam may set '${key}'` });
  }
}
