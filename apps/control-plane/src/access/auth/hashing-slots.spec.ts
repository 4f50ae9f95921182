import { ApiError } from '../../errors/api-error.js';
import { HashingSlots } from './hashing-slots.js';

/** Work that the test ends by hand. */
function manual() {
  const ends: (() => void)[] = [];
  const started: number[] = [];
  const work = (n: number) => () =>
    new Promise<number>((resolve) => {
      started.push(n);
      ends.push(() => resolve(n));
    });
  return { work, started, end: (i: number) => ends[i]?.() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('hashing slots', () => {
  it('runs at most `running` at once, queues `waiting` more in order, and refuses the rest with 429 and Retry-After', async () => {
    const slots = new HashingSlots({ running: 2, waiting: 1 });
    const jobs = manual();
    const first = slots.run(jobs.work(1));
    const second = slots.run(jobs.work(2));
    const third = slots.run(jobs.work(3));
    const refused = await slots.run(jobs.work(4)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('TOO_MANY_LOGINS');
    expect((refused as ApiError).details.headers).toEqual({ 'retry-after': '1' });
    await settle();
    expect(jobs.started).toEqual([1, 2]);
    jobs.end(0);
    await expect(first).resolves.toBe(1);
    await settle();
    expect(jobs.started).toEqual([1, 2, 3]);
    jobs.end(1);
    jobs.end(2);
    await expect(Promise.all([second, third])).resolves.toEqual([2, 3]);
  });

  it('frees the slot of work that failed', async () => {
    const slots = new HashingSlots({ running: 1, waiting: 0 });
    await expect(slots.run(() => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});
