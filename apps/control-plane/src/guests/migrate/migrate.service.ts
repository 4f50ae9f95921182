import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import type { GuestSpec } from '@corral/protocol';
import type { z } from 'zod';
import type { Principal } from '../../http/principal.js';
import { permissionDenied } from '../../access/auth/authorizer.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam, notFound } from '../../errors/resource-errors.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { NodesService } from '../../nodes/nodes.service.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import type { StorageRow } from '../../inventory/storage/storage.entity.js';
import { StoragesRepository } from '../../inventory/storage/storages.repository.js';
import { kindOf, QEMU, type GuestKind } from '../guest-kinds.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { guestSpec } from '../guest-spec.js';
import { GuestView, type GuestState } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { runState } from '../status-entry.js';
import { linkedClonesOf } from '../linked-clones.js';
import { SnapshotsRepository } from '../snapshots/snapshots.repository.js';
import { migratePlan, storageMapping, type MigratePlan, type StorageMapping } from './migrate-plan.js';
import type { MIGRATE_ENDPOINTS, MigratePreconditions } from './migrate.endpoints.js';

type MigrateRequest = ParamsOf<(typeof MIGRATE_ENDPOINTS)['migrate']>;
/** What a move needs of a request: where the VM is, where it goes, and whether it may go live. */
export type MoveRequest = Pick<MigrateRequest, 'node' | 'vmid' | 'target' | 'online'>;

/** How long each step may take: the target gets ready and finishes in moments; the copy of large disks takes long. */
const RECEIVE_MS = 5 * 60_000;
const SEND_MS = 24 * 3600_000;
const FINISH_MS = 5 * 60_000;

/**
 * Migration of VMs between nodes (`.../qemu/{vmid}/migrate`; docs/guests.md "Migration"): one task
 * (`qmigrate`) on the VM's queue that drives both agents, `guest.migrate.receive` on the target,
 * `guest.migrate.send` on the source, then `guest.migrate.finish` on the target (or
 * `guest.migrate.abort` when the send failed). The VM is locked `migrate` meanwhile, and its row
 * names the target once the send succeeded: from then on the VM and its disks are there.
 */
@Injectable()
export class MigrateService {
  constructor(
    private readonly view: GuestView,
    private readonly repository: GuestsRepository,
    private readonly tasks: GuestTasks,
    private readonly nodes: NodesService,
    private readonly nodeView: NodeView,
    private readonly storages: StoragesRepository,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
    private readonly snapshots: SnapshotsRepository,
  ) {}

  async migrate(request: MigrateRequest, caller: Principal): Promise<string> {
    const { node, vmid, target } = request;
    const mapping = storageMapping(request);
    const storages = await this.prepare(request, QEMU, mapping, caller);
    return this.tasks.submit({
      node,
      vmid,
      type: 'qmigrate',
      caller,
      check: () => this.mayMigrate(request, this.plan(node, vmid, target, storages, mapping, QEMU)),
      work: (work) => this.move(work, request, storages, mapping),
    });
  }

  /**
   * What every migration checks before its task, in PVE's order: the guest is on `node`, the
   * target exists, is another node and is reachable, the volumes can go to their target storages,
   * and the caller may allocate space on those a request chose. Resolves with the storages.
   */
  async prepare(
    request: Pick<MoveRequest, 'node' | 'vmid' | 'target'>,
    kind: GuestKind,
    mapping: StorageMapping,
    caller: Principal,
  ): Promise<Map<string, StorageRow>> {
    const { node, vmid, target } = request;
    this.existing(node, vmid, kind);
    this.nodes.existing(target);
    if (target === node) throw badParam('target', 'target is local node.');
    this.hub.reachable(target);
    await this.refuseSnapshots(kind, vmid);
    const storages = await this.storageMap();
    const plan = this.plan(node, vmid, target, storages, mapping, kind);
    if (mapping.param !== undefined) {
      const access = await this.access.current();
      for (const storage of plan.storages) {
        if (!allows(access, caller.subject, `/storage/${storage}`, ['Datastore.AllocateSpace']))
          throw permissionDenied({ path: `/storage/${storage}`, privileges: ['Datastore.AllocateSpace'] });
      }
    }
    return storages;
  }

