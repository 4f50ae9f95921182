import { Injectable } from '@nestjs/common';
import type { ParamsOf, QgaCommand } from '@corral/protocol';
import { AgentHub } from '../../agents/agent-hub.js';
import { ApiError } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import { existingGuest } from '../existing-guest.js';
import { QEMU } from '../guest-kinds.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { runState } from '../status-entry.js';
import { guestAgentEnabled } from './agent-config.js';
import { qgaName, SIMPLE_COMMANDS, type SimpleCommand } from './guest-agent.endpoints.js';

/** The sync (3 s when no guest agent answers) and the command; the file system commands wait for the guest's disks. */
const AGENT_MS = 30_000;
const SLOW_AGENT_MS = 11 * 60_000;
const SLOW: readonly QgaCommand[] = ['guest-fsfreeze-freeze', 'guest-fsfreeze-thaw', 'guest-fstrim'];

/** PVE's exec-status: QGA's booleans as 0/1, the program's output decoded from base64. */
export interface ExecStatus {
  exited: 0 | 1;
  exitcode?: number;
  signal?: number;
  'out-data'?: string;
  'err-data'?: string;
  'out-truncated'?: 0 | 1;
  'err-truncated'?: 0 | 1;
}

/**
 * The QEMU guest agent of a running VM (docs/guests.md "Guest agent"): each call one `guest.agent`
 * request to the VM's node, answered as PVE answers it. No task: PVE answers at once.
 */
@Injectable()
export class GuestAgentService {
  constructor(
    private readonly view: GuestView,
    private readonly hub: AgentHub,
  ) {}

  index(node: string, vmid: number): { name: string }[] {
    existingGuest(this.view, QEMU, node, vmid);
    return [...Object.keys(SIMPLE_COMMANDS), 'exec', 'exec-status'].sort().map((name) => ({ name }));
  }

  async command(node: string, vmid: number, command: SimpleCommand): Promise<{ result: unknown }> {
    return { result: await this.run(node, vmid, { command: qgaName(command) }) };
  }

  async exec(node: string, vmid: number, command: readonly string[], input: string | undefined): Promise<{ pid: number }> {
    const [path, ...arg] = command;
    if (path === undefined || path === '') throw badParam('command', 'give the program to run, then its arguments');
    const started = await this.run(node, vmid, {
      command: 'guest-exec',
      arguments: {
        path,
        arg,
        ...(input !== undefined ? { 'input-data': Buffer.from(input).toString('base64') } : {}),
        'capture-output': true,
      },
    });
    return { pid: Number((started as { pid?: unknown }).pid) };
  }

  async execStatus(node: string, vmid: number, pid: number): Promise<ExecStatus> {
    const status = (await this.run(node, vmid, { command: 'guest-exec-status', arguments: { pid } })) as Record<string, unknown>;
    const flag = (value: unknown) => (value === true ? 1 : 0);
    const text = (value: unknown) => (typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined);
    const fields: Record<string, unknown> = {
      exited: flag(status['exited']),
      exitcode: status['exitcode'],
      signal: status['signal'],
      'out-data': text(status['out-data']),
      'err-data': text(status['err-data']),
      'out-truncated': status['out-truncated'] === undefined ? undefined : flag(status['out-truncated']),
      'err-truncated': status['err-truncated'] === undefined ? undefined : flag(status['err-truncated']),
    };
    return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as unknown as ExecStatus;
  }

  /** PVE's checks in its order (configured, running), then the VM's node runs the command. */
  private async run(node: string, vmid: number, request: Omit<ParamsOf<'guest.agent'>, 'vmid'>): Promise<unknown> {
    const state = existingGuest(this.view, QEMU, node, vmid);
    if (!guestAgentEnabled(state.row.config)) throw new ApiError('GUEST_STATE', 'No QEMU guest agent configured');
    if (runState(state) === 'stopped') throw new ApiError('GUEST_STATE', `VM ${vmid} is not running`);
    this.hub.reachable(node);
    try {
      return await this.hub.request(
        node,
        'guest.agent',
        { vmid, ...request },
        { timeoutMs: SLOW.includes(request.command) ? SLOW_AGENT_MS : AGENT_MS },
      );
    } catch (error) {
      // PVE answers 500 with these words; a client waiting for the agent (bpg) retries on them.
      if (error instanceof ApiError && error.message.startsWith('QEMU guest agent is not running'))
        throw new ApiError('HOST_COMMAND_FAILED', 'QEMU guest agent is not running');
      throw error;
    }
  }
}
