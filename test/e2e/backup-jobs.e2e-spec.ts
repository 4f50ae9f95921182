import { AgentProcess, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi, guestEvents, type Form } from '../support/guest-api.js';

const ROOT_PASSWORD = 'backup-jobs-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 120_000;
const MINUTE_S = 60;

interface VzdumpTask {
  readonly starttime: number;
  readonly exitstatus: string | null;
}

// Backup jobs: a one-minute job runs once per minute with its events in
// order, and a run missed while the control plane was down is caught up exactly once after it
// restarts. The control plane and a sim agent run as the processes users start.
describe('a backup job on a one-minute schedule', () => {
  let cp: ControlPlaneProcess | undefined;
  let agent: AgentProcess | undefined;
  let db: pg.Client;
  let root: string;
  let dataDir: string;
  let databaseUrl: string;
  let api: ReturnType<typeof guestApi>;
  const send = (path: string, method?: string, form?: Form) => api.send(path, method, form);

  /** The control plane on this test's data dir and database, on `port` (0: a free one), reading schedules in UTC. */
  const startControlPlane = async (port: number) => {
    cp = await startOnTestDatabase({
      databaseUrl,
      dataDir,
      env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD, CORRAL_PORT: String(port), TZ: 'UTC' },
    });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
  };
  const vzdumpTasks = async (): Promise<VzdumpTask[]> =>
    (
      (await db.query(`SELECT "starttime", "exitstatus" FROM "tasks" WHERE "type" = 'vzdump' ORDER BY "starttime"`)).rows as {
        starttime: string;
        exitstatus: string | null;
      }[]
    ).map((row) => ({
      starttime: Number(row.starttime),
      exitstatus: row.exitstatus,
    }));
  /** Waits until `count` vzdump tasks have ended, and answers them. */
  const ended = async (count: number, timeoutMs: number) => {
    let tasks: VzdumpTask[] = [];
    await waitFor(
      async () => {
        tasks = await vzdumpTasks();
        return tasks.length >= count && tasks.every((task) => task.exitstatus !== null);
      },
      { timeoutMs, what: `${count} vzdump tasks ended` },
    );
    return tasks;
  };
  const minuteOf = (epochS: number) => Math.floor(epochS / MINUTE_S);
  const secondOf = (epochS: number) => epochS % MINUTE_S;
  const nowS = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-backup-jobs-'));
    dataDir = join(root, 'cp');
    await mkdir(dataDir);
    databaseUrl = await testDatabaseUrl();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await startControlPlane(0);
    // The control plane comes back on the same port, so that the agent finds it again.
    const agentConfig = await api.joinedAgentConfig(root, 'host1');
    agent = AgentProcess.agent(agentConfig, { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0' });
    await waitFor(async () => data<{ status: string }[]>(await send('/nodes')).some((node) => node.status === 'online'), {
      timeoutMs: PATIENCE_MS,
      what: 'host1 online',
    });
    expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 100, name: 'vm1', memory: 64, scsi0: 'local:0.0625' })).toBe('OK');
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    await agent?.kill();
    await cp?.stop();
    await db?.end();
    await rm(root, { recursive: true, force: true });
  });

  it(
    'runs once per minute with its events in order, and catches up the run missed while the control plane was down once',
    async () => {
      await db.query('DELETE FROM "events"');
      // Made early in a minute, so that "the next minute" is not ambiguous.
      await waitFor(() => secondOf(nowS()) < 45, { timeoutMs: MINUTE_S * 1000, what: 'an early second', intervalMs: 500 });
      const created = nowS();
      expect(
        data(await send('/cluster/backup', 'POST', { id: 'minutely', schedule: '*/1', vmid: 100, storage: 'local', compress: 'zstd' })),
      ).toBeNull();
      const job = data<{ 'next-run': number }>(await send('/cluster/backup/minutely'));
      expect(job['next-run']).toBe((minuteOf(created) + 1) * MINUTE_S);

      // Two runs, at the first seconds of two consecutive minutes after the job was made.
      const [first, second] = await ended(2, 2 * MINUTE_S * 1000 + PATIENCE_MS);
      expect([first, second].map((task) => task?.exitstatus)).toEqual(['OK', 'OK']);
      expect(minuteOf(first?.starttime ?? 0)).toBe(minuteOf(created) + 1);
      expect(minuteOf(second?.starttime ?? 0)).toBe(minuteOf(created) + 2);

      // Down for the next minute's slot: the control plane stops, and starts again 10 s after it;
      // the agent keeps running and reconnects (within its 30 s backoff).
      const port = cp?.port ?? 0;
      expect(await cp?.stop()).toBe(0);
      const missed = minuteOf(second?.starttime ?? 0) + 1;
      await waitFor(() => nowS() >= missed * MINUTE_S + 10, { timeoutMs: 2 * MINUTE_S * 1000, what: 'the slot to pass', intervalMs: 500 });
      expect(await vzdumpTasks()).toHaveLength(2);
      const restarted = nowS();
      await startControlPlane(port);

      // The missed slot runs once, as soon as the node is back; the next minute's slot runs on time.
      const tasks = await ended(4, 2 * MINUTE_S * 1000 + PATIENCE_MS);
      const [catchUp, next] = tasks.slice(2);
      expect(tasks.map((task) => task.exitstatus)).toEqual(['OK', 'OK', 'OK', 'OK']);
      expect(catchUp?.starttime).toBeGreaterThanOrEqual(restarted);
      expect(minuteOf(catchUp?.starttime ?? 0)).toBe(missed);
      expect(minuteOf(next?.starttime ?? 0)).toBe(missed + 1);

      expect(await guestEvents(db)).toEqual(Array.from({ length: 4 }, () => ['backup-start 100', 'backup-end 100']).flat());
      expect(data<{ volid: string }[]>(await send('/nodes/host1/storage/local/content?content=backup&vmid=100'))).toHaveLength(4);
    },
    8 * MINUTE_S * 1000,
  );
});
