import { DATABASE_BUSY, DATABASE_UNREACHABLE, databaseUnreachable, isDatabaseUnreachable } from './database-unreachable.js';

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

describe('the 503 of a request that needed the database', () => {
  it('says the database is unreachable for a connection that failed', () => {
    expect(databaseUnreachable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).message).toBe(
      DATABASE_UNREACHABLE,
    );
    expect(databaseUnreachable().message).toBe(DATABASE_UNREACHABLE);
  });

  it("says that no connection became free in time when the pool's wait ran out, as the driver or TypeORM says it", () => {
    const waited = new Error('timeout exceeded when trying to connect');
    expect(databaseUnreachable(waited).message).toBe(DATABASE_BUSY);
    expect(databaseUnreachable({ message: 'Query failed', driverError: waited }).message).toBe(DATABASE_BUSY);
  });
});
