/**
 * Every error code and its HTTP status, in one table: a code without a status does not compile.
 * 401 and 403 as PVE answers them; the rest is what PVE clients match on (404 `does not exist`, 409 `already exists`).
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
  /** A request whose headers or body stopped arriving (CORRAL_HTTP_BODY_TIMEOUT_S). */
  REQUEST_TIMEOUT: 408,
  ALREADY_EXISTS: 409,
  IN_USE: 409,
  /** A change based on a `digest` of a configuration that someone else has changed since (PVE's "file changed by other user"). */
  CONFIG_CHANGED: 409,
  /** The guest is not in a state the operation needs (running, stopped, a template, locked): docs/guests.md. */
  GUEST_STATE: 409,
  /** An event stream's cursor (`since`) older than the retained events: events after it were deleted (docs/events.md). */
  CURSOR_EXPIRED: 410,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_FAILURES: 429,
  /** More password checks at once than the control plane runs and queues. */
  TOO_MANY_LOGINS: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  /** What PVE serves and Corral does not build (the message says what to use instead). */
  NOT_IMPLEMENTED: 501,
  /** A host command ran on the node and failed; the message is the host's (PVE answers these 500 too). */
  HOST_COMMAND_FAILED: 500,
  /** The node's agent does not know the command: it is older than this control plane. */
  AGENT_TOO_OLD: 501,
  /** A server Corral reads from for the caller (the appliance index) could not be read. */
  UPSTREAM_FAILED: 502,
  SHUTTING_DOWN: 503,
  /** `GET /health/ready`: this replica cannot serve the API now (the message says why). */
  NOT_READY: 503,
  /** PostgreSQL cannot be reached (refused, cut off, timed out): the request is worth retrying once it is back. */
  DATABASE_UNREACHABLE: 503,
  /** The node's agent is not connected, or cannot run the command now (a tool is missing, it is draining). */
  NODE_UNAVAILABLE: 503,
  /** The node's agent did not answer in time. */
  NODE_TIMEOUT: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
