import type { ApiSession } from './command-line/command.js';
import { LocalFailure } from './command-line/local-failure.js';
import type { Output } from './command-line/output.js';
import { parseCommandLine } from './command-line/parse-command-line.js';
import { UsageError } from './command-line/usage-error.js';
import { COMMANDS } from './commands/commands.js';
import { readEnvironment } from './environment/environment.js';
import { ApiClient } from './http/api-client.js';
import { ApiFailure, ConnectionFailure } from './http/api-failure.js';
import { credentialHeaders, openSession, type Session } from './http/authentication.js';

/**
 * One `corral` invocation; resolves to its exit code: 0, 1 when the API refuses or cannot be
 * reached (or a local command fails), 2 on a usage error. A local command that runs the agent
 * ends with the agent's exit code; one that follows the API runs until it is stopped or fails.
 */
export async function run(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  output: Output,
  agentMain: () => string,
): Promise<number> {
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    if (invocation.kind === 'help') {
      output.out(`${invocation.text}\n`);
      return 0;
    }
    if (invocation.kind === 'task') return await invocation.task({ output, agentMain, api: () => apiSession(env) });
    const { client, session } = await connect(env);
    if (invocation.kind === 'follow') return await invocation.follow({ output, client, headers: credentialHeaders(session, 'GET') });
    const data = await client.send(invocation.call, credentialHeaders(session, invocation.call.method));
    // As pvesh: a call that answers null (a change) prints nothing.
    if (data !== null) output.out(`${JSON.stringify(data, null, 2)}\n`);
    if (invocation.command.notice !== undefined) output.err(`corral: ${invocation.command.notice}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`corral: ${error.message}\n${error.hint}\n`);
      return 2;
    }
    if (error instanceof ApiFailure) {
      output.err(error.messages.map((message) => `corral: ${error.status} ${message}\n`).join(''));
      return 1;
    }
    if (error instanceof ConnectionFailure || error instanceof LocalFailure) {
      output.err(`corral: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** A client of the control plane CORRAL_URL names, and the session of the environment's credentials (logged in, for a password). */
async function connect(env: Readonly<Record<string, string | undefined>>): Promise<{ client: ApiClient; session: Session }> {
  const settings = readEnvironment(env);
  const client = new ApiClient(
    settings.url,
    settings.fingerprint === undefined ? undefined : { fingerprint: settings.fingerprint, source: 'CORRAL_FINGERPRINT' },
  );
  return { client, session: await openSession(client, settings.auth) };
}

async function apiSession(env: Readonly<Record<string, string | undefined>>): Promise<ApiSession> {
  const { client, session } = await connect(env);
  return { send: (call) => client.send(call, credentialHeaders(session, call.method)) };
}
