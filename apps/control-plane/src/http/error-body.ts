import type { ErrorFormat } from '../config/config.js';
import type { ApiError } from '../errors/api-error.js';

/** What PVE says in the reason phrase of a 400 whose parameters failed their checks. */
export const PARAMETER_VERIFICATION_FAILED = 'Parameter verification failed.';

export interface ErrorAnswer {
  /** The HTTP reason phrase's text (PVE clients build their error message from it). */
  readonly reason: string;
  readonly body: object;
}

/**
 * The body and reason phrase of an error, in one of two shapes:
 * - `spec`: `{ data: null, errors: [{ code, param?, message }] }`, the first message as the reason;
 * - `pve`: as PVE answers, for clients that decode PVE's shape strictly. Parameter errors are
 *   `{ data: null, errors: { <param>: <message> }, message }` with the reason `Parameter verification
 *   failed.`; every other error has no `errors` member at all, its message in the reason phrase and
 *   in `message` (PVE 8.4 and later add that member).
 */
export function errorAnswer(format: ErrorFormat, error: ApiError, status: number): ErrorAnswer {
  const problems = error.details.problems;
  if (format === 'spec') {
    return {
      reason: error.details.reason ?? error.message,
      body: { data: null, errors: (problems ?? [{ message: error.message }]).map((item) => ({ code: status, ...item })) },
    };
  }
  if (problems !== undefined) {
    const errors = Object.fromEntries(problems.map((problem) => [problem.param, problem.message]));
    return { reason: PARAMETER_VERIFICATION_FAILED, body: { data: null, errors, message: `${PARAMETER_VERIFICATION_FAILED}\n` } };
  }
  const reason = error.details.reason ?? error.message;
  return { reason, body: { data: null, message: `${reason}\n` } };
}
