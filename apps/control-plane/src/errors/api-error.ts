import type { ErrorCode } from './error-status.js';

/** One bad parameter of a 400: an item of Corral's `errors` array, with the `param` member PVE clients key on. */
export interface ParamProblem {
  readonly param: string;
  readonly message: string;
}

/**
 * The one error type services and the HTTP layer throw. Its code decides the status
 * (error-status.ts); the filter turns it into the error envelope.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: {
      readonly problems?: readonly ParamProblem[];
      readonly headers?: Readonly<Record<string, string>>;
      /** The HTTP reason phrase when it says more than the message (PVE clients read it): `permission denied - invalid PVE ticket`. */
      readonly reason?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static invalidParams(problems: readonly [ParamProblem, ...ParamProblem[]]): ApiError {
    return new ApiError('INVALID_PARAMETERS', problems[0].message, { problems });
  }
}
