import { Inject, Injectable } from '@nestjs/common';
import { allows, type Privilege } from '@corral/acl';
import type { GuestSpec } from '@corral/protocol';
import { permissionDenied } from '../access/auth/authorizer.js';
import type { Principal } from '../http/principal.js';
import type { AccessSnapshot } from '../access/state/access-snapshot.js';
import { AccessState } from '../access/state/access-state.js';
import { CONFIG, type Config } from '../config/config.js';
import { badParam, notFound } from '../errors/resource-errors.js';
import { recordEvent } from '../events/record-event.js';
import { renderConfigFile } from '../guests/config-file.js';
import { guestSpec } from '../guests/guest-spec.js';
import { GuestTasks, type BatchWork } from '../guests/guest-tasks.js';
import type { GuestRow } from '../inventory/guests/guest.entity.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { GuestsRepository } from '../inventory/guests/guests.repository.js';
import { NodesService } from '../nodes/nodes.service.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { BackupPruner } from '../storage/backup-pruner.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { usableStorage } from '../storage/volumes.js';
import { selects } from './backup-selection.js';
import type { VzdumpOptions } from './vzdump-params.js';

/** How long one guest's backup may take on its agent: a large disk can take hours. */
const BACKUP_MS = 24 * 3600_000;

/**
 * Backup runs (PVE's `vzdump`, docs/backups.md): one task on a node that backs up the selected
 * guests of that node one after another, each in its own turn among the operations on that guest,
 * locked `backup` while it runs, between a `backup-start` and a `backup-end` event written with
 * the lock's change. A guest that fails does not stop the others; the task then ends with PVE's
 * `job errors`. After each good backup the storage's (or the run's) retention prunes that guest's
 * older backups.
 */
