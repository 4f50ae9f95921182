import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import type { PruneOptions } from '@corral/pve-formats';
import { permissionDenied } from '../access/auth/authorizer.js';
import type { Principal } from '../http/principal.js';
import { AccessState } from '../access/state/access-state.js';
import { AgentHub } from '../agents/agent-hub.js';
import { ApiError } from '../errors/api-error.js';
import { badParam } from '../errors/resource-errors.js';
import type { ParamsOf, ResultOf } from '../http/endpoint.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { BackupPruner, holdsBackups, PRUNE_FAILED, type BackupFilter } from './backup-pruner.js';
import { mayRemoveBackups } from './backup-permissions.js';
import type { PRUNE_BACKUPS_ENDPOINTS, PruneEntry } from './prune-backups.endpoints.js';
import { pruneOptionsOf } from './storage-config.js';
import { StorageSpace } from './storage-space.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';
import { StoragesService } from './storages.service.js';

type Endpoints = typeof PRUNE_BACKUPS_ENDPOINTS;

/** What a prune request selects: the backups of a guest or a type, by a retention given or the storage's. */
interface PruneRequest extends BackupFilter {
  readonly 'prune-backups'?: string | undefined;
}

/**
 * The prune endpoints (docs/storage.md, "Prune"): PVE's dry run and `prunebackups` task on one node,
 * and Corral's prune over the nodes that hold a storage. The storage, the retention and the
 * caller's rights are checked before anything is read or a task starts.
 */
@Injectable()
export class PruneBackupsService {
  constructor(
    private readonly storages: StoragesService,
    private readonly space: StorageSpace,
    private readonly pruner: BackupPruner,
    private readonly hub: AgentHub,
    private readonly runner: TaskRunner,
    private readonly access: AccessState,
  ) {}

  /** PVE's `GET .../prunebackups`: the marks on the node's files now. */
  async dryRun(node: string, id: string, request: PruneRequest): Promise<PruneEntry[]> {
    const { storage, options } = await this.checked(id, node, request);
    return this.pruner.marks(node, storage, request, options);
  }

  /** PVE's `DELETE .../prunebackups`: a `prunebackups` task on the node; its UPID. */
  async prune(node: string, id: string, request: PruneRequest, caller: Principal): Promise<string> {
    // Permission first: a caller without it learns nothing of the storage.
    mayRemoveBackups(await this.access.current(), caller, id, request.vmid);
    const { storage, options } = await this.checked(id, node, request);
    return this.start([node], storage, request, options, caller);
  }

  /** Corral's `POST /storage/{storage}/prune`: on `node`, or on the nodes whose files are the storage's; the marks with `dry-run`, else one task's UPID. */
  async inCluster(
    { storage: id, node, 'dry-run': dryRun, ...request }: ParamsOf<Endpoints['pruneInCluster']>,
    caller: Principal,
  ): Promise<ResultOf<Endpoints['pruneInCluster']>> {
    // Permission first: a caller without it learns nothing of the storage.
    const access = await this.access.current();
    const audit = ['Datastore.Audit', 'Datastore.AllocateSpace'] as const;
    if (dryRun !== true) mayRemoveBackups(access, caller, id, request.vmid);
    else if (!allows(access, caller.subject, `/storage/${id}`, audit, true))
      throw permissionDenied({ path: `/storage/${id}`, privileges: [...audit] });
    const { storage, options } = await this.checked(id, node, request);
    const nodes = node !== undefined ? [node] : this.space.filesNodes(storage);
    if (dryRun !== true) return this.start(nodes, storage, request, options, caller);
    const lists = await Promise.all(
      nodes.map(async (each) => (await this.pruner.marks(each, storage, request, options)).map((entry) => ({ ...entry, node: each }))),
    );
    return lists.flat();
  }

  /**
   * The storage (404 unless it exists, on `node` when given; 400 when disabled or holding no
   * backups) and the retention: the one given, else the storage's; PVE refuses a prune with neither.
   */
  private async checked(
    id: string,
    node: string | undefined,
    request: PruneRequest,
  ): Promise<{ storage: StorageRow; options: PruneOptions }> {
    const storage = this.storages.usable(await this.storages.existing(id));
    if (node !== undefined) this.storages.onNode(storage, node);
    holdsBackups(storage);
    const text = request['prune-backups'] ?? storage.pruneBackups;
    if (text === null) throw badParam('prune-backups', `no prune-backups options configured for storage '${id}': give prune-backups`);
    return { storage, options: pruneOptionsOf(text) };
  }

  /**
   * One `prunebackups` task (PVE's id: `<vmid>@<storage>`, or the storage) on the first node, pruning
   * the nodes one after another. With several nodes, each one's part of the log is headed by its
   * name, and a node that fails does not stop the others: the task then ends with PRUNE_FAILED.
   */
  private start(
    nodes: readonly string[],
    storage: StorageRow,
    only: BackupFilter,
    options: PruneOptions,
    caller: Principal,
  ): Promise<string> {
    const [first] = nodes;
    if (first === undefined) throw new ApiError('NODE_UNAVAILABLE', `no node that holds storage '${storage.storage}' is online`);
    for (const node of nodes) this.hub.reachable(node);
    const id = only.vmid !== undefined ? `${only.vmid}@${storage.storage}` : storage.storage;
    return this.runner.start({ node: first, type: 'prunebackups', id, caller }, async (_upid, log, signal) => {
      let last = 0;
      const line = (text: string) => log([{ n: (last += 1), text }]);
      let failed = false;
      for (const node of nodes) {
        if (nodes.length > 1) line(`pruning backups of storage '${storage.storage}' on node '${node}'`);
        try {
          await this.pruner.remove(node, storage, await this.pruner.marks(node, storage, only, options, signal), line, signal);
        } catch (error) {
          if (nodes.length === 1 || signal.aborted) throw error;
          if (!(error instanceof Error && error.message === PRUNE_FAILED))
            line(`error pruning backups on node '${node}' - ${error instanceof Error ? error.message : String(error)}`);
          failed = true;
        }
      }
      if (failed) throw new Error(PRUNE_FAILED);
    });
  }
}
