import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import type { StorageStatus } from '@corral/protocol';
import { DataSource } from 'typeorm';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { ApiError } from '../errors/api-error.js';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../errors/resource-errors.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import type { ParamsOf, ResultOf } from '../http/endpoint.js';
import { NodesService } from '../nodes/nodes.service.js';
import { StorageActivation } from './storage-activation.js';
import { availableOn, configEntry, newStorage, storageDigest, storagePathOf, storageType, withSettings } from './storage-config.js';
import { StorageSpace, statusEntry } from './storage-space.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import type { STORAGE_ENDPOINTS } from './storage.endpoints.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { StorageView } from '../inventory/storage/storage-view.js';
import { usersOf, volumesInUse } from './volumes-in-use.js';

type Endpoints = typeof STORAGE_ENDPOINTS;

/**
 * Storage definitions (docs/storage.md). A create or change runs in one transaction with the
 * storage's row: stored, then set up on every node this replica holds that has it, so a node that
 * cannot make its folders rolls the change back with the node's message. The storage view is
 * reloaded after each write, so this replica's next list shows it.
 */
@Injectable()
export class StoragesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: StoragesRepository,
    private readonly activation: StorageActivation,
    private readonly space: StorageSpace,
    private readonly guests: GuestView,
    private readonly nodes: NodesService,
    private readonly access: AccessState,
    private readonly view: StorageView,
  ) {}

  /** The storages the caller may audit, each with its size over the cluster now. */
  async list(caller: Principal, type: 'dir' | undefined): Promise<ResultOf<Endpoints['list']>> {
    const access = await this.access.current();
    const visible = (await this.repository.all()).filter(
      (storage) =>
        (type === undefined || storage.type === type) &&
        allows(access, caller.subject, `/storage/${storage.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true),
    );
    return Promise.all(visible.map(async (storage) => ({ ...configEntry(storage), ...sizes(await this.space.inCluster(storage)) })));
  }

  async get(id: string): Promise<ResultOf<Endpoints['get']>> {
    return configEntry(await this.existing(id));
  }

  async create({ storage: id, type, path, ...settings }: ParamsOf<Endpoints['create']>): Promise<ResultOf<Endpoints['create']>> {
    const kind = storageType(type);
    if (path === undefined) throw badParam('path', "parameter 'path' is missing: a directory storage needs its folder");
    const storage = withSettings(newStorage(id, storagePathOf(path)), settings);
    try {
      await this.dataSource.transaction(async (db) => {
        await this.repository.insert(db, storage);
        await this.activation.everywhere(storage);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`storage '${id}'`);
      throw error;
    }
    await this.view.reload(id);
    return { storage: id, type: kind };
  }

  async update({
    storage: id,
    delete: deleted,
    digest,
    ...settings
  }: ParamsOf<Endpoints['update']>): Promise<ResultOf<Endpoints['update']>> {
    await this.dataSource.transaction(async (db) => {
      const storage = await this.repository.lock(db, id);
      if (!storage) throw notFound(`storage '${id}'`);
      if (digest !== undefined && digest !== storageDigest(storage))
        throw new ApiError('CONFIG_CHANGED', `storage '${id}' was changed since the digest you sent: read it again`);
      const changed = withSettings(storage, settings, deleted);
      await this.repository.save(db, changed);
      await this.activation.everywhere(changed);
    });
    await this.view.reload(id);
    return { storage: id, type: 'dir' };
  }

  /** Refused while guests' configurations name volumes on it, unless `force`; the files stay on the nodes either way (as PVE). */
  async remove(id: string, force: boolean): Promise<null> {
    await this.dataSource.transaction(async (db) => {
      if (!(await this.repository.lock(db, id))) throw notFound(`storage '${id}'`);
      const uses = volumesInUse(this.guests.list().map((guest) => guest.row)).filter((use) => use.storage === id);
      if (uses.length > 0 && !force) {
        throw new ApiError(
          'IN_USE',
          `storage '${id}' holds volumes of ${usersOf(uses)}: remove or move them first, or remove the storage with force=1 (the volumes stay on disk)`,
        );
      }
      await this.repository.remove(db, id);
    });
    await this.view.reload(id);
    return null;
  }

  /** On one node, or over the cluster as the list counts it. */
  async status(id: string, node: string | undefined): Promise<ResultOf<Endpoints['status']>> {
    const storage = await this.existing(id);
    if (node === undefined) return statusEntry(storage, await this.space.inCluster(storage));
    return statusEntry(storage, await this.space.onNode(this.onNode(storage, node), node));
  }

  /** The storage, or 404. */
  async existing(id: string): Promise<StorageRow> {
    const storage = await this.repository.find(id);
    if (!storage) throw notFound(`storage '${id}'`);
    return storage;
  }

  /** The storage, unless it is disabled (a 400). */
  usable(storage: StorageRow): StorageRow {
    if (storage.disable) throw badParam('storage', `storage '${storage.storage}' is disabled`);
    return storage;
  }

  /** The storage as defined for the node: 404 for a node that never joined or that the storage is not defined for. */
  onNode(storage: StorageRow, node: string): StorageRow {
    this.nodes.existing(node);
    if (!availableOn(storage, node))
      throw new ApiError(
        'NOT_FOUND',
        `storage '${storage.storage}' does not exist on node '${node}': it is defined for ${storage.nodes?.join(', ')} only`,
      );
    return storage;
  }
}

function sizes(status: StorageStatus): { total: number; used: number; avail: number; active: 0 | 1 } {
  return { total: status.total, used: status.used, avail: status.avail, active: status.active ? 1 : 0 };
}
