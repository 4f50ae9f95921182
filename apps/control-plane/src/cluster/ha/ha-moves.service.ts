import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { badParam, notFound } from '../../errors/resource-errors.js';
import { LXC, QEMU } from '../../guests/guest-kinds.js';
import { GuestTasks } from '../../guests/guest-tasks.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { storageMapping } from '../../guests/migrate/migrate-plan.js';
import { ContainerMigrations } from '../../guests/migrate/container-migrate.service.js';
import { MigrateService } from '../../guests/migrate/migrate.service.js';
import { runState } from '../../guests/status-entry.js';
import { HaGroupsRepository } from './ha-groups.repository.js';
import type { GivenSid } from './ha-params.js';
import { HaResourcesRepository } from '../../inventory/ha/ha-resources.repository.js';
import { sidOf } from './manager/sid.js';

/** How long a stop before a relocation may take. */
const STOP_MS = 5 * 60_000;

/**
 * Moves of HA guests (docs/ha.md "Moves and failback"): PVE's `migrate` (live when a VM runs) and
 * `relocate` (stopped, moved offline, and started on the target by the HA manager), asked through
 * the API or by the HA manager's failback. A container is always relocated (a `migrate` of one is
 * a relocation, as in PVE): shut down, not stopped hard. Each is a `qmigrate` or `vzmigrate` task
 * on the guest's queue; the guest stays under HA, and the HA manager leaves it alone while the
 * move holds its queue.
 */
@Injectable()
export class HaMoves {
  constructor(
    private readonly resources: HaResourcesRepository,
    private readonly groups: HaGroupsRepository,
    private readonly view: GuestView,
    private readonly migrations: MigrateService,
    private readonly containers: ContainerMigrations,
    private readonly tasks: GuestTasks,
  ) {}

  /** Starts the move as a task of the guest's, and answers what PVE 9 answers: the resource and the node asked for. */
  async move(
    sid: GivenSid,
    target: string,
    how: 'migrate' | 'relocate',
    caller: Principal,
  ): Promise<{ sid: string; 'requested-node': string }> {
    const name = await this.start(sid, target, how, caller);
    return { sid: name, 'requested-node': target };
  }

  /** Submits the move's task; resolves with the resource's sid. */
  private async start(sid: GivenSid, target: string, how: 'migrate' | 'relocate', caller: Principal): Promise<string> {
    const resource = await this.resources.find(sid.vmid);
    if (resource === null || (sid.type !== undefined && sid.type !== resource.type))
      throw notFound(`HA resource '${sid.type === undefined ? sid.vmid : sidOf({ type: sid.type, vmid: sid.vmid })}'`);
    const name = sidOf(resource);
    const state = this.view.get(resource.vmid);
    if (!state) throw notFound(`${resource.type === 'vm' ? 'VM' : 'CT'} ${resource.vmid}`);
    const node = state.row.node;
    if (target === node) throw badParam('node', `${name} is on node '${node}' already`);
    const group = resource.group === null ? null : await this.groups.find(resource.group);
    if (group?.restricted === true && !group.nodes.some((member) => member.node === target)) {
      throw badParam(
        'node',
        `the group '${group.group}' of ${name} is restricted to nodes ${group.nodes.map((member) => `'${member.node}'`).join(', ')}, and '${target}' is none of them`,
      );
    }
    if (resource.type === 'vm' && how === 'migrate') {
      await this.migrations.migrate({ node, vmid: resource.vmid, target, online: runState(state) !== 'stopped' }, caller);
      return name;
    }
    // The checks of every migration (the target is reachable, the volumes can go there, no snapshots) before the task; `migrate` makes them itself.
    const storages = await this.migrations.prepare(
      { node, vmid: resource.vmid, target },
      resource.type === 'ct' ? LXC : QEMU,
      storageMapping({}),
      caller,
    );
    // PVE moves containers by relocation only: they have no live migration.
    if (resource.type === 'ct') {
      await this.tasks.submit({
        node,
        vmid: resource.vmid,
        type: 'vzmigrate',
        caller,
        work: async (work) => {
          work.line(`relocating ${name} to node '${target}': a running container shuts down here and the HA manager starts it there`);
          await this.containers.restartMove(work, { node, vmid: resource.vmid, target }, storages, storageMapping({}), { start: false });
        },
      });
      return name;
    }
    // The stop is asked whatever the view shows: a start the agent made may not have reached it yet, and the agent stops only what runs.
    await this.tasks.submit({
      node,
      vmid: resource.vmid,
      type: 'qmigrate',
      caller,
      work: async (work) => {
        work.line(`relocating ${name} to node '${target}': it stops here and the HA manager starts it there`);
        await work.agent('guest.stop', { type: 'qemu', vmid: resource.vmid }, STOP_MS);
        await this.migrations.move(work, { node, vmid: resource.vmid, target, online: false }, storages, storageMapping({}), {
          offline: true,
        });
      },
    });
    return name;
  }
}
