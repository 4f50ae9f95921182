import { CommandFailure } from '../../../host/command-failure.js';

/**
 * A failed step's error as a task end text that names the VM: `VM 100: could not start: ...`.
 * A CommandFailure keeps its code, so a cancelled request still ends as `timeout`.
 */
export function vmFailure(vmid: number, what: string, error: unknown): Error {
  const message = `VM ${vmid}: ${what}: ${error instanceof Error ? error.message : String(error)}`;
  return error instanceof CommandFailure ? new CommandFailure(error.code, message) : new Error(message);
}
