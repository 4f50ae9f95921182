import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { HaResourcesRepository } from '../../inventory/ha/ha-resources.repository.js';
import { ApiError } from '../../errors/api-error.js';
import { CloudinitService } from '../cloudinit/cloudinit.service.js';
import type { GuestRef } from '../guest-ref.js';
import { GuestStates } from '../guest-states.js';
import { GuestTasks } from '../guest-tasks.js';
import { CREATE_MS } from '../guest-timeouts.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';
import { linkedClonesOf } from '../linked-clones.js';
import { PowerService } from '../power/power.service.js';
import { runState } from '../status-entry.js';

/** The end of a guest: its volumes destroyed by the agent, its row removed with its `vm-delete` event. */
@Injectable()
export class DestroyService {
  constructor(
    private readonly states: GuestStates,
    private readonly tasks: GuestTasks,
    private readonly power: PowerService,
    private readonly ha: HaResourcesRepository,
    private readonly cloudinit: CloudinitService,
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
  ) {}

  async destroy(guest: GuestRef, options: { force?: boolean; purge?: boolean }, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    // PVE's words; with purge=1 the HA resource goes with the guest (its foreign key cascades).
    if (options.purge !== true && (await this.ha.find(vmid)) !== null)
      throw new ApiError('IN_USE', `unable to remove ${kind.noun} ${vmid} - used in HA resources and purge parameter not set.`);
    const force = options.force === true;
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.destroy ?? 'destroy',
      caller,
      check: () => {
        const state = this.states.existing(guest);
        const { row } = state;
        if (row.config['protection'] === '1')
          throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is protected: set protection=0 first`);
        const clones = linkedClonesOf(
          vmid,
          this.view.list().map((state) => state.row),
        );
        if (clones.length > 0)
          throw new ApiError('IN_USE', `${kind.noun} ${vmid} is the base of the linked clones ${clones.join(', ')}: destroy them first`);
        if (force) return;
        if (row.lock !== null) throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is locked (${row.lock})`);
        // In PVE's words: Telmate's provider stops a container and destroys it again when the refusal ends in "is running".
        if (runState(state) !== 'stopped')
          throw new ApiError(
            'GUEST_STATE',
            kind.type === 'lxc' ? `unable to destroy CT ${vmid} - container is running` : `VM ${vmid} is running - destroy failed`,
          );
      },
      work: async (work) => {
        if (runState(this.states.existing(guest)) !== 'stopped') await this.power.stopWork(kind, vmid, work);
        await work.agent('guest.destroy', { guest: await this.states.spec(guest) }, CREATE_MS);
        if (kind.type === 'qemu') await this.cloudinit.release(work, this.states.existing(guest).row);
        await this.repository.remove(vmid, { event: { event: 'vm-delete', node } });
        await this.view.reload(vmid);
      },
    });
  }
}
