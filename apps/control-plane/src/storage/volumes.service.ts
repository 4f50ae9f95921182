import { Injectable } from '@nestjs/common';
import type { StorageVolume } from '@corral/protocol';
import type { z } from 'zod';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import type { ResultOf } from '../http/endpoint.js';
import { commandParams } from '../agents/command-params.js';
import { HOST_WRITE_MS } from '../agents/host-timeouts.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { mayRemoveBackups } from './backup-permissions.js';
import type { NODE_STORAGE_ENDPOINTS } from './node-storage.endpoints.js';
import { StorageSpace, STORAGE_READ_MS } from './storage-space.js';
import type { ContentKind, StorageRow } from '../inventory/storage/storage.entity.js';
import type { ContentEntry } from './storage.endpoints.js';
import { StoragesService } from './storages.service.js';
import { usersOf, volumesInUse } from './volumes-in-use.js';
import { backupOwner, parseVolname, storagePath, volnameOn } from './volumes.js';

/** The filters of a content list. */
export interface ContentFilters {
  readonly content?: ContentKind | undefined;
  readonly vmid?: number | undefined;
}

type Entry = z.infer<typeof ContentEntry>;

/**
 * The volumes on directory storages, as their nodes' agents find them in their files: listed for a
 * node or for the cluster, one looked at, one removed (docs/storage.md).
 */
@Injectable()
export class VolumesService {
  constructor(
    private readonly storages: StoragesService,
    private readonly space: StorageSpace,
    private readonly hub: AgentHub,
    private readonly runner: TaskRunner,
    private readonly guests: GuestView,
    private readonly access: AccessState,
  ) {}

  /** PVE's content list of one node. */
  async onNode(node: string, id: string, filters: ContentFilters): Promise<Entry[]> {
    const storage = this.storages.onNode(await this.storages.existing(id), node);
    return (await this.list(storage, node, filters)).map(entryOf);
  }

  /** Corral's content list: of one node, or of every online node that holds the storage (one of them for a shared storage), each entry naming its node. */
  async inCluster(id: string, node: string | undefined, filters: ContentFilters): Promise<(Entry & { node: string })[]> {
    const storage = await this.storages.existing(id);
    if (node !== undefined) this.storages.onNode(storage, node);
    const nodes = node !== undefined ? [node] : this.space.filesNodes(storage);
    const lists = await Promise.all(
      nodes.map(async (each) => (await this.list(storage, each, filters)).map((volume) => ({ ...entryOf(volume), node: each }))),
    );
    return lists.flat();
  }

  /** One volume on the node: its path there, size and format (PVE's volume attributes). */
  async volume(node: string, id: string, volume: string): Promise<ResultOf<typeof NODE_STORAGE_ENDPOINTS.volume>> {
    const storage = this.storages.onNode(await this.storages.existing(id), node);
    const { volname, relative, content } = parsed(storage, volume);
    const found = (await this.list(storage, node, { content })).find((each) => each.volid === `${id}:${volname}`);
    if (!found) throw new ApiError('NOT_FOUND', `volume '${id}:${volname}' does not exist on node '${node}'`);
    return {
      path: storagePath(storage, relative),
      size: found.size,
      used: found.used ?? found.size,
      format: found.format,
      ...(found.notes !== undefined ? { notes: found.notes } : {}),
      ...(found.protected ? { protected: 1 as const } : {}),
    };
  }

  /**
   * Removes a volume in an `imgdel` task, as PVE: Datastore.Allocate on the storage, or for a
   * backup Datastore.AllocateSpace with VM.Backup on its guest. A volume a guest's configuration
   * names is a 409. With `delay`, waits up to that many seconds for the task: null once it ended
   * well, its error if it failed, else the UPID.
   */
  async remove(node: string, id: string, volume: string, delay: number | undefined, caller: Principal): Promise<string | null> {
    const storage = this.storages.usable(this.storages.onNode(await this.storages.existing(id), node));
    const { volname, relative } = parsed(storage, volume);
    const owner = backupOwner(volname);
    mayRemoveBackups(await this.access.current(), caller, id, owner);
    const uses = volumesInUse(this.guests.list().map((guest) => guest.row)).filter(
      (use) => use.storage === id && use.relative === relative,
    );
    if (uses.length > 0) throw new ApiError('IN_USE', `volume '${id}:${volname}' is used by ${usersOf(uses)}: remove it from there first`);
    const params = commandParams(
      'storage.volume.delete',
      { path: storage.path, mountpoint: storage.isMountpoint, file: relative },
      () => 'volume',
    );
    this.hub.reachable(node);
    let removed: Promise<void> = Promise.resolve();
    const upid = await this.runner.start(
      { node, type: 'imgdel', id: owner === undefined ? id : `${owner}@${id}`, caller },
      (upid, log, signal) => {
        removed = this.hub
          .request(node, 'storage.volume.delete', params, { timeoutMs: HOST_WRITE_MS, upid, onLog: log, signal })
          .then(() => log([{ n: 1, text: `Removed volume '${id}:${volname}'` }]));
        return removed;
      },
    );
    if (delay === undefined) return upid;
    const ended = removed.then(() => null);
    // The task records a failure; a wait that gave up before it must not leave it unhandled.
    ended.catch(() => undefined);
    return Promise.race([ended, new Promise<string>((resolve) => setTimeout(() => resolve(upid), delay * 1000).unref())]);
  }

  /** The volumes of the asked kinds that the storage holds, read on the node now. */
  private list(storage: StorageRow, node: string, { content, vmid }: ContentFilters): Promise<StorageVolume[]> {
    const kinds = this.storages.usable(storage).content.filter((kind) => content === undefined || kind === content);
    if (kinds.length === 0) return Promise.resolve([]);
    const params = {
      storage: storage.storage,
      path: storage.path,
      mountpoint: storage.isMountpoint,
      content: kinds,
      ...(vmid !== undefined ? { vmid } : {}),
    };
    return this.hub.request(node, 'storage.content', params, { timeoutMs: STORAGE_READ_MS });
  }
}

/** The volume's name on the storage, its path below the storage's path and its kind; a 400 for a name no volume of a directory storage has. */
function parsed(storage: StorageRow, volume: string): { volname: string; relative: string; content: ContentKind } {
  const volname = volnameOn(storage.storage, volume, 'volume');
  const known = parseVolname(volname);
  if (!known)
    throw badParam(
      'volume',
      `'${volume}' is not a volume of a directory storage (iso/<file>, vztmpl/<file>, backup/<file>, snippets/<file>, import/<file>, <vmid>/<disk>)`,
    );
  return { volname, relative: known.relative, content: known.content };
}

/** PVE's content entry: optional fields only when known, `protected` as 1. */
function entryOf({ protected: isProtected, ...volume }: StorageVolume): Entry {
  return { ...volume, ...(isProtected ? { protected: 1 as const } : {}) };
}
