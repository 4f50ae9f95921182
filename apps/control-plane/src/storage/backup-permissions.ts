import { allows, type AccessConfig } from '@corral/acl';
import type { Principal } from '../http/principal.js';
import { permissionDenied } from '../access/auth/authorizer.js';

/**
 * PVE's check for removing backups (a backup volume's `DELETE`, `prunebackups`): Datastore.Allocate
 * on the storage, or, for the backups of one guest (`vmid`), Datastore.AllocateSpace there with
 * VM.Backup on the guest. A 403 otherwise.
 */
export function mayRemoveBackups(access: AccessConfig, caller: Principal, storage: string, vmid: number | undefined): void {
  const path = `/storage/${storage}`;
  if (allows(access, caller.subject, path, ['Datastore.Allocate'])) return;
  if (
    vmid !== undefined &&
    allows(access, caller.subject, path, ['Datastore.AllocateSpace']) &&
    allows(access, caller.subject, `/vms/${vmid}`, ['VM.Backup'])
  )
    return;
  throw permissionDenied({ path, privileges: ['Datastore.Allocate'] });
}