  /** PVE's answer with Corral's facts: no host devices, no HA; a node may take the VM when it has each of its storages. */
  async preconditions(node: string, vmid: number, target: string | undefined): Promise<z.infer<typeof MigratePreconditions>> {
    const state = this.existing(node, vmid);
    if (target !== undefined) this.nodes.existing(target);
    const storages = await this.storageMap();
    const spec = guestSpec(state.row, storages);
    const used = new Set(spec.volumes.map((volume) => volume.volid.slice(0, volume.volid.indexOf(':'))));
    const candidates = this.nodeView
      .list()
      .map((candidate) => candidate.name)
      .filter((name) => name !== node && (target === undefined || name === target));
    const unavailable = (name: string) => [...used].filter((id) => !availableOn(storages.get(id), name)).sort();
    const flag = (value: boolean) => (value ? 1 : 0) as 0 | 1;
    return {
      running: flag(runState(state) !== 'stopped'),
      allowed_nodes: candidates.filter((name) => unavailable(name).length === 0),
      not_allowed_nodes: Object.fromEntries(
        candidates.flatMap((name) => (unavailable(name).length > 0 ? [[name, { unavailable_storages: unavailable(name) }]] : [])),
      ),
      local_disks: spec.volumes
        .filter((volume) => storages.get(volume.volid.slice(0, volume.volid.indexOf(':')))?.shared !== true)
        .map((volume) => ({ volid: volume.volid, size: volume.size, cdrom: flag(volume.cdrom === true), is_unused: 0 as const })),
      local_resources: [],
      'mapped-resources': [],
      'mapped-resource-info': {},
      'has-dbus-vmstate': 0,
    };
  }

  /** The state rules, before the task and again when its turn comes (PVE's messages). */
  private mayMigrate(request: MigrateRequest, plan: MigratePlan): void {
    const { node, vmid, target } = request;
    const state = this.existing(node, vmid, QEMU);
    if (state.row.lock !== null) throw new ApiError('GUEST_STATE', `VM ${vmid} is locked (${state.row.lock})`);
    this.hub.reachable(target);
    const running = runState(state) !== 'stopped';
    if (request.online === true && state.row.config['template'] === '1')
      throw new ApiError('GUEST_STATE', `VM ${vmid} is a template: templates migrate offline (online=0)`);
    if (running && request.online !== true) throw new ApiError('GUEST_STATE', "can't migrate running VM without --online");
    if (running && state.row.config['tpmstate0'] !== undefined)
      throw new ApiError(
        'GUEST_STATE',
        `VM ${vmid} has a TPM (tpmstate0): Corral does not migrate a running TPM's state yet, migrate it stopped`,
      );
    if (running && plan.copy.length > 0 && request['with-local-disks'] !== true)
      throw badParam('with-local-disks', "can't live migrate attached local disks without with-local-disks option");
    const clones = linkedClonesOf(
      vmid,
      this.view.list().map(({ row }) => row),
    );
    if (clones.length > 0)
      throw new ApiError(
        'IN_USE',
        `VM ${vmid} is the base of the linked clones ${clones.join(', ')}: they need its images on node '${node}'`,
      );
  }

