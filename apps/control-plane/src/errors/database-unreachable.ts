import { ApiError } from './api-error.js';

/** The message of every request that needed the database while it could not be reached. */
export const DATABASE_UNREACHABLE = 'the database is unreachable; try again shortly';

/** Socket errors of a connection that cannot be opened or was cut (ENOENT: a unix socket that is not there, on connect only). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** What the pg driver says when its connection ends, or cannot be had in time. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
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

/** The 503 a request gets while the database cannot be reached. */
export function databaseUnreachable(): ApiError {
  return new ApiError('DATABASE_UNREACHABLE', DATABASE_UNREACHABLE);
}
