import { Injectable } from '@nestjs/common';
import { childAuditor, type Privilege } from '@corral/acl';
import type { Principal } from '../../http/principal.js';
import type { AccessSnapshot } from '../../access/state/access-snapshot.js';
import { AccessState } from '../../access/state/access-state.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import type { GuestStatus } from '../../guests/guest.endpoints.js';
import { statusEntry } from '../../guests/status-entry.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { NodeView, type NodeState } from '../../inventory/nodes/node-view.js';
import { StorageView } from '../../inventory/storage/storage-view.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import type { PoolResourceEntry, ResourceEntry } from './resources.endpoints.js';
import { guestEntry } from './guest-entries.js';
import { JsonText, JsonTexts } from '../../http/json-text.js';
import { availableOn } from '../../storage/storage-config.js';

/** `/cluster/resources` and `/cluster/nextid`. */
@Injectable()
export class ResourcesService {
  constructor(
    private readonly nodes: NodeView,
    private readonly guests: GuestView,
    private readonly repository: GuestsRepository,
    private readonly storages: StorageView,
    private readonly access: AccessState,
  ) {}

  private readonly texts = new JsonTexts();
  /** Each storage's entries on its nodes, while the storage's row (replaced when it changes) and the node's state are those they were made from. */
  private readonly storageTexts = new WeakMap<StorageRow, JsonTexts>();

  /**
   * The list as JSON: each guest's entry is kept as JSON while its row (replaced, never changed, when
   * the guest changes), run state and pool are those it was made from, and each node's while its
   * state is, so that a list of ten thousand guests joins buffers rather than building and
   * serialising ten thousand objects.
   */
  async resources(
    type: 'node' | 'vm' | 'storage' | undefined,
    caller: Principal,
  ): Promise<JsonText<(ResourceEntry | PoolResourceEntry)[]>> {
    const access = await this.access.current();
    const audits = (parent: string, privilege: Privilege) => childAuditor(access, caller.subject, parent, [privilege]);
    const entries: Buffer[] = [];
    const add = (entry: object) => entries.push(Buffer.from(JSON.stringify(entry)));
    if (type === undefined || type === 'node') {
      const audited = audits('/nodes', 'Sys.Audit');
      for (const node of this.nodes.list()) {
        const shown = audited(node.name);
        entries.push(this.texts.text(node, shown, undefined, () => nodeEntry(node, shown)));
      }
    }
    if (type === undefined || type === 'vm') {
      const audited = audits('/vms', 'VM.Audit');
      const pools = guestPools(access);
      for (const state of this.guests.list()) {
        if (!audited(state.row.vmid)) continue;
        const pool = pools.get(state.row.vmid);
        entries.push(this.texts.text(state.row, state.runtime, pool, () => guestEntry(state, pool)));
      }
    }
    if (type === undefined || type === 'storage')
      for (const { node, storage } of this.storagesOnNodes(audits('/storage', 'Datastore.Audit'))) {
        let texts = this.storageTexts.get(storage);
        if (texts === undefined) this.storageTexts.set(storage, (texts = new JsonTexts()));
        entries.push(texts.text(node, undefined, undefined, () => storageEntry(node, storage)));
      }
    if (type === undefined) this.poolEntries(access, audits('/pool', 'Pool.Audit')).forEach(add);
    return JsonText.array(entries);
  }

  /** A pool's guests and storages as this list shows them, without the caller's own audit checks (PVE's `GET /pools/{poolid}` needs Pool.Audit only); each storage once, on the first node that has it. */
  async members(vmids: ReadonlySet<number>, storages: ReadonlySet<string>): Promise<ResourceEntry[]> {
    const access = await this.access.current();
    const firstNodes = new Map<string, ResourceEntry>();
    for (const { node, storage } of this.storagesOnNodes((id) => storages.has(id)))
      if (!firstNodes.has(storage.storage)) firstNodes.set(storage.storage, storageEntry(node, storage));
    return [...this.guestEntries(access, (vmid) => vmids.has(vmid)), ...firstNodes.values()];
  }

  /** A free vmid; with `vmid`, that one when it is free (PVE's check), else a 400 saying where it is. */
  async nextid(vmid: number | undefined): Promise<string> {
    if (vmid !== undefined) {
      const taken = await this.repository.get(vmid);
      if (taken) throw badParam('vmid', `${taken.type === 'lxc' ? 'CT' : 'VM'} ${vmid} already exists`);
      return String(vmid);
    }
    const free = await this.repository.reserveNextId();
    if (free === null) throw new ApiError('GUEST_STATE', 'no free vmid is left in the range 100 to 999999');
    return String(free);
  }

