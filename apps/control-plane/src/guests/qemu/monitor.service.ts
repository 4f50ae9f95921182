import { Injectable } from '@nestjs/common';
import { allows } from '@corral/acl';
import { permissionDenied } from '../../access/auth/authorizer.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../../access/state/access-state.js';
import { AgentHub } from '../../agents/agent-hub.js';
import { badParam } from '../../errors/resource-errors.js';
import type { GuestRef } from '../guest-ref.js';
import { GuestStates } from '../guest-states.js';
import { monitorCommandKind, MODIFYING_MONITOR_COMMANDS, READ_ONLY_MONITOR_COMMANDS } from './monitor-commands.js';

/** How long the agent may take to answer a monitor command. */
const MONITOR_MS = 30_000;

/** The QEMU human monitor of a running VM: the commands of the allowed lists, each with its privilege. */
@Injectable()
export class MonitorService {
  constructor(
    private readonly states: GuestStates,
    private readonly access: AccessState,
    private readonly hub: AgentHub,
  ) {}

  /** Runs a monitor command of the allowed list on a running VM (no task: PVE answers with the output). */
  async monitor(vm: GuestRef, command: string, caller: Principal): Promise<string> {
    const { node, vmid } = vm;
    this.states.existing(vm);
    const kind = monitorCommandKind(command);
    if (kind === null) throw badParam('command', `'${command}' is not a monitor command Corral runs (GET .../monitor lists them)`);
    const privilege = kind === 'read-only' ? 'Sys.Audit' : 'Sys.Modify';
    if (!allows(await this.access.current(), caller.subject, `/vms/${vmid}`, [privilege]))
      throw permissionDenied({ path: `/vms/${vmid}`, privileges: [privilege] });
    this.hub.reachable(node);
    this.states.mustBe(vm, ['running', 'paused'], 'is not running');
    return this.hub.request(node, 'guest.monitor', { vmid, command: command.trim().replace(/\s+/g, ' ') }, { timeoutMs: MONITOR_MS });
  }

  commands(vm: GuestRef): { command: string; privilege: 'Sys.Audit' | 'Sys.Modify' }[] {
    this.states.existing(vm);
    return [
      ...READ_ONLY_MONITOR_COMMANDS.map((command) => ({ command, privilege: 'Sys.Audit' as const })),
      ...MODIFYING_MONITOR_COMMANDS.map((command) => ({ command, privilege: 'Sys.Modify' as const })),
    ];
  }
}
