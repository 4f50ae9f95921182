import { Injectable } from '@nestjs/common';
import type { Principal } from '../../http/principal.js';
import { ApiError } from '../../errors/api-error.js';
import type { GuestRef } from '../guest-ref.js';
import { GuestStates } from '../guest-states.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { CREATE_MS } from '../guest-timeouts.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { GuestsRepository } from '../../inventory/guests/guests.repository.js';

/** Templates: stopped guests whose volumes became bases; they no longer start, and are cloned. */
@Injectable()
export class TemplateService {
  constructor(
    private readonly states: GuestStates,
    private readonly tasks: GuestTasks,
    private readonly repository: GuestsRepository,
    private readonly view: GuestView,
  ) {}

  /**
   * Turns a stopped guest into a template. A VM's answer is the task; a container's (PVE answers
   * null) comes when the task is done.
   */
  async template(guest: GuestRef, caller: Principal): Promise<string>;
  async template(guest: GuestRef, caller: Principal, options: { wait: true }): Promise<void>;
  async template(guest: GuestRef, caller: Principal, options?: { wait: true }): Promise<string | void> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    const run = options?.wait ? this.tasks.completed.bind(this.tasks) : this.tasks.submit.bind(this.tasks);
    return run({
      node,
      vmid,
      type: kind.tasks.template ?? 'template',
      caller,
      check: () => {
        if (this.states.existing(guest).row.config['template'] === '1')
          throw new ApiError('GUEST_STATE', `${kind.noun} ${vmid} is already a template`);
        this.states.mustBe(guest, ['stopped'], 'is running: templates are made of stopped guests');
      },
      work: (work) => this.templateWork(guest, work),
    });
  }

  /** Makes the guest's volumes bases and marks it a template. */
  async templateWork(guest: GuestRef, work: GuestWork): Promise<void> {
    await work.agent('guest.template', { guest: await this.states.spec(guest) }, CREATE_MS);
    await this.repository.update(guest.vmid, async (row) => ({ config: { ...row.config, template: '1' } }));
    await this.view.reload(guest.vmid);
  }
}
