import { allows, SUPERUSER, type AccessConfig } from '@corral/acl';
import { permissionDenied } from '../access/auth/authorizer.js';
import type { Principal } from '../http/principal.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import { configDigest, isUnusedKey } from '@corral/pve-formats';
import { givenConfig, mayGiveKeys } from './config-given.js';
import type { ConfigUpdate } from './config-update.js';
import type { GuestKind } from './guest-kinds.js';
import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { changedValue } from './new-config.js';
import { volumePrivilege, type ConfigChange } from './volumes/volume-change.js';

/**
 * The keys an update sets and deletes, each allowed to the caller on the guest as PVE allows it: a
 * key of the kind (or an `unusedN`), set or deleted but not both, with its privilege on
 * `/vms/<vmid>` (a volume's by its value, the given one or else the one in `config`). An empty
 * `startup` deletes it.
 */
export function plannedChange(
  update: ConfigUpdate,
  config: Readonly<Record<string, string>>,
  access: AccessConfig,
  caller: Principal,
): ConfigChange {
  const { kind, vmid } = update.guest;
  const set = givenConfig(update.given);
  const deleted = [...update.deleted];
  // An empty start order is none, as on create.
  if (set['startup'] === '') {
    delete set['startup'];
    if (!deleted.includes('startup')) deleted.push('startup');
  }
  mayGiveKeys([...Object.keys(set), ...deleted], caller);
  for (const key of [...Object.keys(set), ...deleted]) {
    if (!(key in kind.keys) && !isUnusedKey(key)) throw badParam('delete', `'${key}' is not a config key Corral knows`);
    const privilege = kind.isVolumeKey(key) || isUnusedKey(key) ? volumePrivilege(kind, set[key] ?? config[key]) : kind.privilegeOf(key);
    if (!allows(access, caller.subject, `/vms/${vmid}`, [privilege]))
      throw permissionDenied({ path: `/vms/${vmid}`, privileges: [privilege] });
    if (key in set && deleted.includes(key)) throw badParam('delete', `'${key}' is both set and deleted`);
  }
  return { set, deleted };
}

/** `skiplock` is root@pam's alone, as in PVE. */
export function mayGiveSkiplock(update: Pick<ConfigUpdate, 'skiplock'>, caller: Principal): void {
  if (update.skiplock && caller.userid !== SUPERUSER) throw badParam('skiplock', 'only root@pam may use this option');
}

/** A change may be written: a 409 while the guest is locked, or when `digest` is given and is not its config's (someone changed it since). */
export function mayChangeConfig(kind: GuestKind, row: Pick<GuestRow, 'vmid' | 'config' | 'lock'>, digest: string | undefined): void {
  if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${row.vmid} is locked (${row.lock})`);
  if (digest !== undefined && digest !== configDigest(row.config)) {
    throw new ApiError('CONFIG_CHANGED', `the configuration of ${kind.noun} ${row.vmid} has changed since digest ${digest}: read it again`);
  }
}

/** The config with the change applied. A card without a MAC address keeps the one of the card it replaces, or gets a new one: it must have one to start. */
export function changedConfig(kind: GuestKind, config: Readonly<Record<string, string>>, change: ConfigChange): Record<string, string> {
  const changed = { ...config };
  for (const [key, value] of Object.entries(change.set)) changed[key] = changedValue(kind, key, value, config[key]);
  for (const key of change.deleted) delete changed[key];
  return changed;
}