  private guestEntries(access: AccessSnapshot, include: (vmid: number) => boolean): ResourceEntry[] {
    return this.guests
      .list()
      .filter((state) => include(state.row.vmid))
      .map((state) => guestEntry(state, guestPools(access).get(state.row.vmid)));
  }

  /** Each enabled storage `include` takes, on each node it is defined for. */
  private storagesOnNodes(include: (storage: string) => boolean): { node: NodeState; storage: StorageRow }[] {
    const storages = this.storages.list().filter((storage) => !storage.disable && include(storage.storage));
    return this.nodes
      .list()
      .flatMap((node) => storages.filter((storage) => availableOn(storage, node.name)).map((storage) => ({ node, storage })));
  }

  /** PVE sums the load of each pool's running guests, including guests the caller may not audit. */
  private poolEntries(access: AccessSnapshot, include: (pool: string) => boolean): PoolResourceEntry[] {
    const running = new Map<string, GuestStatus[]>();
    for (const [vmid, pool] of guestPools(access)) {
      const state = this.guests.get(vmid);
      const status = state && statusEntry(state);
      if (status !== undefined && status.uptime > 0) running.set(pool, [...(running.get(pool) ?? []), status]);
    }
    return access.pools
      .filter(include)
      .map((pool) => ({ id: `/pool/${pool}`, type: 'pool' as const, pool, ...poolLoad(running.get(pool) ?? []) }));
  }
}

const poolsOfGuests = new WeakMap<AccessSnapshot, ReadonlyMap<number, string>>();

/** The pool of each guest in one, by vmid, once per access snapshot: a guest in a pool names it, as in PVE, for whoever may see the guest. */
function guestPools(access: AccessSnapshot): ReadonlyMap<number, string> {
  let pools = poolsOfGuests.get(access);
  if (pools === undefined) {
    pools = new Map(
      [...access.memberPools].flatMap(([path, [pool]]) => {
        const vmid = /^\/vms\/(\d+)$/.exec(path)?.[1];
        return vmid === undefined || pool === undefined ? [] : [[Number(vmid), pool] as const];
      }),
    );
    poolsOfGuests.set(access, pools);
  }
  return pools;
}

/** The summed load of running guests; `cpu` the share of their summed CPUs (PVE's weighted mean). */
function poolLoad(running: readonly GuestStatus[]): Omit<PoolResourceEntry, 'id' | 'type' | 'pool'> {
  if (running.length === 0) return {};
  const sum = (pick: (status: GuestStatus) => number) => running.reduce((total, status) => total + pick(status), 0);
  const maxcpu = sum((s) => s.cpus);
  return {
    cpu: maxcpu > 0 ? sum((s) => s.cpu * s.cpus) / maxcpu : 0,
    maxcpu,
    mem: sum((s) => s.mem),
    maxmem: sum((s) => s.maxmem),
    uptime: Math.max(...running.map((s) => s.uptime)),
  };
}

/** A node's entry; its load only with `shown` (the caller may audit it) and while it is online. */
function nodeEntry(node: NodeState, shown: boolean): ResourceEntry {
  const entry: ResourceEntry = {
    id: `node/${node.name}`,
    type: 'node',
    node: node.name,
    status: node.online ? 'online' : 'offline',
    level: '',
  };
  const inventory = node.inventory;
  if (!inventory || !node.online || !shown) return entry;
  const { cpu, maxcpu, mem, maxmem, disk, maxdisk, uptime } = inventory;
  return { ...entry, cpu, maxcpu, mem, maxmem, disk, maxdisk, uptime };
}

/** A storage's entry on a node, with PVE's `disk` and `maxdisk` (used and total bytes there) where the node's inventory reports it active. */
function storageEntry(node: NodeState, storage: StorageRow): ResourceEntry {
  const space = node.online ? node.inventory?.storages?.find((each) => each.storage === storage.storage) : undefined;
  return {
    id: `storage/${node.name}/${storage.storage}`,
    type: 'storage',
    node: node.name,
    storage: storage.storage,
    plugintype: storage.type,
    status: node.online ? 'available' : 'unknown',
    content: storage.content.join(','),
    shared: storage.shared ? 1 : 0,
    ...(space?.active ? { disk: space.used, maxdisk: space.total } : null),
  };
}
