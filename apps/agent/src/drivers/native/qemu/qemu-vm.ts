import type { Host } from '../../../host/host.js';
import type { CommandContext } from '../../command-context.js';
import { notRunning } from '../../guest-messages.js';
import { isQemuOf, waitForExit } from './qemu-process.js';
import { qemuRuntimeFiles, readPidFile, removeRuntimeFiles, type QemuRuntimeFiles } from './qemu-runtime-files.js';
import { QmpClient } from './qmp-client.js';
import { vmFailure } from './vm-failure.js';

/** Each QMP step of a command: QEMU answers in milliseconds unless it hangs. */
const QMP_TIMEOUT_MS = 10_000;
/** How long QEMU gets to exit after `quit`, and after SIGKILL. */
const EXIT_WAIT_MS = 10_000;

export type RunState = 'running' | 'paused';

/** One VM's QEMU as its runtime files show it: whether it runs, its monitor, its end. */
export class QemuVm {
  readonly files: QemuRuntimeFiles;

  constructor(
    host: Host,
    readonly vmid: number,
  ) {
    this.files = qemuRuntimeFiles(host, vmid);
  }

  /** The pid of the VM's QEMU while it runs. */
  async runningPid(): Promise<number | undefined> {
    const pid = await readPidFile(this.files);
    return pid !== undefined && (await isQemuOf(pid, this.files.pid)) ? pid : undefined;
  }

  async requireRunning(): Promise<number> {
    const pid = await this.runningPid();
    if (pid === undefined) throw new Error(notRunning('qemu', this.vmid));
    return pid;
  }

  /**
   * Runs `use` on a QMP connection of its own, closed afterwards so that the monitor is free for
   * the next caller (QEMU serves one at a time); an error names the VM and `what` failed.
   */
  async qmp<T>(what: string, signal: AbortSignal, use: (qmp: QmpClient) => Promise<T>, timeoutMs = QMP_TIMEOUT_MS): Promise<T> {
    let qmp: QmpClient | undefined;
    try {
      qmp = await QmpClient.connect(this.files.qmp, { signal, timeoutMs });
      return await use(qmp);
    } catch (error) {
      throw vmFailure(this.vmid, what, error);
    } finally {
      qmp?.close();
    }
  }

  /** `quit` over QMP, then the runtime files removed; a QEMU still there after EXIT_WAIT_MS (hung, or its monitor held) is killed. */
  async quit(pid: number, { signal, log }: CommandContext): Promise<void> {
    try {
      await this.qmp('quit over QMP failed', signal, (qmp) => qmp.execute('quit'));
    } catch (error) {
      signal.throwIfAborted();
      log((error as Error).message);
    }
    if (await waitForExit(pid, this.files.pid, EXIT_WAIT_MS, signal)) return removeRuntimeFiles(this.files);
    log(`VM ${this.vmid} did not quit within ${EXIT_WAIT_MS / 1000} s: killing it`);
    await this.kill();
  }

  /** SIGKILL to the VM's QEMU if it runs, then the runtime files removed. Not cancellable: it cleans up after failures. */
  async kill(): Promise<void> {
    const pid = await this.runningPid();
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone in between
      }
      if (!(await waitForExit(pid, this.files.pid, EXIT_WAIT_MS)))
        throw new Error(`VM ${this.vmid}: QEMU (pid ${pid}) is still there after SIGKILL`);
    }
    await removeRuntimeFiles(this.files);
  }
}

/** Whether the VM's CPUs run (QMP `query-status`): `paused` whenever they do not, suspended or stopped by an I/O error alike. */
export async function runState(qmp: QmpClient): Promise<RunState> {
  const status = (await qmp.execute('query-status')) as { running?: unknown };
  return status.running === true ? 'running' : 'paused';
}
