import { ApiError } from './api-error.js';

/** The message of every request that needed the database while it could not be reached. */
export const DATABASE_UNREACHABLE = 'the database is unreachable; try again shortly';

/**
 * The message of a request that waited longer than the connect timeout for one of the pool's
 * connections: they were all in use, by a database or a replica too busy to give one back in time,
 * or hanging on a database that went away.
 */
export const DATABASE_BUSY =
  'no database connection became free in time (the database or this replica is busy, or the database is unreachable); try again shortly';

/** What pg-pool says when none of its connections became free within the connect timeout. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** Socket errors of a connection that cannot be opened or was cut (ENOENT: a unix socket that is not there, on connect only). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** What the pg driver says when its connection ends, or cannot be had in time. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  POOL_WAIT_TIMEOUT,
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Whether an error says that PostgreSQL could not be reached: a connection refused, cut or timed
 * out, a SQLSTATE of class 08 (connection exception), or the server shutting down or starting up
 * (57P01 to 57P03). TypeORM wraps a query's error as `driverError`; a socket error may come as an
 * AggregateError of one per address tried.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, syscall, message, driverError, errors } = error as {
    code?: unknown;
    syscall?: unknown;
    message?: unknown;
    driverError?: unknown;
    errors?: unknown;
  };
  if (code === 'ENOENT' && syscall === 'connect') return true;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((known) => message.startsWith(known))) return true;
  if (driverError !== undefined && driverError !== error && isDatabaseUnreachable(driverError)) return true;
  return Array.isArray(errors) && errors.some((item) => isDatabaseUnreachable(item));
}

/** The 503 a request gets while the database cannot be reached (`error`: what said so), or none of the pool's connections became free in time. */
export function databaseUnreachable(error?: unknown): ApiError {
  return new ApiError('DATABASE_UNREACHABLE', isPoolWait(error) ? DATABASE_BUSY : DATABASE_UNREACHABLE);
}

function isPoolWait(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { message, driverError } = error as { message?: unknown; driverError?: unknown };
  return message === POOL_WAIT_TIMEOUT || (driverError !== undefined && driverError !== error && isPoolWait(driverError));
}
