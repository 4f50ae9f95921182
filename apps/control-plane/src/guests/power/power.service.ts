import { Injectable } from '@nestjs/common';
import { SYSTEM_CALLER, type Principal } from '../../http/principal.js';
import { HaResourcesRepository } from '../../inventory/ha/ha-resources.repository.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import { CloudinitService } from '../cloudinit/cloudinit.service.js';
import type { GuestKind } from '../guest-kinds.js';
import type { GuestRef } from '../guest-ref.js';
import { GuestStates } from '../guest-states.js';
import { GuestTasks, type GuestWork } from '../guest-tasks.js';
import { POWER_MS } from '../guest-timeouts.js';
import { runState } from '../status-entry.js';

/** PVE's default shutdown timeouts: a minute for VMs (its vm_stop) and containers alike. */
const SHUTDOWN_DEFAULT_S = { qemu: 60, lxc: 60 } as const;

/**
 * The power actions of guests, each a task in the guest's turn (`GuestTasks`) with its state rule;
 * a start, stop or shutdown of a guest under HA is a request to the HA manager instead (docs/ha.md).
 */
@Injectable()
export class PowerService {
  constructor(
    private readonly states: GuestStates,
    private readonly tasks: GuestTasks,
    private readonly ha: HaResourcesRepository,
    private readonly cloudinit: CloudinitService,
  ) {}

