import { readFile } from 'node:fs/promises';
import { lastWords, runProgram } from '../host/run-program.js';
import { PROC_ROOT } from '../host/kernel-roots.js';
import { startTicksOf, type FenceOrder } from '../drivers/fence-orders.js';

/** A program the watchdog runs to stop a guest (`qm stop`) gets this long. */
const RUN_LIMIT_MS = 60_000;

/**
 * Carries out one fence order in the watchdog and says what happened, for its log; never throws.
 * Killing a guest that is gone already (the agent's own self-fence came first) is no error.
 */
export async function carryOut(order: FenceOrder, procRoot = PROC_ROOT): Promise<string> {
  if (order.kind === 'process') {
    const { pid, startTicks } = order;
    if ((await startTicksOf(pid, procRoot)) !== startTicks) return `pid ${pid} (started at tick ${startTicks}) is gone already`;
    return killed(pid);
  }
  if (order.kind === 'pidfile') {
    const pid = Number((await readFile(order.path, 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid < 2) return `no process: ${order.path} names none (the guest is not running)`;
    const cmdline = await readFile(`${procRoot}/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.split('\0').includes(order.path)) return `pid ${pid} of ${order.path} is gone already (or is another program now)`;
    return killed(pid);
  }
  const [program = '', ...args] = order.argv;
  try {
    const output = await runProgram(program, args, { signal: new AbortController().signal, timeoutMs: RUN_LIMIT_MS });
    return output.code === 0
      ? `${order.argv.join(' ')}: done`
      : `${order.argv.join(' ')} failed (exit code ${output.code}): ${lastWords(output)}`;
  } catch (error) {
    return `${order.argv.join(' ')} failed: ${(error as Error).message}`;
  }
}

function killed(pid: number): string {
  try {
    process.kill(pid, 'SIGKILL');
    return `SIGKILL sent to pid ${pid}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
      ? `pid ${pid} is gone already`
      : `could not kill pid ${pid}: ${(error as Error).message}`;
  }
}
