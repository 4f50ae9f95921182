import type { FailureCode } from '@corral/protocol';
import { ApiError } from '../errors/api-error.js';
import { agentFailure, wentAway } from './agent-failure.js';

/** An agent's answer as a replica that was not waiting for it keeps it for the one that is (or for the task's end). */
export type StoredAnswer =
  | { readonly result: unknown }
  | { readonly failure: { readonly code: FailureCode; readonly message: string } }
  /** The session it was sent to ended (its agent restarted, or its node went offline): why. */
  | { readonly gone: string }
  /** The agent, still in that session, said it neither runs it nor holds its answer: it never got the request (or its answer was handled). */
  | { readonly lost: string };

/** The error a stored answer that is not a result ends its request with. */
export function answerError(node: string, command: string, answer: Exclude<StoredAnswer, { result: unknown }>): Error {
  if ('failure' in answer) return agentFailure(node, answer.failure.code, answer.failure.message);
  if ('gone' in answer) return wentAway(node, answer.gone)(command);
  return new ApiError('NODE_UNAVAILABLE', `node '${node}' never got ${command} (${answer.lost})`);
}
