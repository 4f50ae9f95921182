import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hostPath, type Host } from '../../../host/host.js';
import { lastWords, runProgram } from '../../../host/run-program.js';
import type { CommandContext } from '../../command-context.js';
import { isQemuOf, waitForExit } from './qemu-process.js';
import { QEMU_RUN_DIR, readPidFile } from './qemu-runtime-files.js';
import { QmpClient } from './qmp-client.js';
import { vmFailure } from './vm-failure.js';

const PROGRAM = 'qemu-storage-daemon';
const QMP_TIMEOUT_MS = 10_000;
/** How long it gets to close its images after SIGTERM, and to go after SIGKILL. */
const EXIT_WAIT_MS = 10_000;

/**
 * The qemu-storage-daemon that receives a stopped VM's volumes in an offline migration (QEMU's
 * block layer without a VM, driven over QMP like the VM's QEMU). Its pid file and QMP socket sit
 * beside the VM's runtime files, named so that they are never taken for a VM's.
 */
export class StorageDaemon {
  readonly pidFile: string;
  private readonly socket: string;

  constructor(
    host: Host,
    private readonly vmid: number,
  ) {
    const dir = hostPath(host, QEMU_RUN_DIR);
    this.pidFile = `${dir}/${vmid}.nbd.pid`;
    this.socket = `${dir}/${vmid}.nbd.qmp`;
  }

  /** Starts it in the background with nothing open yet; resolves once it listens on its QMP socket. */
  async start({ signal }: CommandContext): Promise<void> {
    await this.stop();
    await mkdir(dirname(this.socket), { recursive: true });
    const output = await runProgram(
      PROGRAM,
      [
        '--daemonize',
        '--pidfile',
        this.pidFile,
        '--chardev',
        `socket,id=qmp,path=${this.socket.replaceAll(',', ',,')},server=on,wait=off`,
        '--monitor',
        'chardev=qmp',
      ],
      { signal },
    );
    if (output.code !== 0) throw vmFailure(this.vmid, `${PROGRAM} failed (exit code ${output.code})`, lastWords(output));
  }

  /** Runs `use` on a QMP connection of its own, closed afterwards. */
  async qmp<T>(what: string, signal: AbortSignal, use: (qmp: QmpClient) => Promise<T>): Promise<T> {
    let qmp: QmpClient | undefined;
    try {
      qmp = await QmpClient.connect(this.socket, { signal, timeoutMs: QMP_TIMEOUT_MS });
      return await use(qmp);
    } catch (error) {
      throw vmFailure(this.vmid, what, error);
    } finally {
      qmp?.close();
    }
  }

  /** Ends it (SIGTERM: it closes its images; SIGKILL when it does not go) and removes its files. Not cancellable: it cleans up. */
  async stop(): Promise<void> {
    const pid = await readPidFile({ pid: this.pidFile });
    if (pid !== undefined && (await isQemuOf(pid, this.pidFile))) {
      signal(pid, 'SIGTERM');
      if (!(await waitForExit(pid, this.pidFile, EXIT_WAIT_MS))) {
        signal(pid, 'SIGKILL');
        if (!(await waitForExit(pid, this.pidFile, EXIT_WAIT_MS)))
          throw new Error(`VM ${this.vmid}: ${PROGRAM} (pid ${pid}) is still there after SIGKILL`);
      }
    }
    await Promise.all([this.pidFile, this.socket].map((path) => rm(path, { force: true })));
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone in between
  }
}