  /** A start; for a guest under HA, PVE's `hastart`: its requested state becomes `started`, and the HA manager starts it. */
  async start(guest: GuestRef, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    if (await this.underHa(vmid)) return this.haRequest(guest, 'started', caller);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.start ?? 'start',
      caller,
      check: () => this.mayStart(guest),
      work: (work) => this.startWork(kind, vmid, work, { endsTask: true }),
    });
  }

  /** A hard stop; for a guest under HA, PVE's `hastop`: its requested state becomes `stopped`, then it stops. */
  async stop(guest: GuestRef, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    const work = (work: GuestWork) => this.stopWork(kind, vmid, work, { endsTask: true });
    if (await this.underHa(vmid)) return this.haRequest(guest, 'stopped', caller, work);
    return this.tasks.submit({ node, vmid, type: kind.tasks.stop ?? 'stop', caller, work });
  }

  /** A clean shutdown; for a guest under HA, a `hastop` as `stop`'s that shuts it down instead. */
  async shutdown(guest: GuestRef, options: { timeout?: number; forceStop?: boolean }, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    const timeout = options.timeout ?? SHUTDOWN_DEFAULT_S[kind.type];
    const work = (work: GuestWork) =>
      work.agent('guest.shutdown', { type: kind.type, vmid, timeout, forceStop: options.forceStop ?? false }, (timeout + 60) * 1000, {
        endsTask: true,
      });
    if (await this.underHa(vmid)) return this.haRequest(guest, 'stopped', caller, work);
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.shutdown ?? 'shutdown',
      caller,
      check: () => this.states.mustBe(guest, ['running', 'paused'], 'is not running'),
      work,
    });
  }

  async reboot(guest: GuestRef, options: { timeout?: number }, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    const timeout = options.timeout ?? SHUTDOWN_DEFAULT_S[kind.type];
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.reboot ?? 'reboot',
      caller,
      check: () => this.states.mustBe(guest, ['running'], 'is not running'),
      work: async (work) => {
        if (kind.type === 'qemu') await this.cloudinit.generate(work, vmid);
        await work.agent('guest.reboot', { guest: await this.states.spec(guest), timeout }, (timeout + 120) * 1000, { endsTask: true });
      },
    });
  }

  async reset(guest: GuestRef, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.reset ?? 'reset',
      caller,
      check: () => this.states.mustBe(guest, ['running', 'paused'], 'is not running'),
      work: (work) => work.agent('guest.reset', { vmid }, POWER_MS, { endsTask: true }),
    });
  }

  async suspend(guest: GuestRef, options: { todisk?: boolean }, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    if (options.todisk === true) throw badParam('todisk', 'hibernating to disk is not supported by Corral yet');
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.suspend ?? 'suspend',
      caller,
      check: () => this.states.mustBe(guest, ['running'], 'is not running'),
      work: (work) => work.agent('guest.suspend', { type: kind.type, vmid }, POWER_MS, { endsTask: true }),
    });
  }

  async resume(guest: GuestRef, caller: Principal): Promise<string> {
    this.states.existing(guest);
    const { kind, node, vmid } = guest;
    return this.tasks.submit({
      node,
      vmid,
      type: kind.tasks.resume ?? 'resume',
      caller,
      check: () => this.states.mustBe(guest, ['paused'], 'is not paused'),
      work: (work) => work.agent('guest.resume', { type: kind.type, vmid }, POWER_MS, { endsTask: true }),
    });
  }

  /**
   * What the HA resource manager runs to bring a guest to its requested state (docs/ha.md): a start
   * or a hard stop as root@pam, PVE's `qmstart`/`qmstop` tasks; resolves once done, rejects with
   * the task's error.
   */
  async haPower(kind: GuestKind, vmid: number, action: 'start' | 'stop'): Promise<void> {
    const guest = { kind, node: this.states.anywhere(kind, vmid).row.node, vmid };
    const work =
      action === 'start'
        ? (work: GuestWork) => this.startWork(kind, vmid, work, { ha: true, endsTask: true })
        : (work: GuestWork) => this.stopWork(kind, vmid, work, { endsTask: true });
    const check =
      action === 'start' ? () => this.mayStart(guest) : () => this.states.mustBe(guest, ['running', 'paused'], 'is not running');
    await this.tasks.completed({ node: guest.node, vmid, type: kind.tasks[action] ?? action, caller: SYSTEM_CALLER, check, work });
  }

  /**
   * Starts the guest on its node; `ha`: as the HA manager, which the agent allows only under an HA
   * lease covering the guest; `endsTask`: the start is the task's last step (AgentCallOptions).
   */
  async startWork(kind: GuestKind, vmid: number, work: GuestWork, options: { ha?: true; endsTask?: boolean } = {}): Promise<void> {
    const { row } = this.states.anywhere(kind, vmid);
    // As PVE's start: the cloud-init drive is generated from the config first.
    if (kind.type === 'qemu') await this.cloudinit.generate(work, vmid);
    const { endsTask, ...asked } = options;
    await work.agent('guest.start', { guest: await this.states.spec({ kind, node: row.node, vmid }), ...asked }, POWER_MS, { endsTask });
  }

  /** Stops the guest at once (no shutdown); `endsTask`: the stop is the task's last step. */
  async stopWork(kind: GuestKind, vmid: number, work: GuestWork, options: { endsTask?: boolean } = {}): Promise<void> {
    await work.agent('guest.stop', { type: kind.type, vmid }, POWER_MS, options);
  }

  /**
   * PVE's `hastart`/`hastop` task: the requested state is set ("Requesting HA start for VM 100"),
   * so the HA manager does not undo what the user asked. A start is the HA manager's to make (only
   * an agent whose lease covers the guest may start it); a stop or shutdown (`action`) runs at once
   * in the guest's turn, unless the guest is stopped already.
   */
  private haRequest(
    guest: GuestRef,
    state: 'started' | 'stopped',
    caller: Principal,
    action?: (work: GuestWork) => Promise<void>,
  ): Promise<string> {
    const { kind, node, vmid } = guest;
    return this.tasks.submit({
      node,
      vmid,
      type: state === 'started' ? 'hastart' : 'hastop',
      caller,
      work: async (work) => {
        work.line(`Requesting HA ${state === 'started' ? 'start' : 'stop'} for ${kind.noun} ${vmid}`);
        await this.ha.request(vmid, state);
        if (action === undefined) return;
        if (runState(this.states.existing(guest)) === 'stopped') return work.line(`${kind.noun} ${vmid} is already stopped`);
        await action(work);
      },
    });
  }

  /** Whether HA keeps the guest in a state (a resource, not `ignored`): its power actions are then HA requests (docs/ha.md). */
  private async underHa(vmid: number): Promise<boolean> {
    const resource = await this.ha.find(vmid);
    return resource !== null && resource.state !== 'ignored';
  }

  private mayStart(guest: GuestRef): void {
    const state = this.states.existing(guest);
    if (state.row.config['template'] === '1')
      throw new ApiError('GUEST_STATE', `${guest.kind.noun} ${guest.vmid} is a template: templates cannot start (clone it)`);
    this.states.mustBe(guest, ['stopped'], 'is already running');
  }
}
