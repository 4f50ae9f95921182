import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { LocalFailure } from '../command-line/local-failure.js';

const FORWARDED = ['SIGINT', 'SIGTERM'] as const;

/**
 * Runs the agent in the foreground (`node <agent main> --config PATH`), its output on ours, and
 * resolves to its exit code (128 + the signal's number when a signal ended it). SIGINT and SIGTERM
 * are passed on, so that the agent drains before it stops.
 */
export function runAgent(agentMain: string, configPath: string): Promise<number> {
  const child = spawn(process.execPath, [agentMain, '--config', configPath], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  const stopForwarding = () => {
    for (const signal of FORWARDED) process.off(signal, forward);
  };
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      stopForwarding();
      reject(new LocalFailure(`cannot run the agent ${agentMain}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      stopForwarding();
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
