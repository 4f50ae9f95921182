import { setTimeout as delay } from 'node:timers/promises';

/** Polls until `check` returns true (tests never sleep for a fixed time); a thrown error ends the wait. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; what: string; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`);
    await delay(options.intervalMs ?? 25);
  }
}
