import { SUPERUSER } from '@corral/acl';
import type { Principal } from '../http/principal.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import { DISK, ROOT_ONLY_KEYS, ValueError } from '@corral/pve-formats';
import type { GuestKind } from './guest-kinds.js';

/** The config keys a create or change gives: only the kind's keys (each normalised by its rule), and PVE's `cdrom`. */
export interface GivenKeys {
  readonly keys: Readonly<Record<string, string>>;
  readonly cdrom?: string | undefined;
}

/** The config keys among a create's or change's validated parameters (a VM's `cdrom` among them). */
export function givenKeys(kind: GuestKind, params: Readonly<Record<string, unknown>>): GivenKeys {
  const keys = Object.fromEntries(
    Object.entries(params).filter((entry): entry is [string, string] => entry[0] in kind.keys && typeof entry[1] === 'string'),
  );
  const { cdrom } = params;
  return { keys, cdrom: typeof cdrom === 'string' ? cdrom : undefined };
}

/**
 * The config a create or change gives: its keys, with PVE's `cdrom` as the alias of `ide2` it is
 * (`cdrom: local:iso/x.iso` is `ide2: local:iso/x.iso,media=cdrom`).
 */
export function givenConfig(given: GivenKeys): Record<string, string> {
  const config = { ...given.keys };
  if (given.cdrom !== undefined) {
    if (config['ide2'] !== undefined) throw badParam('cdrom', 'is an alias of ide2: give one of them');
    config['ide2'] = cdromDrive(given.cdrom);
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
    if (ROOT_ONLY_KEYS.has(key))
      throw new ApiError('PERMISSION_DENIED', 'permission denied', { reason: `permission denied - only root@pam may set '${key}'` });
  }
}
