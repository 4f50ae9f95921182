import { stat } from 'node:fs/promises';
import type { ParamsOf } from '@corral/protocol';
import { qgaExecute } from './qga-client.js';
import type { QemuRuntimeFiles } from './qemu-runtime-files.js';

/** As PVE checks whether a guest agent runs: it gets this long to answer the sync. */
export const QGA_SYNC_MS = 3000;
/** A command's answer; the file system commands wait for the guest's disks. */
const COMMAND_MS = 10_000;
const SLOW_COMMAND_MS: Readonly<Partial<Record<ParamsOf<'guest.agent'>['command'], number>>> = {
  'guest-fsfreeze-freeze': 60_000,
  'guest-fsfreeze-thaw': 60_000,
  'guest-fstrim': 600_000,
};

export interface QgaTimeouts {
  readonly syncMs: number;
  readonly commandMs?: number;
}

/**
 * The guest agents of the VMs this host runs, one exchange at a time per VM: QEMU serves one client
 * on the channel's socket, and a second would wait unanswered behind the first.
 */
export class QemuGuestAgents {
  private readonly turns = new Map<number, Promise<unknown>>();

  constructor(private readonly timeouts: QgaTimeouts = { syncMs: QGA_SYNC_MS }) {}

  /** Whether the VM was started with the guest agent's channel. */
  async hasChannel(files: Pick<QemuRuntimeFiles, 'qga'>): Promise<boolean> {
    return stat(files.qga).then(
      (found) => found.isSocket(),
      () => false,
    );
  }

  execute(
    vmid: number,
    files: Pick<QemuRuntimeFiles, 'qga'>,
    { command, arguments: args }: Omit<ParamsOf<'guest.agent'>, 'vmid'>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const commandMs = this.timeouts.commandMs ?? SLOW_COMMAND_MS[command] ?? COMMAND_MS;
    const previous = this.turns.get(vmid) ?? Promise.resolve();
    const mine = previous
      .catch(() => undefined)
      .then(() => qgaExecute(files.qga, command, args, { signal, syncMs: this.timeouts.syncMs, commandMs }));
    this.turns.set(vmid, mine);
    void mine
      .catch(() => undefined)
      .then(() => {
        if (this.turns.get(vmid) === mine) this.turns.delete(vmid);
      });
    return mine;
  }
}
