import type { FailureCode } from '@corral/protocol';
import { agentFailure, wentAway } from './agent-failure.js';

/** An agent's answer as a replica that was not waiting for it keeps it for the one that is (or for the task's end). */
export type StoredAnswer =
  | { readonly result: unknown }
  | { readonly failure: { readonly code: FailureCode; readonly message: string } }
  /** The session it was sent to ended (its agent restarted, or its node went offline): why. */
  | { readonly gone: string };

/** The error a stored answer that is not a result ends its request with. */
export function answerError(node: string, command: string, answer: Exclude<StoredAnswer, { result: unknown }>): Error {
  return 'failure' in answer ? agentFailure(node, answer.failure.code, answer.failure.message) : wentAway(node, answer.gone)(command);
}