  /**
   * Moves the guest within a task that holds its queue: this one's, a container's `vzmigrate`, an
   * HA move's, or a clone's to another node. Live when a VM runs, unless `offline`: the caller
   * stopped it in this task, before the view may show it.
   */
  async move(
    work: GuestWork,
    request: MoveRequest,
    storages: ReadonlyMap<string, StorageRow>,
    mapping: StorageMapping,
    options: { readonly offline?: boolean } = {},
  ): Promise<void> {
    const { node, vmid, target } = request;
    const state = this.existing(node, vmid);
    const kind = kindOf(state.row.type);
    await this.refuseSnapshots(kind, vmid);
    const online = kind.type === 'qemu' && options.offline !== true && runState(state) !== 'stopped';
    if (request.online === true && !online) work.line(`${kind.noun} isn't running. Doing offline migration instead.`);
    const plan = this.plan(node, vmid, target, storages, mapping, kind);
    const { copy } = plan;
    const source = guestSpec(state.row, storages);
    const moved = guestSpec({ ...state.row, config: plan.config }, storages);
    const address = this.hub.address(target);
    await this.repository.update(vmid, async (row) => {
      if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${row.lock})`);
      return { lock: 'migrate', lockTask: work.upid };
    });
    await this.view.reload(vmid);
    const started = Date.now();
    try {
      work.line(`starting ${online ? 'online' : 'offline'} migration of ${kind.noun} ${vmid} to node '${target}' (${address})`);
      if (copy.length > 0)
        work.line(`moving ${copy.map((key) => describeMove(key, volidOf(source, key), volidOf(moved, key))).join(', ')}`);
      const ports = await work.on(target, 'guest.migrate.receive', { guest: moved, copy, online, listen: address }, RECEIVE_MS);
      const volids = Object.fromEntries(copy.map((key) => [key, volidOf(moved, key)]));
      let sent;
      try {
        sent = await work.on(
          node,
          'guest.migrate.send',
          { guest: source, copy, online, target: { node: target, address, ...ports, volids } },
          SEND_MS,
        );
      } catch (error) {
        await work
          .on(target, 'guest.migrate.abort', { guest: moved, copy }, FINISH_MS, { cleanup: true })
          .catch((cleanup: Error) => work.line(`could not clean up node '${target}': ${cleanup.message}`));
        throw error;
      }
      // The guest and its volumes are on the target now, whatever follows.
      await this.repository.update(vmid, async () => ({ node: target, config: plan.config }));
      await work.on(target, 'guest.migrate.finish', { guest: moved, copy, state: sent.state }, FINISH_MS, { cleanup: true });
      work.line(`migration finished successfully (duration ${duration(Date.now() - started)})`);
    } finally {
      await this.repository.update(vmid, async () => ({ lock: null }));
      await this.view.reload(vmid);
    }
  }

  /** A guest's snapshots live beside its volumes on its node, and a migration copies only their current state. */
  private async refuseSnapshots(kind: GuestKind, vmid: number): Promise<void> {
    const names = (await this.snapshots.list(vmid)).map((snapshot) => snapshot.name);
    if (names.length > 0)
      throw new ApiError(
        'GUEST_STATE',
        `${kind.noun} ${vmid} has snapshots (${names.join(', ')}): migrating them is not supported yet; delete them first`,
      );
  }

  private plan(
    node: string,
    vmid: number,
    target: string,
    storages: ReadonlyMap<string, StorageRow>,
    mapping: StorageMapping,
    kind: GuestKind,
  ): MigratePlan {
    return migratePlan({ vmid, kind, config: this.existing(node, vmid, kind).row.config }, target, storages, mapping);
  }

  /** The guest, or 404: unknown, of another kind than `kind` (when given), or on another node. */
  private existing(node: string, vmid: number, kind?: GuestKind): GuestState {
    const state = this.view.get(vmid);
    if (!state || (kind !== undefined && state.row.type !== kind.type)) throw notFound(`${kind?.noun ?? 'guest'} ${vmid}`);
    if (state.row.node !== node)
      throw new ApiError(
        'NOT_FOUND',
        `${kindOf(state.row.type).noun} ${vmid} does not exist on node '${node}' (it is on node '${state.row.node}')`,
      );
    return state;
  }

  private async storageMap(): Promise<Map<string, StorageRow>> {
    return new Map((await this.storages.all()).map((storage) => [storage.storage, storage]));
  }
}

/** Whether a storage can be used on `node` (PVE's unavailable_storages lists the others). */
function availableOn(storage: StorageRow | undefined, node: string): boolean {
  return storage !== undefined && !storage.disable && (storage.nodes === null || storage.nodes.includes(node));
}

function volidOf(guest: GuestSpec, key: string): string {
  return guest.volumes.find((volume) => volume.key === key)?.volid ?? key;
}

/** `scsi0 (local:100/vm-100-disk-0.qcow2)`, with `-> <target volume>` when it goes to another storage. */
function describeMove(key: string, from: string, to: string): string {
  return `${key} (${from}${to === from ? '' : ` -> ${to}`})`;
}

/** `00:01:05`, as PVE's task logs write a duration. */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60].map((part) => String(part).padStart(2, '0')).join(':');
}
