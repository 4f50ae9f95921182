import { pino } from 'pino';
import { QueryFailedError } from 'typeorm';

/** What of a database error is logged: which statement failed and how, never a value it carried. */
const DATABASE_ERROR_FIELDS = ['code', 'table', 'column', 'constraint', 'routine'] as const;

/**
 * An error as the logs show it. A database error keeps its SQL (which holds placeholders, not
 * values), its SQLSTATE and where it failed, and loses its parameters, PostgreSQL's message and
 * detail and the stack's first line: each can repeat a value of the statement (`invalid input
 * syntax for type integer: "..."`, `Key (name)=(...) already exists`), and values are password and
 * token hashes, webhook URLs and headers. Any other error is logged as pino logs errors.
 */
export function loggedError(error: unknown): unknown {
  if (!(error instanceof QueryFailedError)) return error instanceof Error ? pino.stdSerializers.err(error) : error;
  const driver = error.driverError as Record<string, unknown>;
  const fields = Object.fromEntries(
    DATABASE_ERROR_FIELDS.filter((field) => driver[field] !== undefined).map((field) => [field, driver[field]]),
  );
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
  return {
    type: 'QueryFailedError',
    message: `database error ${String(driver['code'] ?? '')}`.trim(),
    query: error.query,
    ...fields,
    stack: frames.join('\n'),
  };
}
