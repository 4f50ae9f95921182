import { rm } from 'node:fs/promises';
import { processesUnder, waitFor } from '@corral/testing';

/**
 * The end of a test's temporary host root: every process whose command line names it (the QEMUs
 * a failed test left running) killed, then the tree removed.
 */
export async function removeHostRoot(root: string): Promise<void> {
  for (const pid of await processesUnder(root)) process.kill(pid, 'SIGKILL');
  await waitFor(async () => (await processesUnder(root)).length === 0, {
    timeoutMs: 20_000,
    what: `the processes left under ${root} to go`,
  });
  await rm(root, { recursive: true, force: true });
}
