import type { FailureCode } from '@corral/protocol';
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
