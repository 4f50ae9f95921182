import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, badParam } from '../../errors/resource-errors.js';
import { parseConfigFile } from '../config-file.js';
import { ValueError } from '@corral/pve-formats';
import type { GuestKind } from '../guest-kinds.js';
import type { GuestRef } from '../guest-ref.js';
import { guestSpec } from '../guest-spec.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import type { GuestRow } from '../../inventory/guests/guest.entity.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { restoreConfig } from '../new-config.js';
import { NewGuests } from '../new-guests.js';
import { runState } from '../status-entry.js';
import { NodesService } from '../../nodes/nodes.service.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { BackupArchives, type BackupArchive } from './backup-archives.js';

/** How long the agent may take to fill the volumes: a large disk can take hours. */
const RESTORE_MS = 24 * 3600_000;
const DESTROY_MS = 10 * 60_000;

export interface RestoreRequest {
  readonly guest: GuestRef;
  /** The backup's volume id, and the parameter that gave it (`archive`, or a container's `ostemplate`). */
  readonly archive: { readonly volid: string; readonly param: string };
  /** Where the volumes go; default: where they were. */
  readonly storage?: string;
  /** Replace the existing guest `vmid` (stopped, on this node, of the same kind). */
  readonly force: boolean;
  /** New MAC addresses instead of the archived ones (PVE's `unique`). */
  readonly unique: boolean;
  readonly pool?: string;
}

/**
 * Restores (PVE's create with `archive`, or a container's `ostemplate` with `restore=1`;
 * docs/backups.md): the archive's config is read by the node's agent and checked like a create's,
 * its volumes are placed as new ones, and a task fills them from the archive. Over an existing
 * guest (`force`) the task first destroys that guest's volumes. A failed restore leaves no guest.
 */
@Injectable()
export class RestoreService {
  constructor(
    private readonly archives: BackupArchives,
    private readonly newGuests: NewGuests,
    private readonly tasks: GuestTasks,
    private readonly view: GuestView,
    private readonly repository: GuestsRepository,
    private readonly storages: StoragesRepository,
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
  ) {}

  async restore(request: RestoreRequest, caller: Principal): Promise<string> {
    const { guest, force } = request;
    const { kind, node, vmid } = guest;
    this.nodes.existing(node);
    this.hub.reachable(node);
    const archive = await this.archives.find(node, request.archive.volid, request.archive.param, caller);
    if (archive.type !== kind.type)
      throw badParam(
        request.archive.param,
        `'${request.archive.volid}' is a backup of a ${archive.type === 'qemu' ? 'VM' : 'container'}, not of a ${kind.type === 'qemu' ? 'VM' : 'container'}`,
      );
    const archived = checkedConfig(kind, await this.archives.config(node, archive), request.archive.param);
    const storages = new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
    const resolved = restoreConfig(kind, archived, {
      vmid,
      node,
      storages,
      unique: request.unique,
      ...(request.storage !== undefined ? { storage: request.storage } : {}),
    });
    await this.newGuests.mayAllocate(resolved.storages, caller);
    const replaced = this.replaced(guest, force);
    const fill = (work: GuestWork) =>
      work.agent(
        'guest.restore',
        {
          guest: guestSpec({ vmid, type: kind.type, config: resolved.config }, storages),
          storage: { path: archive.storage.path, mountpoint: archive.storage.isMountpoint },
          file: archive.file,
          restore: resolved.allocate,
        },
        RESTORE_MS,
      );
    const operation = {
      node,
      vmid,
      type: kind.type === 'qemu' ? 'qmrestore' : 'vzrestore',
      caller,
      ...(replaced !== undefined ? { check: () => this.mayReplace(guest) } : {}),
      work: async (work: GuestWork) => {
        work.line(`restore ${describe(archive)} to ${kind.noun} ${vmid}`);
        if (replaced !== undefined) await this.destroyReplaced(kind, vmid, resolved.config, storages, work);
        await this.newGuests.finish(kind, node, vmid, () => fill(work));
      },
    };
    return replaced === undefined
      ? this.newGuests.submit(kind, { vmid, node, config: resolved.config, lock: 'create' }, request.pool, operation)
      : this.tasks.submit(operation);
  }

  /** The guest a forced restore replaces; a 409 for one that exists without `force`. */
  private replaced(guest: GuestRef, force: boolean): GuestRow | undefined {
    const { vmid } = guest;
    const existing = this.view.get(vmid)?.row;
    if (existing === undefined) return undefined;
    if (!force)
      throw alreadyExists(
        `${existing.type === 'lxc' ? 'CT' : 'VM'} ${vmid}`,
        `it is on node '${existing.node}' (force=1 restores over it)`,
      );
    this.mayReplace(guest);
    return existing;
  }

  private mayReplace(guest: GuestRef): void {
    const { kind, node, vmid } = guest;
    const state = this.view.get(vmid);
    if (state === undefined) return;
    const { row } = state;
    if (row.type !== kind.type)
      throw new ApiError(
        'GUEST_STATE',
        `${vmid} is a ${row.type === 'qemu' ? 'VM' : 'container'}: a ${kind.type === 'qemu' ? 'VM' : 'container'} backup cannot replace it`,
      );
    if (row.node !== node) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is on node '${row.node}': restore it there`);
    if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${row.lock})`);
    if (runState(state) !== 'stopped')
      throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is running: stop it before restoring over it`);
  }

  /**
   * Takes the replaced guest for the restore (its lock, held by the restore's task, then its new
   * config) after removing its volumes. When its volumes cannot be removed the guest stays as it
   * was, unlocked, and the restore fails.
   */
  private async destroyReplaced(
    kind: GuestKind,
    vmid: number,
    config: Record<string, string>,
    storages: ReadonlyMap<string, StorageRow>,
    work: GuestWork,
  ): Promise<void> {
    const old = await this.repository.update(vmid, async () => ({ lock: 'create', lockTask: work.upid }));
    await this.view.reload(vmid);
    work.line(`destroying the volumes of ${kind.noun} ${vmid}`);
    try {
      await work.agent('guest.destroy', { guest: guestSpec(old, storages) }, DESTROY_MS);
    } catch (error) {
      await this.repository.update(vmid, async () => ({ lock: null }));
      await this.view.reload(vmid);
      throw error;
    }
    await this.repository.update(vmid, async () => ({ config }));
    await this.view.reload(vmid);
  }
}

/**
 * The archive's config, every key known and valid for the kind: anything else is a 400 naming the
 * archive's parameter. `parent` (the current snapshot of the guest backed up) is left out, as PVE's
 * restore does: a restored guest has no snapshots.
 */
function checkedConfig(kind: GuestKind, text: string, param: string): Record<string, string> {
  let config: Record<string, string>;
  try {
    const { parent: _parent, ...archived } = parseConfigFile(text);
    config = archived;
  } catch (error) {
    throw badParam(param, `the archive's config cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      const rule = kind.keys[key];
      if (rule === undefined)
        throw badParam(
          param,
          `the archive's config has '${key}', ${key in kind.unsupported ? 'which Corral does not support' : 'which is not a config key'}`,
        );
      try {
        return [key, rule.parse(value)];
      } catch (error) {
        if (error instanceof ValueError) throw badParam(param, `the archive's config key '${key}' ${error.message}`);
        throw error;
      }
    }),
  );
}

function describe(archive: BackupArchive): string {
  return `'${archive.storage.storage}:backup/${archive.file.slice('dump/'.length)}'`;
}
