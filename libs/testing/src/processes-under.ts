import { readdir, readFile } from 'node:fs/promises';

/**
 * The processes whose command line names `dir`: the guests (QEMU, LXC's monitors) a test started
 * under its own temporary host root, and no other test's, for its cleanup to kill. Guests outlive
 * the agent that started them, as in PVE, so a failed test would otherwise leave them running.
 */
export async function processesUnder(dir: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^[0-9]+$/.test(name));
  const found = await Promise.all(
    pids.map(async (pid) => ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(dir) ? [Number(pid)] : [])),
  );
  return found.flat();
}