@Injectable()
export class VzdumpService {
  constructor(
    private readonly nodes: NodesService,
    private readonly view: GuestView,
    private readonly repository: GuestsRepository,
    private readonly tasks: GuestTasks,
    private readonly storages: StoragesRepository,
    private readonly access: AccessState,
    private readonly pruner: BackupPruner,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** Checks the run (400/403/404 before any task) and starts its task; resolves with the UPID. `jobId` names the backup job that runs it. */
  async start(node: string, options: VzdumpOptions, caller: Principal, jobId?: string): Promise<string> {
    this.nodes.existing(node);
    const access = await this.access.current();
    const { guests, external } = this.selected(node, options, access);
    this.mayRun(options, guests, access, caller);
    const storages = new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
    const storage = usableStorage(storages, options.storage, node, 'backup', 'storage');
    return this.tasks.submitBatch({
      node,
      type: 'vzdump',
      id: guests.length === 1 ? String(guests[0]?.vmid) : '',
      caller,
      work: async (batch) => {
        batch.line(`INFO: starting new backup job: vzdump ${describe(options, guests)}${jobId !== undefined ? ` (job ${jobId})` : ''}`);
        if (external.length > 0) batch.line(`INFO: skip external VMs: ${external.join(', ')}`);
        let failed = 0;
        for (const row of guests) {
          const ok = await batch.forGuest(row.vmid, async (work) =>
            this.backupOne(node, row.vmid, storage, storages, options, { ...batch, ...work }),
          );
          if (!ok) failed += 1;
        }
        if (failed > 0) throw new Error('job errors');
        batch.line('INFO: Backup job finished successfully');
      },
    });
  }

  /** The guests of the run on `node`, by vmid, and the listed ones that are elsewhere (PVE skips them, saying so). */
  private selected(node: string, options: VzdumpOptions, access: AccessSnapshot): { guests: GuestRow[]; external: number[] } {
    const { selection } = options;
    if (selection.kind === 'vmids') {
      const rows = selection.vmids.map((vmid) => this.view.get(vmid)?.row ?? failNotFound(vmid));
      const guests = rows.filter((row) => row.node === node);
      if (guests.length === 0) throw badParam('vmid', `none of the guests is on node '${node}'`);
      return { guests, external: rows.filter((row) => row.node !== node).map((row) => row.vmid) };
    }
    if (selection.kind === 'pool' && !access.pools.includes(selection.pool)) throw notFound(`pool '${selection.pool}'`);
    const guests = this.view
      .list()
      .map((state) => state.row)
      .filter((row) => row.node === node && selects(selection, row.vmid, access.memberPools.get(`/vms/${row.vmid}`) ?? []))
      .sort((a, b) => a.vmid - b.vmid);
    return { guests, external: [] };
  }

  /** PVE's checks: VM.Backup on each guest, Datastore.AllocateSpace on the storage, and Datastore.Allocate there to choose the retention. */
  private mayRun(options: VzdumpOptions, guests: readonly GuestRow[], access: AccessSnapshot, caller: Principal): void {
    const must = (path: string, privilege: Privilege) => {
      if (!allows(access, caller.subject, path, [privilege])) throw permissionDenied({ path, privileges: [privilege] });
    };
    for (const row of guests) must(`/vms/${row.vmid}`, 'VM.Backup');
    must(`/storage/${options.storage}`, 'Datastore.AllocateSpace');
    if (options.pruneBackups !== undefined) must(`/storage/${options.storage}`, 'Datastore.Allocate');
  }

  /** One guest's backup in its turn; false when it failed (the reason is in the log and in its `backup-end` event). */
  private async backupOne(
    node: string,
    vmid: number,
    storage: StorageRow,
    storages: ReadonlyMap<string, StorageRow>,
    options: VzdumpOptions,
    work: BatchWork & Parameters<Parameters<BatchWork['forGuest']>[1]>[0],
  ): Promise<boolean> {
    const started = Date.now();
    let spec: GuestSpec;
    try {
      spec = await this.lock(node, vmid, storages, work.upid);
    } catch (error) {
      work.line(`ERROR: Backup of VM ${vmid} failed - ${messageOf(error)}`);
      return false;
    }
    work.line(`INFO: Starting Backup of VM ${vmid} (${spec.type})`);
    try {
      const result = await work.on(
        node,
        'guest.backup',
        {
          guest: spec,
          config: renderConfigFile(spec.config),
          mode: options.mode,
          compress: options.compress,
          storage: { path: storage.path, mountpoint: storage.isMountpoint },
          ...(options.notesTemplate !== undefined ? { notes: this.notes(options.notesTemplate, spec, node) } : {}),
        },
        BACKUP_MS,
      );
      await this.unlock(node, vmid, {
        status: 'ok',
        volid: `${storage.storage}:backup/${result.file.slice('dump/'.length)}`,
        size: result.size,
        mode: result.mode,
      });
      work.line(`INFO: Finished Backup of VM ${vmid} (${elapsed(started)})`);
    } catch (error) {
      await this.unlock(node, vmid, { status: 'error', error: messageOf(error) });
      work.line(`ERROR: Backup of VM ${vmid} failed - ${messageOf(error)}`);
      return false;
    }
    if (!options.remove) return true;
    try {
      await this.pruner.prune(node, storage, { vmid, type: spec.type }, options.pruneBackups, (line) => work.line(`INFO: ${line}`));
      return true;
    } catch (error) {
      work.line(`ERROR: pruning the backups of VM ${vmid} failed - ${messageOf(error)}`);
      return false;
    }
  }

  /**
   * Locks the guest for its backup with its `backup-start` event; a guest locked by anything else
   * is not backed up. Its spec is built before the lock is written: a guest whose spec cannot be
   * built is neither locked nor announced, since no `backup-end` would follow.
   */
  private async lock(node: string, vmid: number, storages: ReadonlyMap<string, StorageRow>, upid: string): Promise<GuestSpec> {
    const row = await this.repository.update(vmid, async (current, db) => {
      if (current.node !== node) throw new Error(`it moved to node '${current.node}'`);
      if (current.lock !== null) throw new Error(`it is locked (${current.lock})`);
      guestSpec(current, storages);
      await recordEvent(db, { event: 'backup-start', node, vmid, details: { type: current.type } });
      return { lock: 'backup', lockTask: upid };
    });
    await this.view.reload(vmid);
    return guestSpec(row, storages);
  }

  private async unlock(node: string, vmid: number, details: Record<string, unknown>): Promise<void> {
    await this.repository.update(vmid, async (_row, db) => {
      await recordEvent(db, { event: 'backup-end', node, vmid, details });
      return { lock: null };
    });
    await this.view.reload(vmid);
  }

  /** PVE's `notes-template`: `{{guestname}}`, `{{node}}`, `{{vmid}}`, `{{cluster}}`, and `\n` for a line break. */
  private notes(template: string, spec: GuestSpec, node: string): string {
    const values: Record<string, string> = { guestname: spec.name, node, vmid: String(spec.vmid), cluster: this.config.clusterName };
    return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole).replace(/\\n/g, '\n');
  }
}

function failNotFound(vmid: number): never {
  throw notFound(`guest ${vmid}`);
}

function describe(options: VzdumpOptions, guests: readonly GuestRow[]): string {
  const { selection } = options;
  const which =
    selection.kind === 'vmids'
      ? guests.map((row) => row.vmid).join(' ')
      : selection.kind === 'all'
        ? '--all 1'
        : `--pool ${selection.pool}`;
  return `${which} --storage ${options.storage} --mode ${options.mode} --compress ${options.compress === 'none' ? '0' : options.compress}`;
}

function elapsed(since: number): string {
  const seconds = Math.round((Date.now() - since) / 1000);
  return [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60].map((part) => String(part).padStart(2, '0')).join(':');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
