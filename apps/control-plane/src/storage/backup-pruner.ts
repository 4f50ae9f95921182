import { Injectable } from '@nestjs/common';
import type { GuestType, StorageVolume } from '@corral/protocol';
import { markBackupsForPrune, type PrunableBackup, type PruneOptions } from '@corral/pve-formats';
import { AgentHub } from '../agents/agent-hub.js';
import { badParam } from '../errors/resource-errors.js';
import { HOST_WRITE_MS } from '../agents/host-timeouts.js';
import type { PruneEntry } from './prune-backups.endpoints.js';
import { pruneOptionsOf } from './storage-config.js';
import { STORAGE_READ_MS } from './storage-space.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { parseVolname, volnameOn } from './volumes.js';

/** Which backups a prune considers: of one guest, of one type of guest, or all. */
export interface BackupFilter {
  readonly vmid?: number | undefined;
  readonly type?: GuestType | undefined;
}

/** How a prune ends when a backup it marked could not be removed (PVE's words); each failure is in the log before it. */
export const PRUNE_FAILED = 'error pruning backups - check log';

/** The wall-clock time in a vzdump archive's name: the node's local time when it was made. */
const ARCHIVE_TIME = /\/vzdump-(?:qemu|lxc)-\d+-(\d{4})_(\d{2})_(\d{2})-(\d{2})_(\d{2})_(\d{2})\./;

type Backup = StorageVolume & { readonly subtype: GuestType; readonly vmid: number };

/**
 * Prunes backups on a directory storage as PVE's `prune_backups` does (docs/storage.md, "Prune"):
 * the node's agent lists them, libs/pve-formats marks each guest's and type's group by the
 * retention, and the agent removes the ones marked `remove`, one by one.
 */
@Injectable()
export class BackupPruner {
  constructor(private readonly hub: AgentHub) {}

  /**
   * The retention of a backup run (PVE vzdump's `remove`), for one guest after its backup: applies
   * `options` (the run's or its job's `prune-backups`; undefined: the storage's, and a storage without
   * one keeps every backup, vzdump's default `keep-all=1`) to that guest's backups on the storage on
   * the node and removes what it does not keep, logging each as PVE does. A backup that cannot be
   * removed is logged and the others still go; it then rejects with PRUNE_FAILED. Resolves with what
   * it did to each backup. Checks no permission: the caller does.
   */
  async prune(
    node: string,
    storage: StorageRow,
    guest: { readonly vmid: number; readonly type: GuestType },
    options: PruneOptions | undefined,
    log: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<PruneEntry[]> {
    const retention = options ?? (storage.pruneBackups !== null ? pruneOptionsOf(storage.pruneBackups) : { 'keep-all': true });
    const marks = await this.marks(node, storage, guest, retention, signal);
    await this.remove(node, storage, marks, log, signal);
    return marks;
  }

  /** What `options` does to each backup (of `only`) on the storage on the node now, in volume id order, grouped by guest and type as PVE groups them. */
  async marks(node: string, storage: StorageRow, only: BackupFilter, options: PruneOptions, signal?: AbortSignal): Promise<PruneEntry[]> {
    holdsBackups(storage);
    const params = {
      storage: storage.storage,
      path: storage.path,
      mountpoint: storage.isMountpoint,
      content: ['backup' as const],
      ...(only.vmid !== undefined ? { vmid: only.vmid } : {}),
    };
    const volumes = await this.hub.request(node, 'storage.content', params, { timeoutMs: STORAGE_READ_MS, ...(signal ? { signal } : {}) });
    const backups = volumes.filter(
      (volume): volume is Backup =>
        volume.subtype !== undefined && volume.vmid !== undefined && (only.type === undefined || volume.subtype === only.type),
    );
    const groups = new Map<string, Backup[]>();
    for (const backup of backups) {
      const group = `${backup.subtype}/${backup.vmid}`;
      groups.set(group, [...(groups.get(group) ?? []), backup]);
    }
    const marked = new Map<string, PruneEntry['mark']>();
    for (const group of groups.values()) for (const { id, mark } of markBackupsForPrune(group.map(prunable), options)) marked.set(id, mark);
    // markBackupsForPrune marks every backup it is given.
    return backups.map((backup) => ({
      volid: backup.volid,
      ctime: backup.ctime,
      mark: marked.get(backup.volid) ?? 'keep',
      type: backup.subtype,
      vmid: backup.vmid,
    }));
  }

  /** Removes the backups marked `remove`, each logged first (`removing backup '<volid>'`); rejects with PRUNE_FAILED after the others when one cannot be removed. */
  async remove(
    node: string,
    storage: StorageRow,
    marks: readonly PruneEntry[],
    log: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    let failed = false;
    for (const { volid } of marks.filter((entry) => entry.mark === 'remove')) {
      log(`removing backup '${volid}'`);
      try {
        const file = parseVolname(volnameOn(storage.storage, volid, 'volume'))?.relative;
        if (file === undefined) throw new Error('not a backup volume of a directory storage');
        await this.hub.request(
          node,
          'storage.volume.delete',
          { path: storage.path, mountpoint: storage.isMountpoint, file },
          { timeoutMs: HOST_WRITE_MS, ...(signal ? { signal } : {}) },
        );
      } catch (error) {
        signal?.throwIfAborted();
        log(`error when removing backup '${volid}' - ${error instanceof Error ? error.message : String(error)}`);
        failed = true;
      }
    }
    if (failed) throw new Error(PRUNE_FAILED);
  }
}

/** PVE: only a storage that holds backups is pruned. */
export function holdsBackups(storage: StorageRow): void {
  if (!storage.content.includes('backup'))
    throw badParam('storage', `storage '${storage.storage}' does not hold backups (content 'backup')`);
}

/**
 * A backup as libs/pve-formats marks it. Its periods are read on the node's wall clock, as PVE reads
 * them; the control plane does not know the node's time zone, but the archive's name holds that
 * wall-clock time, so it is given as a UTC time and read on UTC.
 */
function prunable(backup: Backup): PrunableBackup {
  const match = ARCHIVE_TIME.exec(backup.volid);
  if (!match) return { id: backup.volid, ctime: backup.ctime, protected: backup.protected === true };
  const [year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number);
  return { id: backup.volid, ctime: Date.UTC(year, month - 1, day, hour, minute, second) / 1000, protected: backup.protected === true };
}
