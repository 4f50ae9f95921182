import type { DataSource } from 'typeorm';
import { ApiError } from '../errors/api-error.js';
import { Readiness } from './readiness.js';

describe('readiness', () => {
  const failure = async (readiness: Readiness) => {
    const error = await readiness.check().then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).message;
  };

  it('is not ready when the database refuses, or does not answer within 2 s', async () => {
    const refused = {
      migrations: [],
      query: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    };
    expect(await failure(new Readiness(refused as unknown as DataSource))).toBe('not ready: the database is unreachable');

    jest.useFakeTimers();
    try {
      const silent = { migrations: [], query: () => new Promise(() => undefined) };
      const answer = failure(new Readiness(silent as unknown as DataSource));
      await jest.advanceTimersByTimeAsync(2000);
      expect(await answer).toBe('not ready: the database does not answer within 2 s');
    } finally {
      jest.useRealTimers();
    }
  });
});
