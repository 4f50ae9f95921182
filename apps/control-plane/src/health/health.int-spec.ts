import { expectError } from '../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { HealthModule } from './health.module.js';
import { Readiness } from './readiness.js';

describe('the health endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [HealthModule] });
  });
  afterAll(() => t.close());

  it('answer without credentials: live, and ready once the database answers with every migration applied', async () => {
    const live = await t.api.get('/health/live');
    expect([live.status, live.json()]).toEqual([200, { data: { status: 'live' } }]);
    const ready = await t.api.get('/health/ready');
    expect([ready.status, ready.json()]).toEqual([200, { data: { status: 'ready' } }]);
  });

  it('is not ready while a migration of this version is not applied, and names it', async () => {
    const [last] = (await t.dataSource.query(`SELECT * FROM "migrations" ORDER BY "timestamp" DESC LIMIT 1`)) as {
      id: number;
      timestamp: string;
      name: string;
    }[];
    if (last === undefined) throw new Error('no migration was applied');
    await t.dataSource.query(`DELETE FROM "migrations" WHERE "id" = $1`, [last.id]);
    try {
      expectError(await t.api.get('/health/ready'), 503, `not ready: 1 migration(s) of this version are not applied: ${last.name}`);
      expect((await t.api.get('/health/live')).status).toBe(200);
    } finally {
      await t.dataSource.query(`INSERT INTO "migrations" ("id", "timestamp", "name") VALUES ($1, $2, $3)`, [
        last.id,
        last.timestamp,
        last.name,
      ]);
    }
    expect((await t.api.get('/health/ready')).status).toBe(200);
  });

  it('is not ready once the app begins to close, while it still answers', async () => {
    t.app.get(Readiness).onModuleDestroy();
    expectError(await t.api.get('/health/ready'), 503, 'not ready: this replica is shutting down');
    expect((await t.api.get('/health/live')).status).toBe(200);
  });
});
