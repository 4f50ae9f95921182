import { waitFor } from '@corral/testing';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { DATABASE_UNREACHABLE } from '../errors/database-unreachable.js';
import { BARRIER_TIMEOUT_MS, DatabaseNotifications } from './notifications.js';

/** Bounds a wait for `what`: never a measure of speed. */
const within = (what: string) => ({ timeoutMs: 20_000, what });

describe('a barrier on the database notifications', () => {
  let t: TestApp;
  let notifications: DatabaseNotifications;

  beforeAll(async () => {
    t = await startTestApp({});
    notifications = t.app.get(DatabaseNotifications);
    await waitFor(() => notifications.listening, within('the listener'));
  });

  afterAll(() => t?.close());

  it('resolves once the load a notification committed before it started has ended', async () => {
    const order: string[] = [];
    notifications.subscribe('corral_barrier_load_test', () => {
      order.push('notified');
      return new Promise((resolve) =>
        setTimeout(() => {
          order.push('loaded');
          resolve();
        }, 300),
      );
    });
    await t.app.get(DataSource).query(`SELECT pg_notify('corral_barrier_load_test', 'x')`);
    await notifications.barrier();
    order.push('crossed');
    expect(order).toEqual(['notified', 'loaded', 'crossed']);
  });

  it('serves the callers that come while one is in flight with one more round trip, not one each', async () => {
    const sent: string[] = [];
    notifications.subscribe('corral_barrier', (payload) => void sent.push(payload ?? 'missed'));
    await notifications.barrier();
    sent.length = 0;
    await Promise.all(Array.from({ length: 50 }, () => notifications.barrier()));
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(2);
    // Callers after those rounds get a round of their own: it starts after they called.
    await notifications.barrier();
    expect(sent.length).toBeGreaterThan(1);
  });

  it(
    'takes a listening connection that lost its barrier for broken: the barrier fails with a 503, and the next one works on a new connection',
    async () => {
      const missed: (string | null)[] = [];
      notifications.subscribe('corral_barrier_missed_test', (payload) => void missed.push(payload));
      // A connection that stopped hearing its barriers, as one cut off without a reset would.
      const listener = (notifications as unknown as { listener: { query(sql: string): Promise<unknown> } }).listener;
      await listener.query('UNLISTEN corral_barrier');
      const started = Date.now();
      await expect(notifications.barrier()).rejects.toMatchObject({ message: DATABASE_UNREACHABLE });
      expect(Date.now() - started).toBeGreaterThanOrEqual(BARRIER_TIMEOUT_MS - 100);
      // Every cache is told that notifications may have been missed.
      expect(missed).toEqual([null]);
      await waitFor(() => notifications.listening, within('the listener back'));
      await notifications.barrier();
    },
    3 * BARRIER_TIMEOUT_MS,
  );
});
