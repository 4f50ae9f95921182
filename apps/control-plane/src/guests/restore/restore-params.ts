import { badParam } from '../../errors/resource-errors.js';
import { booleanParam, stringParam } from '../../http/params.js';
import type { CreateCommand } from '../lifecycle/create-command.js';
import type { RestoreRequest } from './restore.service.js';

/** A backup archive by its volume id on a storage (`local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst`). */
export const BACKUP_VOLID_PATTERN =
  /^[A-Za-z][A-Za-z0-9_.-]*:backup\/vzdump-(?:qemu|lxc)-\d{3,9}-\d{4}_\d{2}_\d{2}-\d{2}_\d{2}_\d{2}\.tar(?:\.gz|\.zst)?$/;
export const BACKUP_VOLID_HINT = 'must be a backup volume <storage>:backup/vzdump-<qemu|lxc>-<vmid>-<YYYY_MM_DD-HH_MM_SS>.tar[.gz|.zst]';

/** The parameters a create takes to restore instead (PVE's `archive`, `force`). */
export const RESTORE_PARAMS = {
  archive: stringParam({
    description: 'Restore the guest from this backup instead: its config comes from the archive.',
    maxLength: 1024,
    pattern: BACKUP_VOLID_PATTERN,
    patternHint: BACKUP_VOLID_HINT,
  }).optional(),
  force: booleanParam({
    description:
      'With a restore: replace the existing, stopped guest of this vmid (its volumes are removed). Without one only 0 (clients send force=0 on every create).',
  }).optional(),
};

/** What a create asks to restore, or undefined for a plain create. Config keys beside an archive are a 400: the config is the archive's. */
export function restoreRequestOf(
  command: CreateCommand,
  archive: { volid: string; param: string } | undefined,
): RestoreRequest | undefined {
  if (archive === undefined) {
    if (command.force) throw badParam('force', 'applies to restores only (with archive)');
    return undefined;
  }
  if (command.start) throw badParam('start', 'is not supported with a restore yet: start the guest once its restore task has ended');
  const given = Object.keys(command.given.keys)[0];
  if (given !== undefined) throw badParam(given, "cannot be given with a restore: the config is the archive's");
  return {
    guest: command.guest,
    archive,
    force: command.force,
    unique: command.unique,
    ...(command.storage !== undefined ? { storage: command.storage } : {}),
    ...(command.pool !== undefined ? { pool: command.pool } : {}),
  };
}

/** The backup a create restores: a VM's `archive`, a container's as `containerArchiveOf` finds it; undefined for a plain create. */
export function archiveOf(command: CreateCommand): { volid: string; param: string } | undefined {
  if (command.guest.kind.type === 'lxc') return containerArchiveOf(command);
  return command.archive === undefined ? undefined : { volid: command.archive, param: 'archive' };
}

/** The backup a container create restores: `archive`, or PVE's `ostemplate` with `restore=1`; undefined for a create from a template (which then needs `ostemplate`). */
export function containerArchiveOf(params: {
  archive?: string | undefined;
  ostemplate?: string | undefined;
  restore?: boolean | undefined;
}): { volid: string; param: string } | undefined {
  const { archive, ostemplate, restore } = params;
  const isBackup = ostemplate !== undefined && ostemplate.includes(':backup/');
  if (archive !== undefined) {
    if (restore === true || ostemplate !== undefined)
      throw badParam('archive', 'give either archive, or the backup as ostemplate with restore=1');
    return { volid: archive, param: 'archive' };
  }
  if (restore === true) {
    if (ostemplate === undefined || !isBackup)
      throw badParam('ostemplate', 'with restore=1 it must be the backup to restore, <storage>:backup/vzdump-lxc-...');
    return { volid: ostemplate, param: 'ostemplate' };
  }
  if (ostemplate === undefined)
    throw badParam('ostemplate', 'is required: the template of the root file system (or a backup, with restore=1)');
  if (isBackup) throw badParam('ostemplate', 'is a backup: give restore=1 to restore it');
  return undefined;
}
