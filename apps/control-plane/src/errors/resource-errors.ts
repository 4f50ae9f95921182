import { ApiError } from './api-error.js';

/** The errors every API area raises about its resources and parameters. */

export function notFound(what: string): ApiError {
  return new ApiError('NOT_FOUND', `${what} does not exist`);
}

/** A 409; `hint` says what to do instead. */
export function alreadyExists(what: string, hint?: string): ApiError {
  return new ApiError('ALREADY_EXISTS', `${what} already exists${hint ? `: ${hint}` : ''}`);
}

/** A 400 naming one parameter. */
export function badParam(param: string, message: string): ApiError {
  return ApiError.invalidParams([{ param, message }]);
}

/** PostgreSQL's unique_violation: a concurrent create of the same id lost the race. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

/** PostgreSQL's foreign_key_violation: a row refers to one a concurrent change removed, or a removed row is still referred to. */
export function isForeignKeyViolation(error: unknown): boolean {
  // 23001 restrict_violation: what newer PostgreSQL (the embedded 18) reports for an ON DELETE RESTRICT reference.
  const state = sqlState(error);
  return state === '23503' || state === '23001';
}

function sqlState(error: unknown): unknown {
  return (error as { driverError?: { code?: unknown } }).driverError?.code ?? (error as { code?: unknown }).code;
}
