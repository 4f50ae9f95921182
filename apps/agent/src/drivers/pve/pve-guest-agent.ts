import type { ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';
import type { CommandContext } from '../command-context.js';
import { GUEST_AGENT_NOT_RUNNING } from '../guest-messages.js';

/** Runs `qm` with these arguments (and standard input) and resolves with its standard output; rejects with its last line. */
export type QmRunner = (args: readonly string[], context: CommandContext, input?: string) => Promise<string>;

/**
 * The guest agent through PVE's own `qm guest`: `qm guest cmd <vmid> <command>` for the commands
 * without arguments, `qm guest exec <vmid> --synchronous 0 [--pass-stdin 1] -- <program> <args>`
 * and `qm guest exec-status <vmid> <pid>`. `qm` prints JSON; `exec-status` has decoded the
 * program's output and made QGA's booleans 0/1, which is undone here so that every driver answers
 * QGA's own value.
 */
export async function pveGuestAgent(
  qm: QmRunner,
  { vmid, command, arguments: args }: ParamsOf<'guest.agent'>,
  context: CommandContext,
): Promise<unknown> {
  const quiet = { ...context, log: () => undefined };
  try {
    if (command === 'guest-exec') {
      const exec = args as { path: string; arg: string[]; 'input-data'?: string };
      const stdin = exec['input-data'] === undefined ? undefined : Buffer.from(exec['input-data'], 'base64').toString('utf8');
      return parsed(
        await qm(
          [
            'guest',
            'exec',
            String(vmid),
            '--synchronous',
            '0',
            ...(stdin !== undefined ? ['--pass-stdin', '1'] : []),
            '--',
            exec.path,
            ...exec.arg,
          ],
          quiet,
          stdin,
        ),
      );
    }
    if (command === 'guest-exec-status')
      return qgaExecStatus(parsed(await qm(['guest', 'exec-status', String(vmid), String((args as { pid: number }).pid)], quiet)));
    const said = await qm(['guest', 'cmd', String(vmid), command.slice('guest-'.length)], quiet);
    return said.trim() === '' ? null : parsed(said);
  } catch (error) {
    if (error instanceof Error && error.message.includes(GUEST_AGENT_NOT_RUNNING))
      throw new CommandFailure('unavailable', GUEST_AGENT_NOT_RUNNING);
    throw error;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`qm guest did not answer JSON: ${text.trim().slice(0, 200)}`);
  }
}

/** PVE's exec-status back to QGA's: output base64, flags booleans. */
function qgaExecStatus(status: unknown): unknown {
  const fields = { ...(status as Record<string, unknown>) };
  for (const key of ['out-data', 'err-data'])
    if (typeof fields[key] === 'string') fields[key] = Buffer.from(fields[key], 'utf8').toString('base64');
  for (const key of ['exited', 'out-truncated', 'err-truncated']) if (typeof fields[key] === 'number') fields[key] = fields[key] === 1;
  return fields;
}
