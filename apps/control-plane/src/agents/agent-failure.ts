import type { CommandName, FailureCode } from '@corral/protocol';
import { ApiError } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/error-status.js';

const STATUS_OF: Record<FailureCode, ErrorCode> = {
  // The control plane checked the parameters against the same catalog: an agent that still refuses them is another version.
  'invalid-params': 'INVALID_PARAMETERS',
  'unknown-command': 'AGENT_TOO_OLD',
  timeout: 'NODE_TIMEOUT',
  failed: 'HOST_COMMAND_FAILED',
  'not-found': 'NOT_FOUND',
  unavailable: 'NODE_UNAVAILABLE',
};

/** The API error for an agent's `failure` frame: the host's own message, and a status that says whose fault it is. */
export function agentFailure(node: string, code: FailureCode, message: string): ApiError {
  return new ApiError(
    STATUS_OF[code],
    code === 'unknown-command' ? `the agent of node '${node}' is older than this control plane: ${message}` : message,
  );
}

/**
 * The error of requests whose node went away before it answered them: they (and the tasks they
 * work for) end with it, naming why, instead of at their timeouts.
 */
export function wentAway(node: string, why: string): (command: CommandName | string) => ApiError {
  return (command) => new ApiError('NODE_UNAVAILABLE', `node '${node}' went away before it answered ${command} (${why})`);
}

/** The error of a request its agent did not answer within its timeout. */
export function noAnswer(node: string, command: string, timeoutMs: number): ApiError {
  return new ApiError('NODE_TIMEOUT', `node '${node}' did not answer ${command} within ${Math.round(timeoutMs / 1000)} s`);
}
