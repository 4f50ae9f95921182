import { isDatabaseUnreachable } from './database-unreachable.js';

describe('isDatabaseUnreachable', () => {
  const socketError = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

  it.each([
    ['a refused connect', socketError('ECONNREFUSED', 'connect')],
    ['a unix socket that is not there', socketError('ENOENT', 'connect')],
    ['a connection reset', socketError('ECONNRESET', 'read')],
    [
      'one refusal per address tried',
      Object.assign(new AggregateError([socketError('ECONNREFUSED', 'connect')]), { code: 'ECONNREFUSED' }),
    ],
    [
      'a cut connection, as TypeORM wraps it',
      { message: 'Connection terminated unexpectedly', driverError: new Error('Connection terminated unexpectedly') },
    ],
    ['no connection in time', new Error('timeout exceeded when trying to connect')],
    ['the server shutting down', { code: '57P01', message: 'terminating connection due to administrator command' }],
    ['a connection exception', { driverError: { code: '08006', message: 'connection failure' } }],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', { code: '23505', message: 'duplicate key value violates unique constraint' }],
    ['a missing file', socketError('ENOENT', 'open')],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});
