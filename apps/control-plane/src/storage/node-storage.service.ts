import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import type { ParamsOf, ResultOf } from '../http/endpoint.js';
import { NodesService } from '../nodes/nodes.service.js';
import type { NODE_STORAGE_ENDPOINTS } from './node-storage.endpoints.js';
import { availableOn } from './storage-config.js';
import { StorageSpace, statusEntry } from './storage-space.js';
import { StoragesRepository } from '../inventory/storage/storages.repository.js';
import { StoragesService } from './storages.service.js';

type Endpoints = typeof NODE_STORAGE_ENDPOINTS;

/** What `/nodes/{node}/storage/{storage}` serves. */
const STORAGE_INDEX = ['content', 'download-url', 'prunebackups', 'rrd', 'rrddata', 'status', 'upload'];

/** One node's storages with their space on it now (PVE's `/nodes/{node}/storage`). */
@Injectable()
export class NodeStorageService {
  constructor(
    private readonly repository: StoragesRepository,
    private readonly storages: StoragesService,
    private readonly space: StorageSpace,
    private readonly nodes: NodesService,
    private readonly access: AccessState,
  ) {}

  /** The storages defined for the node that the caller may audit and the filters let through; the node's agent reports each one's space. */
  async list(
    { node, content, storage: only, enabled, target }: ParamsOf<Endpoints['list']>,
    caller: Principal,
  ): Promise<ResultOf<Endpoints['list']>> {
    this.nodes.existing(node);
    if (target !== undefined && target !== node) this.nodes.existing(target);
    const access = await this.access.current();
    const listed = (await this.repository.all()).filter(
      (storage) =>
        availableOn(storage, node) &&
        (only === undefined || storage.storage === only) &&
        (content === undefined || content.some((kind) => storage.content.includes(kind))) &&
        (enabled !== true || !storage.disable) &&
        (target === undefined || target === node || (storage.shared && availableOn(storage, target))) &&
        allows(access, caller.subject, `/storage/${storage.storage}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true),
    );
    return Promise.all(listed.map(async (storage) => statusEntry(storage, await this.space.onNode(storage, node))));
  }

  async index(node: string, id: string): Promise<ResultOf<Endpoints['index']>> {
    this.storages.onNode(await this.storages.existing(id), node);
    return STORAGE_INDEX.map((subdir) => ({ subdir }));
  }

  async status(node: string, id: string): Promise<ResultOf<Endpoints['status']>> {
    return this.storages.status(id, node);
  }
}
