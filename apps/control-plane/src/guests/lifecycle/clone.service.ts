import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { badParam } from '../../errors/resource-errors.js';
import { NodesService } from '../../nodes/nodes.service.js';
import type { GuestRef } from '../guest-ref.js';
import { guestSpec } from '../guest-spec.js';
import { GuestStates } from '../guest-states.js';
import { GuestTasks } from '../guest-tasks.js';
import { CREATE_MS } from '../guest-timeouts.js';
import { storageMapping } from '../migrate/migrate-plan.js';
import { MigrateService } from '../migrate/migrate.service.js';
import { cloneConfig } from '../new-config.js';
import { NewGuests } from '../new-guests.js';

export interface CloneOptions {
  readonly newid: number;
  readonly pool?: string;
  readonly name?: string;
  readonly description?: string;
  readonly full?: boolean;
  readonly target?: string;
  readonly storage?: string;
  readonly format?: 'qcow2' | 'raw';
}

/** Clones (PVE's `.../clone`): full copies of a stopped guest or a template, linked clones of a VM template. */
@Injectable()
export class CloneService {
  constructor(
    private readonly states: GuestStates,
    private readonly tasks: GuestTasks,
    private readonly newGuests: NewGuests,
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly migrations: MigrateService,
  ) {}

  /**
   * A clone: the new guest is inserted at once, locked `clone` (a taken `newid` is a 409, as a
   * create's), its volumes copied by the agent, then unlocked with its `vm-create` event; a failed
   * copy removes it again. The source must be stopped or a template.
   */
  async clone(guest: GuestRef, options: CloneOptions, caller: Principal): Promise<string> {
    const { kind, node, vmid } = guest;
    const source = this.states.existing(guest);
    const template = source.row.config['template'] === '1';
    // PVE's default: a linked clone of a template, a full clone of anything else.
    const linked = options.full === undefined ? template && kind.type === 'qemu' : !options.full;
    if (linked && kind.type === 'lxc')
      throw badParam(
        'full',
        'linked clones of containers need a storage with snapshots, and directory storages have none: clone with full=1',
      );
    // PVE's pct clone has no format: a container's mount points are raw images or subvolumes.
    if (kind.type === 'lxc' && options.format !== undefined)
      throw badParam('format', "a container's volumes have no image format: clone it without format");
    if (linked && !template)
      throw badParam('full', `linked clones are made of templates, and ${kind.noun} ${vmid} is none: clone with full=1`);
    if (linked && options.storage !== undefined)
      throw badParam('storage', 'a linked clone stays on the storage of its template: give storage only with full=1');
    const target = options.target ?? node;
    if (target !== node) {
      if (kind.type === 'lxc') throw badParam('target', 'containers cannot move between nodes yet: clone on the same node');
      if (linked) throw badParam('target', 'a linked clone stays on the node of its template: clone with full=1 to another node');
      this.nodes.existing(target);
      this.hub.reachable(target);
    }
    this.hub.reachable(node);
    const check = () => {
      if (this.states.existing(guest).row.config['template'] !== '1')
        this.states.mustBe(guest, ['stopped'], 'is running: clone it once it is stopped');
    };
    // Before the new guest exists: a refusal must leave nothing behind.
    if (!this.tasks.busy(vmid)) check();
    const storages = await this.states.storageMap();
    const { newid, name, storage, format } = options;
    const resolved = cloneConfig(kind, source.row.config, {
      vmid: newid,
      node,
      storages,
      linked,
      ...(name !== undefined ? { name } : {}),
      ...(storage !== undefined ? { storage } : {}),
      ...(format !== undefined ? { format } : {}),
    });
    await this.newGuests.mayAllocate(resolved.storages, caller);
    // A clone copies the current state only: it has none of the source's snapshots, so no `parent`.
    const { parent: _parent, ...cloned } = resolved.config;
    const config = options.description === undefined ? cloned : { ...cloned, description: options.description };
    return this.newGuests.submit(kind, { vmid: newid, node, config, lock: 'clone' }, options.pool, {
      node,
      vmid,
      type: kind.tasks.clone ?? 'clone',
      caller,
      check,
      work: async (work) => {
        const copy = guestSpec({ vmid: newid, type: kind.type, config }, storages);
        await this.newGuests.finish(kind, node, newid, () =>
          work.agent('guest.clone', { source: guestSpec(this.states.existing(guest).row, storages), target: copy }, CREATE_MS),
        );
        // PVE's clone to another node: made here, then moved there (offline: the new VM is stopped).
        if (target !== node) await this.migrations.move(work, { node, vmid: newid, target }, storages, storageMapping({}));
      },
    });
  }
}
