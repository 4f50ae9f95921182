/**
 * Every error code and its HTTP status, in one table: a code without a status does not compile.
 * Spec 7 fixes 401 and 403; the rest follows COMPAT.md (404 `does not exist`, 409 `already exists`).
 */
export const ERROR_STATUS = {
  INVALID_PARAMETERS: 400,
  MALFORMED_BODY: 400,
  MALFORMED_REQUEST: 400,
  UNEXPECTED_BODY: 400,
  AUTHENTICATION_FAILED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  NO_SUCH_PATH: 404,
  METHOD_NOT_ALLOWED: 405,
  ALREADY_EXISTS: 409,
  IN_USE: 409,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_FAILURES: 429,
  INTERNAL: 500,
  SHUTTING_DOWN: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
