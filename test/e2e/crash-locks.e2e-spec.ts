import { AgentProcess, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, type Form } from '../support/guest-api.js';

const ROOT_PASSWORD = 'crash-locks-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
const CREATES = 40;

// A control plane killed (SIGKILL) during a batch of creates on a sim agent leaves no lock behind:
// once it is back, every guest it had written is unlocked (its agent made it) or gone (its agent
// never did), and every task has ended.
describe('locks after the control plane is killed during creates', () => {
  let cp: ControlPlaneProcess | undefined;
  let agent: AgentProcess | undefined;
  let db: pg.Client;
  let root: string;
  let dataDir: string;
  let databaseUrl: string;
  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);

  /** The control plane on this test's data dir and database, on `port` (0: a free one). */
  const startControlPlane = async (port: number) => {
    cp = await startOnTestDatabase({ databaseUrl, dataDir, env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_PORT: String(port) } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
  };
  const count = async (sql: string): Promise<number> => ((await db.query(sql)).rows as { n: number }[])[0]?.n ?? 0;
  const online = () =>
    waitFor(async () => data<{ status: string }[]>(await send('/nodes')).some((node) => node.status === 'online'), {
      timeoutMs: PATIENCE_MS,
      what: 'host1 online',
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-crash-locks-'));
    dataDir = join(root, 'cp');
    await mkdir(dataDir);
    databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await startControlPlane(0);
    // The control plane comes back on the same port, so that the agent finds it again.
    const agentConfig = await api.joinedAgentConfig(root, 'host1');
    // Twice as slow as realistic: creates are still under way when the control plane is killed.
    agent = AgentProcess.agent(agentConfig, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '2' });
    await online();
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    await agent?.kill();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it(
    'every guest ends unlocked or gone, and every task ends',
    async () => {
      const asked = Array.from({ length: CREATES }, (_, i) =>
        send('/nodes/host1/qemu', 'POST', { vmid: 1000 + i, name: `vm${1000 + i}`, memory: 64, scsi0: 'local:1' }).catch(() => undefined),
      );
      await waitFor(async () => (await count(`SELECT count(*)::int AS n FROM "guests"`)) >= CREATES / 4, {
        timeoutMs: PATIENCE_MS,
        what: 'some guests written',
        intervalMs: 20,
      });
      const port = cp?.port ?? 0;
      await cp?.stop('SIGKILL');
      await Promise.all(asked);
      const locked = await count(`SELECT count(*)::int AS n FROM "guests" WHERE "lock" IS NOT NULL`);
      expect(locked).toBeGreaterThan(0);
      // As if the killed replica had been unseen for longer than the 30 s after which its tasks are ended.
      await db.query(`UPDATE "replicas" SET "seen" = now() - interval '1 hour'`);

      await startControlPlane(port);
      await online();
      await waitFor(
        async () =>
          (await count(`SELECT count(*)::int AS n FROM "guests" WHERE "lock" IS NOT NULL`)) === 0 &&
          (await count(`SELECT count(*)::int AS n FROM "tasks" WHERE "endtime" IS NULL`)) === 0,
        { timeoutMs: PATIENCE_MS, what: 'every lock reconciled and every task ended' },
      );
      // A guest kept is one its agent has: it starts.
      const kept = ((await db.query(`SELECT "vmid" FROM "guests" ORDER BY "vmid" LIMIT 1`)).rows as { vmid: number }[])[0];
      if (kept !== undefined) expect(await api.task('host1', `/nodes/host1/qemu/${kept.vmid}/status/start`)).toBe('OK');
    },
    3 * PATIENCE_MS,
  );
});
