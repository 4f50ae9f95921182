import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The built watchdog (tests of real processes run it as the agent does: build the agent first). */
export function watchdogScript(): string {
  const script = resolve('apps/agent/dist/ha/fence-watchdog-main.js');
  if (!existsSync(script)) throw new Error(`${script} is missing: build the agent first (npx nx run agent:build)`);
  return script;
}

/** A process standing in for a guest: `sleep`, in a process group of its own. */
export async function standIn(): Promise<ChildProcess & { pid: number }> {
  const child = spawn('sleep', ['1000'], { stdio: 'ignore', detached: true });
  await once(child, 'spawn');
  return child as ChildProcess & { pid: number };
}

/** Whether `child` still runs (it has not exited, by a signal or otherwise). */
export function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Kills what a test left running; a process gone already is fine. */
export function killAll(children: readonly ChildProcess[]): void {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
}
